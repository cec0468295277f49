"""The Cargo Phase (R9): Porters board and detrain passengers (R9.2), Laborers load and unload
freight through the MEN|AT|WORK track with hopping (R9.1.7, R9.3), workers once per Stage
(R9.1.6), Modifiers (R9.0.3), the industry-track lock (R9.3.3, D-grid.8), flipped cars
(R9.3.4), turn order (R9.0.1), the Revenue ledger (R2.4.7), the Freight Agent feeding the
boxes (R6.3) and the yards (C-yards).

Situations are built by hand during Local Operations of the first Stage; ``pass_local_ops``
then runs the New Train and Mainline phases into the Cargo Phase. A train kept at an office
is No. 9 Coal Drag carrying coaches: out of order, it holds (R8.1.2).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest
from conftest import (
    CAT,
    EMPTY,
    ENGINE,
    OFFICE_CELL,
    assert_invariants,
    car_counts,
    expect_illegal,
    fill_boxes,
    lay_by_hand,
    move_division_to_classification,
    new_state,
    pass_local_ops,
    pass_to_stage,
    place_facility,
    place_modifier,
    put_train_at_office,
    put_train_on_line,
    put_tray_in_station,
    set_consist,
    set_office,
    stand_cars,
)

from sm_env.core import cargo, queries
from sm_env.core.cars import BOXCAR, COACH, FLIPPED, HOPPER, N_CAR_CODES, REEFER, TANK, car_code
from sm_env.core.intents import (
    Area,
    Board,
    ChooseSwitch,
    Clearance,
    ClearInbound,
    Detrain,
    EndCargo,
    EndSwitching,
    Intent,
    Labor,
    MoveTray,
    Spot,
    StockOutbound,
    Unjam,
)
from sm_env.core.phases import Phase
from sm_env.core.pieces import Boxes, Station
from sm_env.core.state import GameState, LedgerEntry
from sm_env.core.switching import list_moves

Cell = tuple[int, int]

LOADED_COACH = car_code(COACH, True)
EMPTY_COACH = car_code(COACH, False)
LOADED_BOXCAR = car_code(BOXCAR, True)
EMPTY_BOXCAR = car_code(BOXCAR, False)
LOADED_HOPPER = car_code(HOPPER, True)
EMPTY_HOPPER = car_code(HOPPER, False)
LOADED_TANK = car_code(TANK, True)
LOADED_REEFER = car_code(REEFER, True)
EMPTY_TANK = car_code(TANK, False)
NO_LOAD = EMPTY  # an empty MEN|AT|WORK slot
YARD = (1, 0)  # where a freight facility is put by hand (its industry track)


# ----------------------------------------------------------------------------- helpers


def game(offices: int = 2, seed: int = 4) -> tuple[GameState, int, int]:
    """A fresh game in the first Local Operations turn: (state, deciding seat, its office)."""
    state = new_state(offices, seed)
    assert state.phase is Phase.LOCAL_OPS and state.stage == 0
    seat = state.current_player()
    return state, seat, state.office_of_seat[seat]


def station_of(state: GameState, seat: int) -> Station:
    return state.stations[state.office_of_seat[seat]]


def boxes_at(state: GameState, seat: int, cell: Cell) -> Boxes:
    return station_of(state, seat).boxes[cell]


def index_of(state: GameState, tray: object) -> int:
    return next(i for i, t in enumerate(state.trays) if t is tray)


def holding_train(state: GameState, office: int, cars: Iterable[int]) -> int:
    """No. 9 Coal Drag on an A/D track of ``office``, carrying ``cars`` (coaches among them):
    out of order, it holds in the Mainline Phase (R8.1.2). Returns its tray."""
    tray = set_consist(state, put_train_at_office(state, office, "train-9"), (ENGINE, *cars))
    assert queries.makeup_problem(state, tray) is not None
    return index_of(state, tray)


def stand(state: GameState, seat: int, cell: Cell, cars: Iterable[int]) -> None:
    """Cars from the Division Yard standing on ``cell`` of the seat's station, west to east
    (a ``FLIPPED`` code stands flipped, as if loaded on this visit)."""
    stand_cars(state, state.office_of_seat[seat], cell, cars)


def attach(state: GameState, seat: int, cell: Cell, card_id: str, facility: Cell) -> None:
    """A Modifier laid on ``cell`` serving the facility at ``facility`` (R9.0.3), by hand."""
    place_modifier(state, state.office_of_seat[seat], cell, card_id, facility)


def to_cargo(state: GameState, seat: int | None = None) -> None:
    """The rest of Local Operations passes; the Cargo Phase is due (for ``seat``)."""
    pass_local_ops(state)
    assert state.phase is Phase.CARGO, state.phase
    if seat is not None:
        assert state.current_player() == seat
    assert_invariants(state)


def left(state: GameState, seat: int, cell: Cell) -> int:
    station = station_of(state, seat)
    return cargo.workers_left(state, station, cell)


def labor(state: GameState, seat: int, cell: Cell, spot: Spot, car: int) -> None:
    """One legal Laborer action, checked to be offered first."""
    intent = Labor(seat, cell, spot, car)
    assert intent in state.legal_intents(), (intent, state.legal_intents())
    state.apply(intent)
    assert_invariants(state)


def siding(state: GameState, seat: int, card_id: str = "freight-house") -> tuple[Cell, Cell]:
    """Extend the Running Track west and lay a siding to a freight facility:

        row 1:            (1,0) turnout-right turned 180°  -  (1,1) facility
        row 0:  Limits  (0,-1) turnout-right  -  office  -  Limits

    Returns (the turnout on the siding, the facility's cell)."""
    office = state.office_of_seat[seat]
    lay_by_hand(state, office, (0, -1), "turnout-right")  # the west Limits moves outward (D-grid.7)
    lay_by_hand(state, office, (1, 0), "turnout-right", rotated=True)
    place_facility(state, seat, (1, 1), card_id)
    return (1, 0), (1, 1)


def ledger_of(state: GameState, seat: int) -> list[LedgerEntry]:
    return [entry for entry in state.ledger if entry.seat == seat]


# ----------------------------------------------------------------------------- passengers (R9.2)


def test_r9_2_1_a_porter_boards_passengers() -> None:
    """R9.2.1: the loaded coach takes the westernmost empty coach's place, flipped; the empty
    goes to the Classification Yard; +1. A Depot's one Porter then has worked (R9.1.6)."""
    state, seat, office = game()
    boxes = set_office(state, seat, "depot", outbound=[LOADED_COACH])
    tray = holding_train(state, office, [LOADED_COACH, EMPTY_COACH, EMPTY_COACH])
    to_cargo(state, seat)
    legal = state.legal_intents()
    assert Board(seat, tray) in legal and Detrain(seat, tray) in legal
    classification = state.classification[:]
    division = state.division[:]

    state.apply(Board(seat, tray))

    assert state.trays[tray].consist == (ENGINE, LOADED_COACH, LOADED_COACH | FLIPPED, EMPTY_COACH)
    assert boxes.outbound == [] and boxes.inbound == []
    assert state.classification[EMPTY_COACH] == classification[EMPTY_COACH] + 1
    assert state.division == division
    assert state.revenue()[seat] == 1
    (entry,) = state.ledger
    assert entry[:5] == (0, 0, seat, 1, "R9.2.1")
    # The Depot's only Porter has worked: no Detrain follows, the Stage is over.
    assert state.phase is Phase.LOCAL_OPS and state.stage == 1
    assert_invariants(state)


def test_r9_2_2_a_porter_detrains_passengers() -> None:
    """R9.2.2: the westernmost unflipped loaded coach goes to the red box; an empty coach from
    the Division Yard takes its place; +1."""
    state, seat, office = game()
    boxes = set_office(state, seat, "depot")
    tray = holding_train(state, office, [LOADED_COACH | FLIPPED, LOADED_COACH, LOADED_COACH])
    to_cargo(state, seat)
    assert state.legal_intents() == [Detrain(seat, tray), EndCargo(seat)]
    division = state.division[:]

    state.apply(Detrain(seat, tray))

    assert state.trays[tray].consist == (ENGINE, LOADED_COACH | FLIPPED, EMPTY_COACH, LOADED_COACH)
    assert boxes.inbound == [LOADED_COACH]
    assert state.division[EMPTY_COACH] == division[EMPTY_COACH] - 1
    assert state.revenue()[seat] == 1
    assert state.ledger[-1][:5] == (0, 0, seat, 1, "R9.2.2")
    assert state.phase is Phase.LOCAL_OPS  # the one Porter has worked
    assert_invariants(state)


def _no_empty_coach() -> tuple[GameState, Intent]:
    state, seat, office = game()
    set_office(state, seat, "depot", outbound=[LOADED_COACH])
    tray = holding_train(state, office, [LOADED_COACH, EMPTY_COACH])
    move_division_to_classification(state, EMPTY_COACH)
    to_cargo(state, seat)
    return state, Detrain(seat, tray)


def _red_box_full() -> tuple[GameState, Intent]:
    state, seat, office = game()
    set_office(state, seat, "station", outbound=[LOADED_COACH], inbound=[LOADED_COACH, LOADED_COACH])
    tray = holding_train(state, office, [LOADED_COACH, EMPTY_COACH])
    to_cargo(state, seat)
    return state, Detrain(seat, tray)


def _only_flipped_aboard() -> tuple[GameState, Intent]:
    state, seat, office = game()
    set_office(state, seat, "depot", outbound=[LOADED_COACH])
    tray = holding_train(state, office, [LOADED_COACH | FLIPPED, EMPTY_COACH])
    to_cargo(state, seat)
    return state, Detrain(seat, tray)


def _porter_used() -> tuple[GameState, Intent]:
    state, seat, office = game()
    set_office(state, seat, "depot", outbound=[LOADED_COACH])
    tray = holding_train(state, office, [LOADED_COACH, EMPTY_COACH])
    place_facility(state, seat, YARD, "mine-tipple", outbound=[LOADED_HOPPER])
    stand(state, seat, YARD, [EMPTY_HOPPER])
    to_cargo(state, seat)
    state.apply(Board(seat, tray))
    assert state.current_player() == seat  # the Laborers can still work
    return state, Detrain(seat, tray)


def _tray_off_the_office(board: bool) -> Callable[[], tuple[GameState, Intent]]:
    def build() -> tuple[GameState, Intent]:
        state, seat, office = game()
        set_office(state, seat, "depot", outbound=[LOADED_COACH])
        holding_train(state, office, [EMPTY_COACH])
        away = put_tray_in_station(state, seat, (0, 1))  # on the east Limits, not an A/D track
        set_consist(state, away, (ENGINE, LOADED_COACH, EMPTY_COACH))
        to_cargo(state, seat)
        tray = index_of(state, away)
        return state, Board(seat, tray) if board else Detrain(seat, tray)

    return build


def _whistle_post() -> tuple[GameState, Intent]:
    state, seat, office = game()
    tray = holding_train(state, office, [LOADED_COACH])
    place_facility(state, seat, YARD, "mine-tipple", outbound=[LOADED_HOPPER])
    stand(state, seat, YARD, [EMPTY_HOPPER])
    to_cargo(state, seat)
    return state, Detrain(seat, tray)


@pytest.mark.parametrize(
    ("build", "rule", "match"),
    [
        (_no_empty_coach, "C-yards.1", "Division Yard holds no empty coach"),
        (_red_box_full, "R9.1.3", "red box is full"),
        (_only_flipped_aboard, "R9.3.4", "boarded here"),
        (_porter_used, "R9.1.6", "already worked"),
        (_tray_off_the_office(False), "R9.2.2", "not a train on an A/D track"),
        (_tray_off_the_office(True), "R9.2.1", "not a train on an A/D track"),
        (_whistle_post, "R9.2.2", "Whistle Post has no Porter"),
    ],
    ids=["no-empty-coach", "red-box-full", "flipped", "porter-used", "detrain-off", "board-off", "whistle"],
)
def test_r9_2_2_porter_refusals(build: Callable[[], tuple[GameState, Intent]], rule: str, match: str) -> None:
    """R9.2.2 / R9.2.1 refusals name their rule and leave the state unchanged; the refused
    action is not offered."""
    state, intent = build()
    assert state.phase is Phase.CARGO
    assert intent not in state.legal_intents()
    expect_illegal(state, intent, rule, match)
    assert_invariants(state)


# ----------------------------------------------------------------------------- freight (R9.3)


def test_r9_3_1_laborers_load_a_boxcar_over_two_stages() -> None:
    """R9.3.1: green -> MEN -> AT (Stage 1, both Laborers), AT -> WORK -> the westernmost empty
    boxcar (Stage 2): it is replaced by a flipped loaded boxcar, the empty retires, +1."""
    state, seat, _ = game()
    boxes = place_facility(state, seat, YARD, "freight-house", outbound=[LOADED_BOXCAR])
    stand(state, seat, YARD, [LOADED_HOPPER, EMPTY_BOXCAR, EMPTY_BOXCAR])
    to_cargo(state, seat)
    assert left(state, seat, YARD) == 2

    labor(state, seat, YARD, Spot.GREEN, LOADED_BOXCAR)
    assert boxes.outbound == [] and boxes.work == [LOADED_BOXCAR, NO_LOAD, NO_LOAD]
    assert boxes.unloading == [False, False, False]
    labor(state, seat, YARD, Spot.MEN, LOADED_BOXCAR)
    assert boxes.work == [NO_LOAD, LOADED_BOXCAR, NO_LOAD]
    assert state.ledger == []
    assert state.phase is Phase.LOCAL_OPS and state.stage == 1  # both Laborers have worked

    to_cargo(state, seat)
    assert left(state, seat, YARD) == 2  # fresh in the next Stage (R9.1.6)
    classification = state.classification[EMPTY_BOXCAR]
    labor(state, seat, YARD, Spot.AT, LOADED_BOXCAR)
    assert boxes.work == [NO_LOAD, NO_LOAD, LOADED_BOXCAR]
    labor(state, seat, YARD, Spot.WORK, LOADED_BOXCAR)
    assert boxes.work == [NO_LOAD] * 3
    assert station_of(state, seat).cars[YARD] == (LOADED_HOPPER, LOADED_BOXCAR | FLIPPED, EMPTY_BOXCAR)
    assert state.classification[EMPTY_BOXCAR] == classification + 1
    assert [entry[:5] for entry in state.ledger] == [(0, 1, seat, 1, "R9.3.1")]
    assert state.revenue()[seat] == 1


def test_r9_3_1_four_laborers_load_a_hopper_in_one_stage() -> None:
    """R9.3.1 with two Loading Docks (R9.0.3): four Laborers take a load from the green box
    into an empty hopper in one Cargo turn."""
    state, seat, _ = game()
    place_facility(state, seat, YARD, "mine-tipple", outbound=[LOADED_HOPPER])
    attach(state, seat, (2, 0), "loading-dock", YARD)
    attach(state, seat, (1, 1), "loading-dock", YARD)
    stand(state, seat, YARD, [EMPTY_HOPPER, EMPTY_HOPPER])
    to_cargo(state, seat)
    assert queries.workers(state, station_of(state, seat), YARD) == 4
    for spot in (Spot.GREEN, Spot.MEN, Spot.AT, Spot.WORK):
        assert state.stage == 0
        labor(state, seat, YARD, spot, LOADED_HOPPER)
    assert station_of(state, seat).cars[YARD] == (LOADED_HOPPER | FLIPPED, EMPTY_HOPPER)
    assert [entry[:5] for entry in state.ledger] == [(0, 0, seat, 1, "R9.3.1")]


def test_r9_3_1_no_load_leaves_the_green_box_without_an_empty_car_for_it() -> None:
    """R9.3.1: the industry track must hold an empty car of the load's type; an empty of
    another type does not count."""
    state, seat, _ = game()
    place_facility(state, seat, YARD, "freight-house", outbound=[LOADED_BOXCAR])
    stand(state, seat, YARD, [EMPTY_HOPPER, LOADED_BOXCAR])  # the loaded boxcar can be unloaded
    to_cargo(state, seat)
    assert Labor(seat, YARD, Spot.GREEN, LOADED_BOXCAR) not in state.legal_intents()
    expect_illegal(state, Labor(seat, YARD, Spot.GREEN, LOADED_BOXCAR), "R9.3.1", "no empty boxcar")
    assert_invariants(state)


def test_r9_3_1_each_empty_car_takes_one_load_at_a_time() -> None:
    """R9.3.1: a second load may not leave the green box while the only empty boxcar is
    already promised to a load on MEN|AT|WORK."""
    state, seat, _ = game()
    place_facility(state, seat, YARD, "freight-house", outbound=[LOADED_BOXCAR, LOADED_BOXCAR])
    attach(state, seat, (2, 0), "loading-dock", YARD)
    stand(state, seat, YARD, [EMPTY_BOXCAR])
    to_cargo(state, seat)
    labor(state, seat, YARD, Spot.GREEN, LOADED_BOXCAR)
    assert left(state, seat, YARD) == 2  # enough to hop over MEN
    assert Labor(seat, YARD, Spot.GREEN, LOADED_BOXCAR) not in state.legal_intents()
    expect_illegal(state, Labor(seat, YARD, Spot.GREEN, LOADED_BOXCAR), "R9.3.1", "no empty boxcar")


def test_r9_3_3_no_load_starts_while_a_train_stands_on_the_industry_track() -> None:
    """R9.3.3: a tray on the facility's card blocks loads from entering MEN|AT|WORK, from the
    green box or from a car."""
    state, seat, _ = game()
    boxes = place_facility(state, seat, YARD, "freight-house", outbound=[LOADED_BOXCAR])
    put_tray_in_station(state, seat, YARD)
    stand(state, seat, YARD, [EMPTY_BOXCAR, LOADED_BOXCAR])
    place_facility(state, seat, (-1, 0), "power-plant")  # something else to do this turn
    stand(state, seat, (-1, 0), [LOADED_TANK])
    to_cargo(state, seat)
    legal = state.legal_intents()
    assert legal == [Labor(seat, (-1, 0), Spot.TRACK, LOADED_TANK), EndCargo(seat)]
    expect_illegal(state, Labor(seat, YARD, Spot.GREEN, LOADED_BOXCAR), "R9.3.3", "train stands")
    expect_illegal(state, Labor(seat, YARD, Spot.TRACK, LOADED_BOXCAR), "R9.3.3", "train stands")
    assert boxes.work == [NO_LOAD] * 3


def test_r9_3_2_laborers_unload_a_hopper_over_two_stages() -> None:
    """R9.3.2: the first Laborer swaps the westernmost loaded hopper for an empty from the
    Division Yard and puts the load on WORK; then AT, MEN and the red box: +1 only there."""
    state, seat, _ = game()
    boxes = place_facility(state, seat, YARD, "power-plant")
    stand(state, seat, YARD, [EMPTY_HOPPER, LOADED_HOPPER, LOADED_TANK, LOADED_HOPPER])
    to_cargo(state, seat)
    division = state.division[EMPTY_HOPPER]

    labor(state, seat, YARD, Spot.TRACK, LOADED_HOPPER)
    cars = station_of(state, seat).cars[YARD]
    assert cars == (EMPTY_HOPPER, EMPTY_HOPPER, LOADED_TANK, LOADED_HOPPER)
    assert state.division[EMPTY_HOPPER] == division - 1
    assert boxes.work == [NO_LOAD, NO_LOAD, LOADED_HOPPER] and boxes.unloading == [False, False, True]
    labor(state, seat, YARD, Spot.WORK, LOADED_HOPPER)
    assert boxes.work == [NO_LOAD, LOADED_HOPPER, NO_LOAD]
    assert state.ledger == [] and state.stage == 1

    to_cargo(state, seat)
    labor(state, seat, YARD, Spot.AT, LOADED_HOPPER)
    assert boxes.work == [LOADED_HOPPER, NO_LOAD, NO_LOAD] and state.ledger == []
    labor(state, seat, YARD, Spot.MEN, LOADED_HOPPER)
    assert boxes.work == [NO_LOAD] * 3 and boxes.inbound == [LOADED_HOPPER]
    assert [entry[:5] for entry in state.ledger] == [(0, 1, seat, 1, "R9.3.2")]


def _power_plant(
    track: Iterable[int], inbound: Iterable[int] = (), work: Iterable[int] | None = None
) -> tuple[GameState, int]:
    state, seat, _ = game()
    place_facility(state, seat, YARD, "power-plant", inbound=inbound, work=work)
    stand(state, seat, YARD, track)
    return state, seat


def test_r9_3_2_unloading_needs_an_empty_of_its_type_in_the_division_yard() -> None:
    """R9.3.2 / C-yards.1: no empty hopper in the Division Yard, no hopper unloading; a tank
    car still can."""
    state, seat = _power_plant([LOADED_HOPPER, LOADED_TANK])
    move_division_to_classification(state, EMPTY_HOPPER)
    to_cargo(state, seat)
    assert state.legal_intents() == [Labor(seat, YARD, Spot.TRACK, LOADED_TANK), EndCargo(seat)]
    expect_illegal(state, Labor(seat, YARD, Spot.TRACK, LOADED_HOPPER), "C-yards.1", "no empty hopper")
    assert state.classification[EMPTY_HOPPER] > 0  # C-yards.4: not a source


def test_r9_1_3_a_load_waits_on_men_while_the_red_box_is_full() -> None:
    """R9.1.3 / R9.3.2: the last step needs room in the red box."""
    state, seat = _power_plant(
        [LOADED_TANK],
        inbound=[LOADED_HOPPER, LOADED_TANK, LOADED_TANK],
        work=[LOADED_HOPPER, NO_LOAD, NO_LOAD],
    )
    to_cargo(state, seat)
    assert Labor(seat, YARD, Spot.MEN, LOADED_HOPPER) not in state.legal_intents()
    expect_illegal(state, Labor(seat, YARD, Spot.MEN, LOADED_HOPPER), "R9.1.3", "waits on MEN")
    labor(state, seat, YARD, Spot.TRACK, LOADED_TANK)  # the other load may still come off
    assert boxes_at(state, seat, YARD).work == [LOADED_HOPPER, NO_LOAD, LOADED_TANK]


def test_r9_3_4_a_flipped_car_is_not_unloaded() -> None:
    """R9.3.4: a car loaded on this visit (flipped) may not be unloaded for a second point."""
    state, seat = _power_plant([LOADED_HOPPER | FLIPPED, LOADED_TANK])
    to_cargo(state, seat)
    assert state.legal_intents() == [Labor(seat, YARD, Spot.TRACK, LOADED_TANK), EndCargo(seat)]
    expect_illegal(state, Labor(seat, YARD, Spot.TRACK, LOADED_HOPPER), "R9.3.4", "loaded here")


def test_r9_3_4_a_boxcar_loaded_at_a_freight_house_is_not_unloaded_there() -> None:
    """R9.3.4: the Freight House works both ways, but the boxcar its Laborers loaded cannot
    go straight back to its red box."""
    state, seat, _ = game()
    place_facility(state, seat, YARD, "freight-house", work=[NO_LOAD, NO_LOAD, LOADED_BOXCAR])
    stand(state, seat, YARD, [EMPTY_BOXCAR])
    to_cargo(state, seat)
    labor(state, seat, YARD, Spot.WORK, LOADED_BOXCAR)
    assert station_of(state, seat).cars[YARD] == (LOADED_BOXCAR | FLIPPED,)
    # The second Laborer has nothing to do: the turn ended by itself (R9.0.1).
    assert state.phase is Phase.LOCAL_OPS
    assert [entry.rule for entry in state.ledger] == ["R9.3.1"]


def test_r9_3_1_a_load_on_work_needs_an_empty_car_of_its_type_to_go_into() -> None:
    """R9.3.1: moved off WORK, a load replaces an empty car of its type on the industry track.
    With none there (a slot load built by hand, as conftest allows) the move is neither
    offered nor accepted; it is refused with R9.3.1 and the state is unchanged."""
    state, seat, office = game()
    set_office(state, seat, "depot", outbound=[LOADED_COACH])  # so the seat has a Cargo turn
    holding_train(state, office, [EMPTY_COACH])
    place_facility(state, seat, YARD, "mine-tipple", work=[NO_LOAD, NO_LOAD, LOADED_HOPPER])
    stand(state, seat, YARD, [EMPTY_BOXCAR])  # an empty car, but not a hopper
    to_cargo(state, seat)
    assert Labor(seat, YARD, Spot.WORK, LOADED_HOPPER) not in state.legal_intents()
    expect_illegal(state, Labor(seat, YARD, Spot.WORK, LOADED_HOPPER), "R9.3.1", "empty hopper")


# ----------------------------------------------------------------------------- hopping (R9.1.7)


def test_r9_1_7_a_load_hops_over_an_occupied_slot_one_laborer_per_position() -> None:
    """R9.1.7: green -> (MEN taken) -> AT costs two Laborers; the load never ends on an
    occupied slot."""
    state, seat, _ = game()
    boxes = place_facility(
        state, seat, YARD, "mine-tipple", outbound=[LOADED_HOPPER], work=[LOADED_HOPPER, NO_LOAD, NO_LOAD]
    )
    stand(state, seat, YARD, [EMPTY_HOPPER, EMPTY_HOPPER])
    to_cargo(state, seat)
    labor(state, seat, YARD, Spot.GREEN, LOADED_HOPPER)
    assert boxes.work == [LOADED_HOPPER, LOADED_HOPPER, NO_LOAD]
    assert boxes.outbound == []
    assert state.phase is Phase.LOCAL_OPS  # both Laborers spent on the one hop


def test_r9_1_7_a_hop_into_the_car_over_work() -> None:
    """R9.1.7: a load on AT with WORK taken goes straight into the car for two Laborers."""
    state, seat, _ = game()
    boxes = place_facility(state, seat, YARD, "mine-tipple", work=[NO_LOAD, LOADED_HOPPER, LOADED_HOPPER])
    stand(state, seat, YARD, [EMPTY_HOPPER, EMPTY_HOPPER])
    to_cargo(state, seat)
    labor(state, seat, YARD, Spot.AT, LOADED_HOPPER)
    assert boxes.work == [NO_LOAD, NO_LOAD, LOADED_HOPPER]
    assert station_of(state, seat).cars[YARD] == (LOADED_HOPPER | FLIPPED, EMPTY_HOPPER)
    assert [entry.rule for entry in state.ledger] == ["R9.3.1"]


def test_r9_1_6_a_hop_needs_as_many_laborers_as_positions() -> None:
    """R9.1.7 / R9.1.6: green -> WORK over MEN and AT takes three; two Laborers cannot."""
    state, seat, _ = game()
    boxes = place_facility(
        state,
        seat,
        YARD,
        "mine-tipple",
        outbound=[LOADED_HOPPER],
        work=[LOADED_HOPPER, LOADED_HOPPER, NO_LOAD],
    )
    stand(state, seat, YARD, [EMPTY_HOPPER, EMPTY_HOPPER, EMPTY_HOPPER])
    to_cargo(state, seat)
    assert Labor(seat, YARD, Spot.GREEN, LOADED_HOPPER) not in state.legal_intents()
    expect_illegal(state, Labor(seat, YARD, Spot.GREEN, LOADED_HOPPER), "R9.1.6", "takes 3 Laborer")
    labor(state, seat, YARD, Spot.AT, LOADED_HOPPER)
    assert boxes.work == [LOADED_HOPPER, NO_LOAD, LOADED_HOPPER]
    assert left(state, seat, YARD) == 1
    # Now green -> AT costs two (over MEN): still one too many.
    expect_illegal(state, Labor(seat, YARD, Spot.GREEN, LOADED_HOPPER), "R9.1.6", "takes 2 Laborer")


def test_r9_1_7_loads_both_ways_share_the_slots_at_a_freight_house() -> None:
    """R9.1.7: an inbound load on WORK makes the outbound load behind it hop into the car,
    and the inbound load then hops over MEN to the red box."""
    state, seat, _ = game()
    boxes = place_facility(state, seat, YARD, "freight-house", work=[NO_LOAD, LOADED_BOXCAR, NO_LOAD])
    attach(state, seat, (2, 0), "loading-dock", YARD)
    stand(state, seat, YARD, [EMPTY_BOXCAR, LOADED_BOXCAR])
    to_cargo(state, seat)
    labor(state, seat, YARD, Spot.TRACK, LOADED_BOXCAR)  # the load goes on WORK, heading in
    assert boxes.work == [NO_LOAD, LOADED_BOXCAR, LOADED_BOXCAR]
    assert boxes.unloading == [False, False, True]
    labor(state, seat, YARD, Spot.AT, LOADED_BOXCAR)  # outbound: over WORK into a car
    assert boxes.work == [NO_LOAD, NO_LOAD, LOADED_BOXCAR]
    assert station_of(state, seat).cars[YARD] == (LOADED_BOXCAR | FLIPPED, EMPTY_BOXCAR)
    assert [entry.rule for entry in state.ledger] == ["R9.3.1"]
    assert state.phase is Phase.LOCAL_OPS  # 1 + 2 Laborers spent


# ----------------------------------------------------------------------------- workers (R9.1.6)


def test_r9_1_6_spent_laborers_end_the_turn_and_are_fresh_next_stage() -> None:
    """R9.1.6: once the Laborers are spent the turn passes to the next seat; in the next
    Stage's Cargo Phase they work again."""
    state, seat, _ = game()
    other = (seat + 1) % state.n
    for s in (seat, other):
        place_facility(state, s, YARD, "mine-tipple", outbound=[LOADED_HOPPER])
        stand(state, s, YARD, [EMPTY_HOPPER])
    to_cargo(state, seat)
    labor(state, seat, YARD, Spot.GREEN, LOADED_HOPPER)
    assert state.current_player() == seat and left(state, seat, YARD) == 1
    labor(state, seat, YARD, Spot.MEN, LOADED_HOPPER)
    assert state.phase is Phase.CARGO and state.current_player() == other
    assert left(state, other, YARD) == 2
    expect_illegal(state, Labor(seat, YARD, Spot.AT, LOADED_HOPPER), "R5.0.1", f"seat {other} must decide")
    state.apply(EndCargo(other))
    assert state.phase is Phase.LOCAL_OPS and state.stage == 1

    to_cargo(state, seat)
    assert left(state, seat, YARD) == 2
    labor(state, seat, YARD, Spot.AT, LOADED_HOPPER)
    labor(state, seat, YARD, Spot.WORK, LOADED_HOPPER)
    assert [entry[:5] for entry in state.ledger] == [(0, 1, seat, 1, "R9.3.1")]


# ----------------------------------------------------------------------------- the lock (R9.3.3)


def test_r9_3_3_the_industry_track_is_locked_while_loads_are_worked() -> None:
    """R9.3.3: with a load on MEN|AT|WORK no Move enters the facility's card (none listed, an
    explicit one refused); once the load is in the car the Move is back and couples it."""
    state, seat, _ = game()
    turnout, facility = siding(state, seat)
    fill_boxes(state, state.office_of_seat[seat], facility, outbound=[LOADED_BOXCAR])
    stand(state, seat, facility, [EMPTY_BOXCAR])
    tray = index_of(state, put_tray_in_station(state, seat, turnout))
    into = MoveTray(seat, tray, (turnout, facility), (0, 0), 0)
    assert into in list_moves(state, seat, tray)
    assert_invariants(state)

    to_cargo(state, seat)
    labor(state, seat, facility, Spot.GREEN, LOADED_BOXCAR)
    labor(state, seat, facility, Spot.MEN, LOADED_BOXCAR)
    assert boxes_at(state, seat, facility).work == [NO_LOAD, LOADED_BOXCAR, NO_LOAD]

    assert state.phase is Phase.LOCAL_OPS and state.current_player() == seat
    state.apply(ChooseSwitch(seat))
    assert not [m for m in state.legal_intents() if isinstance(m, MoveTray) and facility in m.path]
    assert [m for m in state.legal_intents() if isinstance(m, MoveTray)]  # the tray can go elsewhere
    expect_illegal(state, into, "R9.3.3", "locked")
    state.apply(EndSwitching(seat))

    to_cargo(state, seat)
    labor(state, seat, facility, Spot.AT, LOADED_BOXCAR)
    labor(state, seat, facility, Spot.WORK, LOADED_BOXCAR)
    assert station_of(state, seat).cars[facility] == (LOADED_BOXCAR | FLIPPED,)

    assert state.phase is Phase.LOCAL_OPS and state.current_player() == seat
    state.apply(ChooseSwitch(seat))
    assert into in state.legal_intents()
    state.apply(into)
    assert state.trays[tray].consist == (ENGINE, LOADED_BOXCAR | FLIPPED)  # RA.4.4: coupled
    assert facility not in station_of(state, seat).cars
    assert_invariants(state)


def test_d_grid_8_no_more_than_four_cars_on_an_industry_track() -> None:
    """D-grid.8: a tray on the industry track with three cars behind it may leave one more
    there, not two."""
    state, seat, _ = game()
    turnout, facility = siding(state, seat)
    stand(state, seat, facility, [EMPTY_BOXCAR, EMPTY_HOPPER, EMPTY_TANK])
    tray = put_tray_in_station(state, seat, facility)
    # the three cars stand east of the tray, at the end of the stub
    set_consist(state, tray, (ENGINE, EMPTY_BOXCAR, LOADED_HOPPER), split=0)
    index = index_of(state, tray)
    assert_invariants(state)
    state.apply(ChooseSwitch(seat))
    moves = [m for m in state.legal_intents() if isinstance(m, MoveTray)]
    assert {m.drops[0] for m in moves} == {0, 1}
    expect_illegal(state, MoveTray(seat, index, (facility, turnout), (2, 0), 0), "D-grid.8", "at most 4")
    state.apply(MoveTray(seat, index, (facility, turnout), (1, 0), 0))
    assert len(station_of(state, seat).cars[facility]) == 4
    assert_invariants(state)


# ----------------------------------------------------------------------------- modifiers (R9.0.3)


def test_r9_0_3_a_loading_dock_adds_a_laborer() -> None:
    """R9.0.3: a Freight House with a Loading Dock has three Laborers: green -> WORK in one
    Stage."""
    state, seat, _ = game()
    boxes = place_facility(state, seat, YARD, "freight-house", outbound=[LOADED_BOXCAR])
    stand(state, seat, YARD, [EMPTY_BOXCAR])
    attach(state, seat, (1, 1), "loading-dock", YARD)
    to_cargo(state, seat)
    assert queries.workers(state, station_of(state, seat), YARD) == 3
    for spot in (Spot.GREEN, Spot.MEN, Spot.AT):
        assert state.stage == 0
        labor(state, seat, YARD, spot, LOADED_BOXCAR)
    assert boxes.work == [NO_LOAD, NO_LOAD, LOADED_BOXCAR]
    assert state.phase is Phase.LOCAL_OPS and state.stage == 1


def test_r9_0_3_a_baggage_room_adds_a_porter() -> None:
    """R9.0.3: a Depot with a Baggage Room has two Porters: board and detrain in one turn."""
    state, seat, office = game()
    boxes = set_office(state, seat, "depot", outbound=[LOADED_COACH])
    attach(state, seat, (1, 0), "baggage-room", OFFICE_CELL)
    tray = holding_train(state, office, [LOADED_COACH, EMPTY_COACH])
    to_cargo(state, seat)
    assert queries.workers(state, station_of(state, seat), OFFICE_CELL) == 2
    state.apply(Board(seat, tray))
    assert state.legal_intents() == [Detrain(seat, tray), EndCargo(seat)]
    state.apply(Detrain(seat, tray))
    assert state.trays[tray].consist == (ENGINE, EMPTY_COACH, LOADED_COACH | FLIPPED)
    assert boxes.inbound == [LOADED_COACH]
    assert [entry.rule for entry in state.ledger] == ["R9.2.1", "R9.2.2"]
    assert state.phase is Phase.LOCAL_OPS
    assert_invariants(state)


def test_r9_0_3_a_waiting_room_adds_passenger_capacity() -> None:
    """R9.0.3 / R9.1.3: a Depot's shared 2 becomes 3 with a Waiting Room: a third coach fits
    in the red box."""
    state, seat, office = game()
    boxes = set_office(state, seat, "depot", inbound=[LOADED_COACH, LOADED_COACH])
    tray = holding_train(state, office, [LOADED_COACH])
    attach(state, seat, (-1, 0), "waiting-room", OFFICE_CELL)
    to_cargo(state, seat)
    state.apply(Detrain(seat, tray))
    assert boxes.inbound == [LOADED_COACH] * 3
    assert_invariants(state)


def test_r9_0_3_a_loading_dock_between_two_facilities_serves_one_per_stage() -> None:
    """R9.0.3: a Loading Dock next to two Freight Houses may be used by either while unused
    this Stage; the one that uses its Laborer takes it for the Stage (it now serves that
    one), and the other may take it again in a later Stage."""
    state, seat, _ = game()
    west, east, dock = (1, 0), (1, 2), (1, 1)
    place_facility(state, seat, west, "freight-house", outbound=[LOADED_BOXCAR])
    place_facility(state, seat, east, "freight-house", outbound=[LOADED_BOXCAR])
    stand(state, seat, west, [EMPTY_BOXCAR])
    stand(state, seat, east, [EMPTY_BOXCAR])
    attach(state, seat, dock, "loading-dock", west)
    station = station_of(state, seat)
    to_cargo(state, seat)
    assert queries.workers(state, station, west) == queries.workers(state, station, east) == 3
    for spot in (Spot.GREEN, Spot.MEN, Spot.AT):  # the east house's third move is the Dock's
        labor(state, seat, east, spot, LOADED_BOXCAR)
    assert station.modifiers[dock] == east and dock in station.modifiers_used
    assert queries.workers(state, station, west) == 2
    assert queries.workers(state, station, east) == 3
    pass_to_stage(state, 1)
    assert station.modifiers_used == set()
    assert queries.workers(state, station, west) == 3  # free again: it may serve the west house
    assert_invariants(state)


def test_r9_0_3_a_facility_within_its_own_workers_leaves_the_modifier_free() -> None:
    """R9.0.3: only a facility that draws on a Modifier's effect uses it: two moves of a
    Freight House's own two Laborers leave the Dock free for its neighbour."""
    state, seat, _ = game()
    west, east, dock = (1, 0), (1, 2), (1, 1)
    place_facility(state, seat, west, "freight-house", outbound=[LOADED_BOXCAR])
    place_facility(state, seat, east, "freight-house", outbound=[LOADED_BOXCAR])
    stand(state, seat, east, [EMPTY_BOXCAR])
    attach(state, seat, dock, "loading-dock", west)
    station = station_of(state, seat)
    to_cargo(state, seat)
    for spot in (Spot.GREEN, Spot.MEN):
        labor(state, seat, east, spot, LOADED_BOXCAR)
    assert station.modifiers[dock] == west and not station.modifiers_used


def test_r9_0_3_a_warehouse_annex_gives_its_capacity_to_one_facility_per_stage() -> None:
    """R9.0.3 / R9.1.3: a Warehouse Annex between two Packing Sheds (green box 2 each): the
    Freight Agent stocks a third reefer on the one it does not serve, which takes the Annex
    for the Stage; the other has no room for a third until a later Stage."""
    state, seat, office = game()
    west, east, annex = (1, 0), (1, 2), (1, 1)
    place_facility(state, seat, west, "packing-sheds", outbound=[LOADED_REEFER] * 2)
    place_facility(state, seat, east, "packing-sheds", outbound=[LOADED_REEFER] * 2)
    attach(state, seat, annex, "warehouse-annex", west)
    station = station_of(state, seat)
    assert queries.capacity_bonus(state, station, west) == queries.capacity_bonus(state, station, east) == 1
    assert StockOutbound(seat, west, LOADED_REEFER) in state.legal_intents()
    state.apply(StockOutbound(seat, east, LOADED_REEFER))
    assert station.modifiers[annex] == east and annex in station.modifiers_used
    assert queries.capacity_bonus(state, station, west) == 0
    assert not [
        i for i in state.legal_intents() if i == StockOutbound(state.current_player(), west, LOADED_REEFER)
    ]
    pass_to_stage(state, 1)
    assert queries.capacity_bonus(state, station, west) == 1
    assert_invariants(state)


def test_r9_1_3_without_a_waiting_room_the_depot_red_box_is_full() -> None:
    """R9.1.3: the same Depot without the Waiting Room: nothing to do, the seat is skipped."""
    state, seat, office = game()
    set_office(state, seat, "depot", inbound=[LOADED_COACH, LOADED_COACH])
    holding_train(state, office, [LOADED_COACH])
    pass_local_ops(state)
    assert state.phase is Phase.LOCAL_OPS and state.stage == 1
    assert state.ledger == []
    assert_invariants(state)


def test_r9_0_3_a_warehouse_annex_adds_freight_capacity() -> None:
    """R9.0.3: a Power Plant's red box takes 4 with a Warehouse Annex."""
    state, seat = _power_plant(
        [], inbound=[LOADED_HOPPER, LOADED_TANK, LOADED_TANK], work=[LOADED_HOPPER, NO_LOAD, NO_LOAD]
    )
    attach(state, seat, (1, 1), "warehouse-annex", YARD)
    to_cargo(state, seat)
    labor(state, seat, YARD, Spot.MEN, LOADED_HOPPER)
    assert boxes_at(state, seat, YARD).inbound == [LOADED_HOPPER, LOADED_TANK, LOADED_TANK, LOADED_HOPPER]
    assert [entry.rule for entry in state.ledger] == ["R9.3.2"]


# ----------------------------------------------------------------------------- turns (R9.0.1)


def test_r9_0_1_turns_go_leftward_from_the_fedora_and_idle_seats_are_skipped() -> None:
    """R9.0.1: the Fedora holder first, then leftward; a seat with nothing to do is skipped;
    EndCargo ends a turn early and the unused Laborers lapse."""
    state, first, _ = game(offices=3, seed=4)
    assert first == state.fedora
    idle, last = (first + 1) % 3, (first + 2) % 3
    for s in (first, last):
        place_facility(state, s, YARD, "mine-tipple", outbound=[LOADED_HOPPER])
        stand(state, s, YARD, [EMPTY_HOPPER])
    place_facility(state, idle, YARD, "freight-house", outbound=[LOADED_BOXCAR])  # no empty boxcar
    to_cargo(state, first)

    labor(state, first, YARD, Spot.GREEN, LOADED_HOPPER)
    assert state.current_player() == first and left(state, first, YARD) == 1
    state.apply(EndCargo(first))
    assert state.current_player() == last  # the idle seat was skipped
    assert [e.seat for e in state.events if e.kind == "end-cargo"] == [first]
    state.apply(EndCargo(last))
    assert state.phase is Phase.LOCAL_OPS and state.stage == 1

    to_cargo(state, first)
    assert left(state, first, YARD) == 2  # the lapsed Laborer does not carry over
    assert_invariants(state)


def test_r9_0_1_a_cargo_phase_with_nothing_to_do_asks_nobody() -> None:
    """R9.0.1: no worker action anywhere: the Stage ends without a Cargo decision."""
    state, seat, _ = game()
    set_office(state, seat, "depot", outbound=[LOADED_COACH])  # no train to board
    place_facility(state, seat, YARD, "freight-house", outbound=[LOADED_BOXCAR])  # no empty
    pass_local_ops(state)
    assert state.phase is Phase.LOCAL_OPS and state.stage == 1
    assert not [e for e in state.events if e.kind == "end-cargo"]
    assert_invariants(state)


# ----------------------------------------------------------------------------- ledger (R2.4.7)


def test_r2_4_7_the_ledger_records_every_point_by_seat_stage_and_rule() -> None:
    """R2.4.7: after boarding, detraining, loading and unloading by two seats over two
    Stages, each seat's revenue is the sum of its entries, each naming its rule."""
    state, seat, office = game()
    other = (seat + 1) % state.n
    set_office(state, seat, "depot", outbound=[LOADED_COACH])
    tray = holding_train(state, office, [LOADED_COACH, EMPTY_COACH])
    place_facility(
        state, seat, YARD, "mine-tipple", outbound=[LOADED_HOPPER], work=[NO_LOAD] * 2 + [LOADED_HOPPER]
    )
    stand(state, seat, YARD, [EMPTY_HOPPER, EMPTY_HOPPER])
    place_facility(state, other, YARD, "power-plant")
    stand(state, other, YARD, [LOADED_TANK])
    to_cargo(state, seat)

    state.apply(Board(seat, tray))  # R9.2.1, Stage 1
    labor(state, seat, YARD, Spot.WORK, LOADED_HOPPER)  # R9.3.1, Stage 1
    state.apply(EndCargo(seat))  # one Laborer lapses
    labor(state, other, YARD, Spot.TRACK, LOADED_TANK)
    labor(state, other, YARD, Spot.WORK, LOADED_TANK)
    assert state.stage == 1

    to_cargo(state, seat)
    state.apply(Detrain(seat, tray))  # R9.2.2, Stage 2
    state.apply(EndCargo(seat))
    labor(state, other, YARD, Spot.AT, LOADED_TANK)
    labor(state, other, YARD, Spot.MEN, LOADED_TANK)  # R9.3.2, Stage 2

    assert [entry[:5] for entry in state.ledger] == [
        (0, 0, seat, 1, "R9.2.1"),
        (0, 0, seat, 1, "R9.3.1"),
        (0, 1, seat, 1, "R9.2.2"),
        (0, 1, other, 1, "R9.3.2"),
    ]
    for s in range(state.n):
        assert state.revenue()[s] == sum(entry.amount for entry in ledger_of(state, s))
    assert state.revenue()[seat] == 3 and state.revenue()[other] == 1
    assert len([e for e in state.events if e.kind == "revenue"]) == 4
    assert all(isinstance(entry, LedgerEntry) and entry.text for entry in state.ledger)
    assert_invariants(state)


# ----------------------------------------------------------------------------- flips (R9.3.4)


def test_r9_3_4_clear_flips_turns_every_car_right_side_up() -> None:
    """R9.3.4: ``clear_flips`` drops the FLIPPED bit and leaves the engine alone."""
    consist = (LOADED_COACH | FLIPPED, ENGINE, EMPTY_COACH, LOADED_BOXCAR | FLIPPED)
    assert cargo.clear_flips(consist) == (LOADED_COACH, ENGINE, EMPTY_COACH, LOADED_BOXCAR)
    assert all(cargo.clear_flips((code,)) == (code,) for code in range(N_CAR_CODES))


def test_r9_3_4_a_boarded_coach_is_turned_right_side_up_when_its_train_highballs() -> None:
    """R9.3.4: a following train held by the Superintendent (R8.1.4) boards a coach in Stage 1
    (flipped); when it highballs in Stage 2 the coach is no longer flipped."""
    state, seat, office = game()
    set_office(state, seat, "depot", outbound=[LOADED_COACH])
    limited = put_train_at_office(state, office, "train-2")  # eastbound coaches
    set_consist(state, limited, (EMPTY_COACH, ENGINE))
    assert queries.makeup_problem(state, limited) is None
    put_train_on_line(state, office + 1, 0, "train-4")  # a following train ahead of it
    tray = index_of(state, limited)
    assert_invariants(state)

    pass_local_ops(state)
    assert state.phase is Phase.CLEARANCE
    state.apply(Clearance(state.fedora, False))
    assert state.phase is Phase.CARGO and state.current_player() == seat
    state.apply(Board(seat, tray))
    assert limited.consist == (LOADED_COACH | FLIPPED, ENGINE)
    assert state.stage == 1 and limited.cell == OFFICE_CELL

    pass_local_ops(state)
    while state.phase is Phase.CLEARANCE:
        state.apply(Clearance(state.fedora, True))
    assert limited.line == office + 1 and limited.office == EMPTY  # highballed
    assert limited.consist == (LOADED_COACH, ENGINE)
    assert_invariants(state)


# ----------------------------------------------------------------------------- Freight Agent (R6.3)


def test_r6_3_1_the_freight_agent_stocks_a_green_box_for_the_laborers() -> None:
    """R6.3.1: a loaded boxcar from the Division Yard to the green box in Local Operations;
    the Laborers move it the same Stage."""
    state, seat, _ = game()
    boxes = place_facility(state, seat, YARD, "freight-house")
    stand(state, seat, YARD, [EMPTY_BOXCAR])
    division = state.division[LOADED_BOXCAR]
    state.apply(StockOutbound(seat, YARD, LOADED_BOXCAR))
    assert boxes.outbound == [LOADED_BOXCAR] and state.division[LOADED_BOXCAR] == division - 1
    to_cargo(state, seat)
    labor(state, seat, YARD, Spot.GREEN, LOADED_BOXCAR)
    assert boxes.work[0] == LOADED_BOXCAR


def test_r6_3_2_clearing_the_red_box_lets_the_load_off_men() -> None:
    """R6.3.2 / R9.1.3: the Freight Agent clears a red box; the load waiting on MEN goes in."""
    state, seat = _power_plant(
        [], inbound=[LOADED_HOPPER, LOADED_TANK, LOADED_TANK], work=[LOADED_HOPPER, NO_LOAD, NO_LOAD]
    )
    classification = state.classification[LOADED_TANK]
    state.apply(ClearInbound(seat, YARD, LOADED_TANK))
    assert state.classification[LOADED_TANK] == classification + 1
    to_cargo(state, seat)
    labor(state, seat, YARD, Spot.MEN, LOADED_HOPPER)
    assert boxes_at(state, seat, YARD).inbound == [LOADED_HOPPER, LOADED_TANK, LOADED_HOPPER]


def test_r6_3_3_unjamming_the_last_load_unlocks_the_industry_track() -> None:
    """R6.3.3 / R9.3.3: the Freight Agent takes the only load off WORK (jammed: no empty boxcar
    on the industry track to take it); the track is Operational again."""
    state, seat, _ = game()
    turnout, facility = siding(state, seat)
    boxes = fill_boxes(state, state.office_of_seat[seat], facility, work=[NO_LOAD, NO_LOAD, LOADED_BOXCAR])
    tray = index_of(state, put_tray_in_station(state, seat, turnout))
    assert_invariants(state)
    assert not [m for m in list_moves(state, seat, tray) if facility in m.path]
    state.apply(Unjam(seat, facility, Area.WORK, LOADED_BOXCAR))
    assert boxes.work == [NO_LOAD] * 3
    assert [m for m in list_moves(state, seat, tray) if m.path[-1] == facility]
    assert_invariants(state)


# ----------------------------------------------------------------------------- yards (C-yards)


def _empty_division_but(state: GameState, keep: dict[int, int]) -> None:
    for code in range(N_CAR_CODES):
        move_division_to_classification(state, code, keep=keep.get(code, 0))


def test_c_yards_2_unloading_the_last_division_car_refills_the_yard() -> None:
    """C-yards.2: the empty hopper an unloading takes is the Division Yard's last car: every
    Classification car comes back at once."""
    state, seat = _power_plant([LOADED_HOPPER])
    _empty_division_but(state, {EMPTY_HOPPER: 1})
    assert state.division_total == 1
    to_cargo(state, seat)
    held = sum(state.classification)
    labor(state, seat, YARD, Spot.TRACK, LOADED_HOPPER)
    assert station_of(state, seat).cars[YARD] == (EMPTY_HOPPER,)
    assert state.classification == [0] * N_CAR_CODES
    assert state.division_total == sum(state.division) == held
    assert any(e.kind == "yard-refill" for e in state.events)


def test_c_yards_2_the_last_empty_coach_alone_does_not_refill() -> None:
    """C-yards.2 / C-yards.1: the Division Yard's last empty coach detrained while other cars
    remain: no refill; a second detrain is refused."""
    state, seat, office = game()
    set_office(state, seat, "station", outbound=[LOADED_COACH])
    tray = holding_train(state, office, [LOADED_COACH, LOADED_COACH])
    move_division_to_classification(state, EMPTY_COACH, keep=1)
    to_cargo(state, seat)
    classification = state.classification[:]
    state.apply(Detrain(seat, tray))
    assert state.division[EMPTY_COACH] == 0 and state.classification == classification
    assert state.current_player() == seat  # the second Porter can still board
    expect_illegal(state, Detrain(seat, tray), "C-yards.1", "no empty coach")
    assert_invariants(state)


def test_c_yards_2_detraining_the_last_division_car_refills_the_yard() -> None:
    """C-yards.2 after a detrain: the empty coach was the last car in the Division Yard."""
    state, seat, office = game()
    set_office(state, seat, "depot")
    tray = holding_train(state, office, [LOADED_COACH])
    _empty_division_but(state, {EMPTY_COACH: 1})
    to_cargo(state, seat)
    held = sum(state.classification)
    state.apply(Detrain(seat, tray))
    assert state.classification == [0] * N_CAR_CODES and state.division_total == held
    assert_invariants(state)


def test_c_stock_every_car_accounted_for_through_a_busy_cargo_phase() -> None:
    """C-yards.3 / C-stock.1: boarding, loading and unloading move cars between trains,
    tracks, boxes and yards; every car of the supply stays accounted for after every step."""
    state, seat, office = game()
    set_office(state, seat, "terminal", outbound=[LOADED_COACH] * 2)
    tray = holding_train(state, office, [EMPTY_COACH, LOADED_COACH, EMPTY_COACH])
    place_facility(state, seat, YARD, "freight-house", outbound=[LOADED_BOXCAR])
    stand(state, seat, YARD, [EMPTY_BOXCAR, LOADED_BOXCAR])
    to_cargo(state, seat)
    while state.phase is Phase.CARGO:
        intents = [i for i in state.legal_intents() if not isinstance(i, EndCargo)]
        state.apply(intents[0])
        assert_invariants(state)
        assert car_counts(state) == list(CAT.car_supply())
    assert sum(entry.amount for entry in state.ledger) == sum(state.revenue()) > 0
    assert all(code & FLIPPED == 0 or code & 1 for code in state.trays[tray].consist if code != ENGINE)

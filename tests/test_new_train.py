"""The New Train Phase (R7): which trains are built when (R7.1, R7.2, D-run.3, C-trays.2), how a
timetabled train is made up at its Division Point (R7.3), each seat's car (R7.4, C-trays.5,
C-yards.2), Extras (R7.5), Sister trains (RB.2) and the seniority of the trains built in a Stage
when the Mainline Phase follows (R8.0.1). Situations are built with the conftest helpers; every
train is watched while it is still being made up, or through the events once it has departed."""

from __future__ import annotations

import pytest
from conftest import (
    EMPTY,
    ENGINE,
    assert_invariants,
    cid,
    draw_card,
    expect_illegal,
    finish_stage,
    hold_by_hand,
    move_division_to_classification,
    new_state,
    pass_local_ops,
    pass_to_stage,
    put_train_on_line,
    put_tray_in_station,
    schedule_by_hand,
)

from sm_env.core.cars import (
    BOXCAR,
    CABOOSE_CODE,
    COACH,
    HOPPER,
    N_CAR_CODES,
    REEFER,
    TANK,
    car_code,
    car_name,
)
from sm_env.core.intents import AddCar, ChooseDivisionPoint, EndConsist, EndTurn, Intent, PlayCard
from sm_env.core.phases import Phase
from sm_env.core.pieces import Tray
from sm_env.core.queries import train_label
from sm_env.core.registry import INTENTS
from sm_env.core.state import GameState
from sm_env.core.text import event_text, render_division
from sm_env.core.trains import free_tray, front_to_back

EMPTY_COACH = car_code(COACH, False)
LOADED_COACH = car_code(COACH, True)
EMPTY_BOXCAR = car_code(BOXCAR, False)
LOADED_BOXCAR = car_code(BOXCAR, True)
EMPTY_HOPPER = car_code(HOPPER, False)
LOADED_HOPPER = car_code(HOPPER, True)
EMPTY_REEFER = car_code(REEFER, False)
LOADED_REEFER = car_code(REEFER, True)
EMPTY_TANK = car_code(TANK, False)
LOADED_TANK = car_code(TANK, True)
LIMITS_CELLS = ((0, -1), (0, 1))


# --------------------------------------------------------------------------- helpers


def made_up(state: GameState, card: int) -> list[tuple[int, int]]:
    """(day, stage) of every time timetabled train ``card`` was made up at a Division Point."""
    text = f"{train_label(state.catalogue, card)} is made up at the "
    return [
        (e.day, e.stage)
        for e in state.events
        if e.kind == "new-train" and event_text(e, state).startswith(text)
    ]


def phase(state: GameState) -> Phase:
    """The current step, read afresh (a plain attribute read lets type checkers narrow it)."""
    return state.phase


def trays_with(state: GameState, card: int) -> list[Tray]:
    return [tray for tray in state.trays if tray.train == card]


def building(state: GameState) -> Tray:
    assert state.building != EMPTY
    return state.trays[state.building]


def cars(tray: Tray) -> list[int]:
    return [code for code in tray.consist if code != ENGINE]


def due_now(state: GameState, train_id: str) -> int:
    """Schedule ``train_id`` on the current Stage's slot (R7.2 by hand); returns its card."""
    card = cid(train_id)
    schedule_by_hand(state, card, state.stage)
    return card


def play(state: GameState, card_id: str) -> int:
    """The deciding seat draws ``card_id``, plays it and ends its turn; returns the seat."""
    card = cid(card_id)
    seat = draw_card(state, card)
    state.apply(PlayCard(seat, card))
    state.apply(EndTurn(seat))
    return seat


def add_first_cars(state: GameState) -> list[int]:
    """Every pending R7.4 decision takes its first legal car; returns the deciding seats."""
    seats = []
    while phase(state) is Phase.NEW_TRAIN:
        seats.append(state.actor)
        state.apply(state.legal_intents()[0])
    return seats


def dp_line(state: GameState, side: str) -> str:
    """The line of the Division text naming the trains at the ``side`` Division Point."""
    (line,) = [x for x in render_division(state).splitlines() if x.startswith(f"{side} Division Point:")]
    return line


def no_car_seats(state: GameState) -> list[int]:
    return [e.seat for e in state.events if e.kind == "no-car"]


def legal_cars(state: GameState) -> set[int]:
    return {i.car for i in state.legal_intents() if isinstance(i, AddCar)}


def in_yard(state: GameState, codes: list[int]) -> set[int]:
    return {code for code in codes if state.division[code] > 0}


def block_every_tray(state: GameState, train_ids: list[str], first_slot: int) -> None:
    """Three offices: a train stands on each of the six Limits cards, so all n + 3 = 6 Crew
    Trays are busy; such a train never departs (R8.1.1). Its card sits on slot ``first_slot``
    onward, so it is not due early in the day."""
    assert state.n == 3 and len(train_ids) == 6
    places = [(seat, cell) for seat in range(3) for cell in LIMITS_CELLS]
    for k, ((seat, cell), train_id) in enumerate(zip(places, train_ids, strict=True)):
        schedule_by_hand(state, cid(train_id), first_slot + k)
        put_tray_in_station(state, seat, cell, train_id=train_id)
    assert free_tray(state) == EMPTY


BLOCKERS = ["train-7", "train-8", "train-9", "train-10", "train-11", "train-12"]


# --------------------------------------------------------------------------- R7.2 / R7.1: when


def test_r7_2_train_played_on_the_current_stage_is_built_now() -> None:
    """R7.2: a train whose rolled slot is the current Stage is built in this New Train Phase."""
    state = new_state(2, 1)
    roll = state.rng.copy().d12()  # passing Stages consumes no randomness
    pass_to_stage(state, roll - 1)
    play(state, "train-1")
    assert state.timetable[state.stage] == cid("train-1")
    pass_local_ops(state)
    assert phase(state) is Phase.NEW_TRAIN
    assert building(state).train == cid("train-1") and building(state).at_dp
    assert made_up(state, cid("train-1")) == [(0, roll - 1)]
    assert_invariants(state)


def test_r7_2_train_scheduled_for_a_later_stage_is_built_at_that_stage() -> None:
    """R7.2 / R7.1: a train on a later slot is not built now, but in its own Stage."""
    state = new_state(2, 1)
    card = cid("train-3")
    schedule_by_hand(state, card, 5)
    pass_to_stage(state, 5)
    assert made_up(state, card) == []
    assert trays_with(state, card) == []
    pass_local_ops(state)
    assert made_up(state, card) == [(0, 5)]
    assert phase(state) is Phase.NEW_TRAIN and building(state).train == card
    assert_invariants(state)


def test_r7_2_train_scheduled_on_an_earlier_slot_first_runs_the_next_day() -> None:
    """R7.2: a slot before the current Stage: its first run is the next day, at that slot."""
    state = new_state(2, 1, days=2)
    pass_to_stage(state, 3)
    card = cid("train-1")
    schedule_by_hand(state, card, 1)
    while state.day == 0:
        finish_stage(state)
    assert made_up(state, card) == []
    pass_to_stage(state, 1)
    pass_local_ops(state)
    assert made_up(state, card) == [(1, 1)]
    assert phase(state) is Phase.NEW_TRAIN and building(state).train == card
    assert_invariants(state)


# --------------------------------------------------------------------------- R7.3: make-up


def test_r7_3_odd_train_at_the_east_dp_engine_west_caboose_behind() -> None:
    """R7.3: an odd train runs west from the East DP; the engine is its west end; a required
    caboose comes from the Division Yard to the rear (east end) automatically."""
    state = new_state(2, 1)
    card = due_now(state, "train-5")
    cabooses = state.division[CABOOSE_CODE]
    pass_local_ops(state)
    tray = building(state)
    assert tray.train == card and tray.at_dp
    assert tray.direction == -1 and tray.facing == -1
    assert tray.line == EMPTY and tray.office == EMPTY
    assert tray.consist == (ENGINE, CABOOSE_CODE)
    assert front_to_back(tray) == [ENGINE, CABOOSE_CODE]
    assert state.division[CABOOSE_CODE] == cabooses - 1
    assert "No. 5 is made up at the East Division Point" in [event_text(e, state) for e in state.events]
    assert dp_line(state, "East").startswith("East Division Point: No. 5<")
    assert_invariants(state)


def test_r7_3_even_train_at_the_west_dp_engine_east_caboose_behind() -> None:
    """R7.3: an even train runs east from the West DP; the engine is its east end, the
    required caboose its west end."""
    state = new_state(2, 1)
    card = due_now(state, "train-6")
    pass_local_ops(state)
    tray = building(state)
    assert tray.train == card and tray.at_dp
    assert tray.direction == 1 and tray.facing == 1
    assert tray.consist == (CABOOSE_CODE, ENGINE)
    assert front_to_back(tray) == [ENGINE, CABOOSE_CODE]
    assert "No. 6 is made up at the West Division Point" in [event_text(e, state) for e in state.events]
    assert dp_line(state, "West").startswith("West Division Point: No. 6>")
    assert_invariants(state)


def test_r7_3_no_caboose_when_the_card_forbids_one() -> None:
    """R7.3: train 1 forbids a caboose: a bare engine, the cabooses stay in the yard."""
    state = new_state(2, 1)
    due_now(state, "train-1")
    cabooses = state.division[CABOOSE_CODE]
    pass_local_ops(state)
    assert building(state).consist == (ENGINE,)
    assert state.division[CABOOSE_CODE] == cabooses
    assert CABOOSE_CODE not in legal_cars(state)
    assert_invariants(state)


def test_r7_3_required_caboose_missing_from_the_division_yard() -> None:
    """R7.3: no caboose in the Division Yard: the train runs without one (none is taken from
    the Classification Yard, C-yards.4)."""
    state = new_state(2, 1)
    due_now(state, "train-9")
    move_division_to_classification(state, CABOOSE_CODE)
    pass_local_ops(state)
    tray = building(state)
    assert tray.consist == (ENGINE,)
    assert state.classification[CABOOSE_CODE] == 6
    assert legal_cars(state) == {EMPTY_HOPPER}
    assert_invariants(state)


# --------------------------------------------------------------------------- R7.4: each seat's car


def test_r7_4_each_seat_adds_one_car_from_the_superintendent_leftward() -> None:
    """R7.4: one decision per seat, from the Fedora holder leftward; each adds one empty car."""
    state = new_state(4, 2)
    assert state.fedora == 3
    card = due_now(state, "train-11")
    pass_local_ops(state)
    seats, added = [], []
    for car in (EMPTY_BOXCAR, EMPTY_HOPPER, EMPTY_REEFER, EMPTY_TANK):
        assert phase(state) is Phase.NEW_TRAIN
        seats.append(state.actor)
        assert state.current_player() == state.actor
        before = state.division[car]
        state.apply(AddCar(state.actor, car))
        assert state.division[car] == before - 1
        added.append(car)
        if phase(state) is Phase.NEW_TRAIN:
            assert front_to_back(building(state))[1:] == added
    assert seats == [3, 0, 1, 2]
    (tray,) = trays_with(state, card)
    assert front_to_back(tray) == [ENGINE, EMPTY_BOXCAR, EMPTY_HOPPER, EMPTY_REEFER, EMPTY_TANK]
    assert phase(state) is not Phase.NEW_TRAIN
    assert_invariants(state)


def test_r7_4_legal_cars_are_exactly_the_allowed_empty_codes_in_the_yard() -> None:
    """R7.4 / C-yards.1: the AddCar list is every listed type still in the Division Yard as an
    empty car, plus a caboose when the card permits one, and nothing else: a seat asked must
    find a suitable car; loaded cars are never offered, though the yard holds them."""
    state = new_state(3, 5)
    due_now(state, "train-11")  # boxcar, hopper, reefer, tank (3 each); caboose permitted
    move_division_to_classification(state, EMPTY_REEFER)
    pass_local_ops(state)
    seat = state.actor
    assert seat == state.fedora
    loaded = [car_code(kind, True) for kind in (BOXCAR, HOPPER, REEFER, TANK)]
    assert in_yard(state, loaded) == set(loaded)
    expected = {EMPTY_BOXCAR, EMPTY_HOPPER, EMPTY_TANK, CABOOSE_CODE}
    legal = state.legal_intents()
    assert len(legal) == len(set(legal)) == len(expected)
    assert set(legal) == {AddCar(seat, car) for car in expected}
    for car in loaded:
        expect_illegal(state, AddCar(seat, car), "R7.4", f"takes no {car_name(car)}")
    assert_invariants(state)


def test_r7_4_only_loaded_cars_left_means_no_decision() -> None:
    """R7.4: the Division Yard holds only loaded coaches: train 1 (coaches) finds no car for
    any seat, so no decision is offered and it runs as a bare engine."""
    state = new_state(2, 1)
    card = due_now(state, "train-1")
    move_division_to_classification(state, EMPTY_COACH)
    assert state.division[LOADED_COACH] > 0
    pass_local_ops(state)
    assert phase(state) is Phase.LOCAL_OPS
    assert no_car_seats(state) == [state.fedora, 1 - state.fedora]
    (tray,) = trays_with(state, card)
    assert tray.consist == (ENGINE,)
    assert_invariants(state)


def test_r7_4_a_seat_may_not_decline_while_a_suitable_car_is_in_the_yard() -> None:
    """R7.4: "must make every effort to find a suitable car": EndConsist is refused, naming
    the cars the Division Yard holds for the train, and changes nothing; every seat from the
    Superintendent leftward adds one car."""
    state = new_state(3, 5)
    card = due_now(state, "train-5")  # coach 2, boxcar 1, reefer 1; caboose required
    pass_local_ops(state)
    first = state.actor
    before = state.snapshot()
    expect_illegal(state, EndConsist(first), "R7.4", "must find a suitable car for No. 5")
    assert state.snapshot() == before
    seats = []
    while phase(state) is Phase.NEW_TRAIN:
        seats.append(state.actor)
        state.apply(
            AddCar(state.actor, EMPTY_COACH if EMPTY_COACH in legal_cars(state) else min(legal_cars(state)))
        )
    assert seats == [(first + i) % 3 for i in range(3)]
    (tray,) = trays_with(state, card)
    assert len(cars(tray)) == 4 and cars(tray)[-1] == CABOOSE_CODE
    assert not any(e.kind == "no-car" for e in state.events)
    assert_invariants(state)


def test_r7_4_a_seat_with_no_allowed_car_is_skipped() -> None:
    """R7.4: only one empty coach is left for train 1: the Superintendent takes it, the other
    seats find none and place nothing (no decision); the train runs short."""
    state = new_state(3, 5)
    card = due_now(state, "train-1")
    move_division_to_classification(state, LOADED_COACH)
    move_division_to_classification(state, EMPTY_COACH, keep=1)
    pass_local_ops(state)
    first = state.fedora
    assert state.actor == first and legal_cars(state) == {EMPTY_COACH}
    state.apply(AddCar(first, EMPTY_COACH))
    assert no_car_seats(state) == [(first + 1) % 3, (first + 2) % 3]
    assert not any(e.fields.get("declined") for e in state.events if e.kind == "no-car")
    assert phase(state) is not Phase.NEW_TRAIN
    (tray,) = trays_with(state, card)
    assert cars(tray) == [EMPTY_COACH]
    assert_invariants(state)


def test_r7_4_no_decision_when_no_seat_finds_a_car() -> None:
    """R7.4: no allowed car at all: every seat is skipped; the bare engine is ready at once."""
    state = new_state(2, 1)
    card = due_now(state, "train-1")
    move_division_to_classification(state, EMPTY_COACH)
    move_division_to_classification(state, LOADED_COACH)
    pass_local_ops(state)
    assert phase(state) is Phase.LOCAL_OPS and state.stage == 1
    assert no_car_seats(state) == [state.fedora, 1 - state.fedora]
    assert made_up(state, card) == [(0, 0)]
    (tray,) = trays_with(state, card)
    assert tray.consist == (ENGINE,)
    assert_invariants(state)


def test_r7_4_illegal_cars_are_refused_and_change_nothing() -> None:
    """R7.4: a type the card does not list, a forbidden caboose and a loaded car are refused
    (R7.4), an empty car the Division Yard lacks too (C-yards.1), the state untouched; the
    seat still has to choose."""
    state = new_state(2, 1)
    due_now(state, "train-5")  # coach 2, boxcar 1, reefer 1; caboose required
    move_division_to_classification(state, EMPTY_BOXCAR)
    pass_local_ops(state)
    seat = state.actor
    before = state.snapshot()
    expect_illegal(state, AddCar(seat, EMPTY_HOPPER), "R7.4", "takes no empty hopper")
    expect_illegal(state, AddCar(seat, CABOOSE_CODE), "R7.4", "takes no caboose")
    expect_illegal(state, AddCar(seat, LOADED_COACH), "R7.4", "takes no loaded coach")
    expect_illegal(state, AddCar(seat, EMPTY_BOXCAR), "C-yards.1", "holds no empty boxcar")
    assert state.snapshot() == before
    assert phase(state) is Phase.NEW_TRAIN and state.actor == seat
    assert legal_cars(state) == {EMPTY_COACH, EMPTY_REEFER}
    assert_invariants(state)


def test_r7_4_wrong_seat_or_wrong_intent_is_refused() -> None:
    """R7.4 / R5.0.1: only the deciding seat, and only AddCar, in the New Train step."""
    state = new_state(3, 5)
    due_now(state, "train-1")
    pass_local_ops(state)
    seat = state.actor
    other = (seat + 1) % 3
    expect_illegal(state, AddCar(other, EMPTY_COACH), "R5.0.1", f"seat {seat} must decide")
    expect_illegal(state, EndConsist(other), "R5.0.1", f"seat {seat} must decide")
    expect_illegal(state, ChooseDivisionPoint(seat, True), "R5.0.1", "not a decision")
    assert all(isinstance(intent, AddCar) for intent in state.legal_intents())


def test_r7_4_end_consist_is_registered_for_the_new_train_phase() -> None:
    """R7.4 / R7.5: EndConsist is an intent of the New Train step (refused there while a
    suitable car exists, with the rule's own message) and of the Extra consist step."""
    (entry,) = [e for e in INTENTS if e.cls is EndConsist]
    assert entry.phases == frozenset({Phase.NEW_TRAIN, Phase.EXTRA_CONSIST})


def test_r7_4_c_trays_5_a_type_at_its_maximum_is_refused() -> None:
    """R7.4 / C-trays.5: train 5 takes one boxcar and one reefer at most: once placed, neither
    is offered again; cars go behind those placed, ahead of the caboose."""
    state = new_state(3, 5)
    card = due_now(state, "train-5")  # coach 2, boxcar 1, reefer 1; caboose required
    pass_local_ops(state)
    first = state.actor
    state.apply(AddCar(first, EMPTY_BOXCAR))
    second = state.actor
    assert second == (first + 1) % 3
    assert legal_cars(state) == {EMPTY_COACH, EMPTY_REEFER}
    expect_illegal(state, AddCar(second, EMPTY_BOXCAR), "R7.4", "takes no empty boxcar")
    state.apply(AddCar(second, EMPTY_REEFER))
    third = state.actor
    assert legal_cars(state) == {EMPTY_COACH}
    expect_illegal(state, AddCar(third, EMPTY_REEFER), "R7.4")
    assert building(state).consist == (ENGINE, EMPTY_BOXCAR, EMPTY_REEFER, CABOOSE_CODE)
    state.apply(AddCar(third, EMPTY_COACH))
    (tray,) = trays_with(state, card)
    assert tray.consist == (ENGINE, EMPTY_BOXCAR, EMPTY_REEFER, EMPTY_COACH, CABOOSE_CODE)
    assert_invariants(state)


def test_r7_4_eastbound_cars_go_behind_the_engine_in_placing_order() -> None:
    """R7.4: for an eastbound train the engine is the east end; each new car goes west of the
    cars already placed and east of the caboose."""
    state = new_state(3, 5)
    card = due_now(state, "train-6")
    pass_local_ops(state)
    for car in (EMPTY_COACH, EMPTY_REEFER, EMPTY_BOXCAR):
        state.apply(AddCar(state.actor, car))
    (tray,) = trays_with(state, card)
    assert tray.consist == (CABOOSE_CODE, EMPTY_BOXCAR, EMPTY_REEFER, EMPTY_COACH, ENGINE)
    assert front_to_back(tray) == [ENGINE, EMPTY_COACH, EMPTY_REEFER, EMPTY_BOXCAR, CABOOSE_CODE]
    assert_invariants(state)


def test_r7_4_a_permitted_caboose_goes_to_the_rear_and_only_once() -> None:
    """R7.4: a seat may choose a caboose when the card permits one; it goes to the rear, later
    cars go ahead of it, and no second caboose is offered."""
    state = new_state(3, 5)
    card = due_now(state, "train-11")
    pass_local_ops(state)
    assert CABOOSE_CODE in legal_cars(state)
    state.apply(AddCar(state.actor, CABOOSE_CODE))
    assert CABOOSE_CODE not in legal_cars(state)
    expect_illegal(state, AddCar(state.actor, CABOOSE_CODE), "R7.4")
    state.apply(AddCar(state.actor, EMPTY_BOXCAR))
    assert front_to_back(building(state)) == [ENGINE, EMPTY_BOXCAR, CABOOSE_CODE]
    state.apply(AddCar(state.actor, EMPTY_TANK))
    (tray,) = trays_with(state, card)
    assert front_to_back(tray) == [ENGINE, EMPTY_BOXCAR, EMPTY_TANK, CABOOSE_CODE]
    assert_invariants(state)


@pytest.mark.parametrize("n", range(1, 7))
def test_r7_4_with_n_seats_at_most_n_cars(n: int) -> None:
    """R7.4 / C-trays.5: train 1 (four coaches, no caboose): each of n seats adds one car, so
    it leaves with min(n, 4) cars; seats beyond the fourth car find none."""
    state = new_state(n, 3)
    card = due_now(state, "train-1")
    pass_local_ops(state)
    seats = add_first_cars(state)
    assert seats == [(state.fedora + i) % n for i in range(min(n, 4))]
    assert no_car_seats(state) == [(state.fedora + i) % n for i in range(4, n)]
    (tray,) = trays_with(state, card)
    assert len(cars(tray)) == min(n, 4)
    assert_invariants(state)


@pytest.mark.parametrize("n", [3, 4, 6])
def test_c_trays_5_required_caboose_counts_toward_max_cars(n: int) -> None:
    """C-trays.5 / R7.4: train 7's required caboose is one of its four cars: only three seats
    add a car; the others are skipped although boxcars and reefers remain."""
    state = new_state(n, 3)
    card = due_now(state, "train-7")
    pass_local_ops(state)
    seats = add_first_cars(state)
    assert seats == [(state.fedora + i) % n for i in range(3)]
    assert no_car_seats(state) == [(state.fedora + i) % n for i in range(3, n)]
    (tray,) = trays_with(state, card)
    assert len(cars(tray)) == 4 and front_to_back(tray)[-1] == CABOOSE_CODE
    assert state.division[LOADED_BOXCAR] > 0
    assert_invariants(state)


def test_r7_4_c_yards_2_last_car_brings_the_classification_yard_back() -> None:
    """R7.4 / C-yards.2: the first seat takes the Division Yard's last car: the Classification
    Yard moves back at once, so the next seat finds coaches again."""
    state = new_state(2, 1)
    card = due_now(state, "train-1")
    for code in range(N_CAR_CODES):
        move_division_to_classification(state, code, keep=1 if code == EMPTY_COACH else 0)
    assert state.division_total == 1
    returning = state.classification[:]
    pass_local_ops(state)
    first = state.actor
    state.apply(AddCar(first, EMPTY_COACH))
    assert [e.kind for e in state.events].count("yard-refill") == 1
    assert state.division == returning and state.classification == [0] * N_CAR_CODES
    assert phase(state) is Phase.NEW_TRAIN and state.actor == 1 - first
    assert legal_cars(state) == {EMPTY_COACH}
    state.apply(AddCar(state.actor, EMPTY_COACH))
    (tray,) = trays_with(state, card)
    assert cars(tray) == [EMPTY_COACH, EMPTY_COACH]
    assert_invariants(state)


# --------------------------------------------------------------------------- R7.1 / C-trays.2: held trains


def test_r7_1_c_trays_2_due_train_without_a_tray_is_held() -> None:
    """C-trays.2 / R7.1: every Crew Tray busy: the due train joins the held trains, is not
    built, and no decision is offered."""
    state = new_state(3, 5)
    block_every_tray(state, BLOCKERS, 6)
    card = due_now(state, "train-4")
    pass_local_ops(state)
    assert state.held == [card]
    assert made_up(state, card) == [] and trays_with(state, card) == []
    assert phase(state) is Phase.LOCAL_OPS and state.stage == 1
    assert any(e.kind == "held" and "No. 4 held" in event_text(e, state) for e in state.events)
    assert_invariants(state)


def test_r7_1_held_trains_are_built_lowest_number_first() -> None:
    """R7.1: held trains stay candidates; as trays free up, the lowest number goes out first,
    whatever the order in which they became due."""
    state = new_state(3, 5)
    block_every_tray(state, BLOCKERS, 6)
    four, two = cid("train-4"), cid("train-2")
    schedule_by_hand(state, four, 0)
    schedule_by_hand(state, two, 1)
    pass_local_ops(state)
    assert state.held == [four]
    pass_local_ops(state)
    assert state.held == [two, four]  # by number (R7.1)
    assert_invariants(state)
    state.trays[0].free()  # its run ends (D-run.2): one tray free
    pass_local_ops(state)
    assert phase(state) is Phase.NEW_TRAIN
    assert state.building == 0 and building(state).train == two
    assert state.held == [four]
    assert made_up(state, two) == [(0, 2)] and made_up(state, four) == []
    assert_invariants(state)
    finish_stage(state)
    assert state.held == [four]
    state.trays[1].free()
    pass_local_ops(state)
    assert made_up(state, four) == [(0, 3)]
    assert state.held == []
    assert phase(state) is Phase.NEW_TRAIN and building(state).train == four
    assert_invariants(state)


def test_r7_1_d_run_3_held_train_is_not_added_twice_when_its_slot_comes_again() -> None:
    """R7.1 / D-run.3: a train held all day is due again at its slot the next day; it stays
    in the held trains once. The blockers' own slots come while they still stand on their
    trays: each is held once as its next section, by number."""
    state = new_state(3, 5, days=2)
    block_every_tray(state, BLOCKERS, 6)
    card = due_now(state, "train-4")
    pass_local_ops(state)
    assert state.held == [card]
    while state.day == 0:
        finish_stage(state)
    sections = [cid(train_id) for train_id in BLOCKERS]
    assert state.held == [card, *sections]
    pass_local_ops(state)  # day 2, Stage 1: its slot again
    assert (state.day, state.stage) == (1, 1)
    assert state.held == [card, *sections]
    assert made_up(state, card) == []
    assert_invariants(state)


# --------------------------------------------------------------------------- D-run.3: sections


def test_d_run_3_a_running_train_is_built_again_as_a_second_section() -> None:
    """D-run.3: trains 1 and 3 are due while still on their trays (in a station, on the
    Mainline): each runs again as another section, a second tray carrying the same card."""
    state = new_state(2, 1)
    one, three = cid("train-1"), cid("train-3")
    schedule_by_hand(state, one, 0)
    schedule_by_hand(state, three, 1)
    first = put_tray_in_station(state, 0, (0, 1), train_id="train-1")
    pass_local_ops(state)
    assert made_up(state, one) == [(0, 0)] and state.held == []
    add_first_cars(state)
    assert len(trays_with(state, one)) == 2 and first.cell == (0, 1)
    assert_invariants(state)
    finish_stage(state)
    assert state.stage == 1
    put_train_on_line(state, 1, 0, "train-3")
    pass_local_ops(state)
    assert made_up(state, three) == [(0, 1)] and state.held == []
    add_first_cars(state)
    assert len(trays_with(state, three)) == 2
    assert_invariants(state)


def test_d_run_3_c_trays_2_a_section_waits_for_a_free_tray() -> None:
    """D-run.3 / C-trays.2: No. 7 is due while it stands on a tray and every tray is busy: the
    section is held (once), not built; when a tray frees it is built in the next New Train
    Phase, and the first section keeps its tray."""
    state = new_state(3, 5)
    block_every_tray(state, BLOCKERS, 0)  # No. 7 (slot 0) is due now, still on its tray
    seven = cid("train-7")
    (running,) = trays_with(state, seven)
    pass_local_ops(state)
    assert state.held == [seven]
    assert made_up(state, seven) == [] and trays_with(state, seven) == [running]
    assert any(e.kind == "held" and "No. 7 held" in event_text(e, state) for e in state.events)
    assert_invariants(state)
    pass_local_ops(state)  # No. 8's slot: held too, No. 7 still once
    assert state.held == [seven, cid("train-8")]
    state.trays[5].free()  # one tray frees (D-run.2)
    pass_local_ops(state)
    assert made_up(state, seven) == [(0, 2)]
    assert phase(state) is Phase.NEW_TRAIN and building(state).train == seven
    assert running.train == seven and len(trays_with(state, seven)) == 2
    assert state.held == [cid("train-8"), cid("train-9")]  # No. 9's slot came, no tray for it
    add_first_cars(state)
    assert_invariants(state)


# --------------------------------------------------------------------------- R7.5: Extras


def test_r7_5_extra_owner_sets_it_at_the_east_dp_and_picks_the_consist() -> None:
    """R7.5: the owner picks the East DP (it runs west), the required caboose is put on, the
    owner adds cars one at a time and stops with EndConsist; it highballs this Stage."""
    state = new_state(2, 1)
    extra = cid("extra-9")  # boxcar 3, hopper 3; caboose required
    owner = play(state, "extra-9")
    assert state.pending_extras == [(extra, owner)]
    pass_local_ops(state)
    assert phase(state) is Phase.EXTRA_SIDE and state.actor == owner
    assert state.pending_extras == [] and building(state).train == extra
    assert state.legal_intents() == [ChooseDivisionPoint(owner, False), ChooseDivisionPoint(owner, True)]
    assert_invariants(state)
    state.apply(ChooseDivisionPoint(owner, True))
    tray = building(state)
    assert tray.at_dp and tray.direction == -1 and tray.consist == (ENGINE, CABOOSE_CODE)
    assert phase(state) is Phase.EXTRA_CONSIST and state.actor == owner
    expected = {AddCar(owner, c) for c in (EMPTY_BOXCAR, EMPTY_HOPPER)}
    assert set(state.legal_intents()) == expected | {EndConsist(owner)}
    assert_invariants(state)
    state.apply(AddCar(owner, EMPTY_HOPPER))
    assert phase(state) is Phase.EXTRA_CONSIST and state.actor == owner
    state.apply(AddCar(owner, EMPTY_BOXCAR))
    state.apply(EndConsist(owner))
    (tray,) = trays_with(state, extra)
    assert tray.consist == (ENGINE, EMPTY_HOPPER, EMPTY_BOXCAR, CABOOSE_CODE)
    assert tray.direction == -1 and tray.line == state.n  # it left the East DP (R8.0.1)
    assert f"seat {owner} sets Extra X9 at the East Division Point" in [
        event_text(e, state) for e in state.events
    ]
    assert_invariants(state)


def test_r7_5_extra_at_the_west_dp_runs_east_and_stops_at_max_cars() -> None:
    """R7.5: the West DP: it runs east, engine at the east end; once it has max_cars cars no
    further decision is offered."""
    state = new_state(2, 1)
    extra = cid("extra-9")
    owner = play(state, "extra-9")
    pass_local_ops(state)
    state.apply(ChooseDivisionPoint(owner, False))
    tray = building(state)
    assert tray.at_dp and tray.direction == 1 and tray.consist == (CABOOSE_CODE, ENGINE)
    for car in (EMPTY_HOPPER, EMPTY_BOXCAR, EMPTY_HOPPER):
        assert phase(state) is Phase.EXTRA_CONSIST
        state.apply(AddCar(owner, car))
    assert phase(state) is not Phase.EXTRA_CONSIST
    (tray,) = trays_with(state, extra)
    assert tray.consist == (CABOOSE_CODE, EMPTY_HOPPER, EMPTY_BOXCAR, EMPTY_HOPPER, ENGINE)
    assert tray.direction == 1 and tray.line == 0
    assert_invariants(state)


def test_r7_5_extra_illegal_cars_and_intents() -> None:
    """R7.5 / R5.0.1: an Extra takes only what its card allows (R7.5); only its owner decides
    and only the step's intent kinds."""
    state = new_state(3, 5)
    owner = play(state, "extra-9")
    pass_local_ops(state)
    other = (owner + 1) % 3
    expect_illegal(state, AddCar(owner, EMPTY_BOXCAR), "R5.0.1", "not a decision")
    expect_illegal(state, ChooseDivisionPoint(other, True), "R5.0.1", f"seat {owner} must decide")
    state.apply(ChooseDivisionPoint(owner, True))
    expect_illegal(state, AddCar(owner, EMPTY_COACH), "R7.5", "takes no empty coach")
    expect_illegal(state, AddCar(owner, CABOOSE_CODE), "R7.5", "takes no caboose")
    for loaded in (LOADED_BOXCAR, LOADED_HOPPER):  # R7.5: empty cars only, as R7.4
        assert state.division[loaded] > 0
        expect_illegal(state, AddCar(owner, loaded), "R7.5", f"takes no {car_name(loaded)}")
    assert legal_cars(state) == {EMPTY_BOXCAR, EMPTY_HOPPER}
    expect_illegal(state, AddCar(other, EMPTY_BOXCAR), "R5.0.1")
    expect_illegal(state, EndConsist(other), "R5.0.1")
    expect_illegal(state, ChooseDivisionPoint(owner, False), "R5.0.1", "not a decision")
    assert phase(state) is Phase.EXTRA_CONSIST
    assert_invariants(state)


def test_r7_5_extra_with_a_permitted_caboose_may_take_one() -> None:
    """R7.5: a permitted caboose is optional: none is put on automatically; chosen, it goes to
    the rear."""
    state = new_state(2, 1)
    extra = cid("extra-11")  # hopper 3, tank 3; caboose permitted
    owner = play(state, "extra-11")
    pass_local_ops(state)
    state.apply(ChooseDivisionPoint(owner, True))
    assert building(state).consist == (ENGINE,)
    state.apply(AddCar(owner, CABOOSE_CODE))
    state.apply(AddCar(owner, EMPTY_TANK))
    assert CABOOSE_CODE not in legal_cars(state)
    state.apply(EndConsist(owner))
    (tray,) = trays_with(state, extra)
    assert front_to_back(tray) == [ENGINE, EMPTY_TANK, CABOOSE_CODE]
    assert_invariants(state)


def test_r7_5_extra_is_built_after_the_timetabled_trains() -> None:
    """R7.5: a train due this Stage and an Extra played this Stage: first every seat's car for
    the timetabled train, then the Extra's Division Point."""
    state = new_state(2, 1)
    card = due_now(state, "train-1")
    extra = cid("extra-3")
    owner = play(state, "extra-3")
    pass_local_ops(state)
    assert phase(state) is Phase.NEW_TRAIN and building(state).train == card
    assert state.pending_extras == [(extra, owner)]
    assert_invariants(state)
    add_first_cars(state)
    assert phase(state) is Phase.EXTRA_SIDE and state.actor == owner
    assert building(state).train == extra and state.pending_extras == []
    assert_invariants(state)


def test_r7_5_lower_seniority_number_first_among_extras() -> None:
    """R7.5: Extra X11 played first and Extra X3 played second: X3 is built first."""
    state = new_state(3, 5)
    eleven, three = cid("extra-11"), cid("extra-3")
    first = play(state, "extra-11")
    second = play(state, "extra-3")
    assert state.pending_extras == [(eleven, first), (three, second)]
    pass_local_ops(state)
    assert phase(state) is Phase.EXTRA_SIDE and state.actor == second
    assert building(state).train == three
    assert state.pending_extras == [(eleven, first)]
    state.apply(ChooseDivisionPoint(second, True))
    state.apply(EndConsist(second))
    assert phase(state) is Phase.EXTRA_SIDE and state.actor == first
    assert building(state).train == eleven and state.pending_extras == []
    assert_invariants(state)


def test_r7_5_c_trays_2_extra_waits_for_a_free_tray() -> None:
    """R7.5 / C-trays.2: no free tray: the Extra stays pending (no decision); once a tray is
    free it is built in the next New Train Phase."""
    state = new_state(3, 5)
    block_every_tray(state, BLOCKERS, 6)
    extra = cid("extra-3")
    owner = play(state, "extra-3")
    pass_local_ops(state)
    assert state.pending_extras == [(extra, owner)]
    assert phase(state) is Phase.LOCAL_OPS and state.stage == 1
    assert trays_with(state, extra) == []
    assert_invariants(state)
    state.trays[4].free()
    pass_local_ops(state)
    assert phase(state) is Phase.EXTRA_SIDE and state.actor == owner
    assert state.building == 4 and building(state).train == extra
    assert state.pending_extras == []
    assert_invariants(state)


def test_r7_5_extra_without_an_allowed_car_offers_no_consist_decision() -> None:
    """R7.5: no coach in the Division Yard for Extra X3: after its Division Point it is ready
    at once, a bare engine."""
    state = new_state(2, 1)
    extra = cid("extra-3")
    owner = play(state, "extra-3")
    move_division_to_classification(state, EMPTY_COACH)
    move_division_to_classification(state, LOADED_COACH)
    pass_local_ops(state)
    state.apply(ChooseDivisionPoint(owner, False))
    assert phase(state) not in (Phase.EXTRA_CONSIST, Phase.EXTRA_SIDE, Phase.NEW_TRAIN)
    (tray,) = trays_with(state, extra)
    assert tray.consist == (ENGINE,) and tray.direction == 1
    assert_invariants(state)


# --------------------------------------------------------------------------- R8.0.1: built trains depart


def test_r8_0_1_new_extra_x3_departs_before_new_no_5() -> None:
    """R8.0.1: No. 5 and Extra X3, both built this Stage at the East DP: X3, lower number,
    highballs first although built last; No. 5 then finds it ahead (a following train)."""
    state = new_state(2, 1)
    five = due_now(state, "train-5")
    owner = play(state, "extra-3")
    pass_local_ops(state)
    add_first_cars(state)
    state.apply(ChooseDivisionPoint(owner, True))
    state.apply(EndConsist(owner))
    highballs = [event_text(e, state) for e in state.events if e.kind == "highball"]
    assert len(highballs) == 1 and highballs[0].startswith("Extra X3 highballs from its Division Point")
    assert phase(state) is Phase.CLEARANCE and state.actor == state.fedora
    assert state.trays[state.mainline_queue[0]].train == five
    assert state.trays[state.mainline_queue[0]].at_dp
    assert_invariants(state)


# --------------------------------------------------------------------------- RB.2: Sister trains


def test_rb_2_sister_trains_are_both_built_when_due() -> None:
    """RB.2: playing train 5 schedules train 6 too, with its own roll; each is built in the
    Stage of its own slot."""
    state = new_state(2, 1, sister_trains=True)
    rng = state.rng.copy()
    slot5 = rng.d12() - 1
    slot6 = rng.d12() - 1
    if slot6 == slot5:
        slot6 = (slot6 + 1) % 12
    play(state, "train-5")
    five, six = cid("train-5"), cid("train-6")
    assert state.timetable[slot5] == five and state.timetable[slot6] == six
    while not state.is_terminal():
        finish_stage(state)
        assert_invariants(state)
    assert made_up(state, five) == [(0, slot5)]
    assert made_up(state, six) == [(0, slot6)]


def test_r7_1_r7_5_busy_new_train_phase_keeps_the_invariants() -> None:
    """R7.1 / R7.4 / R7.5: a busy Stage (a held train, a due train, two Extras), decided by
    cycling through the legal intents, keeps every invariant between decisions."""
    state = new_state(3, 5)
    schedule_by_hand(state, cid("train-2"), 0)
    hold_by_hand(state, cid("train-6"), 9)  # held from an earlier Stage (R7.1)
    play(state, "extra-6")
    play(state, "extra-9")
    assert_invariants(state)
    pass_local_ops(state)
    decisions: list[Intent] = []
    while state.stage == 0:
        legal = state.legal_intents()
        intent = legal[len(decisions) % len(legal)]
        state.apply(intent)
        decisions.append(intent)
        assert_invariants(state)
    assert made_up(state, cid("train-2")) == [(0, 0)] and made_up(state, cid("train-6")) == [(0, 0)]
    assert state.pending_extras == []
    assert any(isinstance(i, ChooseDivisionPoint) for i in decisions)


# ----------------------------------------------------------------------------- V-yards.2


def test_v_yards_2_off_by_default_a_train_runs_short_with_the_cars_in_classification() -> None:
    """C-yards.2 by default: the empty coaches train 1 could take are all in the
    Classification Yard, which is no source: no seat decides, the train runs as a bare engine."""
    state = new_state(2, 1)
    card = due_now(state, "train-1")
    move_division_to_classification(state, EMPTY_COACH)
    move_division_to_classification(state, LOADED_COACH)
    waiting = state.classification[:]
    pass_local_ops(state)
    (tray,) = trays_with(state, card)
    assert tray.consist == (ENGINE,) and state.classification == waiting
    assert not any(e.kind == "yard-refill" for e in state.events)


def test_v_yards_2_the_classification_yard_returns_when_a_train_asks_for_a_car() -> None:
    """V-yards.2 (``yard_on_demand``): the Division Yard holds no empty coach for train 1 but
    the Classification Yard does: the seat is offered it, and taking it first brings every
    Classification car back (event ``yard-refill`` with ``on_demand``)."""
    state = new_state(2, 1, yard_on_demand=True)
    card = due_now(state, "train-1")
    move_division_to_classification(state, EMPTY_COACH)
    move_division_to_classification(state, LOADED_COACH)
    waiting, division = state.classification[:], state.division[:]
    pass_local_ops(state)
    seat = state.actor
    assert phase(state) is Phase.NEW_TRAIN and legal_cars(state) == {EMPTY_COACH}
    state.apply(AddCar(seat, EMPTY_COACH))
    assert state.classification == [0] * len(waiting)
    returned = [a + b for a, b in zip(division, waiting, strict=True)]
    returned[EMPTY_COACH] -= 1
    assert state.division == returned and state.division_total == sum(returned)
    (refill,) = [e for e in state.events if e.kind == "yard-refill"]
    assert refill.fields == {"cars": sum(waiting), "on_demand": True}
    assert "(V-yards.2)" in event_text(refill, state)
    add_first_cars(state)
    (tray,) = trays_with(state, card)
    assert cars(tray)[0] == EMPTY_COACH
    assert_invariants(state)


def test_v_yards_2_no_return_while_the_division_yard_holds_a_suitable_car() -> None:
    """V-yards.2: one empty coach is left in the Division Yard: it is the car offered, and the
    Classification Yard stays where it is."""
    state = new_state(2, 1, yard_on_demand=True)
    due_now(state, "train-1")
    move_division_to_classification(state, EMPTY_COACH, keep=1)
    waiting = state.classification[:]
    pass_local_ops(state)
    state.apply(AddCar(state.actor, EMPTY_COACH))
    assert state.classification == waiting
    assert not any(e.kind == "yard-refill" for e in state.events)
    assert_invariants(state)

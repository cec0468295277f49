"""The one invariant checker (``sm_env.core.check_invariants``): every invariant, broken on a
position that keeps all the others, is reported naming its place and, where docs/rules.md
has one, its rule; every position of play has none (tests/test_snapshot.py and the rules
tests assert that at each decision)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

import pytest
from conftest import (
    CAT,
    bots,
    cid,
    hold_by_hand,
    new_state,
    of_kind,
    put_train_at_dp,
    schedule_by_hand,
    set_office,
)

from sm_env.core import Pass, check_conservation, check_invariants
from sm_env.core.cars import COACH, ENGINE, FLIPPED, N_CAR_CODES, car_code
from sm_env.core.catalogue import CardKind, FacilitySpec
from sm_env.core.phases import Phase
from sm_env.core.pieces import EMPTY, OFFICE_CELL, Boxes, Tray
from sm_env.core.state import Collision, GameState

Break = Callable[[GameState], object]


def positions(offices: int, seed: int, days: int, **rules: bool) -> Iterator[GameState]:
    state = new_state(offices, seed, days=days, **rules)
    agents = bots(seed, offices)
    while not state.is_terminal():
        yield state
        seat = state.current_player()
        state.apply(agents[seat].choose(state.view(seat)))
    yield state


def rich(state: GameState) -> bool:
    """Local Operations with trains in a station and on the Mainline, a free tray, cars on
    cards and in boxes, and a Modifier laid."""
    return (
        state.phase is Phase.LOCAL_OPS
        and any(t.office != EMPTY for t in state.trays)
        and any(t.line != EMPTY for t in state.trays)
        and any(t.train == EMPTY for t in state.trays)
        and any(st.cars for st in state.stations)
        and any(b.outbound for st in state.stations for b in st.boxes.values())
        and any(st.modifiers for st in state.stations)
    )


def in_phase(phase: Phase) -> Callable[[GameState], bool]:
    return lambda state: state.phase is phase


@functools.cache
def position(name: str) -> GameState:
    """A position of play, by name, as a clone: every invariant holds in it."""
    if name == "fresh":
        return new_state(3, 5)
    if name == "toolbox":
        return new_state(3, 5, emergency_toolbox=True)
    game, wanted = {
        "rich": ((3, 51, 3), rich),
        "red_flag": ((3, 61, 3), in_phase(Phase.RED_FLAG)),
        "new_train": ((3, 51, 3), in_phase(Phase.NEW_TRAIN)),
        "extra_side": ((3, 51, 3), in_phase(Phase.EXTRA_SIDE)),
        "clearance": ((3, 51, 3), in_phase(Phase.CLEARANCE)),
        "game_over": ((2, 11, 1), in_phase(Phase.GAME_OVER)),
    }[name]
    return next(state.clone() for state in positions(*game, emergency_toolbox=True) if wanted(state))


def tray(state: GameState, where: str) -> Tray:
    """The first tray free, standing in a station, or on the Mainline."""
    test = {
        "free": lambda t: t.train == EMPTY,
        "station": lambda t: t.office != EMPTY,
        "line": lambda t: t.line != EMPTY,
    }[where]
    return next(t for t in state.trays if test(t))


def timetabled_in_station(state: GameState) -> Tray:
    return next(t for t in state.trays if t.office != EMPTY and CAT.cards[t.train].kind is CardKind.TRAIN)


def take(state: GameState, code: int) -> int:
    """A car of ``code`` out of the Division Yard (kept in step), for a box or a train."""
    state.division[code] -= 1
    state.division_total -= 1
    return code


def a_box(state: GameState) -> tuple[int, tuple[int, int], Boxes]:
    """A facility's boxes with a load in the green box: (office, cell, boxes)."""
    return next(
        (office, cell, boxes)
        for office, station in enumerate(state.stations)
        for cell, boxes in sorted(station.boxes.items())
        if boxes.outbound
    )


def spec_at(state: GameState, office: int, cell: tuple[int, int]) -> FacilitySpec:
    spec = CAT.cards[state.stations[office].grid[cell][0]].facility
    assert spec is not None
    return spec


# --------------------------------------------------------------------------- breakers


def an_extra() -> str:
    return CAT.cards[of_kind(CardKind.EXTRA_TRAIN)[0]].id


def extra_on_two_trays(state: GameState) -> None:
    first = put_train_at_dp(state, an_extra())
    second = tray(state, "free")
    second.train, second.direction, second.facing = first.train, first.direction, first.facing
    second.consist, second.at_dp, second.cleared_by = (ENGINE,), True, first.cleared_by


def extra_on_the_timetable(state: GameState) -> None:
    extra = put_train_at_dp(state, an_extra())
    state.timetable[state.timetable.index(EMPTY)] = extra.train


def timetabled_off_the_chart(state: GameState) -> None:
    train = timetabled_in_station(state).train
    state.timetable[state.timetable.index(train)] = EMPTY


def held_out_of_order(state: GameState) -> None:
    low, high = of_kind(CardKind.TRAIN)[:2]
    hold_by_hand(state, low)
    hold_by_hand(state, high)
    state.held.reverse()


def held_twice(state: GameState) -> None:
    card = of_kind(CardKind.TRAIN)[0]
    hold_by_hand(state, card)
    state.held.append(card)


def on_the_chart_twice(state: GameState) -> None:
    card = of_kind(CardKind.TRAIN)[0]
    slot = schedule_by_hand(state, card, 0)
    state.timetable[slot + 1] = card


def a_negative_count(state: GameState) -> None:
    code = next(c for c in range(N_CAR_CODES) if state.classification[c] == 0)
    state.classification[code] = -1
    state.division[code] += 1
    state.division_total += 1


def a_flipped_car_in_a_box(state: GameState) -> None:
    _office, _cell, boxes = a_box(state)
    code = boxes.outbound[0]
    boxes.outbound.append(take(state, code) | FLIPPED)


def too_many_cars(state: GameState) -> None:
    train = tray(state, "station")
    for code in train.consist:
        if code != ENGINE:
            state.division[code & ~FLIPPED] += 1
            state.division_total += 1
    cars = [take(state, code) for code in range(N_CAR_CODES) if state.division[code]][:5]
    train.consist = (ENGINE, *cars)


def on_a_taken_region(state: GameState) -> None:
    on_line, other = tray(state, "line"), tray(state, "station")
    other.office, other.cell, other.split = EMPTY, None, 0
    other.line, other.region, other.cleared_by = on_line.line, on_line.region, on_line.cleared_by


def off_the_grid(state: GameState) -> None:
    train = tray(state, "station")
    grid = state.stations[train.office].grid
    train.cell = next((2, c) for c in range(-5, 6) if (2, c) not in grid)


def over_capacity(state: GameState) -> None:
    _office, _cell, boxes = a_box(state)
    boxes.outbound.extend(boxes.outbound[:1] * 30)  # more than the supply too: that is another check


def wrong_load(box: str) -> Break:
    def put(state: GameState) -> None:
        office, cell, boxes = a_box(state)
        spec = spec_at(state, office, cell)
        accepted = spec.outbound if box == "outbound" else spec.inbound
        kind = next(t for t in range(6) if t not in accepted)
        getattr(boxes, box).append(car_code(kind, True))  # from no yard: the cars check says so too

    return put


def facility_without_boxes(state: GameState) -> None:
    office, cell, boxes = a_box(state)
    for code in boxes.cars():
        state.division[code] += 1
        state.division_total += 1
    del state.stations[office].boxes[cell]
    state.stations[office].modifiers = {
        c: s for c, s in state.stations[office].modifiers.items() if s != cell
    }


def standing(state: GameState) -> tuple[int, tuple[int, int]]:
    return next((office, cell) for office, st in enumerate(state.stations) for cell in st.cars)


def unsplit(state: GameState, office: int, cell: tuple[int, int]) -> None:
    """A train sharing the cell with the cars has none west of it: they are gone."""
    for t in state.trays:
        if t.office == office and t.cell == cell:
            t.split = 0


def cars_off_the_grid(state: GameState) -> None:
    office, cell = standing(state)
    station = state.stations[office]
    off = next((2, c) for c in range(-5, 6) if (2, c) not in station.grid)
    station.cars[off] = station.cars.pop(cell)
    unsplit(state, office, cell)


def no_cars_listed(state: GameState) -> None:
    office, cell = standing(state)
    for code in state.stations[office].cars[cell]:
        state.division[code & ~FLIPPED] += 1
        state.division_total += 1
    state.stations[office].cars[cell] = ()
    unsplit(state, office, cell)


def used_modifier_elsewhere(state: GameState) -> None:
    state.stations[0].modifiers_used.add(OFFICE_CELL)


LOADED_COACH, EMPTY_COACH = car_code(COACH, True), car_code(COACH, False)


def office_boxes(**cars: list[int]) -> Break:
    """Seat 0's office a Station (green and red boxes of two cars each), holding ``cars``."""
    return lambda state: set_office(state, 0, "station", **cars)


def a_modifier_cell(state: GameState) -> tuple[int, tuple[int, int]]:
    return next((office, cell) for office, st in enumerate(state.stations) for cell in st.modifiers)


def modifier_serving_nothing(state: GameState) -> None:
    office, cell = a_modifier_cell(state)
    state.stations[office].modifiers[cell] = (-2, 5)


def modifier_on_a_track_card(state: GameState) -> None:
    office, cell = a_modifier_cell(state)
    station = state.stations[office]
    track = next(c for c, (card, _) in station.grid.items() if CAT.cards[card].kind is CardKind.LIMITS)
    station.modifiers[track] = station.modifiers[cell]


def boxes_on_a_track_card(state: GameState) -> None:
    station = state.stations[0]
    limits = next(c for c, (card, _) in station.grid.items() if CAT.cards[card].kind is CardKind.LIMITS)
    station.boxes[limits] = Boxes()


def limits_moved_out(state: GameState) -> None:
    station = state.stations[0]
    east = max(c for r, c in station.grid if r == 0)
    station.grid[(0, east + 2)] = station.grid.pop((0, east))


def no_limits_east(state: GameState) -> None:
    station = state.stations[0]
    east = max(c for r, c in station.grid if r == 0)
    state.set_aside.append(station.grid.pop((0, east))[0])
    state.set_aside.sort()


def track_on_the_office_cell(state: GameState) -> None:
    station = state.stations[0]
    office_card = station.grid[OFFICE_CELL][0]
    track = cid("straight")
    state.home_office.remove(track) if track in state.home_office else None
    station.grid[OFFICE_CELL] = (track, False)
    state.set_aside.append(office_card)
    state.set_aside.sort()


def hand_over_the_limit(state: GameState) -> None:
    for _ in range(2):
        state.hands[0].append(state.home_office.pop())
    state.hands[0].sort()


def toolbox_hand_short(state: GameState) -> None:
    later = (state.fedora + 1) % state.n
    state.home_office.insert(0, state.hands[later].pop())


def unsorted_hand(state: GameState) -> None:
    state.hands[0].sort(reverse=True)


def red_flag_given_away(state: GameState) -> None:
    assert state.collision is not None
    state.hands[state.collision.seat].remove(state.red_flag_card)
    state.salvage.append(state.red_flag_card)


def collision(**fields: object) -> Break:
    def change(state: GameState) -> None:
        assert state.collision is not None
        state.collision = state.collision._replace(**fields)

    return change


def mover_not_first(state: GameState) -> None:
    assert state.collision is not None
    other = next(i for i, t in enumerate(state.trays) if t.train != EMPTY and i != state.mainline_queue[0])
    state.collision = state.collision._replace(mover=other)


def struck_free(state: GameState) -> None:
    assert state.collision is not None
    free = next(i for i, t in enumerate(state.trays) if t.train == EMPTY)
    state.collision = state.collision._replace(struck=free)


def setter(field: str, value: object) -> Break:
    """Set one field of the state, or of a tray (``field`` as ``"<where>.<attribute>"``)."""

    def set_it(state: GameState) -> None:
        where, _, name = field.rpartition(".")
        target: object = tray(state, where) if where else state
        setattr(target, name, value(state) if callable(value) else value)

    return set_it


def add(field: str, delta: int) -> Break:
    return setter(field, lambda state: getattr(state, field) + delta)


# Each: a position, how to break one invariant in it, and what the problem says.
CASES = [
    # cards and cars (C-stock.1, C-yards.2)
    (
        "fresh",
        lambda s: s.salvage.append(s.home_office[0]),
        r"^cards: \d+ copies of '.*' \(card \d+\) in the game",
    ),
    (
        "fresh",
        lambda s: take(s, 3),
        r"^cars: \d+ .* car\(s\) in the game \(.*\); the supply has \d+ \(C-stock\.1\)$",
    ),
    (
        "fresh",
        add("division_total", 1),
        r"^division_total: \d+ is not the Division Yard's sum, \d+ \(C-yards\.2\)$",
    ),
    ("fresh", a_negative_count, r"^classification\[\d+\]: -1 is not a count"),
    (
        "rich",
        a_flipped_car_in_a_box,
        r"^stations\[\d\]\.boxes \[.*\]: a flipped car in a facility's boxes \(R9\.3\.4\)$",
    ),
    # the clock
    ("fresh", add("stages_played", 1), r"^stages_played: 1 does not agree with day 0, stage 0"),
    (
        "fresh",
        lambda s: (setattr(s, "stage", 12), setattr(s, "stages_played", 12)),
        r"^stage: 12 is not a stage",
    ),
    (
        "fresh",
        lambda s: (setattr(s, "day", 1), setattr(s, "stages_played", 12)),
        r"^day: 1 is not a day of the game",
    ),
    # held trains and the chart (R7.1, R7.2, R7.5)
    (
        "fresh",
        lambda s: s.held.append(of_kind(CardKind.TRAIN)[0]),
        r"^held\[0\]: .* is not on the timetable \(R7\.1\)$",
    ),
    ("fresh", held_twice, r"^held\[1\]: card \d+ is held twice$"),
    (
        "fresh",
        held_out_of_order,
        r"^held: trains \[\d+, \d+\] are not in the order of their numbers \(R7\.1\)$",
    ),
    ("fresh", on_the_chart_twice, r"^timetable: card \d+ .* is on the chart twice \(R7\.2\)$"),
    (
        "fresh",
        lambda s: s.timetable.__setitem__(0, of_kind(CardKind.EXTRA_TRAIN)[0]),
        r"^timetable\[0\]: .* is not a timetabled train \(R7\.2\)$",
    ),
    (
        "fresh",
        lambda s: s.pending_extras.append((of_kind(CardKind.TRAIN)[0], 0)),
        r"^pending_extras\[0\]: .* is not an Extra train \(R7\.5\)$",
    ),
    # revenue (R2.4.7)
    (
        "rich",
        lambda s: s.revenue_by_seat.__setitem__(1, s.revenue_by_seat[1] + 1),
        r"^revenue\[1\]: .*\(R2\.4\.7\)$",
    ),
    # Crew Trays (C-trays.1, RA.4.5, R2.3.1, D-run.3, D-mainline.3, R10.3)
    ("fresh", lambda s: s.trays.pop(), r"^trays: 5 Crew Trays, not 6 \(offices \+ 3, C-trays\.1\)$"),
    ("rich", setter("free.office", 0), r"^trays\[\d\]: a free tray \(train -1\) has nothing else set"),
    (
        "rich",
        setter("station.train", cid("straight")),
        r"^trays\[\d\]: card \d+ \('straight'\) is not a train card",
    ),
    (
        "rich",
        timetabled_off_the_chart,
        r"^trays\[\d\]: timetabled train .* is not on the timetable \(R10\.3\)$",
    ),
    ("fresh", extra_on_the_timetable, r"^trays\[\d\]: Extra .* is on the timetable \(R7\.5\)$"),
    ("extra_side", lambda s: setattr(s.trays[s.building], "at_dp", True), r"only a card on a tray"),
    (
        "rich",
        setter("station.at_dp", True),
        r"^trays\[\d\]: a train is in exactly one place; this one is at its",
    ),
    (
        "rich",
        lambda s: (
            t := tray(s, "station"),
            setattr(t, "office", EMPTY),
            setattr(t, "cell", None),
            setattr(t, "split", 0),
        ),
        r"^trays\[\d\]: a train is in exactly one place; this one is nowhere$",
    ),
    (
        "rich",
        lambda s: setattr(tray(s, "station"), "consist", (*tray(s, "station").consist, ENGINE)),
        r"exactly one engine",
    ),
    ("rich", setter("line.direction", 0), r"^trays\[\d\]: a train runs east \(1\) or west \(-1\), not 0$"),
    ("rich", too_many_cars, r"^trays\[\d\]: 5 cars with the engine, more than 4 \(RA\.4\.5\)$"),
    (
        "rich",
        lambda s: setattr(timetabled_in_station(s), "direction", -timetabled_in_station(s).direction),
        r"^trays\[\d\]: .* runs -?1, not -?1 \(odd west, even east: R2\.3\.1\)$",
    ),
    ("fresh", extra_on_two_trays, r"^trays: Extra .* runs on two trays \(D-run\.3"),
    ("rich", off_the_grid, r"^trays\[\d\]: its cell \[2, -?\d\] is not on the grid of station \d$"),
    (
        "rich",
        setter("station.split", 9),
        r"^trays\[\d\]: split 9 is more than the \d car\(s\) standing on its cell$",
    ),
    ("rich", setter("line.cell", (0, 0)), r"^trays\[\d\]: a train outside the stations has no cell"),
    ("rich", setter("line.region", 5), r"^trays\[\d\]: Mainline \d has regions 0\.\.\d, not 5$"),
    (
        "rich",
        on_a_taken_region,
        r"^trays\[\d\]: region \d of Mainline \d is taken by trays\[\d\] \(D-mainline\.3\)$",
    ),
    ("rich", setter("line.cleared_by", EMPTY), r"records the Superintendent who cleared it"),
    ("rich", setter("station.region", 1), r"^trays\[\d\]: a train off the Mainline has region 0$"),
    # the phase and who decides (R5.0.1, R6.1.2, R7.4, R7.5, R8.1.4, D-redflag.1)
    ("fresh", setter("turn", 3), r"^turn: 3 is not a seat position \(0\.\.2\), as 'local_operations' needs$"),
    ("fresh", setter("actor", 0), r"^actor: must be -1 in 'local_operations'"),
    ("clearance", setter("actor", EMPTY), r"^actor: 'clearance' needs the deciding seat"),
    ("clearance", setter("turn", 0), r"^turn: must be 3 in 'clearance'"),
    (
        "fresh",
        setter("moves_left", 2),
        r"^moves_left: 2 Moves left do not fit 'local_operations' \(R6\.1\.2\)$",
    ),
    (
        "fresh",
        setter("building", 0),
        r"^building: a train is being made up exactly in the New Train decisions",
    ),
    ("new_train", setter("build_owner", 0), r"^building: a timetabled train has no owner"),
    ("new_train", setter("build_turn", 3), r"^building: every seat has added its car"),
    (
        "new_train",
        lambda s: setattr(s, "actor", (s.actor + 1) % s.n),
        r"^actor: seat \d adds the next car \(R7\.4",
    ),
    ("extra_side", lambda s: setattr(s, "build_owner", (s.actor + 1) % s.n), r"^actor: the Extra's owner"),
    (
        "clearance",
        lambda s: setattr(s, "actor", (s.fedora + 1) % s.n),
        r"clears a following train \(R8\.1\.4\)$",
    ),
    ("clearance", lambda s: s.mainline_queue.clear(), r"^mainline_queue: 'clearance' needs the acting train"),
    (
        "fresh",
        lambda s: s.mainline_queue.append(0),
        r"^mainline_queue: trains queue only during the Mainline",
    ),
    (
        "fresh",
        setter("collision", Collision(0, EMPTY, 0, (0, 0), 0, "R10.2", "here")),
        r"^collision: a collision waits only in 'red_flag', not in 'local_operations'$",
    ),
    ("red_flag", setter("collision", None), r"^collision: 'red_flag' needs the collision"),
    (
        "red_flag",
        lambda s: collision(seat=(s.actor + 1) % s.n)(s),
        r"^actor: seat \d, charged with the collision",
    ),
    (
        "red_flag",
        red_flag_given_away,
        r"^hands\[\d\]: the seat deciding on a RED FLAG holds none \(D-redflag\.1\)$",
    ),
    ("red_flag", mover_not_first, r"^collision: the moving train is trays\[\d\], first in the queue$"),
    ("red_flag", struck_free, r"^collision: the struck trays\[\d\] is free$"),
    (
        "red_flag",
        collision(struck=EMPTY, office=0, cell=(2, 5)),
        r"names their office and a cell where cars stand",
    ),
    # seats (D-seat.1, C-fedora.1)
    (
        "fresh",
        setter("office_of_seat", [0, 0, 1]),
        r"^office_of_seat: \[0, 0, 1\] is not a permutation .*\(D-seat\.1\)$",
    ),
    (
        "fresh",
        lambda s: s.seat_of_office.reverse(),
        r"^seat_of_office: .* is not the inverse of office_of_seat",
    ),
    ("fresh", setter("fedora", 3), r"^fedora: 3 is not a seat \(0\.\.2\) \(C-fedora\.1\)$"),
    # hands (R6.2.4, RB.4)
    ("fresh", unsorted_hand, r"^hands\[0\]: \[.*\] is not sorted"),
    (
        "fresh",
        hand_over_the_limit,
        r"^hands\[0\]: 5 cards, more than the 3 seat 0 may hold now \(R6\.2\.4\)$",
    ),
    ("toolbox", toolbox_hand_short, r"^hands\[\d\]: 3 cards before its first turn, not 4 \(RB\.4\)$"),
    # stations (R4.1, D-grid.7, R9.0.3, R9.1.3, R2.5.4)
    ("fresh", track_on_the_office_cell, r"^stations\[0\]\.grid: no office card on cell \[0, 0\] \(R4\.1\)$"),
    (
        "fresh",
        no_limits_east,
        r"^stations\[0\]\.grid: the Running Track needs a Limits card west and one east",
    ),
    ("fresh", limits_moved_out, r"^stations\[0\]\.grid: the Running Track between the Limits has a gap"),
    (
        "rich",
        modifier_on_a_track_card,
        r"^stations\[\d\]\.modifiers: \[.*\] is not a cell with a Modifier card",
    ),
    (
        "rich",
        modifier_serving_nothing,
        r"^stations\[\d\]\.modifiers: the Modifier at \[.*\] serves no facility",
    ),
    (
        "fresh",
        boxes_on_a_track_card,
        r"^stations\[0\]\.boxes: \[0, -?1\] is not a cell with a facility card$",
    ),
    ("rich", facility_without_boxes, r"^stations\[\d\]\.boxes: the facility at \[.*\] has no boxes$"),
    ("rich", over_capacity, r"^stations\[\d\]\.boxes \[.*\]: more cars .*\(R9\.1\.3\)$"),
    (
        "rich",
        wrong_load("outbound"),
        r"^stations\[\d\]\.boxes \[.*\]: .* in the green box, which holds loads it ships",
    ),
    (
        "rich",
        wrong_load("inbound"),
        r"^stations\[\d\]\.boxes \[.*\]: .* in the red box, which takes no such car",
    ),
    ("rich", cars_off_the_grid, r"^stations\[\d\]\.cars \[2, -?\d\]: cars stand on no card \(D-grid\.8\)$"),
    ("rich", no_cars_listed, r"^stations\[\d\]\.cars \[.*\]: no cars listed"),
    (
        "rich",
        used_modifier_elsewhere,
        r"^stations\[0\]\.modifiers_used: \[0, 0\] is not a cell with a Modifier card",
    ),
    ("rich", setter("line.direction", 2), r"^trays\[\d\]: a train runs east \(1\) or west \(-1\), not 2$"),
    ("rich", setter("line.region", -1), r"^trays\[\d\]: Mainline \d has regions 0\.\.\d, not -1$"),
    (
        "new_train",
        lambda s: s.trays.__setitem__(s.building, Tray()),
        r"^building: trays\[\d\] is free: no train",
    ),
    (
        "fresh",
        office_boxes(outbound=[LOADED_COACH] * 3),
        r"more cars in the green box than it holds \(R9\.1\.3\)$",
    ),
    (
        "fresh",
        office_boxes(inbound=[EMPTY_COACH] * 3),
        r"more cars in the red box than it holds \(R9\.1\.3\)$",
    ),
]


@pytest.mark.parametrize(("where", "breaking", "message"), CASES)
def test_each_invariant_broken_is_reported(where: str, breaking: Break, message: str) -> None:
    state = position(where).clone()
    assert check_invariants(state, choices=True) == []
    breaking(state)
    problems = check_invariants(state)
    assert any(re.search(message, problem) for problem in problems), problems


def test_a_deciding_seat_without_a_choice_is_reported() -> None:
    """R5.0.1: the legal intents are checked only when asked for (``choices``)."""
    state = position("fresh").clone()
    state.legal_cache = []
    assert check_invariants(state) == []
    assert check_invariants(state, choices=True) == [
        f"phase: seat {state.current_player()} is to decide in 'local_operations' but has no legal intent"
    ]


def test_a_finished_game_offering_a_choice_is_reported() -> None:
    state = position("game_over").clone()
    assert check_invariants(state, choices=True) == []
    state.legal_cache = [Pass(0)]
    assert check_invariants(state, choices=True) == [
        "phase: the game is over, yet a seat decides or has a choice (D-end.3)"
    ]


def test_the_seat_to_decide_is_the_one_the_phase_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """R5.0.1: ``current_player()`` agrees with the turn, or ``actor``."""
    state = position("clearance").clone()
    monkeypatch.setattr(GameState, "current_player", lambda self: (self.actor + 1) % self.n)
    assert check_invariants(state, choices=True) == [
        f"phase: seat {(state.actor + 1) % state.n} decides, not seat {state.actor} (R5.0.1)"
    ]


def test_each_check_reports_its_first_problem_only() -> None:
    state = position("fresh").clone()
    state.revenue_by_seat[0] += 1
    state.revenue_by_seat[1] += 1
    assert [p[:10] for p in check_invariants(state)] == ["revenue[0]"]


def test_conservation_alone() -> None:
    """The cards, the cars and the yards' books; not the layouts."""
    state = position("fresh").clone()
    no_limits_east(state)
    assert check_conservation(state) == []
    assert check_invariants(state)
    take(state, 3)
    assert [p.split(":")[0] for p in check_conservation(state)] == ["cars"]


def test_every_position_of_play_keeps_every_invariant() -> None:
    for state in positions(4, 21, 2, sister_trains=True):
        assert check_invariants(state, choices=True) == []

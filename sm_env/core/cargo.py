"""The Cargo Phase (section 9, "Load / Unload"): Porters board and detrain passengers at the
office, Laborers load and unload freight cars through the MEN|AT|WORK track (R9, rules.md).

Each seat in turn, from the Superintendent leftward, spends its facilities' workers one
action at a time and ends its turn with ``EndCargo``; a seat with no action possible is
skipped (R9.0.1). Workers belong to their facility and act once a Stage (R9.1.6, R9.1.8).

A load's way along a freight facility (R9.1.7), as positions: outbound, the green box (-1),
MEN (0), AT (1), WORK (2), then into an empty car on the industry track (3); inbound, a loaded
car on the industry track (3), WORK, AT, MEN, then the red box (-1). One Laborer moves a load
one position; a load hops over occupied slots, one Laborer per position, and never stops on
one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sm_env.core.cars import EMPTY_COACH, ENGINE, FLIPPED, LOADED_COACH, N_CAR_CODES, car_name, car_type
from sm_env.core.errors import IllegalIntent
from sm_env.core.intents import Board, Cell, Detrain, EndCargo, Intent, Labor, Spot
from sm_env.core.phases import Due, Next, Phase, Step
from sm_env.core.pieces import EMPTY, OFFICE_CELL, WORK_SLOTS, Boxes, Station
from sm_env.core.queries import capacity_bonus, facility_spec, room, serving_modifiers, trays_at, workers
from sm_env.core.revenue import earn
from sm_env.core.yards import retire, supplies, take_from_division

if TYPE_CHECKING:
    from sm_env.core.state import GameState

BOX_SIDE = -1  # the green box an outbound load starts in, the red box an inbound one ends in
CAR_SIDE = WORK_SLOTS  # the car on the industry track an outbound load ends in, an inbound one starts in
CARGO = Due(Phase.CARGO, EMPTY)


# ---------------------------------------------------------------------------- Modifiers and workers


def _claim(state: GameState, station: Station, cell: Cell, need: int, bonus: str) -> None:
    """R9.0.3: the facility uses ``need`` of the Modifiers' ``bonus`` (``laborers``,
    ``porters`` or ``capacity``) this Stage; the Modifiers giving it serve it from now on
    and are used for the Stage."""
    for modifier_cell, spec in serving_modifiers(state, station, cell):
        if need <= 0:
            return
        if getattr(spec, bonus):
            station.modifiers[modifier_cell] = cell
            station.modifiers_used.add(modifier_cell)
            need -= getattr(spec, bonus)


def claim_capacity(state: GameState, station: Station, cell: Cell) -> None:
    """After a car enters a box: the Modifier capacity its facility now relies on."""
    spec, boxes = facility_spec(state, station, cell), station.boxes[cell]
    if spec.shared_capacity is not None:
        over = len(boxes.outbound) + len(boxes.inbound) - spec.shared_capacity
    else:
        over = max(
            len(boxes.outbound) - spec.outbound_capacity if spec.outbound else 0,
            len(boxes.inbound) - spec.inbound_capacity if spec.inbound else 0,
        )
    _claim(state, station, cell, over, "capacity")


def workers_left(state: GameState, station: Station, cell: Cell) -> int:
    return workers(state, station, cell) - state.workers_used.get(cell, 0)


def _tray_on(state: GameState, office: int, cell: Cell) -> bool:
    return any(t.office == office and t.cell == cell for t in state.trays)


# ---------------------------------------------------------------------------- the phase


def begin(state: GameState) -> Next:
    """R9.0.1: from the Superintendent leftward."""
    state.turn = 0
    return Step.NEXT_CARGO_SEAT


def next_seat(state: GameState) -> Next:
    """The next seat with something to do takes its turn; after the last, the Stage ends."""
    while state.turn < state.n:
        state.workers_used = {}
        seat = (state.fedora + state.turn) % state.n
        if _actions(state, seat):
            return CARGO
        state.turn += 1
    return Step.STAGE_END


def apply_end_cargo(state: GameState, intent: EndCargo) -> Next:
    state.log("end-cargo", intent.seat)
    state.turn += 1
    return Step.NEXT_CARGO_SEAT


def legal_cargo_intents(state: GameState) -> list[Intent]:
    seat = (state.fedora + state.turn) % state.n
    out = _actions(state, seat)
    out.append(EndCargo(seat))
    return out


def _after_action(state: GameState, seat: int) -> Next:
    """A seat whose workers can do nothing more ends its turn by itself (decision 58)."""
    if _actions(state, seat):
        return CARGO
    state.turn += 1
    return Step.NEXT_CARGO_SEAT


def _actions(state: GameState, seat: int) -> list[Intent]:
    office = state.office_of_seat[seat]
    station = state.stations[office]
    out: list[Intent] = []
    if not station.boxes:
        return out
    for cell in sorted(station.boxes):
        left = workers_left(state, station, cell)
        if left <= 0:
            continue
        spec = facility_spec(state, station, cell)
        if spec.category == "passenger":
            out.extend(_porter_actions(state, seat, office))
            continue
        boxes = station.boxes[cell]
        for code in sorted(set(boxes.outbound)):
            if _labor_problem(state, office, cell, Spot.GREEN, code, left) is None:
                out.append(Labor(seat, cell, Spot.GREEN, code))
        for code in sorted(set(station.cars.get(cell, ()))):
            if _labor_problem(state, office, cell, Spot.TRACK, code, left) is None:
                out.append(Labor(seat, cell, Spot.TRACK, code))
        for slot, code in enumerate(boxes.work):
            spot = Spot(slot + 1)
            if code != EMPTY and _labor_problem(state, office, cell, spot, code, left) is None:
                out.append(Labor(seat, cell, spot, code))
    return out


# ---------------------------------------------------------------------------- passengers (R9.2)


def can_work(state: GameState, seat: int, cell: Cell, spot: Spot, code: int) -> bool:
    """Could the facility's own workers move this load on now (R6.3.3's test of a jam)? A
    coach in an office's green box needs a train to board; a freight load its next step."""
    office = state.office_of_seat[seat]
    station = state.stations[office]
    if facility_spec(state, station, cell).category == "passenger":
        return any(_porter_problem(state, seat, i, True) is None for i in trays_at(state, office))
    return _labor_problem(state, office, cell, spot, code, workers(state, station, cell)) is None


def _porter_actions(state: GameState, seat: int, office: int) -> list[Intent]:
    """What the office's Porters may do: exactly what ``_porter_problem`` allows."""
    out: list[Intent] = []
    for i in trays_at(state, office):
        if _porter_problem(state, seat, i, True) is None:
            out.append(Board(seat, i))
        if _porter_problem(state, seat, i, False) is None:
            out.append(Detrain(seat, i))
    return out


def _porter_problem(state: GameState, seat: int, tray: int, board: bool) -> tuple[str, str] | None:
    rule = "R9.2.1" if board else "R9.2.2"
    office = state.office_of_seat[seat]
    station = state.stations[office]
    boxes = station.boxes.get(OFFICE_CELL)
    if boxes is None:
        return (rule, f"seat {seat}'s office has no passenger facility (a Whistle Post has no Porter)")
    if workers_left(state, station, OFFICE_CELL) <= 0:
        return ("R9.1.6", "every Porter of the office has already worked this Stage")
    if tray not in trays_at(state, office):
        return (rule, f"Crew Tray {tray} is not a train on an A/D track of seat {seat}'s office")
    consist = state.trays[tray].consist
    if board:
        if LOADED_COACH not in boxes.outbound:
            return (rule, "no passengers (loaded coach) wait in the green box")
        if EMPTY_COACH not in consist:
            return (rule, "the train has no empty coach")
        return None
    if LOADED_COACH not in consist:
        if LOADED_COACH | FLIPPED in consist:
            return ("R9.3.4", "the train's loaded coaches boarded here; they stay aboard until it highballs")
        return (rule, "the train has no loaded coach")
    if not supplies(state, EMPTY_COACH):
        return ("C-yards.1", "the Division Yard holds no empty coach")
    spec = facility_spec(state, station, OFFICE_CELL)
    if room(spec, boxes, False, capacity_bonus(state, station, OFFICE_CELL)) <= 0:
        return ("R9.1.3", "the red box is full")
    return None


def apply_board(state: GameState, intent: Board) -> Next:
    """R9.2.1: a loaded coach from the green box takes an empty coach's place on the train."""
    problem = _porter_problem(state, intent.seat, intent.tray, True)
    if problem is not None:
        raise IllegalIntent(*problem)
    tray = state.trays[intent.tray]
    boxes = state.stations[tray.office].boxes[OFFICE_CELL]
    boxes.outbound.remove(LOADED_COACH)
    tray.consist = _replace_first(tray.consist, EMPTY_COACH, LOADED_COACH | FLIPPED)
    retire(state, EMPTY_COACH)
    _use(state, state.stations[tray.office], OFFICE_CELL, 1)
    earn(
        state,
        intent.seat,
        1,
        "R9.2.1",
        f"seat {intent.seat}'s Porter boards passengers on tray {intent.tray}",
    )
    return _after_action(state, intent.seat)


def apply_detrain(state: GameState, intent: Detrain) -> Next:
    """R9.2.2: an empty coach from the Division Yard takes a loaded coach's place; the loaded
    coach goes to the red box."""
    problem = _porter_problem(state, intent.seat, intent.tray, False)
    if problem is not None:
        raise IllegalIntent(*problem)
    tray = state.trays[intent.tray]
    boxes = state.stations[tray.office].boxes[OFFICE_CELL]
    take_from_division(state, EMPTY_COACH)
    tray.consist = _replace_first(tray.consist, LOADED_COACH, EMPTY_COACH)
    boxes.inbound.append(LOADED_COACH)
    station = state.stations[tray.office]
    _use(state, station, OFFICE_CELL, 1)
    claim_capacity(state, station, OFFICE_CELL)
    earn(
        state,
        intent.seat,
        1,
        "R9.2.2",
        f"seat {intent.seat}'s Porter helps passengers off tray {intent.tray}",
    )
    return _after_action(state, intent.seat)


def _replace_first(cars: tuple[int, ...], old: int, new: int) -> tuple[int, ...]:
    """The westernmost ``old`` car becomes ``new``, in place (the order is kept, RA.3.3)."""
    i = cars.index(old)
    return cars[:i] + (new,) + cars[i + 1 :]


def _use(state: GameState, station: Station, cell: Cell, count: int) -> None:
    """Workers spent; past the facility's own, the Modifiers' workers (R9.0.3)."""
    used = state.workers_used[cell] = state.workers_used.get(cell, 0) + count
    spec = facility_spec(state, station, cell)
    if spec.category == "freight":
        _claim(state, station, cell, used - spec.laborers, "laborers")
    else:
        _claim(state, station, cell, used - spec.porters, "porters")


# ---------------------------------------------------------------------------- freight (R9.3)


def _path(boxes: Boxes, start: int, heading: int) -> int:
    """Where a load at position ``start`` going ``heading`` (+1 into a car, -1 to the red
    box) ends after one Laborer's move: the next position whose slot is free, or the end."""
    position = start + heading
    while 0 <= position < WORK_SLOTS and boxes.work[position] != EMPTY:
        position += heading
    return position


def _labor_problem(
    state: GameState, office: int, cell: Cell, spot: Spot, code: int, left: int
) -> tuple[str, str] | None:
    """Why this Laborer move is not possible now, as (rule id, message), or None."""
    station = state.stations[office]
    boxes = station.boxes[cell]
    spec = facility_spec(state, station, cell)
    kind = car_type(code)
    if not 0 <= code < N_CAR_CODES:
        return ("R9.1.7", f"{code} is not a car code (0..{N_CAR_CODES - 1})")
    if spot is Spot.GREEN:
        if code not in boxes.outbound:
            return ("R9.3.1", f"the green box holds no {car_name(code)}")
        heading, start = 1, BOX_SIDE
    elif spot is Spot.TRACK:
        if kind not in spec.inbound or not code & 1:
            return ("R9.3.2", f"this facility unloads no {car_name(code)}")
        if code not in station.cars.get(cell, ()):
            flipped = code | FLIPPED in station.cars.get(cell, ())
            if flipped:
                return ("R9.3.4", f"that {car_name(code)} was loaded here; it leaves loaded")
            return ("R9.3.2", f"no {car_name(code)} stands on the industry track")
        if not supplies(state, code - 1):
            return ("C-yards.1", f"the Division Yard holds no {car_name(code - 1)} to replace it")
        heading, start = -1, CAR_SIDE
    else:
        slot = spot - 1
        if boxes.work[slot] != code or code == EMPTY:
            return ("R9.1.7", f"the {spot.name} slot holds no {car_name(code)}")
        heading, start = (-1 if boxes.unloading[slot] else 1), slot
    end = _path(boxes, start, heading)
    cost = abs(end - start)
    if cost > left:
        return ("R9.1.6", f"the move takes {cost} Laborer(s); {left} left this Stage")
    if start in (BOX_SIDE, CAR_SIDE) and _tray_on(state, office, cell):
        return ("R9.3.3", "a train stands on the industry track: no load may start while it is there")
    if spot is Spot.GREEN:
        empties = station.cars.get(cell, ()).count(code - 1)
        working = sum(1 for c, u in zip(boxes.work, boxes.unloading, strict=True) if c == code and not u)
        if empties <= working:
            return ("R9.3.1", f"no empty {car_name(code - 1).split()[-1]} on the industry track to load")
    if end == CAR_SIDE and code - 1 not in station.cars.get(cell, ()):
        return ("R9.3.1", f"no empty {car_name(code - 1).split()[-1]} on the industry track to take the load")
    if end == BOX_SIDE and room(spec, boxes, False, capacity_bonus(state, station, cell)) <= 0:
        return ("R9.1.3", "the red box is full: the load waits on MEN")
    return None


def apply_labor(state: GameState, intent: Labor) -> Next:
    seat, cell, spot, code = intent.seat, intent.cell, intent.spot, intent.car
    office = state.office_of_seat[seat]
    station = state.stations[office]
    boxes = station.boxes.get(cell)
    if boxes is None or facility_spec(state, station, cell).category != "freight":
        raise IllegalIntent("R9.1.4", f"seat {seat}'s station has no freight facility at {cell}")
    if not isinstance(spot, Spot):
        raise IllegalIntent("R9.1.7", f"{spot!r} is not a place a load can be")
    problem = _labor_problem(state, office, cell, spot, code, workers_left(state, station, cell))
    if problem is not None:
        raise IllegalIntent(*problem)
    if spot is Spot.GREEN:
        boxes.outbound.remove(code)
        heading, start = 1, BOX_SIDE
    elif spot is Spot.TRACK:  # the empty from the Division Yard takes the load's place
        take_from_division(state, code - 1)
        station.cars[cell] = _replace_first(station.cars[cell], code, code - 1)
        heading, start = -1, CAR_SIDE
    else:
        start = spot - 1
        heading = -1 if boxes.unloading[start] else 1
        boxes.work[start], boxes.unloading[start] = EMPTY, False
    end = _path(boxes, start, heading)
    _use(state, station, cell, abs(end - start))
    if end == CAR_SIDE:  # R9.3.1: the load replaces an empty car, which goes to the yard
        station.cars[cell] = _replace_first(station.cars[cell], code - 1, code | FLIPPED)
        retire(state, code - 1)
        earn(state, seat, 1, "R9.3.1", f"seat {seat}'s Laborers load a {car_name(code)} at {cell}")
    elif end == BOX_SIDE:  # R9.3.2: the load reaches the red box
        boxes.inbound.append(code)
        claim_capacity(state, station, cell)
        earn(state, seat, 1, "R9.3.2", f"seat {seat}'s Laborers unload a {car_name(code)} at {cell}")
    else:
        boxes.work[end], boxes.unloading[end] = code, heading < 0
        state.log("labor", seat, car=code, slot=end, cell=cell)
    return _after_action(state, seat)


def clear_flips(consist: tuple[int, ...]) -> tuple[int, ...]:
    """R9.3.4: the train highballs; its pieces are turned right side up."""
    return tuple(code & ~FLIPPED if code != ENGINE else code for code in consist)

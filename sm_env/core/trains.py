"""Trains and the Mainline: the New Train and Mainline phases, collisions and completed runs
(sections 7, 8 and 10 of the rules; R7, R8, R10, D-mainline, D-collision, D-run, D-redflag).

The Division runs West DP - Mainline 0 - office 0 - Mainline 1 - ... - office n-1 -
Mainline n - East DP: Mainline card ``k`` lies between office ``k-1`` and office ``k``, and its
regions are numbered west to east. A train is a Crew Tray with a train card, in exactly one
place: its origin Division Point, a Mainline region, or a station cell (``pieces.Tray``).

Both phases are automatic except for the decisions they offer one at a time: each seat's car
for a new timetabled train, an Extra's Division Point and consist, the Superintendent's
clearance of a following train, and a RED FLAG against a collision. The functions that start
or resume a phase run until the next decision (they set ``state.phase`` and ``state.actor``)
or until the phase is over, and then go on to the next phase.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

from sm_env.core.cargo import clear_flips
from sm_env.core.cars import CABOOSE, CABOOSE_CODE, car_name, car_type
from sm_env.core.catalogue import TrainSpec
from sm_env.core.errors import IllegalIntent
from sm_env.core.intents import AddCar, Cell, ChooseDivisionPoint, Clearance, EndConsist, Intent, RedFlag
from sm_env.core.phases import Phase
from sm_env.core.pieces import EMPTY, OFFICE_CELL, Tray
from sm_env.core.station import ENGINE, consist_label, geometry_for, limits_cols

if TYPE_CHECKING:
    from sm_env.core.state import GameState

COLLISION_PENALTY = 5  # R10.1, R10.2


class Collision(NamedTuple):
    """A collision about to be charged (D-collision.2): ``mover`` ran into tray ``struck`` or,
    when ``struck`` is EMPTY, into the cars standing on ``cell`` of station ``office`` on the
    side ``mover`` came from. ``seat`` pays (R10.1, R10.2) unless it plays a RED FLAG."""

    mover: int
    struck: int
    office: int
    cell: Cell | None
    seat: int
    rule: str
    where: str


# ---------------------------------------------------------------------------- queries


def spec_of(state: GameState, card: int) -> TrainSpec:
    spec = state.catalogue.cards[card].train
    assert spec is not None  # trays carry train cards only
    return spec


def seniority(state: GameState, tray: Tray) -> tuple[int, bool]:
    """R8.0.1: lower number first; a timetabled train before the Extra of the same number."""
    spec = spec_of(state, tray.train)
    return (spec.number, spec.extra)


def train_label(state: GameState, card: int) -> str:
    spec = spec_of(state, card)
    return f"Extra X{spec.number}" if spec.extra else f"No. {spec.number}"


def running(state: GameState, card: int) -> bool:
    return any(tray.train == card for tray in state.trays)


def free_tray(state: GameState) -> int:
    """The first free Crew Tray, or EMPTY (C-trays.2)."""
    for i, tray in enumerate(state.trays):
        if tray.train == EMPTY:
            return i
    return EMPTY


def cars_of(tray: Tray) -> list[int]:
    return [code for code in tray.consist if code != ENGINE]


def front_to_back(tray: Tray) -> list[int]:
    """The consist from the end facing the train's direction to the other end."""
    consist = list(tray.consist)
    return consist[::-1] if tray.direction > 0 else consist


def _set_front_to_back(tray: Tray, order: list[int]) -> None:
    tray.consist = tuple(order[::-1] if tray.direction > 0 else order)


def allowed_cars(state: GameState, tray: Tray) -> list[int]:
    """Car codes the Division Yard holds that the train's card still allows (R7.4, C-yards.1)."""
    return [code for code in fitting_cars(state, tray) if state.division[code]]


def fitting_cars(state: GameState, tray: Tray) -> list[int]:
    """Car codes the train's card still allows (R7.4, C-trays.5): a listed type below its
    maximum, or a caboose if the card has one and none is aboard, while the train has fewer
    than ``max_cars`` cars."""
    consist = spec_of(state, tray.train).consist
    cars = cars_of(tray)
    if len(cars) >= consist.max_cars:
        return []
    counts = [0] * (CABOOSE + 1)
    for code in cars:
        counts[car_type(code)] += 1
    out = [code for car, most in consist.allowed if counts[car] < most for code in (car * 2, car * 2 + 1)]
    if consist.caboose != "forbidden" and not counts[CABOOSE]:
        out.append(CABOOSE_CODE)
    return out


def makeup_problem(state: GameState, tray: Tray) -> str | None:
    """R8.1.2 / C-trays.4 / C-trays.5: why the train may not depart as made up, or None."""
    consist = tray.consist
    spec = spec_of(state, tray.train).consist
    engine = consist.index(ENGINE)
    if engine not in (0, len(consist) - 1):
        return "its engine is not at an outer end"
    cars = cars_of(tray)
    if len(cars) > spec.max_cars:
        return f"it has {len(cars)} cars; its card allows {spec.max_cars}"
    cabooses = [i for i, code in enumerate(consist) if code != ENGINE and car_type(code) == CABOOSE]
    if cabooses:
        if spec.caboose == "forbidden":
            return "its card forbids a caboose"
        far_end = len(consist) - 1 if engine == 0 else 0
        if len(cabooses) > 1 or cabooses[0] != far_end:
            return "its caboose is not at the end opposite the engine"
    allowed = dict(spec.allowed)
    counts: dict[int, int] = {}
    for code in cars:
        kind = car_type(code)
        if kind == CABOOSE:
            continue
        counts[kind] = counts.get(kind, 0) + 1
        if counts[kind] > allowed.get(kind, 0):
            return f"its card allows {allowed.get(kind, 0)} {car_name(code).split()[-1]}(s)"
    return None


def start_line(state: GameState, tray: Tray) -> int:
    """The Mainline card a train at an office or its DP departs onto."""
    if tray.at_dp:
        return 0 if tray.direction > 0 else state.n
    return tray.office + 1 if tray.direction > 0 else tray.office


def next_subdivision(state: GameState, tray: Tray) -> list[int]:
    """D-mainline.4: trays in the next Subdivision ahead of a train at an office or its DP:
    on the Mainline cards up to the next Control Point, and on the Running Track of the
    Whistle Posts between (R8.1.5: trains on their Secondary Track do not count)."""
    d, n = tray.direction, state.n
    line = start_line(state, tray)
    out: list[int] = []
    while True:
        out.extend(i for i, t in enumerate(state.trays) if t.line == line)
        office = line if d > 0 else line - 1
        if not 0 <= office < n or state.is_control_point(office):
            return out
        out.extend(
            i
            for i, t in enumerate(state.trays)
            if t.office == office and t.cell is not None and t.cell[0] == 0
        )
        line += d


def _tray_on_region(state: GameState, line: int, region: int) -> int:
    for i, tray in enumerate(state.trays):
        if tray.line == line and tray.region == region:
            return i
    return EMPTY


def _first_obstacle(state: GameState, office: int, cols: range, direction: int) -> tuple[Cell, int] | None:
    """The first car group or tray met on the Running Track cards ``cols`` by a train running
    in ``direction`` (R8.2.3, R8.2.4): (cell, struck tray or EMPTY for the cars)."""
    station = state.stations[office]
    for col in cols:
        cell = (0, col)
        cars = station.cars.get(cell, ())
        tray = next((i for i, t in enumerate(state.trays) if t.office == office and t.cell == cell), EMPTY)
        if tray == EMPTY:
            if cars:
                return cell, EMPTY
            continue
        split = state.trays[tray].split
        near = cars[:split] if direction > 0 else cars[split:]
        return cell, EMPTY if near else tray
    return None


# ---------------------------------------------------------------------------- New Train (R7)


def begin_new_train_phase(state: GameState) -> None:
    """R7.1 / D-run.3: the train due at this Stage joins the held trains, unless it is
    already running or held; then trains are built."""
    due = state.timetable[state.stage]
    if due != EMPTY and due not in state.held and not running(state, due):
        state.held.append(due)
        state.held.sort(key=lambda card: spec_of(state, card).number)
    continue_new_train(state)


def continue_new_train(state: GameState) -> None:
    """Build trains until a decision is due or none can be built; then the Mainline Phase."""
    while True:
        if state.building != EMPTY:
            if _offer_car(state):
                return
            _finish_build(state)
            continue
        tray = free_tray(state)
        if tray != EMPTY and state.held:
            _start_timetabled(state, tray, state.held.pop(0))
            continue
        if tray != EMPTY and state.pending_extras:
            # R7.5: Extras after the timetabled trains, by seniority, then play order.
            best = min(
                range(len(state.pending_extras)),
                key=lambda k: spec_of(state, state.pending_extras[k][0]).number,
            )
            card, seat = state.pending_extras.pop(best)
            state.trays[tray].train = card
            state.building, state.build_owner = tray, seat
            state.phase, state.actor = Phase.EXTRA_SIDE, seat
            return
        break
    if state.held:
        names = ", ".join(train_label(state, card) for card in state.held)
        state.log("held", -1, f"no free Crew Tray: {names} held (C-trays.2)")
    begin_mainline_phase(state)


def _start_timetabled(state: GameState, index: int, card: int) -> None:
    """R7.3: a free tray at the Division Point the card's direction gives, engine in front,
    a required caboose behind; then each seat adds a car (R7.4)."""
    tray = state.trays[index]
    spec = spec_of(state, card)
    tray.train = card
    tray.direction = tray.facing = 1 if spec.direction == "east" else -1
    _set_at_dp(state, index)
    state.building, state.build_owner, state.build_turn = index, EMPTY, 0
    dp = "West" if tray.direction > 0 else "East"
    state.log("new-train", -1, f"{train_label(state, card)} is made up at the {dp} Division Point")


def _set_at_dp(state: GameState, index: int) -> None:
    tray = state.trays[index]
    tray.at_dp = True
    tray.consist = (ENGINE,)
    if spec_of(state, tray.train).consist.caboose == "required" and state.division[CABOOSE_CODE]:
        _add(state, tray, CABOOSE_CODE)


def _offer_car(state: GameState) -> bool:
    """Offer the next car decision of the train being built; False when none is due."""
    tray = state.trays[state.building]
    if state.build_owner != EMPTY:  # an Extra: its owner picks until done (R7.5)
        if state.build_turn or not allowed_cars(state, tray):
            return False
        state.phase, state.actor = Phase.EXTRA_CONSIST, state.build_owner
        return True
    while state.build_turn < state.n:  # R7.4: Superintendent first, then leftward
        seat = (state.fedora + state.build_turn) % state.n
        if allowed_cars(state, tray):
            state.phase, state.actor = Phase.NEW_TRAIN, seat
            return True
        state.log("no-car", seat, f"seat {seat} finds no car for {train_label(state, tray.train)}")
        state.build_turn += 1
    return False


def _finish_build(state: GameState) -> None:
    tray = state.trays[state.building]
    label = consist_label(tray.consist, tray.facing)
    state.log("train-ready", -1, f"{train_label(state, tray.train)} is ready: [{label}]")
    state.building = state.build_owner = EMPTY
    state.build_turn = 0


def _add(state: GameState, tray: Tray, code: int) -> None:
    """A car from the Division Yard onto the train: behind the cars already placed, ahead of a
    caboose; a caboose at the rear (R7.4)."""
    state.take_from_division(code)
    order = front_to_back(tray)
    if car_type(code) != CABOOSE and car_type(order[-1]) == CABOOSE:
        order.insert(len(order) - 1, code)
    else:
        order.append(code)
    _set_front_to_back(tray, order)


def apply_add_car(state: GameState, intent: AddCar) -> None:
    tray = state.trays[state.building]
    rule = "R7.5" if state.build_owner != EMPTY else "R7.4"
    if intent.car not in fitting_cars(state, tray):
        raise IllegalIntent(
            rule,
            f"{train_label(state, tray.train)} takes no {car_name(intent.car)} now "
            f"(allowed: {', '.join(car_name(c) for c in allowed_cars(state, tray))})",
        )
    if not state.division[intent.car]:
        raise IllegalIntent("C-yards.1", f"the Division Yard holds no {car_name(intent.car)}")
    _add(state, tray, intent.car)
    state.log(
        "add-car",
        intent.seat,
        f"seat {intent.seat} puts a car on {train_label(state, tray.train)}: {car_name(intent.car)}",
    )
    if state.build_owner == EMPTY:
        state.build_turn += 1
    continue_new_train(state)


def apply_end_consist(state: GameState, intent: EndConsist) -> None:
    state.build_turn = 1  # the owner is done choosing
    continue_new_train(state)


def apply_choose_division_point(state: GameState, intent: ChooseDivisionPoint) -> None:
    tray = state.trays[state.building]
    tray.direction = tray.facing = -1 if intent.east else 1
    _set_at_dp(state, state.building)
    side = "East" if intent.east else "West"
    state.log(
        "new-train",
        intent.seat,
        f"seat {intent.seat} sets {train_label(state, tray.train)} at the {side} Division Point",
    )
    continue_new_train(state)


# ---------------------------------------------------------------------------- Mainline (R8)


def begin_mainline_phase(state: GameState) -> None:
    """D-mainline.2: every train acts once, in seniority order (R8.0.1)."""
    in_use = [i for i, tray in enumerate(state.trays) if tray.train != EMPTY]
    state.mainline_queue = sorted(in_use, key=lambda i: seniority(state, state.trays[i]))
    continue_mainline(state)


def continue_mainline(state: GameState) -> None:
    """Let the trains act until a decision is due; then the rest of the Stage."""
    queue = state.mainline_queue
    while queue:
        tray = state.trays[queue[0]]
        if tray.train != EMPTY and _act(state, queue[0]):
            return
        queue.pop(0)
    state.after_mainline()


def _act(state: GameState, index: int) -> bool:
    """One train's action; True when it waits for a decision."""
    tray = state.trays[index]
    if tray.line != EMPTY:
        return _advance(state, index)
    if not (tray.at_dp or tray.cell == OFFICE_CELL):  # R8.1.1: off the A/D tracks
        return False
    problem = makeup_problem(state, tray)
    label = train_label(state, tray.train)
    if problem is not None:
        state.log("hold", -1, f"{label} holds: {problem} (R8.1.2)")
        return False
    ahead = next_subdivision(state, tray)
    if any(state.trays[i].direction == -tray.direction for i in ahead):
        state.log("hold", -1, f"{label} holds: an opposing train is in the next Subdivision (R8.1.3)")
        return False
    if ahead:  # R8.1.4: only following trains ahead
        state.phase, state.actor = Phase.CLEARANCE, state.fedora
        return True
    return _depart(state, index)


def _depart(state: GameState, index: int) -> bool:
    """Highball (R2.4.6): through the Limits onto the Start region of the next Mainline card."""
    tray = state.trays[index]
    d = tray.direction
    label = train_label(state, tray.train)
    if not tray.at_dp:
        office = tray.office
        west, east = limits_cols(geometry_for(state.catalogue), state.stations[office])
        cols = range(1, east + 1) if d > 0 else range(-1, west - 1, -1)
        hit = _first_obstacle(state, office, cols, d)
        if hit is not None:  # R8.2.4
            seat = state.seat_of_office[office]
            where = f"leaving office {office}"
            return _collide(state, Collision(index, hit[1], office, hit[0], seat, "R8.2.4", where))
    line = start_line(state, tray)
    region = 0 if d > 0 else state.catalogue.cards[state.mainline[line]].regions - 1
    struck = _tray_on_region(state, line, region)
    if struck != EMPTY:  # D-mainline.3: the Superintendent clearing it pays
        where = f"on Mainline {line}"
        return _collide(state, Collision(index, struck, EMPTY, None, state.fedora, "R10.1", where))
    origin = "its Division Point" if tray.at_dp else f"office {tray.office}"
    tray.cleared_by = state.fedora
    tray.consist = clear_flips(tray.consist)  # R9.3.4
    tray.at_dp = False
    tray.office, tray.cell, tray.split = EMPTY, None, 0
    tray.line, tray.region = line, region
    state.log("highball", tray.cleared_by, f"{label} highballs from {origin} onto Mainline {line}")
    return False


def _advance(state: GameState, index: int) -> bool:
    """R8.2.1: one region along the card; off its end, into the next office (R8.2.2, R8.2.3)
    or the far Division Point (D-run.1)."""
    tray = state.trays[index]
    d = tray.direction
    region = tray.region + d
    if 0 <= region < state.catalogue.cards[state.mainline[tray.line]].regions:
        struck = _tray_on_region(state, tray.line, region)
        if struck != EMPTY:  # D-mainline.3
            where = f"on Mainline {tray.line}"
            return _collide(state, Collision(index, struck, EMPTY, None, tray.cleared_by, "R10.1", where))
        tray.region = region
        return False
    office = tray.line if d > 0 else tray.line - 1
    if not 0 <= office < state.n:
        _complete_run(state, index)
        return False
    station = state.stations[office]
    seat = state.seat_of_office[office]
    west, east = limits_cols(geometry_for(state.catalogue), station)
    cols = range(west, 0) if d > 0 else range(east, 0, -1)
    hit = _first_obstacle(state, office, cols, d)
    where = f"arriving at office {office}"
    if hit is not None:  # R8.2.3 (a)
        return _collide(state, Collision(index, hit[1], office, hit[0], seat, "R8.2.3", where))
    at_office = [i for i, t in enumerate(state.trays) if t.office == office and t.cell == OFFICE_CELL]
    ad_tracks = geometry_for(state.catalogue).ad_tracks[station.grid[OFFICE_CELL][0]]
    if len(at_office) >= ad_tracks:  # R8.2.3 (b): the most junior train is struck
        struck = max(at_office, key=lambda i: seniority(state, state.trays[i]))
        return _collide(state, Collision(index, struck, office, OFFICE_CELL, seat, "R8.2.3", where))
    tray.line, tray.region = EMPTY, 0
    tray.office, tray.cell, tray.split = office, OFFICE_CELL, 0
    state.log("arrive", seat, f"{train_label(state, tray.train)} arrives at office {office} for orders")
    return False


def apply_clearance(state: GameState, intent: Clearance) -> None:
    index = state.mainline_queue[0]
    label = train_label(state, state.trays[index].train)
    verb = "clears" if intent.clear else "holds"
    state.log("clearance", intent.seat, f"the Superintendent (seat {intent.seat}) {verb} following {label}")
    if not intent.clear or not _depart(state, index):
        state.mainline_queue.pop(0)
        continue_mainline(state)


# ---------------------------------------------------------------------------- collisions (R10)


def _collide(state: GameState, collision: Collision) -> bool:
    """D-redflag.1: the seat to pay may avert it with a RED FLAG; else it happens now."""
    if state.red_flag_card in state.hands[collision.seat]:
        state.collision = collision
        state.phase, state.actor = Phase.RED_FLAG, collision.seat
        return True
    _resolve(state, collision)
    return False


def _resolve(state: GameState, collision: Collision) -> None:
    """D-collision.2: both removed; the seat loses 5 Revenue (R10.1, R10.2)."""
    mover = state.trays[collision.mover]
    victim = "standing cars"
    if collision.struck != EMPTY:
        victim = train_label(state, state.trays[collision.struck].train)
    text = (
        f"COLLISION {collision.where}: {train_label(state, mover.train)} strikes {victim}; "
        f"seat {collision.seat} loses {COLLISION_PENALTY} Revenue ({collision.rule})"
    )
    direction = mover.direction
    _remove_train(state, collision.mover)
    if collision.struck != EMPTY:
        _remove_train(state, collision.struck)
    else:
        assert collision.cell is not None
        _remove_cars(state, collision.office, collision.cell, direction)
    state.earn(collision.seat, -COLLISION_PENALTY, collision.rule, text)


def _remove_cars(state: GameState, office: int, cell: Cell, mover_direction: int) -> None:
    """The group of standing cars met first on ``cell`` leaves play (C-yards.3)."""
    station = state.stations[office]
    cars = station.cars[cell]
    tray = next((t for t in state.trays if t.office == office and t.cell == cell), None)
    gone: tuple[int, ...]
    kept: tuple[int, ...]
    if tray is None:
        gone, kept = cars, ()
    elif mover_direction > 0:
        gone, kept = cars[: tray.split], cars[tray.split :]
        tray.split = 0
    else:
        gone, kept = cars[tray.split :], cars[: tray.split]
    for code in gone:
        state.retire(code)
    if kept:
        station.cars[cell] = kept
    else:
        del station.cars[cell]


def _remove_train(state: GameState, index: int) -> None:
    """A train leaves play: cars to the Classification Yard, caboose to the Division Yard,
    an Extra's card to the Salvage Yard; a timetabled card stays on the chart (R10.3)."""
    tray = state.trays[index]
    for code in cars_of(tray):
        state.retire(code)
    if spec_of(state, tray.train).extra:
        state.salvage.append(tray.train)
    tray.free()


def apply_red_flag(state: GameState, intent: RedFlag) -> None:
    collision = state.collision
    assert collision is not None
    state.collision = None
    if intent.play:
        state.hands[intent.seat].remove(state.red_flag_card)
        state.salvage.append(state.red_flag_card)
        if collision.struck in state.mainline_queue:  # the flag stops both trains this Stage
            state.mainline_queue.remove(collision.struck)
        label = train_label(state, state.trays[collision.mover].train)
        state.log(
            "red-flag",
            intent.seat,
            f"seat {intent.seat} plays a RED FLAG: {label} stops short, no collision {collision.where}",
        )
    else:
        _resolve(state, collision)
    state.mainline_queue.pop(0)
    continue_mainline(state)


def _complete_run(state: GameState, index: int) -> None:
    """D-run.2: at the far Division Point the tray is freed and the cars go back."""
    tray = state.trays[index]
    label = train_label(state, tray.train)
    side = "East" if tray.direction > 0 else "West"
    state.log("run-complete", -1, f"{label} completes its run at the {side} Division Point")
    _remove_train(state, index)


# ---------------------------------------------------------------------------- decisions


def legal_train_intents(state: GameState) -> list[Intent]:
    seat, phase = state.actor, state.phase
    if phase is Phase.CLEARANCE:
        return [Clearance(seat, True), Clearance(seat, False)]
    if phase is Phase.RED_FLAG:
        return [RedFlag(seat, True), RedFlag(seat, False)]
    if phase is Phase.EXTRA_SIDE:
        return [ChooseDivisionPoint(seat, False), ChooseDivisionPoint(seat, True)]
    out: list[Intent] = [AddCar(seat, code) for code in allowed_cars(state, state.trays[state.building])]
    if phase is Phase.EXTRA_CONSIST:
        out.append(EndConsist(seat))
    return out


# ---------------------------------------------------------------------------- text


def _in_office(office: int, tray: Tray) -> bool:
    return tray.office == office


def render_division(state: GameState) -> str:
    """The Division west to east: each Mainline card's regions with the trains on them,
    trains at each office and Division Point, the timetable and the held trains."""
    cat = state.catalogue
    lines = []

    def tag(tray: Tray) -> str:
        arrow = ">" if tray.direction > 0 else "<"
        return f"{train_label(state, tray.train)}{arrow}[{consist_label(tray.consist, tray.facing)}]"

    def at(predicate: Callable[[Tray], bool]) -> str:
        found = [tag(t) for t in state.trays if t.train != EMPTY and predicate(t)]
        return ", ".join(found) if found else "-"

    lines.append(f"West Division Point: {at(lambda t: t.at_dp and t.direction > 0)}")
    for line, card in enumerate(state.mainline):
        cells = []
        for region in range(cat.cards[card].regions):
            tray = _tray_on_region(state, line, region)
            cells.append(tag(state.trays[tray]) if tray != EMPTY else ".")
        lines.append(f"  Mainline {line}: | " + " | ".join(cells) + " |")
        if line < state.n:
            office_card = cat.cards[state.stations[line].grid[OFFICE_CELL][0]]
            cp = ", Control Point" if state.is_control_point(line) else ""
            trains = at(partial(_in_office, line))
            lines.append(
                f"office {line} ({office_card.name}{cp}, seat {state.seat_of_office[line]}): {trains}"
            )
    lines.append(f"East Division Point: {at(lambda t: t.at_dp and t.direction < 0)}")
    board = [f"{s + 1}:{train_label(state, c)}" for s, c in enumerate(state.timetable) if c != EMPTY]
    lines.append("Timetable: " + (", ".join(board) if board else "empty"))
    if state.held:
        lines.append("Held: " + ", ".join(train_label(state, c) for c in state.held))
    if state.pending_extras:
        lines.append(
            "Extras waiting: "
            + ", ".join(f"{train_label(state, c)} (seat {s})" for c, s in state.pending_extras)
        )
    free = sum(1 for t in state.trays if t.train == EMPTY)
    lines.append(f"Crew Trays free: {free} of {len(state.trays)}")
    return "\n".join(lines)

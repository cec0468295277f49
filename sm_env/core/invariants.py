"""What must hold of any position between two decisions, checked in one place.

``check_invariants(state)`` lists the problems of a state, each as ``"<place>: <what is
wrong>"``, the place written as a snapshot path (``trays[2]``, ``hands[1]``) and the rule of
docs/rules.md it protects named where there is one, e.g. ``revenue[0]: 5 is not the sum of
seat 0's ledger entries, 4 (R2.4.7)``. ``load_snapshot`` refuses data whose state has a
problem (``SnapshotError`` with the first), a position edit (``sm_env.core.editing.edit``)
is rolled back, and the tests assert there are none after every decision.

Each check reports the first problem it finds and stops there, so a check may rely on what
it has already checked; the checks run in the order below, every one of them. They read the
data only: ``choices=True`` also asks the state's engine for the legal intents (a deciding
seat has a choice, a finished game offers none), which ``load_snapshot`` does not do to data
it has not accepted yet. ``check_conservation`` is the part that any hand-built situation
keeps, even one outside the rules' layouts: every card and car in exactly one place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from sm_env.core.cars import ENGINE, N_CAR_CODES, car_name, car_type, is_flipped, unflipped
from sm_env.core.catalogue import CardKind
from sm_env.core.errors import shown_value
from sm_env.core.phases import SEAT_TURN_PHASES, Phase
from sm_env.core.pieces import EMPTY, OFFICE_CELL, Tray
from sm_env.core.queries import HAND_LIMIT
from sm_env.core.state import EXTRA_TRAYS, STAGES_PER_DAY, GameState
from sm_env.core.switching import MAX_TRAY_CARS

Problems = Iterator[str]
Check = Callable[[GameState], Problems]

# The phases outside SEAT_TURN_PHASES in which GameState.actor decides.
TRAIN_PHASES = frozenset(
    {Phase.NEW_TRAIN, Phase.EXTRA_SIDE, Phase.EXTRA_CONSIST, Phase.CLEARANCE, Phase.RED_FLAG}
)
_BUILD_PHASES = frozenset({Phase.NEW_TRAIN, Phase.EXTRA_SIDE, Phase.EXTRA_CONSIST})
_LOCAL_OPS_PHASES = frozenset({Phase.LOCAL_OPS, Phase.SWITCHING, Phase.CARD_PLAY})
_FREE_TRAY = Tray().snapshot()


def check_invariants(state: GameState, *, choices: bool = False) -> list[str]:
    """The problems of ``state``: the first each check finds, in the order of the checks;
    empty when every invariant holds. ``choices`` also checks the legal intents."""
    checks = (*_CHECKS, _check_choices) if choices else _CHECKS
    return _run(state, checks)


def check_conservation(state: GameState) -> list[str]:
    """The problems of ``state``'s card and car bookkeeping alone (C-stock.1, C-yards.2)."""
    return _run(state, _CONSERVATION)


def _run(state: GameState, checks: tuple[Check, ...]) -> list[str]:
    return [problem for check in checks for problem in _first(check(state))]


def _first(problems: Problems) -> list[str]:
    # A check is a generator stopped at its first problem: what follows may assume what it found.
    problem = next(problems, None)
    return [] if problem is None else [problem]


# ---------------------------------------------------------------------------- cards and cars


def _place_name(area: str, key: Any) -> str:
    """Where a card lies, as a snapshot path: ``hands[1]``, ``stations[0].grid [1, 2]``."""
    if key is None:
        return area
    if area == "stations":
        office, cell = key
        return f"stations[{office}].grid {list(cell)}"
    return f"{area}[{key}]"


def _check_cards(state: GameState) -> Problems:
    """Every card copy of the catalogue in exactly one place."""
    places: dict[int, list[str]] = {}
    for index, area, key in state.card_places():
        places.setdefault(index, []).append(_place_name(area, key))
    for card in state.catalogue.cards:
        found = places.get(card.index, [])
        if len(found) != card.count:
            where = f" ({', '.join(found[:6])}{', ...' if len(found) > 6 else ''})" if found else ""
            yield (
                f"cards: {len(found)} copies of {card.id!r} (card {card.index}) in the game{where}; "
                f"the catalogue has {card.count}"
            )


def _check_cars(state: GameState) -> Problems:
    """C-stock.1: the cars of each code over the yards, trains, station cards and boxes make
    up the supply."""
    trays, standing, boxed = [0] * N_CAR_CODES, [0] * N_CAR_CODES, [0] * N_CAR_CODES
    for tray in state.trays:
        for code in tray.consist:
            if code != ENGINE:  # C-stock.3
                trays[unflipped(code)] += 1
    for station in state.stations:
        for cars in station.cars.values():
            for code in cars:
                standing[unflipped(code)] += 1
        for boxes in station.boxes.values():
            for code in boxes.cars():
                boxed[unflipped(code)] += 1
    places = {
        "Division Yard": state.division,
        "Classification Yard": state.classification,
        "trains": trays,
        "station cards": standing,
        "facility boxes": boxed,
    }
    for code, supply in enumerate(state.catalogue.car_supply()):
        total = sum(counts[code] for counts in places.values())
        if total != supply:
            detail = ", ".join(f"{name} {counts[code]}" for name, counts in places.items())
            yield (
                f"cars: {total} {car_name(code)} car(s) in the game ({detail}); "
                f"the supply has {supply} (C-stock.1)"
            )


def _check_yards(state: GameState) -> Problems:
    """C-yards.2: the yards hold no negative counts; the Division Yard's total is kept in step."""
    for name, counts in (("division", state.division), ("classification", state.classification)):
        for code, count in enumerate(counts):
            if count < 0:
                yield f"{name}[{code}]: {count} is not a count (>= 0)"
    total = sum(state.division)
    if state.division_total != total:
        yield f"division_total: {state.division_total} is not the Division Yard's sum, {total} (C-yards.2)"


def _check_boxes_unflipped(state: GameState) -> Problems:
    """R9.3.4: only cars in trains and on station cards may be flipped, never in a box."""
    for office, station in enumerate(state.stations):
        for cell, boxes in sorted(station.boxes.items()):
            if any(is_flipped(code) for code in boxes.cars()):
                yield f"stations[{office}].boxes {list(cell)}: a flipped car in a facility's boxes (R9.3.4)"


# ---------------------------------------------------------------------------- the clock and trains


def _check_clock(state: GameState) -> Problems:
    """Stages played so far: one more than the current Stage's number once the game is over."""
    expected = state.day * STAGES_PER_DAY + state.stage + int(state.phase is Phase.GAME_OVER)
    if state.stages_played != expected:
        yield (
            f"stages_played: {state.stages_played} does not agree with day {state.day}, stage {state.stage} "
            f"and phase {state.phase.value!r}: expected {expected}"
        )
    if not 0 <= state.stage < STAGES_PER_DAY:
        yield f"stage: {state.stage} is not a stage (0..{STAGES_PER_DAY - 1})"
    if not 0 <= state.day < state.config.days:
        yield f"day: {state.day} is not a day of the game (0..{state.config.days - 1})"


def _check_held(state: GameState) -> Problems:
    """R7.1: held trains are timetabled trains on the chart, each once, by number."""
    cards = state.catalogue.cards
    for i, card in enumerate(state.held):
        if card not in state.timetable:
            yield f"held[{i}]: card {card} ({cards[card].id!r}) is not on the timetable (R7.1)"
        if card in state.held[:i]:
            yield f"held[{i}]: card {card} is held twice"
    numbers = [spec.number if (spec := cards[card].train) else 0 for card in state.held]
    if numbers != sorted(numbers):
        yield f"held: trains {numbers} are not in the order of their numbers (R7.1)"


def _check_timetable(state: GameState) -> Problems:
    """R7.2: the chart holds timetabled train cards, each card once; the pending Extras are
    Extra train cards (R7.5)."""
    cards = state.catalogue.cards
    on_chart = [card for card in state.timetable if card != EMPTY]
    for slot, card in enumerate(state.timetable):
        if card != EMPTY and cards[card].kind is not CardKind.TRAIN:
            yield f"timetable[{slot}]: card {card} ({cards[card].id!r}) is not a timetabled train (R7.2)"
    twice = sorted({card for card in on_chart if on_chart.count(card) > 1})
    if twice:
        yield f"timetable: card {twice[0]} ({cards[twice[0]].id!r}) is on the chart twice (R7.2)"
    for i, (card, _seat) in enumerate(state.pending_extras):
        if cards[card].kind is not CardKind.EXTRA_TRAIN:
            yield f"pending_extras[{i}]: card {card} ({cards[card].id!r}) is not an Extra train (R7.5)"


def _check_revenue(state: GameState) -> Problems:
    """R2.4.7: a seat's revenue is the sum of its ledger entries."""
    totals = [0] * state.n
    for entry in state.ledger:
        totals[entry.seat] += entry.amount
    for seat, (revenue, total) in enumerate(zip(state.revenue_by_seat, totals, strict=True)):
        if revenue != total:
            yield (
                f"revenue[{seat}]: {shown_value(revenue)} is not the sum of seat {seat}'s ledger entries, "
                f"{shown_value(total)} (R2.4.7)"
            )


def _check_trays(state: GameState) -> Problems:
    """C-trays.1: players + 3 trays; a tray is free, or one train in one place with one engine
    and at most four cars (RA.4.5), running the way its card says (R2.3.1)."""
    if len(state.trays) != state.n + EXTRA_TRAYS:
        yield f"trays: {len(state.trays)} Crew Trays, not {state.n + EXTRA_TRAYS} (offices + 3, C-trays.1)"
    cards = state.catalogue.cards
    on_line: dict[tuple[int, int], int] = {}
    for i, tray in enumerate(state.trays):
        path = f"trays[{i}]"
        if tray.train == EMPTY:
            if tray.snapshot() != _FREE_TRAY:
                yield (
                    f"{path}: a free tray (train -1) has nothing else set: "
                    f"expected {_FREE_TRAY}, got {tray.snapshot()}"
                )
            continue
        spec = cards[tray.train]
        if spec.train is None:
            yield f"{path}: card {tray.train} ({spec.id!r}) is not a train card (C-trays.1)"
            continue
        if spec.kind is CardKind.TRAIN and tray.train not in state.timetable:
            yield f"{path}: timetabled train {spec.id!r} runs but is not on the timetable (R10.3)"
        if spec.kind is CardKind.EXTRA_TRAIN and tray.train in state.timetable:
            yield f"{path}: Extra {spec.id!r} is on the timetable (R7.5)"
        if state.phase is Phase.EXTRA_SIDE and i == state.building:
            yield from _check_waiting_extra(tray, path)
            continue
        yield from _check_train_place(state, i, on_line)
        if tray.consist.count(ENGINE) != 1:
            yield f"{path}: a train has exactly one engine (-1) in its consist, got {list(tray.consist)}"
        if tray.direction not in (1, -1):
            yield f"{path}: a train runs east (1) or west (-1), not {tray.direction}"
        if len(tray.consist) - 1 > MAX_TRAY_CARS:
            cars = len(tray.consist) - 1
            yield f"{path}: {cars} cars with the engine, more than {MAX_TRAY_CARS} (RA.4.5)"
        if spec.kind is CardKind.TRAIN:
            due = 1 if spec.train.number % 2 == 0 else -1
            if tray.direction != due:
                yield f"{path}: {spec.id!r} runs {due}, not {tray.direction} (odd west, even east: R2.3.1)"
    extras = [
        t.train for t in state.trays if t.train != EMPTY and cards[t.train].kind is CardKind.EXTRA_TRAIN
    ]
    twice = sorted({card for card in extras if extras.count(card) > 1})
    if twice:
        yield f"trays: Extra {cards[twice[0]].id!r} runs on two trays (D-run.3: only timetabled trains do)"


def _check_waiting_extra(tray: Tray, path: str) -> Problems:
    """R7.5: an Extra whose Division Point is still to be chosen has a tray and nothing else."""
    expected = Tray()
    expected.train = tray.train
    if tray.snapshot() != expected.snapshot():
        got = tray.snapshot()
        yield f"{path}: an Extra waiting for its Division Point is only a card on a tray, got {got}"


def _check_train_place(state: GameState, index: int, on_line: dict[tuple[int, int], int]) -> Problems:
    """A train is at its Division Point, on a free region of a Mainline card (recorded in
    ``on_line``), or on a cell of a station; the fields of the other places are unset."""
    tray, path = state.trays[index], f"trays[{index}]"
    places = [
        name
        for name, here in (
            ("at its Division Point", tray.at_dp),
            ("on a Mainline card", tray.line != EMPTY),
            ("in a station", tray.office != EMPTY),
        )
        if here
    ]
    if len(places) != 1:
        yield f"{path}: a train is in exactly one place; this one is {' and '.join(places) or 'nowhere'}"
    if tray.office != EMPTY:
        station = state.stations[tray.office]
        if tray.cell is None or tray.cell not in station.grid:
            cell = tray.cell and list(tray.cell)
            yield f"{path}: its cell {cell} is not on the grid of station {tray.office}"
        standing = len(station.cars.get(tray.cell, ())) if tray.cell is not None else 0
        if tray.split > standing:
            yield f"{path}: split {tray.split} is more than the {standing} car(s) standing on its cell"
    elif tray.cell is not None or tray.split:
        yield f"{path}: a train outside the stations has no cell (null) and split 0"
    if tray.line != EMPTY:
        regions = state.catalogue.cards[state.mainline[tray.line]].regions
        if not 0 <= tray.region < regions:
            yield f"{path}: Mainline {tray.line} has regions 0..{regions - 1}, not {tray.region}"
        other = on_line.get((tray.line, tray.region))
        if other is not None:
            taken = f"trays[{other}]"
            yield f"{path}: region {tray.region} of Mainline {tray.line} is taken by {taken} (D-mainline.3)"
        on_line[tray.line, tray.region] = index
        if tray.cleared_by == EMPTY:
            yield f"{path}: a train on the Mainline records the Superintendent who cleared it (cleared_by)"
    elif tray.region:
        yield f"{path}: a train off the Mainline has region 0"


# ---------------------------------------------------------------------------- who decides


def _check_phase(state: GameState) -> Problems:
    """The phase agrees with who decides (R5.0.1): the seat in turn, or ``actor``."""
    phase, n = state.phase, state.n
    name = phase.value
    if phase in SEAT_TURN_PHASES:
        if not 0 <= state.turn < n:
            yield f"turn: {state.turn} is not a seat position (0..{n - 1}), as {name!r} needs"
        if state.actor != EMPTY:
            yield f"actor: must be -1 in {name!r}, where the seat in turn decides; got {state.actor}"
    elif phase in TRAIN_PHASES:
        if state.actor == EMPTY:
            yield f"actor: {name!r} needs the deciding seat (0..{n - 1}), got -1"
        if state.turn != n:
            yield f"turn: must be {n} in {name!r}: every seat has had its Local Operations turn"
    if (phase is Phase.SWITCHING) != (state.moves_left > 0):
        yield f"moves_left: {state.moves_left} Moves left do not fit {name!r} (R6.1.2)"
    if (phase in _BUILD_PHASES) != (state.building != EMPTY):
        yield f"building: a train is being made up exactly in the New Train decisions, not in {name!r}"
    if phase in _BUILD_PHASES:
        yield from _check_building(state)
    if phase is Phase.CLEARANCE and state.actor != state.fedora:
        yield f"actor: the Superintendent (seat {state.fedora}) clears a following train (R8.1.4)"
    if phase in (Phase.CLEARANCE, Phase.RED_FLAG):
        if not state.mainline_queue or state.trays[state.mainline_queue[0]].train == EMPTY:
            yield f"mainline_queue: {name!r} needs the acting train first in the queue"
    elif state.mainline_queue:
        yield f"mainline_queue: trains queue only during the Mainline decisions, not in {name!r}"
    if phase is Phase.RED_FLAG:
        yield from _check_red_flag(state)
    elif state.collision is not None:
        yield f"collision: a collision waits only in 'red_flag', not in {name!r}"


def _check_building(state: GameState) -> Problems:
    """R7.4, R7.5: the train being made up, and the seat choosing its cars."""
    if state.trays[state.building].train == EMPTY:
        yield f"building: trays[{state.building}] is free: no train is being made up on it"
    extra = state.phase is not Phase.NEW_TRAIN
    if extra and state.actor != state.build_owner:
        yield f"actor: the Extra's owner (seat {state.build_owner}) decides, not seat {state.actor}"
    if not extra and state.build_owner != EMPTY:
        yield "building: a timetabled train has no owner (-1)"
    if not extra and state.build_turn >= state.n:
        yield f"building: every seat has added its car; turn {state.build_turn} is not a seat position"
    if not extra and state.actor != (state.fedora + state.build_turn) % state.n:
        seat = (state.fedora + state.build_turn) % state.n
        yield f"actor: seat {seat} adds the next car (R7.4: from the Superintendent), not seat {state.actor}"


def _check_red_flag(state: GameState) -> Problems:
    """D-redflag.1: the seat to be charged the waiting collision holds a RED FLAG."""
    collision = state.collision
    if collision is None:
        yield "collision: 'red_flag' needs the collision waiting for the decision, got null"
        return
    if collision.seat != state.actor:
        yield f"actor: seat {collision.seat}, charged with the collision, decides; not seat {state.actor}"
    if state.red_flag_card not in state.hands[collision.seat]:
        yield f"hands[{collision.seat}]: the seat deciding on a RED FLAG holds none (D-redflag.1)"
    if collision.mover != state.mainline_queue[0]:
        yield f"collision: the moving train is trays[{state.mainline_queue[0]}], first in the queue"
    if collision.struck != EMPTY:
        if state.trays[collision.struck].train == EMPTY:
            yield f"collision: the struck trays[{collision.struck}] is free"
    elif collision.office == EMPTY or collision.cell not in state.stations[collision.office].cars:
        yield "collision: a train striking standing cars names their office and a cell where cars stand"


# ---------------------------------------------------------------------------- seats and hands


def _check_seats(state: GameState) -> Problems:
    """D-seat.1, RB.3: seats and offices pair one to one; C-fedora.1: the Superintendent is a seat."""
    n = state.n
    if sorted(state.office_of_seat) != list(range(n)):
        yield f"office_of_seat: {state.office_of_seat} is not a permutation of 0..{n - 1} (D-seat.1)"
    for seat, office in enumerate(state.office_of_seat):
        if not 0 <= office < len(state.seat_of_office) or state.seat_of_office[office] != seat:
            yield f"seat_of_office: {state.seat_of_office} is not the inverse of office_of_seat (D-seat.1)"
    if not 0 <= state.fedora < n:
        yield f"fedora: {state.fedora} is not a seat (0..{n - 1}) (C-fedora.1)"


def _hand_bound(state: GameState, seat: int) -> int:
    """Most cards ``seat`` may hold now (R6.2.4, D-play.2, RB.4)."""
    toolbox = state.config.house_rules.emergency_toolbox and state.stages_played == 0
    start = HAND_LIMIT + 1 if toolbox else HAND_LIMIT
    if state.phase not in _LOCAL_OPS_PHASES:
        return HAND_LIMIT  # every seat has had its Local Operations turn
    position = (seat - state.fedora) % state.n
    if position < state.turn:
        return HAND_LIMIT
    if position == state.turn and state.phase is Phase.CARD_PLAY:
        return start + 1
    return start


def _check_hands(state: GameState) -> Problems:
    """Hands are sorted (order carries no meaning) and within the limit (R6.2.4, D-play.2);
    with the Emergency Toolbox a seat holds its RED FLAG and three cards until its first turn
    (RB.4)."""
    toolbox = (
        state.config.house_rules.emergency_toolbox
        and state.stages_played == 0
        and state.phase in _LOCAL_OPS_PHASES
    )
    for seat, hand in enumerate(state.hands):
        if hand != sorted(hand):
            yield f"hands[{seat}]: {hand} is not sorted (a hand is kept in card index order)"
        bound = _hand_bound(state, seat)
        if len(hand) > bound:
            yield f"hands[{seat}]: {len(hand)} cards, more than the {bound} seat {seat} may hold now (R6.2.4)"
        if toolbox and (seat - state.fedora) % state.n > state.turn and len(hand) != HAND_LIMIT + 1:
            yield f"hands[{seat}]: {len(hand)} cards before its first turn, not {HAND_LIMIT + 1} (RB.4)"


# ---------------------------------------------------------------------------- stations


def _check_stations(state: GameState) -> Problems:
    """R4.1: the office on (0, 0) between two Limits on an unbroken Running Track (the Limits
    may have moved outward, D-grid.7); Modifiers serve facilities (R9.0.3); boxes only on
    facilities, within capacity (R9.1.3), holding loads the facility ships (green) and cars it
    takes (red) (R2.5.4); cars stand on cards (D-grid.8)."""
    cards = state.catalogue.cards
    for office, station in enumerate(state.stations):
        path = f"stations[{office}]"
        placed = station.grid.get(OFFICE_CELL)
        if placed is None or cards[placed[0]].kind is not CardKind.OFFICE:
            yield f"{path}.grid: no office card on cell [0, 0] (R4.1)"
        limits = sorted(
            c for (r, c), (card, _) in station.grid.items() if r == 0 and cards[card].kind is CardKind.LIMITS
        )
        if len(limits) != 2 or not limits[0] < 0 < limits[1]:
            yield f"{path}.grid: the Running Track needs a Limits card west and one east of the office (R4.1)"
        elif {c for (r, c) in station.grid if r == 0} != set(range(limits[0], limits[1] + 1)):
            yield f"{path}.grid: the Running Track between the Limits has a gap (R4.1, D-grid.7)"
        for cell, served in sorted(station.modifiers.items()):
            if cell not in station.grid or cards[station.grid[cell][0]].kind is not CardKind.MODIFIER:
                yield f"{path}.modifiers: {list(cell)} is not a cell with a Modifier card (R9.0.3)"
            if served not in station.boxes:
                yield f"{path}.modifiers: the Modifier at {list(cell)} serves no facility with boxes (R9.0.3)"
        for cell, boxes in sorted(station.boxes.items()):
            facility = cards[station.grid[cell][0]].facility if cell in station.grid else None
            if facility is None:
                yield f"{path}.boxes: {list(cell)} is not a cell with a facility card"
                continue
            bonus = 0
            for modifier_cell, served in station.modifiers.items():
                modifier = cards[station.grid[modifier_cell][0]].modifier
                if served == cell and modifier is not None:
                    bonus += modifier.capacity
            here = f"{path}.boxes {list(cell)}"
            if facility.shared_capacity is not None:
                if len(boxes.outbound) + len(boxes.inbound) > facility.shared_capacity + bonus:
                    room = facility.shared_capacity + bonus
                    yield f"{here}: more cars than the boxes' shared capacity, {room} (R9.1.3)"
            else:
                if len(boxes.outbound) > facility.outbound_capacity + bonus * bool(facility.outbound):
                    yield f"{here}: more cars in the green box than it holds (R9.1.3)"
                if len(boxes.inbound) > facility.inbound_capacity + bonus * bool(facility.inbound):
                    yield f"{here}: more cars in the red box than it holds (R9.1.3)"
            for code in boxes.outbound:
                if car_type(code) not in facility.outbound or not code & 1:
                    yield f"{here}: {car_name(code)} in the green box, which holds loads it ships (R2.5.4)"
            for code in boxes.inbound:
                if car_type(code) not in facility.inbound:
                    yield f"{here}: {car_name(code)} in the red box, which takes no such car (R2.5.4)"
        without = sorted(
            cell
            for cell, (card, _) in station.grid.items()
            if cards[card].facility and cell not in station.boxes
        )
        if without:
            yield f"{path}.boxes: the facility at {list(without[0])} has no boxes"
        for cell, cars in sorted(station.cars.items()):
            if cell not in station.grid:
                yield f"{path}.cars {list(cell)}: cars stand on no card (D-grid.8)"
            if not cars:
                yield f"{path}.cars {list(cell)}: no cars listed (a cell without cars is left out)"
        for cell in sorted(station.modifiers_used - station.modifiers.keys()):
            yield f"{path}.modifiers_used: {list(cell)} is not a cell with a Modifier card (R9.0.3)"


# ---------------------------------------------------------------------------- the engine's choices


def _check_choices(state: GameState) -> Problems:
    """R5.0.1: the seat to decide is the seat in turn, or ``actor``; it has a legal choice;
    once the game is over nobody decides (D-end.3)."""
    if state.is_terminal():
        if state.current_player() != -1 or state.legal_intents():
            yield "phase: the game is over, yet a seat decides or has a choice (D-end.3)"
        return
    due = (state.fedora + state.turn) % state.n if state.phase in SEAT_TURN_PHASES else state.actor
    if state.current_player() != due:
        yield f"phase: seat {state.current_player()} decides, not seat {due} (R5.0.1)"
    if not state.legal_intents():
        yield f"phase: seat {due} is to decide in {state.phase.value!r} but has no legal intent"


_CONSERVATION: tuple[Check, ...] = (_check_cards, _check_cars, _check_yards)
_CHECKS: tuple[Check, ...] = (
    _check_clock,
    _check_cards,
    _check_held,
    _check_cars,
    _check_revenue,
    _check_trays,
    _check_phase,
    _check_yards,
    _check_boxes_unflipped,
    _check_timetable,
    _check_seats,
    _check_hands,
    _check_stations,
)

__all__ = ["TRAIN_PHASES", "check_conservation", "check_invariants"]

"""Board queries that the rules and the bots both ask: one definition of each, so a bot never
re-derives a rule (docs/rules.md names the rules each one serves).

- trains: the train card's spec and label, its cars, the tray on a Mainline region, the trays
  on an office's A/D track, the cars its card still takes, the slot a played train takes on
  the number board (R2.2, R7.2, R7.4, C-trays.5);
- the Mainline: regions of a card, the card a train departs onto, a train's ETA at an office,
  whether a train is made up to depart (D-mainline.1, R8.1.2, R8.2.1, R8.2.2);
- offices and capacities: the office's tier and A/D tracks, the Modifiers serving a facility,
  its workers and Porters, the room in a green or red box (R2.1.5, R9.0.3, R9.1.3-R9.1.5);
- switching: the Moves a switching turn gives (R6.1.2, RB.1's night rule), the wheel cards one
  Move reaches and the cells a train on the Office reaches by Moves (D-grid.4, D-grid.5);
- the hand limit (R6.2.4).

Every query reads the state and changes nothing. The rules modules import these; code above
the core reaches them through ``sm_env.core``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sm_env.core.cars import CABOOSE, CABOOSE_CODE, ENGINE, FLIPPED, car_name, car_type
from sm_env.core.catalogue import Catalogue, FacilitySpec, ModifierSpec, TrainSpec
from sm_env.core.grid import Survey, geometry_for, survey_of
from sm_env.core.intents import Cell
from sm_env.core.pieces import EMPTY, OFFICE_CELL, Boxes, Station, Tray
from sm_env.core.state import STAGES_PER_DAY

if TYPE_CHECKING:
    from sm_env.core.state import GameState

HAND_LIMIT = 3  # R6.2.4
MOVES_PER_SWITCH = 6  # R6.1.2
MOVES_AT_NIGHT = 5  # RB.1
NIGHT_STAGES = frozenset({0, 1, 2, 10, 11})  # RB.1: midnight-4am and 8pm-10pm


# ---------------------------------------------------------------------------- trains


def spec_of(catalogue: Catalogue, card: int) -> TrainSpec:
    """The train card's spec (number, direction, consist limits)."""
    spec = catalogue.cards[card].train
    assert spec is not None  # trays carry train cards only
    return spec


def train_label(catalogue: Catalogue, card: int) -> str:
    spec = spec_of(catalogue, card)
    return f"Extra X{spec.number}" if spec.extra else f"No. {spec.number}"


def cars_of(tray: Tray) -> list[int]:
    return [code for code in tray.consist if code != ENGINE]


def tray_on_region(state: GameState, line: int, region: int) -> int:
    """The tray on that region of Mainline card ``line``, or EMPTY."""
    for i, tray in enumerate(state.trays):
        if tray.line == line and tray.region == region:
            return i
    return EMPTY


def trays_at(state: GameState, office: int, cell: Cell = OFFICE_CELL) -> list[int]:
    """The trays standing on ``cell`` of the office's station (by default its A/D tracks)."""
    return [i for i, t in enumerate(state.trays) if t.office == office and t.cell == cell]


def fitting_cars(state: GameState, tray: Tray) -> list[int]:
    """Car codes the train's card still allows (R7.4, C-trays.5, C-yards.1): an empty car of a
    listed type below its maximum, or a caboose if the card has one and none is aboard, while
    the train has fewer than ``max_cars`` cars."""
    consist = spec_of(state.catalogue, tray.train).consist
    cars = cars_of(tray)
    if len(cars) >= consist.max_cars:
        return []
    counts = [0] * (CABOOSE + 1)
    for code in cars:
        counts[car_type(code)] += 1
    out = [car * 2 for car, most in consist.allowed if counts[car] < most]
    if consist.caboose != "forbidden" and not counts[CABOOSE]:
        out.append(CABOOSE_CODE)
    return out


def train_takes(state: GameState, tray: Tray, code: int) -> bool:
    """Would the train's card allow one more car of ``code``'s type (``fitting_cars``)?"""
    kind = car_type(code)
    return (CABOOSE_CODE if kind == CABOOSE else kind * 2) in fitting_cars(state, tray)


def makeup_problem(state: GameState, tray: Tray) -> str | None:
    """R8.1.2 / C-trays.4 / C-trays.5: why the train may not depart as made up, or None."""
    consist = tray.consist
    spec = spec_of(state.catalogue, tray.train).consist
    engine = consist.index(ENGINE)
    if engine not in (0, len(consist) - 1):
        return "its engine is not at an outer end"
    cars = cars_of(tray)
    if len(cars) > spec.max_cars:
        return f"it has {len(cars)} cars; its card allows {spec.max_cars}"
    cabooses = [i for i, code in enumerate(consist) if code != ENGINE and (code & _UNFLIP) >> 1 == CABOOSE]
    if cabooses:
        if spec.caboose == "forbidden":
            return "its card forbids a caboose"
        far_end = len(consist) - 1 if engine == 0 else 0
        if len(cabooses) > 1 or cabooses[0] != far_end:
            return "its caboose is not at the end opposite the engine"
    allowed = dict(spec.allowed)
    counts: dict[int, int] = {}
    for code in cars:
        kind = (code & _UNFLIP) >> 1  # car_type
        if kind == CABOOSE:
            continue
        counts[kind] = counts.get(kind, 0) + 1
        if counts[kind] > allowed.get(kind, 0):
            return f"its card allows {allowed.get(kind, 0)} {car_name(code).split()[-1]}(s)"
    return None


_UNFLIP = ~FLIPPED


def free_slot(state: GameState, first: int) -> int:
    """R7.2: the number-board slot a train rolled into ``first`` (0-11) takes: the first free
    one from there down the column, wrapping; EMPTY when every slot is taken."""
    timetable = state.timetable
    for k in range(STAGES_PER_DAY):
        slot = (first + k) % STAGES_PER_DAY
        if timetable[slot] == EMPTY:
            return slot
    return EMPTY


# ---------------------------------------------------------------------------- the Mainline


def regions(board: GameState, line: int) -> int:
    """Regions of the Mainline card ``line`` (D-mainline.1)."""
    return board.catalogue.cards[board.mainline[line]].regions


def start_line(state: GameState, tray: Tray) -> int:
    """The Mainline card a train at an office or its DP departs onto."""
    if tray.at_dp:
        return 0 if tray.direction > 0 else state.n
    return tray.office + 1 if tray.direction > 0 else tray.office


def eta(board: GameState, tray_index: int, office: int) -> int | None:
    """Mainline Phases until the train arrives at ``office`` if nothing holds it (0: it stands
    there now), or None if it will not come (it runs the other way, or is off the A/D track).
    R8.2.1: one region a phase; R8.2.2: it stops at every office. It needs only the public
    board."""
    t = board.trays[tray_index]
    d, n = t.direction, board.n
    if t.train == EMPTY or d == 0:
        return None
    elapsed = 0
    if t.office != EMPTY:
        if t.cell != OFFICE_CELL:
            return None  # off the A/D track: it neither leaves nor can be worked
        if t.office == office:
            return 0
        here = t.office
    elif t.at_dp:
        here = -1 if d > 0 else n
    elif t.line != EMPTY:
        elapsed = regions(board, t.line) - t.region if d > 0 else t.region + 1
        here = t.line if d > 0 else t.line - 1
        if here == office:
            return elapsed
        if not 0 <= here < n:
            return None
    else:
        return None
    if (office - here) * d <= 0:
        return None
    line = here + 1 if d > 0 else here
    while 0 <= line <= n:
        elapsed += 1 + regions(board, line)
        arrive = line if d > 0 else line - 1
        if arrive == office:
            return elapsed
        line += d
    return None


# ---------------------------------------------------------------------------- offices and capacities


def office_tier(state: GameState, office: int) -> int:
    """The office card's tier: 0 a Whistle Post, 1 a Depot, 2 a Station, 3 a Terminal (D-play.3)."""
    spec = state.catalogue.cards[state.stations[office].grid[OFFICE_CELL][0]].office
    assert spec is not None  # the Office cell holds an office card
    return spec.tier


def ad_tracks(state: GameState, office: int) -> int:
    """A/D tracks of the office card: trains its Office card holds (R2.1.5, RA.4.3, R8.2.3)."""
    return geometry_for(state.catalogue).ad_tracks[state.stations[office].grid[OFFICE_CELL][0]]


def facility_spec(state: GameState, station: Station, cell: Cell) -> FacilitySpec:
    facility = state.catalogue.cards[station.grid[cell][0]].facility
    assert facility is not None  # boxes exist only on facility cards
    return facility


def serving_modifiers(state: GameState, station: Station, cell: Cell) -> list[tuple[Cell, ModifierSpec]]:
    """R9.0.3: the Modifiers whose effect the facility on ``cell`` may use this Stage, those
    serving it first: the ones serving it, and the ones next to it serving another facility
    of its category whose effect that one has not used this Stage (used, they move over)."""
    if cell not in station.boxes:  # a Whistle Post: no facility for a Modifier to serve
        return []
    category = facility_spec(state, station, cell).category
    if not station.modifiers:
        return []
    mine: list[tuple[Cell, ModifierSpec]] = []
    others: list[tuple[Cell, ModifierSpec]] = []
    for modifier_cell, served in sorted(station.modifiers.items()):
        spec = state.catalogue.cards[station.grid[modifier_cell][0]].modifier
        assert spec is not None
        if served == cell:
            mine.append((modifier_cell, spec))
        elif (
            spec.applies_to == category
            and modifier_cell not in station.modifiers_used
            and max(abs(modifier_cell[0] - cell[0]), abs(modifier_cell[1] - cell[1])) == 1
        ):
            others.append((modifier_cell, spec))
    return mine + others


def capacity_bonus(state: GameState, station: Station, cell: Cell) -> int:
    """R9.0.3: the capacity the Modifiers this facility may use add."""
    return sum(spec.capacity for _, spec in serving_modifiers(state, station, cell))


def room(facility: FacilitySpec, boxes: Boxes, outbound: bool, bonus: int = 0) -> int:
    """Free places in the green (outbound) or red box (R9.1.3: a shared number caps both;
    R9.0.3: Modifiers add ``bonus`` to each capacity number)."""
    if not (facility.outbound if outbound else facility.inbound):
        return 0
    if facility.shared_capacity is not None:
        return facility.shared_capacity + bonus - len(boxes.outbound) - len(boxes.inbound)
    if outbound:
        return facility.outbound_capacity + bonus - len(boxes.outbound)
    return facility.inbound_capacity + bonus - len(boxes.inbound)


def box_room(state: GameState, office: int, cell: Cell, outbound: bool) -> int:
    """Free places in the green or red box of the facility on ``cell`` of the office's
    station, with its Modifiers' capacity (``room``); 0 where no facility stands."""
    station = state.stations[office]
    boxes = station.boxes.get(cell)
    if boxes is None:
        return 0
    return room(facility_spec(state, station, cell), boxes, outbound, capacity_bonus(state, station, cell))


def workers(state: GameState, station: Station, cell: Cell) -> int:
    """Laborers of a freight facility or Porters of a passenger one, with the Modifiers that
    serve it (R9.1.4, R9.1.5, R9.0.3)."""
    spec = facility_spec(state, station, cell)
    freight = spec.category == "freight"
    count = spec.laborers if freight else spec.porters
    for _, modifier in serving_modifiers(state, station, cell):
        count += modifier.laborers if freight else modifier.porters
    return count


def porters(state: GameState, office: int) -> int:
    """Porters of the office (``workers`` of its passenger facility), 0 for a Whistle Post."""
    station = state.stations[office]
    if OFFICE_CELL not in station.boxes:
        return 0
    return workers(state, station, OFFICE_CELL)


# ---------------------------------------------------------------------------- switching


def moves_for_switch(state: GameState) -> int:
    """The Moves a seat choosing to switch now gets: six (R6.1.2), five at night under the
    reduced_visibility house rule (RB.1)."""
    night = state.config.house_rules.reduced_visibility and state.stage in NIGHT_STAGES
    return MOVES_AT_NIGHT if night else MOVES_PER_SWITCH


def _run(survey: Survey, cell: Cell, east: bool) -> set[Cell]:
    """The cards a Move from ``cell`` heading east (or west) may pass or stop on: it keeps one
    east-west direction (D-grid.4), going on by each card's ends on that side (the survey's
    ways on, D-grid.10)."""
    out: set[Cell] = set()
    stack = list(_ways_on(survey, cell, east))
    while stack:
        here = stack.pop()
        if here in out:
            continue
        out.add(here)
        stack.extend(_ways_on(survey, here, east))
    return out


def _ways_on(survey: Survey, cell: Cell, east: bool) -> tuple[Cell, ...]:
    _, west_ways, east_ways = survey.joined(cell)
    return east_ways if east else west_ways


def move_graph(catalogue: Catalogue, station: Station) -> dict[Cell, set[Cell]]:
    """Wheel card -> the other wheel cards one Move can reach from it (RA.0.2, D-grid.4,
    D-grid.5), ignoring trays, cars and locks."""
    geo = geometry_for(catalogue)
    survey = survey_of(geo, station)
    graph: dict[Cell, set[Cell]] = {}
    for cell, (card, _) in station.grid.items():
        if geo.wheel[card]:
            reached = {c for c in _run(survey, cell, True) if geo.wheel[station.grid[c][0]]}
            reached |= {c for c in _run(survey, cell, False) if geo.wheel[station.grid[c][0]]}
            reached.discard(cell)
            graph[cell] = reached
    return graph


def reachable(state: GameState, office: int) -> set[Cell]:
    """Cells a train on the Office card of ``office`` can reach by Moves: ``reachable_cells``."""
    return reachable_cells(state.catalogue, state.stations[office])


def reachable_cells(catalogue: Catalogue, station: Station) -> set[Cell]:
    """Cells a train on the Office card can reach by Moves (D-grid.4, D-grid.5): a route
    enters a card by one end and leaves by an end on its other side; a new Move may start,
    either way, from any wheel card reached (the Office and Limits cards among them)."""
    geo = geometry_for(catalogue)
    survey = survey_of(geo, station)
    cells = {OFFICE_CELL}
    starts = [OFFICE_CELL]
    started = {OFFICE_CELL}
    while starts:
        start = starts.pop()
        for east in (True, False):
            for cell in _run(survey, start, east):
                cells.add(cell)
                if cell not in started and geo.wheel[station.grid[cell][0]]:
                    started.add(cell)
                    starts.append(cell)
    return cells

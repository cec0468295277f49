"""Station geometry, card placement and local switching (Appendix A, D-grid).

A station is a grid of cards keyed ``(row, col)``; row 0 is the Running Track, row +1 is
north, columns grow eastward (D-grid.1). A card's ends are W, E, NW, NE, SW, SE; two cards
connect where both have the matching ends (D-grid.2). A route through a card goes from an end
on one side (west: W, NW, SW; east: E, NE, SE) to an end on the other, so a Move keeps one
east-west direction (D-grid.4) and every step changes the column by exactly one.

A Move is ``MoveTray(seat, tray, path, drops, push)``: the cells from the tray's card to its
destination, how many cars it leaves from its trailing end on each of them, and how many it
pushes off its leading end at the destination (RA.3). Consists are tuples of car codes,
west to east, with ``ENGINE`` marking the engine.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from sm_env.core.cars import CABOOSE, is_flipped, unflipped
from sm_env.core.catalogue import CardKind, Catalogue
from sm_env.core.errors import IllegalIntent
from sm_env.core.intents import Cell, MoveTray
from sm_env.core.pieces import EMPTY, OFFICE_CELL, Boxes, Station, Tray

if TYPE_CHECKING:
    from sm_env.core.state import GameState

ENGINE = -1
MAX_TRAY_CARS = 4  # RA.4.5: an engine moves at most four cars, ahead and behind together
MAX_STANDING_CARS = 4  # D-grid.8: cars standing on one card
ROW_LIMIT = 2  # D-grid.9: secondary track in rows -2..2
COL_LIMIT = 5  # D-grid.9: the Limits stay within columns -5..5

END_NAMES = ("W", "E", "NW", "NE", "SW", "SE")
W, E, NW, NE, SW, SE = range(6)
END_OFFSET: tuple[Cell, ...] = ((0, -1), (0, 1), (1, -1), (1, 1), (-1, -1), (-1, 1))
MATCHING_END = (E, W, SE, SW, NE, NW)  # the neighbour's end that meets this one; also the 180° turn
EAST_SIDE_MASK = (1 << E) | (1 << NE) | (1 << SE)
WEST_SIDE_MASK = (1 << W) | (1 << NW) | (1 << SW)


def end_direction(end: int) -> int:
    """+1 for an east-side end, -1 for a west-side end."""
    return 1 if end in (E, NE, SE) else -1


class Geometry:
    """Static per-catalogue tables for placement and movement, built once per catalogue."""

    __slots__ = ("ends", "wheel", "capacity", "ad_tracks", "kind")

    def __init__(self, catalogue: Catalogue) -> None:
        self.ends: list[tuple[int, int]] = []  # (mask as printed, mask rotated 180°)
        self.wheel: list[bool] = []
        self.capacity: list[int] = []
        self.ad_tracks: list[int] = []
        self.kind: list[CardKind] = []
        for card in catalogue.cards:
            mask = 0
            if card.track is not None:
                for name in card.track.ends:
                    mask |= 1 << END_NAMES.index(name)
            rotated = 0
            for end in range(6):
                if mask >> end & 1:
                    rotated |= 1 << MATCHING_END[end]
            self.ends.append((mask, rotated))
            self.wheel.append(card.track is not None and card.track.wheel)
            track_capacity = card.track.track_capacity if card.track else None
            self.capacity.append(track_capacity if track_capacity is not None else MAX_STANDING_CARS)
            self.ad_tracks.append(card.office.ad_tracks if card.office else 0)
            self.kind.append(card.kind)


_GEOMETRY: dict[int, tuple[Catalogue, Geometry]] = {}


def geometry_for(catalogue: Catalogue) -> Geometry:
    entry = _GEOMETRY.get(id(catalogue))
    if entry is None or entry[0] is not catalogue:
        entry = (catalogue, Geometry(catalogue))
        _GEOMETRY[id(catalogue)] = entry
    return entry[1]


def cell_ends(geo: Geometry, station: Station, cell: Cell) -> int:
    placed = station.grid.get(cell)
    if placed is None:
        return 0
    return geo.ends[placed[0]][placed[1]]


def neighbour(geo: Geometry, station: Station, cell: Cell, end: int) -> Cell | None:
    """The cell joined to ``cell`` through ``end``, if both cards have the matching ends."""
    if not cell_ends(geo, station, cell) >> end & 1:
        return None
    dr, dc = END_OFFSET[end]
    other = (cell[0] + dr, cell[1] + dc)
    if cell_ends(geo, station, other) >> MATCHING_END[end] & 1:
        return other
    return None


def is_locked(station: Station, cell: Cell) -> bool:
    """R9.3.3: an industry track with loads on MEN|AT|WORK is no Operational Rail."""
    boxes = station.boxes.get(cell)
    return boxes is not None and cell != OFFICE_CELL and any(c != EMPTY for c in boxes.work)


def limits_cols(geo: Geometry, station: Station) -> tuple[int, int]:
    """Columns of the west and east Limits cards on the Running Track."""
    cols = [c for (r, c), (card, _) in station.grid.items() if r == 0 and geo.kind[card] is CardKind.LIMITS]
    return min(cols), max(cols)


# ---------------------------------------------------------------- placement (D-grid.6, D-grid.7)


def placement_problem(
    state: GameState, seat: int, card: int, cell: Cell, rotated: bool
) -> tuple[str, str] | None:
    """Why the seat cannot place this track or facility card there, or None if it can."""
    geo = geometry_for(state.catalogue)
    station = state.stations[state.office_of_seat[seat]]
    kind = geo.kind[card]
    if kind is not CardKind.TRACK and kind is not CardKind.FACILITY:
        return ("D-grid.6", f"{state.catalogue.cards[card].name} is not a track or facility card")
    row, col = cell
    mask = geo.ends[card][1 if rotated else 0]
    if row == 0:
        west, east = limits_cols(geo, station)
        if col not in (west, east):
            return (
                "D-grid.7",
                f"on the Running Track a card goes only where a Limits card stands ({west} or {east})",
            )
        if kind is not CardKind.TRACK or (mask & (1 << W | 1 << E)) != (1 << W | 1 << E):
            return ("D-grid.7", "a card placed into the Running Track needs both a W and an E end")
        if not -COL_LIMIT < col < COL_LIMIT:
            return ("D-grid.9", f"the Limits cannot move beyond column {'-' if col < 0 else ''}{COL_LIMIT}")
        if station.cars.get(cell) or any(
            t.office == state.office_of_seat[seat] and t.cell == cell for t in state.trays
        ):
            return ("D-grid.7", "the Limits card can only move outward while nothing stands on it")
        return None
    if not 0 < abs(row) <= ROW_LIMIT:
        return ("D-grid.9", f"secondary track goes in rows -{ROW_LIMIT}..{ROW_LIMIT}, not row {row}")
    west, east = limits_cols(geo, station)
    if not west < col < east:
        return ("D-grid.6", f"secondary track goes between the Limits, in columns {west + 1}..{east - 1}")
    if cell in station.grid:
        return ("D-grid.6", f"cell {cell} already holds {state.catalogue.cards[station.grid[cell][0]].name}")
    for end in range(6):
        if mask >> end & 1:
            dr, dc = END_OFFSET[end]
            if cell_ends(geo, station, (row + dr, col + dc)) >> MATCHING_END[end] & 1:
                return None
    return ("D-grid.6", f"no end of the card at {cell} would meet the track already laid")


def modifier_problem(
    state: GameState, seat: int, card: int, cell: Cell, facility: Cell
) -> tuple[str, str] | None:
    """Why the seat cannot place this Modifier at ``cell`` serving ``facility`` (R9.0.3)."""
    cat = state.catalogue
    spec = cat.cards[card].modifier
    if spec is None:
        return ("R9.0.3", f"{cat.cards[card].name} is not a Modifier Facility")
    geo = geometry_for(cat)
    station = state.stations[state.office_of_seat[seat]]
    row, col = cell
    west, east = limits_cols(geo, station)
    if not 0 < abs(row) <= ROW_LIMIT or not west < col < east:
        return ("D-grid.6", f"a Modifier goes off the Running Track between the Limits; {cell} is not")
    if cell in station.grid:
        return ("D-grid.6", f"cell {cell} is not empty")
    served = station.grid.get(facility)
    target = cat.cards[served[0]].facility if served else None
    if target is None or facility not in station.boxes:
        return ("R9.0.3", f"there is no facility at {facility}")
    if target.category != spec.applies_to:
        return ("R9.0.3", f"a {spec.applies_to} Modifier cannot serve a {target.category} facility")
    if max(abs(facility[0] - row), abs(facility[1] - col)) != 1:
        return ("R9.0.3", f"{facility} is not next to {cell} (one of the eight cells around it)")
    return None


def legal_placements(state: GameState, seat: int, card: int) -> list[tuple[Cell, bool]]:
    """Every (cell, rotated) where the seat may place this track or facility card."""
    return placements_by_card(state, seat, (card,))[card]


def placements_by_card(
    state: GameState, seat: int, cards: tuple[int, ...] | list[int]
) -> dict[int, list[tuple[Cell, bool]]]:
    """``legal_placements`` for several cards, surveying the station once (the same rules as
    ``placement_problem``, which the tests hold it to)."""
    geo = geometry_for(state.catalogue)
    office = state.office_of_seat[seat]
    station = state.stations[office]
    west, east = limits_cols(geo, station)
    # D-grid.7: a Limits cell inside the window with nothing standing on it.
    held = {t.cell for t in state.trays if t.office == office}
    open_limits = [
        (0, c)
        for c in (west, east)
        if -COL_LIMIT < c < COL_LIMIT and not station.cars.get((0, c)) and (0, c) not in held
    ]
    # D-grid.6: empty cells between the Limits, with the ends that would meet laid track.
    need: dict[Cell, int] = {}
    for (r, c), (laid, rotated) in station.grid.items():
        mask = geo.ends[laid][rotated]
        for end in range(6):
            if mask >> end & 1:
                dr, dc = END_OFFSET[end]
                cell = (r + dr, c + dc)
                if (
                    cell[0]
                    and abs(cell[0]) <= ROW_LIMIT
                    and west < cell[1] < east
                    and cell not in station.grid
                ):
                    need[cell] = need.get(cell, 0) | 1 << MATCHING_END[end]
    attach = sorted(need.items())
    both = (1 << W) | (1 << E)
    out: dict[int, list[tuple[Cell, bool]]] = {}
    for card in cards:
        kind = geo.kind[card]
        options: list[tuple[Cell, bool]] = []
        if kind is CardKind.TRACK or kind is CardKind.FACILITY:
            masks = geo.ends[card]
            if kind is CardKind.TRACK:
                options += [
                    (cell, rot) for cell in open_limits for rot in (False, True) if masks[rot] & both == both
                ]
            options += [(cell, rot) for cell, need in attach for rot in (False, True) if masks[rot] & need]
        out[card] = options
    return out


def legal_modifier_placements(state: GameState, seat: int, card: int) -> list[tuple[Cell, Cell]]:
    station = state.stations[state.office_of_seat[seat]]
    out = []
    for facility in sorted(station.boxes):
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                cell = (facility[0] + dr, facility[1] + dc)
                if (dr or dc) and modifier_problem(state, seat, card, cell, facility) is None:
                    out.append((cell, facility))
    return sorted(out)


def place(state: GameState, card: int, cell: Cell, rotated: bool, office: int) -> None:
    """Lay a checked card; into row 0 it takes the Limits' cell and pushes the Limits out."""
    station = state.stations[office]
    geo = geometry_for(state.catalogue)
    if cell[0] == 0:
        limits = station.grid[cell]
        station.grid[(0, cell[1] + (1 if cell[1] > 0 else -1))] = limits
    station.grid[cell] = (card, rotated)
    if geo.kind[card] is CardKind.FACILITY:
        station.boxes[cell] = Boxes()


# ---------------------------------------------------------------- switching (Appendix A)


def _trailing(consist: tuple[int, ...], direction: int) -> int:
    """Cars between the trailing end and the engine."""
    engine = consist.index(ENGINE)
    return engine if direction > 0 else len(consist) - engine - 1


def _drop_trailing(
    consist: tuple[int, ...], k: int, direction: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(dropped cars, consist after); trailing = west end moving east, east end moving west."""
    if direction > 0:
        return consist[:k], consist[k:]
    return consist[len(consist) - k :], consist[: len(consist) - k]


def _drop_leading(
    consist: tuple[int, ...], k: int, direction: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return _drop_trailing(consist, k, -direction)


def _couple(consist: tuple[int, ...], cars: tuple[int, ...], direction: int) -> tuple[int, ...]:
    """Cars met ahead go onto the leading end, keeping their left-to-right order (RA.3.2)."""
    return consist + cars if direction > 0 else cars + consist


class SwitchingView:
    """What one Move needs to know about the station, gathered once per listing."""

    __slots__ = ("geo", "station", "ad_tracks", "occupied", "office_trays")

    def __init__(self, state: GameState, office: int, tray: Tray) -> None:
        self.geo = geometry_for(state.catalogue)
        self.station = station = state.stations[office]
        office_card = station.grid.get(OFFICE_CELL)
        self.ad_tracks = self.geo.ad_tracks[office_card[0]] if office_card else 0
        others = [t.cell for t in state.trays if t is not tray and t.office == office and t.cell is not None]
        self.occupied = {c for c in others if c != OFFICE_CELL}
        self.office_trays = sum(1 for c in others if c == OFFICE_CELL)

    def blocked(self, cell: Cell) -> tuple[str, str] | None:
        """Why a tray may not enter this card, or None (RA.4.2, RA.4.3, R9.3.3)."""
        if cell == OFFICE_CELL:
            if self.office_trays >= self.ad_tracks:
                return (
                    "RA.4.3",
                    f"every A/D track of the office is held ({self.office_trays}/{self.ad_tracks})",
                )
            return None
        if cell in self.occupied:
            return ("RA.4.2", f"another Crew Tray stands on {cell}")
        if is_locked(self.station, cell):
            return ("R9.3.3", f"the industry track at {cell} is locked while loads are worked")
        return None

    def can_stop(self, cell: Cell) -> bool:
        return self.geo.wheel[self.station.grid[cell][0]] and not is_locked(self.station, cell)

    def can_drop(self, cell: Cell) -> bool:
        return cell != OFFICE_CELL and self.can_stop(cell)

    def capacity(self, cell: Cell) -> int:
        return self.geo.capacity[self.station.grid[cell][0]]

    def standing(self, cell: Cell) -> tuple[int, ...]:
        return self.station.cars.get(cell, ())


def start_groups(view: SwitchingView, tray: Tray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Cars on the tray's own card: (west of it, east of it)."""
    assert tray.cell is not None
    cars = view.standing(tray.cell)
    return cars[: tray.split], cars[tray.split :]


def list_moves(state: GameState, seat: int, tray_index: int) -> list[MoveTray]:
    """Every legal Move of one tray of the seat's station, in a stable order (RA, D-grid)."""
    tray = state.trays[tray_index]
    office = state.office_of_seat[seat]
    if tray.office != office or tray.cell is None:
        return []
    view = SwitchingView(state, office, tray)
    start = tray.cell
    west_group, east_group = start_groups(view, tray)
    out: list[MoveTray] = []
    ends = cell_ends(view.geo, view.station, start)
    for end in range(6):
        if not ends >> end & 1:
            continue
        nxt = neighbour(view.geo, view.station, start, end)
        if nxt is None or view.blocked(nxt) is not None:
            continue
        direction = end_direction(end)
        behind = west_group if direction > 0 else east_group
        ahead = east_group if direction > 0 else west_group
        room = view.capacity(start) - len(behind) if view.can_drop(start) else 0
        for k in range(min(_trailing(tray.consist, direction), room) + 1):
            _, consist = _drop_trailing(tray.consist, k, direction)
            consist = _couple(consist, ahead, direction)
            if len(consist) - 1 > MAX_TRAY_CARS:
                continue
            _extend(view, tray_index, seat, direction, nxt, consist, (start,), (k,), out)
    return out


def _extend(
    view: SwitchingView,
    tray_index: int,
    seat: int,
    direction: int,
    cell: Cell,
    consist: tuple[int, ...],
    path: tuple[Cell, ...],
    drops: tuple[int, ...],
    out: list[MoveTray],
) -> None:
    """Enter ``cell``: couple what stands there, then stop here or drop and go on."""
    standing = view.standing(cell)
    if standing:
        if len(consist) - 1 + len(standing) > MAX_TRAY_CARS:
            return  # RA.4.5: cars it could not pick up
        consist = _couple(consist, standing, direction)
    path = path + (cell,)
    droppable = view.can_drop(cell)
    trailing = _trailing(consist, direction) if droppable else 0
    capacity = view.capacity(cell) if droppable else 0
    if view.can_stop(cell):
        leading = len(consist) - 1 - _trailing(consist, direction)
        for k in range(min(trailing, capacity) + 1):
            for push in range(min(leading, capacity - k) + 1 if droppable else 1):
                out.append(MoveTray(seat, tray_index, path, drops + (k,), push))
    ends = cell_ends(view.geo, view.station, cell)
    side = EAST_SIDE_MASK if direction > 0 else WEST_SIDE_MASK
    exits = [
        n
        for end in range(6)
        if ends & side >> end & 1 and (n := neighbour(view.geo, view.station, cell, end)) is not None
    ]
    exits = [n for n in exits if view.blocked(n) is None]
    if not exits:
        return
    for k in range(min(trailing, capacity) + 1):
        _, rest = _drop_trailing(consist, k, direction)
        for n in exits:
            _extend(view, tray_index, seat, direction, n, rest, path, drops + (k,), out)


def apply_move(state: GameState, move: MoveTray) -> None:
    """Check one Move step by step (naming the rule it breaks), then carry it out."""
    tray, office = _check_shape(state, move)
    view = SwitchingView(state, office, tray)
    path, drops = move.path, move.drops
    direction = _route_direction(state, office, view, path)
    west_group, east_group = start_groups(view, tray)
    behind, ahead = (west_group, east_group) if direction > 0 else (east_group, west_group)

    fail = partial(_illegal, state, office)

    def pick_up(consist: tuple[int, ...], cars: tuple[int, ...], cell: Cell) -> tuple[int, ...]:
        if len(consist) - 1 + len(cars) > MAX_TRAY_CARS:
            raise fail("RA.4.5", f"picking up the {len(cars)} car(s) at {cell} would make more than 4")
        return _couple(consist, cars, direction)

    def leave(consist: tuple[int, ...], k: int, cell: Cell) -> tuple[tuple[int, ...], tuple[int, ...]]:
        if k and not view.can_drop(cell):
            raise fail("RA.4.1" if cell == OFFICE_CELL else "RA.0.1", f"no cars may be left at {cell}")
        if k > _trailing(consist, direction):
            raise fail("RA.3.1", f"the tray has fewer than {k} cars behind its engine")
        return _drop_trailing(consist, k, direction)

    # Trailing groups stand west of the tray when it heads east, east of it when it heads west.
    left: dict[Cell, tuple[tuple[int, ...], tuple[int, ...]]] = {}  # cell -> (trailing, leading)
    dropped, consist = leave(tray.consist, drops[0], path[0])
    left[path[0]] = (behind + dropped if direction > 0 else dropped + behind, ())
    consist = pick_up(consist, ahead, path[0])
    for cell, k in zip(path[1:], drops[1:], strict=True):
        problem = view.blocked(cell)
        if problem is not None:
            raise fail(*problem)
        consist = pick_up(consist, view.standing(cell), cell)  # RA.4.4: all of them
        dropped, consist = leave(consist, k, cell)
        left[cell] = (dropped, ())
    destination = path[-1]
    if not view.can_stop(destination):
        raise fail("RA.1.2", f"a Move cannot end on {destination}: it has no wheel icon")
    if move.push:
        if not view.can_drop(destination):
            raise fail("RA.4.1", f"no cars may be left at {destination}")
        if move.push > len(consist) - 1 - _trailing(consist, direction):
            raise fail("RA.3.2", f"the tray has fewer than {move.push} cars ahead of its engine")
    pushed, consist = _drop_leading(consist, move.push, direction)
    left[destination] = (left[destination][0], pushed)
    for cell, (trailing, leading) in left.items():
        if len(trailing) + len(leading) > view.capacity(cell):
            raise fail("D-grid.8", f"{cell} holds at most {view.capacity(cell)} cars")

    for cell, (trailing, leading) in left.items():
        west, east = (trailing, leading) if direction > 0 else (leading, trailing)
        if west or east:
            view.station.cars[cell] = west + east
        else:
            view.station.cars.pop(cell, None)
        if cell == destination:
            tray.split = len(west)
    tray.cell = destination
    tray.consist = consist


def _check_shape(state: GameState, move: MoveTray) -> tuple[Tray, int]:
    """The tray is the seat's, and the path and counts fit together (field types are checked
    by ``intents.malformed`` before this)."""
    if not 0 <= move.tray < len(state.trays):
        raise IllegalIntent("RA.0.2", f"there is no Crew Tray {move.tray}")
    tray = state.trays[move.tray]
    office = state.office_of_seat[move.seat]
    if tray.office != office or tray.cell is None:
        raise IllegalIntent("R6.1.1", f"Crew Tray {move.tray} is not in seat {move.seat}'s station")
    if move.path[0] != tray.cell:
        raise IllegalIntent("RA.0.2", f"a Move's path starts on the tray's card {tray.cell}")
    if len(move.drops) != len(move.path) or min(move.drops) < 0:
        raise IllegalIntent("RA.3.1", "a Move gives one non-negative drop count per card of its path")
    if move.push < 0:
        raise IllegalIntent("RA.3.2", "the cars pushed off at the destination are a non-negative count")
    return tray, office


def _route_direction(state: GameState, office: int, view: SwitchingView, path: tuple[Cell, ...]) -> int:
    """The Move's east-west direction, once every step is checked to follow track (RA.0.2)."""
    direction = 0
    for a, b in zip(path, path[1:], strict=False):
        step = _step_end(view, a, b)
        if step is None:
            raise _illegal(state, office, "RA.0.2", f"{a} and {b} are not joined by track")
        if direction and end_direction(step) != direction:
            raise _illegal(state, office, "RA.0.2", f"going from {a} to {b} changes direction")
        direction = end_direction(step)
    return direction


def _step_end(view: SwitchingView, a: Cell, b: Cell) -> int | None:
    """The end of ``a`` that joins it to the adjacent cell ``b``, if the track connects."""
    if not isinstance(b, tuple) or len(b) != 2:
        return None
    for end in range(6):
        if END_OFFSET[end] == (b[0] - a[0], b[1] - a[1]) and neighbour(view.geo, view.station, a, end) == b:
            return end
    return None


def _illegal(state: GameState, office: int, rule: str, message: str) -> IllegalIntent:
    return IllegalIntent(rule, f"{message}\n{render_station(state, office)}")


# ---------------------------------------------------------------- text


_CAR_LETTERS = ("co", "bx", "ho", "rf", "tk", "cb")


def car_label(code: int) -> str:
    """Two letters a car: upper case loaded (coloured), lower case empty (white); CB caboose;
    a trailing ^ marks a car flipped onto its roof (R9.3.4)."""
    if code == ENGINE:
        return "E"
    flip = "^" if is_flipped(code) else ""
    code = unflipped(code)
    letters = _CAR_LETTERS[code >> 1]
    return (letters.upper() if code & 1 or code >> 1 == CABOOSE else letters) + flip


def consist_label(consist: tuple[int, ...], facing: int) -> str:
    parts = [car_label(c) for c in consist]
    engine = consist.index(ENGINE)
    parts[engine] = "<E" if facing < 0 else "E>"
    return " ".join(parts)


def render_station(state: GameState, office: int, width: int = 20) -> str:
    """The station as a grid of cards, north row first, one box per card.

    A box gives the card id (``o`` marks Operational Rail), its ends, the cars standing on it
    west to east, and any Crew Tray on it (``T2[<E BX co]``: tray 2, engine facing west, a
    loaded boxcar, an empty coach). The office shows its A/D tracks held/available.
    """
    cat = state.catalogue
    geo = geometry_for(cat)
    station = state.stations[office]
    rows = sorted({r for r, _ in station.grid}, reverse=True)
    cols = range(min(c for _, c in station.grid), max(c for _, c in station.grid) + 1)
    trays: dict[Cell, list[str]] = {}
    for i, tray in enumerate(state.trays):
        if tray.office == office and tray.cell is not None:
            trays.setdefault(tray.cell, []).append(f"T{i}[{consist_label(tray.consist, tray.facing)}]")
    lines = [f"office {office} (seat {state.seat_of_office[office]})"]
    lines.append("col   " + "".join(f"{c:^{width}}" for c in cols))
    for r in rows:
        boxes: list[list[str] | None] = []
        for c in cols:
            placed = station.grid.get((r, c))
            if placed is None:
                boxes.append(None)
                continue
            card, rotated = placed
            mask = geo.ends[card][rotated]
            ends = "-".join(END_NAMES[e] for e in range(6) if mask >> e & 1)
            if (r, c) in station.modifiers:
                ends = f"serves {station.modifiers[(r, c)]}"
            status = " ".join(trays.get((r, c), []))
            if (r, c) == OFFICE_CELL:
                held = sum(1 for t in state.trays if t.office == office and t.cell == OFFICE_CELL)
                status = f"A/D {held}/{geo.ad_tracks[card]} {status}".strip()
            if is_locked(station, (r, c)):
                status = f"LOCKED {status}".strip()
            cars = " ".join(car_label(x) for x in station.cars.get((r, c), ()))
            boxes.append([cat.cards[card].id + (" o" if geo.wheel[card] else ""), ends, cars, status])
        for line in range(4):
            label = f"row {r:>2}" if line == 0 else ""
            text = "".join(
                " " * width if box is None else f"[{box[line][: width - 2]:<{width - 2}}]" for box in boxes
            )
            lines.append(f"{label:<6}{text}".rstrip())
    return "\n".join(lines)


def move_key(move: MoveTray) -> tuple[int, int, int, int, int, int]:
    """A compact, state-free key of a Move: (tray, destination row, destination column,
    route, drops, push). ``route`` packs the direction (bit 0) and, per step, the lane taken
    (0 straight, 1 north diagonal, 2 south diagonal) in base 3; ``drops`` packs one count per
    path cell in base 5 (D-grid.10)."""
    path = move.path
    east = path[1][1] > path[0][1]
    route = 0
    for a, b in reversed(list(zip(path, path[1:], strict=False))):
        lane = 0 if b[0] == a[0] else (1 if b[0] > a[0] else 2)
        route = route * 3 + lane
    drops = 0
    for k in reversed(move.drops):
        drops = drops * 5 + k
    return (move.tray, path[-1][0], path[-1][1], route * 2 + int(east), drops, move.push)


__all__ = [
    "ENGINE",
    "Geometry",
    "apply_move",
    "geometry_for",
    "legal_modifier_placements",
    "legal_placements",
    "placements_by_card",
    "list_moves",
    "modifier_problem",
    "move_key",
    "place",
    "placement_problem",
    "render_station",
]

"""The station grid and card placement (Appendix A geometry, D-grid).

A station is a grid of cards keyed ``(row, col)``; row 0 is the Running Track, row +1 is
north, columns grow eastward (D-grid.1). A card's ends are W, E, NW, NE, SW, SE; two cards
connect where both have the matching ends (D-grid.2). A route through a card goes from an end
on one side (west: W, NW, SW; east: E, NE, SE) to an end on the other, so a Move keeps one
east-west direction (D-grid.4) and every step changes the column by exactly one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sm_env.core.catalogue import CardKind, Catalogue
from sm_env.core.intents import Cell
from sm_env.core.pieces import EMPTY, OFFICE_CELL, Boxes, Station

if TYPE_CHECKING:
    from sm_env.core.state import GameState

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

    __slots__ = ("catalogue", "ends", "links", "turns", "wheel", "capacity", "ad_tracks", "kind", "surveys")

    def __init__(self, catalogue: Catalogue) -> None:
        self.catalogue = catalogue
        self.ends: list[tuple[int, int]] = []  # (mask as printed, mask rotated 180°)
        # Per card, as printed and rotated: (row offset, column offset, the neighbour's end
        # that meets it as a bit) for each of its ends, in end order (placement surveys).
        self.links: list[tuple[tuple[tuple[int, int, int], ...], tuple[tuple[int, int, int], ...]]] = []
        # Per card, the ways up (rotated or not) it may go into the Running Track: a track card
        # with both a W and an E end (D-grid.7); none for any other card.
        self.turns: list[tuple[bool, ...]] = []
        self.wheel: list[bool] = []
        self.capacity: list[int] = []
        self.ad_tracks: list[int] = []
        self.kind: list[CardKind] = []
        self.surveys: dict[tuple[object, ...], Survey] = {}  # by grid: see ``survey_of``
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
            self.links.append((_links(mask), _links(rotated)))
            both = (1 << W) | (1 << E)
            turns = [rot for rot, ends in ((False, mask), (True, rotated)) if ends & both == both]
            self.turns.append(tuple(turns) if card.kind is CardKind.TRACK else ())
            self.wheel.append(card.track is not None and card.track.wheel)
            track_capacity = card.track.track_capacity if card.track else None
            self.capacity.append(track_capacity if track_capacity is not None else MAX_STANDING_CARS)
            self.ad_tracks.append(card.office.ad_tracks if card.office else 0)
            self.kind.append(card.kind)

    def __reduce__(self) -> tuple[Callable[[Catalogue], Geometry], tuple[Catalogue]]:
        return (geometry_for, (self.catalogue,))  # pickles and copies (the compiled class too)


def _links(mask: int) -> tuple[tuple[int, int, int], ...]:
    ends = [end for end in range(6) if mask >> end & 1]
    return tuple((END_OFFSET[end][0], END_OFFSET[end][1], 1 << MATCHING_END[end]) for end in ends)


_GEOMETRY: dict[int, tuple[Catalogue, Geometry]] = {}
_last: list[tuple[Catalogue, Geometry]] = []  # the catalogue asked for last, and its tables


def geometry_for(catalogue: Catalogue) -> Geometry:
    if _last and _last[0][0] is catalogue:
        return _last[0][1]
    entry = _GEOMETRY.get(id(catalogue))
    if entry is None or entry[0] is not catalogue:
        entry = (catalogue, Geometry(catalogue))
        _GEOMETRY[id(catalogue)] = entry
    _last[:] = [entry]
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
    kind = geo.kind
    limits = _LIMITS
    west, east = COL_LIMIT + 1, -COL_LIMIT - 1
    found = False
    for (r, c), (card, _) in station.grid.items():
        if not r and kind[card] is limits:
            if not found:
                west = east = c
                found = True
            elif c < west:
                west = c
            elif c > east:
                east = c
    if not found:
        raise ValueError(f"the station has no Limits card on its Running Track ({sorted(station.grid)})")
    return west, east


_LIMITS = CardKind.LIMITS


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


def placements_by_card(
    state: GameState, seat: int, cards: tuple[int, ...] | list[int]
) -> dict[int, list[tuple[Cell, bool]]]:
    """Every (cell, rotated) where the seat may place each of these track or facility cards,
    surveying the station once (the same rules as ``placement_problem``, which the tests hold
    it to)."""
    geo = geometry_for(state.catalogue)
    office = state.office_of_seat[seat]
    station = state.stations[office]
    survey = survey_of(geo, station)
    limits = open_limits(state, office, survey)
    return {card: limits_options(geo, card, limits) + list(survey.options(card)) for card in cards}


def open_limits(state: GameState, office: int, survey: Survey) -> list[Cell]:
    """D-grid.7: the Limits cells inside the window with nothing standing on them."""
    return [(0, c) for c in survey.limits() if limits_open(state, office, c)]


def limits_open(state: GameState, office: int, col: int) -> bool:
    """D-grid.7: may a card be laid into the Running Track at the Limits in column ``col``?"""
    if not -COL_LIMIT < col < COL_LIMIT:
        return False
    cell = (0, col)
    if state.stations[office].cars.get(cell):
        return False
    for tray in state.trays:  # noqa: SIM110  # a plain loop: quicker than all() on a generator
        if tray.office == office and tray.cell == cell:
            return False
    return True


_BOTH = (1 << W) | (1 << E)


def limits_options(geo: Geometry, card: int, limits: list[Cell]) -> list[tuple[Cell, bool]]:
    """D-grid.7: a track card with both a W and an E end goes where an open Limits card is."""
    turns = geo.turns[card]
    return [(cell, rot) for cell in limits for rot in turns]


class Survey:
    """What laying cards and moving trays need to know of one station grid, worked out when
    first asked: the Limits' columns; the empty cells between them, within the rows, where
    laid track could be met, with the ends that would meet it (D-grid.6), and each card's
    options there; the cards each card is joined to by track (D-grid.2). It follows from the
    grid alone (``key``, its items, kept as ``grid``), so a station keeps its last survey
    (``Station.survey``) while its grid is unchanged, and equal grids share one."""

    __slots__ = ("geo", "key", "grid", "_limits", "_attach", "_options", "_joined")

    def __init__(self, geo: Geometry, key: tuple[tuple[Cell, tuple[int, bool]], ...]) -> None:
        self.geo = geo
        self.key = key
        self.grid: dict[Cell, tuple[int, bool]] = dict(key)
        self._limits: tuple[int, int] | None = None
        self._attach: list[tuple[Cell, int]] | None = None
        self._options: dict[int, tuple[tuple[Cell, bool], ...]] = {}
        self._joined: dict[Cell, tuple[tuple[tuple[int, Cell], ...], tuple[Cell, ...], tuple[Cell, ...]]] = {}

    def __reduce__(self) -> tuple[Callable[[], None], tuple[()]]:
        """A copied or pickled station starts without a survey: it is made again when asked for."""
        return (_no_survey, ())

    def limits(self) -> tuple[int, int]:
        """Columns of the west and east Limits cards (``limits_cols``)."""
        limits = self._limits
        if limits is None:
            kind = self.geo.kind
            cols = [c for (r, c), (card, _) in self.grid.items() if not r and kind[card] is CardKind.LIMITS]
            limits = self._limits = (min(cols), max(cols))
        return limits

    def attach(self) -> list[tuple[Cell, int]]:
        """The empty cells off the Running Track, between the Limits, that laid track reaches,
        in order, each with the ends (as bits) a card there would need one of."""
        attach = self._attach
        if attach is None:
            grid = self.grid
            west, east = self.limits()
            need: dict[Cell, int] = {}
            links = self.geo.links
            for (r, c), (laid, rotated) in grid.items():
                for dr, dc, bit in links[laid][rotated]:
                    row = r + dr
                    if row and -ROW_LIMIT <= row <= ROW_LIMIT:
                        col = c + dc
                        if west < col < east:
                            cell = (row, col)
                            if cell not in grid:
                                need[cell] = need.get(cell, 0) | bit
            attach = self._attach = sorted(need.items())
        return attach

    def options(self, card: int) -> tuple[tuple[Cell, bool], ...]:
        """(cell, rotated) for a track or facility card off the Running Track, in order."""
        options = self._options.get(card)
        if options is None:
            found: list[tuple[Cell, bool]] = []
            kind = self.geo.kind[card]
            if kind is CardKind.TRACK or kind is CardKind.FACILITY:
                plain, turned = self.geo.ends[card]
                for cell, want in self.attach():
                    if plain & want:
                        found.append((cell, False))
                    if turned & want:
                        found.append((cell, True))
            options = self._options[card] = tuple(found)
        return options

    def joined(self, cell: Cell) -> tuple[tuple[tuple[int, Cell], ...], tuple[Cell, ...], tuple[Cell, ...]]:
        """The cards joined to ``cell`` by track (``neighbour``): (end, cell) for each of its
        ends in end order; then the cells alone a Move may go on to heading west and heading
        east (``switching._extend``), in end order."""
        joined = self._joined.get(cell)
        if joined is None:
            grid = self.grid
            ends = self.geo.ends
            placed = grid.get(cell)
            mask = ends[placed[0]][placed[1]] if placed is not None else 0
            out: list[tuple[int, Cell]] = []
            for end in range(6):
                if mask >> end & 1:
                    dr, dc = END_OFFSET[end]
                    other = (cell[0] + dr, cell[1] + dc)
                    there = grid.get(other)
                    if there is not None and ends[there[0]][there[1]] >> MATCHING_END[end] & 1:
                        out.append((end, other))
            # A Move goes on by an end on the side it heads to (RA.1.1, D-grid.10).
            west = tuple(other for end, other in out if WEST_SIDE_MASK >> end & 1)
            east = tuple(other for end, other in out if EAST_SIDE_MASK >> end & 1)
            joined = self._joined[cell] = (tuple(out), west, east)
        return joined


def _no_survey() -> None:
    return None


_SURVEYS_KEPT = 1024  # grids whose surveys a catalogue's tables keep, before starting afresh


def survey_of(geo: Geometry, station: Station) -> Survey:
    """The station's survey: its last one while its grid is unchanged, else the one of an
    equal grid seen before (games and their clones share most grids), else a new one."""
    key = tuple(station.grid.items())
    kept = station.survey
    if isinstance(kept, Survey) and kept.geo is geo and kept.key == key:
        return kept
    survey = geo.surveys.get(key)
    if survey is None:
        if len(geo.surveys) >= _SURVEYS_KEPT:
            geo.surveys.clear()
        survey = geo.surveys[key] = Survey(geo, key)
    station.survey = survey
    return survey


def legal_modifier_placements(state: GameState, seat: int, card: int) -> list[tuple[Cell, Cell]]:
    """Every (cell, facility) where ``modifier_problem`` lets the seat lay this Modifier (the
    same checks, with the station surveyed once)."""
    cat = state.catalogue
    spec = cat.cards[card].modifier
    station = state.stations[state.office_of_seat[seat]]
    if spec is None or not station.boxes:
        return []
    grid = station.grid
    west, east = limits_cols(geometry_for(cat), station)
    out = []
    for facility in sorted(station.boxes):
        served = grid.get(facility)
        target = cat.cards[served[0]].facility if served else None
        if target is None or target.category != spec.applies_to:
            continue
        for dr in (-1, 0, 1):
            row = facility[0] + dr
            if not 0 < abs(row) <= ROW_LIMIT:
                continue
            for dc in (-1, 0, 1):
                col = facility[1] + dc
                if west < col < east and (row, col) not in grid:
                    out.append(((row, col), facility))
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

"""Local switching (Appendix A): the legal Moves of a Crew Tray and carrying one out.

A Move is ``MoveTray(seat, tray, path, drops, push)``: the cells from the tray's card to its
destination, how many cars it leaves from its trailing end on each of them, and how many it
pushes off its leading end at the destination (RA.3). Consists are tuples of car codes,
west to east, with ``ENGINE`` marking the engine.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from sm_env.core.cars import ENGINE
from sm_env.core.errors import IllegalIntent
from sm_env.core.grid import (
    END_OFFSET,
    end_direction,
    geometry_for,
    is_locked,
    neighbour,
    survey_of,
)
from sm_env.core.intents import Cell, MoveTray
from sm_env.core.pieces import OFFICE_CELL, Station, Tray
from sm_env.core.queries import ad_tracks
from sm_env.core.text import render_station

if TYPE_CHECKING:
    from sm_env.core.state import GameState

MAX_TRAY_CARS = 4  # RA.4.5: an engine moves at most four cars, ahead and behind together


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
    """What one Move needs to know about the station, gathered once per listing; the track
    itself comes from the station's survey (``grid.survey_of``)."""

    __slots__ = ("geo", "station", "survey", "ad_tracks", "occupied", "office_trays")

    def __init__(self, state: GameState, office: int, tray: Tray) -> None:
        self.geo = geo = geometry_for(state.catalogue)
        self.station = station = state.stations[office]
        self.survey = survey_of(geo, station)
        self.ad_tracks = ad_tracks(state, office)
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
    links = view.survey.joined(start)[0]
    if not links:
        return out
    room_here = view.capacity(start) if view.can_drop(start) else None
    for end, nxt in links:  # the neighbours joined by track (``neighbour``), in end order
        if view.blocked(nxt) is not None:
            continue
        direction = end_direction(end)
        behind = west_group if direction > 0 else east_group
        ahead = east_group if direction > 0 else west_group
        room = room_here - len(behind) if room_here is not None else 0
        for k in range(min(_trailing(tray.consist, direction), room) + 1):
            _, consist = _drop_trailing(tray.consist, k, direction)
            consist = _couple(consist, ahead, direction)
            if len(consist) - 1 > MAX_TRAY_CARS:
                continue
            _extend(view, tray_index, seat, direction, nxt, consist, (start,), (k,), out)
    return out


def station_moves(state: GameState, seat: int) -> list[MoveTray]:
    """Every legal Move of every Crew Tray in the seat's station, tray by tray (R6.1)."""
    office = state.office_of_seat[seat]
    out: list[MoveTray] = []
    for i, tray in enumerate(state.trays):
        if tray.office == office:
            out.extend(list_moves(state, seat, i))
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
    standing = view.station.cars.get(cell)
    if standing:
        if len(consist) - 1 + len(standing) > MAX_TRAY_CARS:
            return  # RA.4.5: cars it could not pick up
        consist = consist + standing if direction > 0 else standing + consist  # _couple
    path = path + (cell,)
    stop = view.can_stop(cell)
    droppable = stop and cell != OFFICE_CELL  # can_drop
    trailing = _trailing(consist, direction)
    capacity = view.capacity(cell) if droppable else 0
    most = min(trailing, capacity) if droppable else 0  # cars it may leave here
    if stop:
        leading = len(consist) - 1 - trailing
        for k in range(most + 1):
            dropped = drops + (k,)
            for push in range(min(leading, capacity - k) + 1 if droppable else 1):
                out.append(MoveTray(seat, tray_index, path, dropped, push))
    joined = view.survey.joined(cell)
    exits = [n for n in (joined[2] if direction > 0 else joined[1]) if view.blocked(n) is None]
    if not exits:
        return
    for k in range(most + 1):
        rest = consist[k:] if direction > 0 else consist[: len(consist) - k]  # _drop_trailing
        dropped = drops + (k,)
        for n in exits:
            _extend(view, tray_index, seat, direction, n, rest, path, dropped, out)


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


def after_move(state: GameState, move: MoveTray) -> GameState:
    """A new state: ``state`` with ``move`` carried out (checked as ``apply_move`` checks it),
    ``state`` unchanged. For a planner trying many Moves: a Move changes only its tray and the
    cars standing in its station, so the new state copies those and shares every other
    container with ``state``. Read it, or try further Moves on it with ``after_move``; never
    play on it (``GameState.clone`` makes a state to play on)."""
    _, office = _check_shape(state, move)
    other = state.shallow_copy()
    stations = state.stations[:]
    station = stations[office]
    stations[office] = Station(
        station.grid,
        station.boxes,
        station.cars.copy(),
        station.modifiers,
        station.modifiers_used,
        station.survey,
    )
    other.stations = stations
    trays = state.trays[:]
    trays[move.tray] = trays[move.tray].copy()
    other.trays = trays
    apply_move(other, move)
    return other


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

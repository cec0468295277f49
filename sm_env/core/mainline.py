"""The Mainline Phase (R8, D-mainline, D-run): every train acts once, in seniority order —
a train on a Mainline card moves one region; a train at an office or its Division Point is
tested and highballs, holds, or waits for the Superintendent's clearance."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sm_env.core.cargo import clear_flips
from sm_env.core.collisions import collide, remove_train
from sm_env.core.grid import geometry_for, limits_cols
from sm_env.core.intents import Cell, Clearance, Intent
from sm_env.core.phases import Due, Next, Phase, Step
from sm_env.core.pieces import EMPTY, OFFICE_CELL, Tray
from sm_env.core.queries import ad_tracks, makeup_problem, regions, start_line, tray_on_region, trays_at
from sm_env.core.state import Collision
from sm_env.core.trains import seniority

if TYPE_CHECKING:
    from sm_env.core.state import GameState


def next_subdivision(state: GameState, tray: Tray) -> list[int]:
    """D-mainline.4: trays in the next Subdivision ahead of a train at an office or its DP:
    on the Mainline cards up to the next Control Point, and on the Running Track of the
    Whistle Posts between (R8.1.5: trains on their Secondary Track do not count)."""
    d, n = tray.direction, state.n
    line = start_line(state, tray)
    out: list[int] = []
    trays = state.trays
    while True:
        out += [i for i, t in enumerate(trays) if t.line == line]
        office = line if d > 0 else line - 1
        if not 0 <= office < n or state.is_control_point(office):
            return out
        out += [i for i, t in enumerate(trays) if t.office == office and t.cell is not None and not t.cell[0]]
        line += d


def first_control_point(state: GameState, office: int, direction: int) -> int:
    """The first office from ``office`` on in ``direction`` that is a Control Point, or EMPTY
    when there is none before the Division Point."""
    while 0 <= office < state.n:
        if state.is_control_point(office):
            return office
        office += direction
    return EMPTY


def bound_for(state: GameState, tray: Tray) -> int:
    """The Control Point office a dispatched train runs to (V-signals.1): for a train on a
    Mainline card or on a Whistle Post's Running Track; EMPTY for any other train, or when it
    runs to the far Division Point."""
    d = tray.direction
    if tray.line != EMPTY:
        return first_control_point(state, tray.line if d > 0 else tray.line - 1, d)
    on_running_track = tray.office != EMPTY and tray.cell is not None and tray.cell[0] == 0
    if on_running_track and not state.is_control_point(tray.office):
        return first_control_point(state, tray.office + d, d)
    return EMPTY


def no_room_ahead(state: GameState, index: int) -> int:
    """V-signals.1: the next Control Point office of a train about to depart when it already
    has as many trains running the same way as its A/D tracks less one - on its Office card,
    or dispatched and bound for it - else EMPTY. The last track is kept for a train from the
    other side, so opposing trains can always meet there."""
    tray = state.trays[index]
    d = tray.direction
    start = (0 if d > 0 else state.n - 1) if tray.at_dp else tray.office + d
    target = first_control_point(state, start, d)
    if target == EMPTY:
        return EMPTY  # D-mainline.3: a Division Point holds any number of trains
    same_way = 0
    for i, other in enumerate(state.trays):
        if i == index or other.train == EMPTY or other.direction != d:
            continue
        if other.office == target and other.cell == OFFICE_CELL or bound_for(state, other) == target:
            same_way += 1
    return target if same_way >= max(1, ad_tracks(state, target) - 1) else EMPTY


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


def begin(state: GameState) -> Next:
    """D-mainline.2: every train acts once, in seniority order (R8.0.1)."""
    in_use = [i for i, tray in enumerate(state.trays) if tray.train != EMPTY]
    state.mainline_queue = sorted(in_use, key=lambda i: seniority(state.catalogue, state.trays[i]))
    return Step.RUN_MAINLINE


def run(state: GameState) -> Next:
    """Let the trains act until a decision is due; then the Cargo Phase."""
    queue = state.mainline_queue
    while queue:
        tray = state.trays[queue[0]]
        if tray.train != EMPTY:
            due = _act(state, queue[0])
            if due is not None:
                return due
        queue.pop(0)
    return Step.CARGO


def _act(state: GameState, index: int) -> Due | None:
    """One train's action; the decision it waits for, if any."""
    tray = state.trays[index]
    if tray.line != EMPTY:
        return _advance(state, index)
    if not (tray.at_dp or tray.cell == OFFICE_CELL):  # R8.1.1: off the A/D tracks
        return None
    problem = makeup_problem(state, tray)
    if problem is not None:
        state.log("hold", -1, train=tray.train, tray=index, why=problem, rule="R8.1.2")
        return None
    ahead = next_subdivision(state, tray)
    if any(state.trays[i].direction == -tray.direction for i in ahead):
        why = "an opposing train is in the next Subdivision"
        state.log("hold", -1, train=tray.train, tray=index, why=why, rule="R8.1.3")
        return None
    if state.config.house_rules.home_signals:
        full = no_room_ahead(state, index)
        if full != EMPTY:
            why = "no A/D track left at the next Control Point"
            state.log("hold", -1, train=tray.train, tray=index, why=why, rule="V-signals.1", office=full)
            return None
    if ahead:  # R8.1.4: only following trains ahead
        return Due(Phase.CLEARANCE, state.fedora)
    return _depart(state, index)


def _depart(state: GameState, index: int, cleared: bool = False) -> Due | None:
    """Highball (R2.4.6): through the Limits onto the Start region of the next Mainline card;
    ``cleared`` when the Superintendent's Clearance sent it (R8.1.4)."""
    tray = state.trays[index]
    d = tray.direction
    if not tray.at_dp:
        office = tray.office
        west, east = limits_cols(geometry_for(state.catalogue), state.stations[office])
        cols = range(1, east + 1) if d > 0 else range(-1, west - 1, -1)
        hit = _first_obstacle(state, office, cols, d)
        if hit is not None:  # R8.2.4
            seat = state.seat_of_office[office]
            where = f"leaving office {office}"
            return collide(state, Collision(index, hit[1], office, hit[0], seat, "R8.2.4", where))
    line = start_line(state, tray)
    region = 0 if d > 0 else regions(state, line) - 1
    struck = tray_on_region(state, line, region)
    if struck != EMPTY:  # D-mainline.3: the Superintendent clearing it pays
        where = f"on Mainline {line}"
        return collide(state, Collision(index, struck, EMPTY, None, state.fedora, "R10.1", where))
    origin = EMPTY if tray.at_dp else tray.office
    tray.cleared_by = state.fedora
    tray.consist = clear_flips(tray.consist)  # R9.3.4
    tray.at_dp = False
    tray.office, tray.cell, tray.split = EMPTY, None, 0
    tray.line, tray.region = line, region
    fields = {"train": tray.train, "tray": index, "office": origin, "line": line, "cleared": cleared}
    state.log("highball", tray.cleared_by, **fields)
    return None


def _advance(state: GameState, index: int) -> Due | None:
    """R8.2.1: one region along the card; off its end, into the next office (R8.2.2, R8.2.3)
    or the far Division Point (D-run.1)."""
    tray = state.trays[index]
    d = tray.direction
    region = tray.region + d
    if 0 <= region < regions(state, tray.line):
        struck = tray_on_region(state, tray.line, region)
        if struck != EMPTY:  # D-mainline.3
            where = f"on Mainline {tray.line}"
            return collide(state, Collision(index, struck, EMPTY, None, tray.cleared_by, "R10.1", where))
        tray.region = region
        return None
    office = tray.line if d > 0 else tray.line - 1
    if not 0 <= office < state.n:
        _complete_run(state, index)
        return None
    station = state.stations[office]
    seat = state.seat_of_office[office]
    geo = geometry_for(state.catalogue)
    west, east = limits_cols(geo, station)
    cols = range(west, 0) if d > 0 else range(east, 0, -1)
    hit = _first_obstacle(state, office, cols, d)
    where = f"arriving at office {office}"
    if hit is not None:  # R8.2.3 (a)
        return collide(state, Collision(index, hit[1], office, hit[0], seat, "R8.2.3", where))
    standing = trays_at(state, office)
    if len(standing) >= ad_tracks(state, office):  # R8.2.3 (b), D-collision.1
        if state.config.house_rules.home_signals:
            why = "the Office has no free A/D track: it waits at the Limits"
            state.log("hold", -1, train=tray.train, tray=index, why=why, rule="V-signals.1", office=office)
            return None
        struck = min(standing, key=lambda i: seniority(state.catalogue, state.trays[i]))  # D-collision.2
        where = f"arriving at the full Office {office}"
        return collide(state, Collision(index, struck, office, OFFICE_CELL, seat, "R8.2.3", where))
    tray.line, tray.region = EMPTY, 0
    tray.office, tray.cell, tray.split = office, OFFICE_CELL, 0
    state.log("arrive", seat, train=tray.train, tray=index, office=office)
    return None


def _complete_run(state: GameState, index: int) -> None:
    """D-run.2: at the far Division Point the tray is freed and the cars go back."""
    tray = state.trays[index]
    state.log("run-complete", -1, train=tray.train, tray=index, east=tray.direction > 0)
    remove_train(state, index)


def legal_clearance(state: GameState) -> list[Intent]:
    return [Clearance(state.actor, True), Clearance(state.actor, False)]


def apply_clearance(state: GameState, intent: Clearance) -> Next:
    index = state.mainline_queue[0]
    state.log("clearance", intent.seat, train=state.trays[index].train, tray=index, clear=intent.clear)
    if intent.clear:
        due = _depart(state, index, cleared=True)
        if due is not None:
            return due
    state.mainline_queue.pop(0)
    return Step.RUN_MAINLINE

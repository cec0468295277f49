"""Switching and track-layout planning for the heuristic bots (Appendix A, D-grid).

``plan_switching`` searches sequences of legal Moves (``station_moves``, exactly what the
switching step offers) within the Moves left, simulating each on a copy of the state
(``after_move``), and scores every station reached with a ``StationScorer``: cars
of the right type on the right industry tracks, loaded cars aboard trains ready to depart, the
Running Track clear of standing cars, every train back on the Office's A/D track in order
(R8.1.2) with enough Moves left to get there. The search is a beam: at each depth every kept
state is expanded, at most ``branch`` new stations per state survive, and the best ``beam``
go on; stations already reached (by fewer Moves) are not searched again.

The core's ``move_graph`` is the station as a graph of single Moves between wheel cards,
ignoring trays and cars (the routes ``reachable`` follows too): the bots use it to judge a
layout (how many Moves from the Office to an industry track and back) and to guide the
search (how far a train is from home).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from sm_env.core import (
    EMPTY,
    END_OFFSET,
    ENGINE,
    NE,
    NW,
    OFFICE_CELL,
    ROW_LIMIT,
    SE,
    SW,
    Catalogue,
    Cell,
    E,
    GameState,
    MoveTray,
    Station,
    W,
    after_move,
    cell_ends,
    geometry_for,
    limits_cols,
    makeup_problem,
    move_graph,
    station_moves,
)

FAR = 99  # Moves to a card the graph cannot reach
MAX_SIMULATED = 1500  # Moves one search may simulate


# ---------------------------------------------------------------------------- distances on the Move graph


def distances_from(graph: dict[Cell, set[Cell]], source: Cell) -> dict[Cell, int]:
    dist = {source: 0}
    queue = deque([source])
    while queue:
        here = queue.popleft()
        for nxt in sorted(graph.get(here, ())):
            if nxt not in dist:
                dist[nxt] = dist[here] + 1
                queue.append(nxt)
    return dist


def distances_to(graph: dict[Cell, set[Cell]], target: Cell) -> dict[Cell, int]:
    reverse: dict[Cell, set[Cell]] = {}
    for cell, reached in graph.items():
        for other in reached:
            reverse.setdefault(other, set()).add(cell)
    return distances_from(reverse, target)


def reach_factor(trip: int) -> float:
    """How useful an industry track is that takes ``trip`` Moves there and back from the
    Office (a switching turn has six, five at night)."""
    if trip <= 4:
        return 1.0
    if trip <= 6:
        return 0.85
    if trip <= 8:
        return 0.3
    return 0.0


def facility_slots(catalogue: Catalogue, station: Station) -> list[tuple[Cell, bool]]:
    """Empty cells (and rotation) where a one-ended facility card would join laid track:
    its W end meeting the E end of the card west of it, or turned, its E end the W end of
    the card east of it (D-grid.6)."""
    geo = geometry_for(catalogue)
    west, east = limits_cols(geo, station)
    out: list[tuple[Cell, bool]] = []
    for r in range(-ROW_LIMIT, ROW_LIMIT + 1):
        if r == 0:
            continue
        for c in range(west + 1, east):
            if (r, c) in station.grid:
                continue
            if cell_ends(geo, station, (r, c - 1)) >> E & 1:
                out.append(((r, c), False))
            if cell_ends(geo, station, (r, c + 1)) >> W & 1:
                out.append(((r, c), True))
    return out


def open_diagonals(catalogue: Catalogue, station: Station, reachable: set[Cell]) -> int:
    """Diagonal ends of reachable cards that point at an empty cell where track may go:
    where a connector card would start a siding."""
    geo = geometry_for(catalogue)
    west, east = limits_cols(geo, station)
    count = 0
    for cell in reachable:
        ends = cell_ends(geo, station, cell)
        for end in (NW, NE, SW, SE):
            if ends >> end & 1:
                dr, dc = END_OFFSET[end]
                target = (cell[0] + dr, cell[1] + dc)
                if target[0] and abs(target[0]) <= ROW_LIMIT and west < target[1] < east:
                    count += target not in station.grid
    return count


def layout_value(
    catalogue: Catalogue,
    station: Station,
    facility_value: dict[int, float],
    potential: float,
    probe_card: int,
) -> float:
    """A station layout for freight work: each facility's value times how well the Office
    reaches it, plus ``potential`` times how well the best free facility slot would be
    reached (``probe_card``, a one-ended facility, tries each slot), plus a little for
    diagonal ends from reachable track that could start a siding."""
    graph = move_graph(catalogue, station)
    there = distances_from(graph, OFFICE_CELL)
    back = distances_to(graph, OFFICE_CELL)
    total = 0.0
    for cell in station.boxes:
        if cell == OFFICE_CELL:
            continue
        trip = there.get(cell, FAR) + back.get(cell, FAR)
        total += facility_value.get(station.grid[cell][0], 0.0) * reach_factor(trip)
    if potential > 0 and probe_card >= 0:
        best = 0.0
        for slot, rotated in facility_slots(catalogue, station):
            trial = station.copy()
            trial.grid[slot] = (probe_card, rotated)
            trial_graph = move_graph(catalogue, trial)
            trip = distances_from(trial_graph, OFFICE_CELL).get(slot, FAR) + distances_to(
                trial_graph, OFFICE_CELL
            ).get(slot, FAR)
            best = max(best, reach_factor(trip))
        total += potential * best
        reachable = {c for c in there if c in back}
        if best < 1.0:
            total += potential * 0.15 * min(1, open_diagonals(catalogue, station, reachable))
    return total


# ---------------------------------------------------------------------------- scoring


@dataclass
class StationScorer:
    """Scores the seat's station after some Moves (higher is better).

    - ``want[cell][code]``: marginal values of the 1st, 2nd, ... standing car of that code on
      that card (an industry track wanting an empty car to load, a loaded one to unload);
    - ``carry[code]``: value of each such car aboard a train standing ready on the Office,
      plus ``carry_toward[(code, direction)]`` aboard a train running that way (toward an
      office that unloads it);
    - a train off the Office costs ``w_home`` plus ``w_dist`` per Move it is from home, and
      ``w_strand`` if the Moves left cannot bring it back; a train on the Office that is not
      in order to depart (R8.1.2) costs ``w_makeup``; cards in ``park`` hold a train at no
      cost but ``w_park`` (the dispatcher clears the A/D track that way), and each train on
      the Office costs ``office_cost`` (set when an arrival would find the A/D tracks full);
    - every car standing on the Running Track costs ``w_running`` (an arriving or departing
      train would hit it, R8.2.3, R8.2.4); elsewhere, cars nobody wants cost ``w_clutter``
      (an industry track wants only the codes in ``want``);
    - every Move costs ``w_move``.
    """

    board: GameState
    seat: int
    want: dict[Cell, dict[int, list[float]]] = field(default_factory=dict)
    carry: dict[int, float] = field(default_factory=dict)
    carry_toward: dict[tuple[int, int], float] = field(default_factory=dict)
    park: frozenset[Cell] = frozenset()
    office_cost: float = 0.0
    w_home: float = 4.0
    w_dist: float = 1.0
    w_strand: float = 30.0
    w_makeup: float = 8.0
    w_park: float = 0.5
    w_running: float = 6.0
    w_clutter: float = 1.0
    w_move: float = 0.05
    w_dist_rank: float = 0.5
    w_running_rank: float = 0.2
    w_exposed: float = 0.8
    office: int = 0
    home_dist: dict[Cell, int] = field(default_factory=dict)
    wanted_codes: dict[tuple[int, int], float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.office = self.board.office_of_seat[self.seat]
        graph = move_graph(self.board.catalogue, self.board.stations[self.office])
        self.home_dist = distances_to(graph, OFFICE_CELL)
        # A car bound for a one-ended industry track must lead into it: on the east end of
        # its train for a track entered eastward (its end is W), on the west end otherwise.
        geo = geometry_for(self.board.catalogue)
        station = self.board.stations[self.office]
        self.wanted_codes = {}
        for cell, wanted in self.want.items():
            ends = cell_ends(geo, station, cell)
            sides = [side for side, end in ((1, W), (-1, E)) if ends >> end & 1]
            for code, marginal in wanted.items():
                for side in sides if marginal else ():
                    key = (code, side)
                    self.wanted_codes[key] = max(self.wanted_codes.get(key, 0.0), marginal[0])

    def signature(self) -> tuple[object, ...]:
        """The goals as a hashable value (with the station key, a key for the plan)."""
        want = tuple(
            sorted(
                (cell, tuple(sorted((c, tuple(m)) for c, m in w.items()))) for cell, w in self.want.items()
            )
        )
        return (
            want,
            tuple(sorted(self.carry.items())),
            tuple(sorted(self.carry_toward.items())),
            tuple(sorted(self.park)),
            self.office_cost,
        )

    def score(self, state: GameState, used: int, total: int) -> float:
        """The value of stopping here, after ``used`` of ``total`` Moves."""
        return self.evaluate(state, used, total)[0]

    def evaluate(self, state: GameState, used: int, total: int) -> tuple[float, float]:
        """(value of stopping here, value for ranking in the search). The ranking value
        charges what more Moves can still mend lightly: a train away from home only its
        distance (``w_dist_rank`` a Move), a car on the Running Track ``w_running_rank``, a
        train out of order half of ``w_makeup``; and it credits ``w_exposed`` of a wanted
        car's value when that car is near the end of its train that leads into the industry
        track wanting it (``exposure``): the search keeps promising half-done plans."""
        station = state.stations[self.office]
        final = rank = -self.w_move * used
        left = total - used
        for tray in state.trays:
            if tray.office != self.office or tray.cell is None or tray.train == EMPTY:
                continue
            if left and self.wanted_codes:
                rank += self.w_exposed * self.exposure(tray.consist)
            if tray.cell == OFFICE_CELL:
                final -= self.office_cost
                rank -= self.office_cost
                if makeup_problem(state, tray) is not None:
                    final -= self.w_makeup
                    rank -= self.w_makeup / 2 if left else self.w_makeup
                elif self.carry:
                    gain = sum(
                        self.carry.get(code, 0.0) + self.carry_toward.get((code, tray.direction), 0.0)
                        for code in tray.consist
                    )
                    final += gain
                    rank += gain
            elif tray.cell in self.park:
                final -= self.w_park
                rank -= self.w_park
            else:
                dist = self.home_dist.get(tray.cell, FAR)
                final -= self.w_home + self.w_dist * min(dist, 10)
                rank -= self.w_dist_rank * min(dist, 10)
                if dist > left:
                    final -= self.w_strand
                    rank -= self.w_strand
        for cell, cars in station.cars.items():
            if cell[0] == 0:
                final -= self.w_running * len(cars)
                rank -= (self.w_running_rank if left else self.w_running) * len(cars)
                continue
            wanted = self.want.get(cell)
            if wanted is None:
                final -= self.w_clutter * len(cars)
                rank -= self.w_clutter * len(cars)
                continue
            seen: dict[int, int] = {}
            value = 0.0
            for code in cars:
                k = seen.get(code, 0)
                seen[code] = k + 1
                marginal = wanted.get(code)
                if marginal is None:
                    value -= self.w_clutter
                elif k < len(marginal):
                    value += marginal[k]
            final += value
            rank += value
        return final, rank

    def exposure(self, consist: tuple[int, ...]) -> float:
        """Wanted cars by how few cars stand between them and the end of the consist that
        leads into their industry track (1 at the very end, 0.3 less per car in between)."""
        engine = consist.index(ENGINE)
        total = 0.0
        for side, cars in ((1, consist[:engine:-1]), (-1, consist[:engine])):
            for k, code in enumerate(cars):
                value = self.wanted_codes.get((code, side))
                if value:
                    total += value * max(0.0, 1.0 - 0.3 * k)
        return total


# ---------------------------------------------------------------------------- the search


@dataclass
class Plan:
    """Moves to make, the station key before each, and the scores before and after."""

    moves: list[MoveTray]
    keys: list[tuple[object, ...]]
    score: float
    start_score: float


def station_key(state: GameState, seat: int) -> tuple[object, ...]:
    """What switching can change in the seat's station: standing cars, trays and their cars."""
    office = state.office_of_seat[seat]
    station = state.stations[office]
    trays = tuple((i, t.cell, t.consist, t.split) for i, t in enumerate(state.trays) if t.office == office)
    return (office, tuple(sorted(station.cars.items())), trays)


def plan_switching(
    state: GameState,
    seat: int,
    moves: int,
    scorer: StationScorer,
    beam: int = 6,
    branch: int = 4,
    budget: int = MAX_SIMULATED,
) -> Plan:
    """The best sequence of at most ``moves`` Moves found by the beam search (possibly none).
    ``state`` must be a playable copy; it is not changed."""
    return plan_candidates(state, seat, moves, scorer, beam, branch, keep=1, budget=budget)[0]


def plan_candidates(
    state: GameState,
    seat: int,
    moves: int,
    scorer: StationScorer,
    beam: int = 6,
    branch: int = 4,
    keep: int = 1,
    budget: int = MAX_SIMULATED,
) -> list[Plan]:
    """The ``keep`` best plans (distinct final stations, the empty plan among them) of the
    beam search, best first. At most ``budget`` Moves are simulated (a busy station with
    long trains lists hundreds of Moves per state)."""
    start_score = scorer.score(state, 0, moves)
    found = [Plan([], [], start_score, start_score)]
    seen = {station_key(state, seat)}
    frontier: list[tuple[float, GameState, list[MoveTray], list[tuple[object, ...]]]] = [
        (start_score, state, [], [])
    ]
    for depth in range(1, moves + 1):
        children: list[tuple[float, GameState, list[MoveTray], list[tuple[object, ...]]]] = []
        for _, here, seq, keys in frontier:
            here_key = station_key(here, seat)
            local = []
            for move in station_moves(here, seat):
                if budget <= 0:
                    break
                budget -= 1
                child = after_move(here, move)
                key = station_key(child, seat)
                if key in seen:
                    continue
                seen.add(key)
                final, rank = scorer.evaluate(child, depth, moves)
                found.append(Plan(seq + [move], keys + [here_key], final, start_score))
                local.append((rank, child, seq + [move], keys + [here_key]))
            local.sort(key=lambda item: -item[0])
            children.extend(local[:branch] if depth > 1 else local[: 2 * branch])
        if not children:
            break
        children.sort(key=lambda item: -item[0])
        frontier = children[:beam] if depth > 1 else children[: 2 * beam]
    found.sort(key=lambda plan: -plan.score)
    return found[:keep]


__all__ = [
    "FAR",
    "MAX_SIMULATED",
    "Plan",
    "StationScorer",
    "distances_from",
    "distances_to",
    "facility_slots",
    "layout_value",
    "plan_candidates",
    "plan_switching",
    "station_key",
]

"""The freight chain counted link by link: where loads are made, picked up, carried and
unloaded (R9.3), and where the chain stops, over bot games.

A load is unloaded only at the end of a long chain: an office loads a car (R9.3.1), a train
with room for the car's type picks it up there, runs on to another office with an industry
that unloads the type, leaves the car on that industry's track, and an empty of the type is
taken from the Division Yard as the unloading starts (R9.3.2, C-yards.1). ``chain_counts``
plays games with the given bots (each on its own seat's view) and counts every link, so a
freight strategy can be judged by where its chain breaks (docs/agents.md, "The freight chain").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from agents import make_bot, play_game, seat_seed
from experiments.arena.parallel import run_all
from sm_env.core import (
    CABOOSE,
    CAR_TYPES,
    COACH,
    EMPTY,
    ENGINE,
    FLIPPED,
    OFFICE_CELL,
    AddCar,
    GameConfig,
    GameState,
    Intent,
    car_type,
    facility_spec,
    new_game,
    train_takes,
)

FREIGHT_TYPES = tuple(t for t in range(len(CAR_TYPES)) if t not in (COACH, CABOOSE))

# the links in the order of the chain, with what each counts per game
LINKS: tuple[tuple[str, str], ...] = (
    ("loads", "loads completed (R9.3.1)"),
    ("arrivals", "train arrivals at an Office"),
    ("arrivals_load_waits", "arrivals where a car loaded there waits"),
    ("arrivals_with_room", "... and the train may take a car of its type"),
    ("pickups", "loaded freight cars coupled to a train (switching included)"),
    ("departures_carrying", "departures of a train from an Office with a loaded freight car"),
    ("departures_toward_inbound", "... running toward an office with an industry that unloads it"),
    ("arrivals_carrying", "arrivals of a train carrying a loaded freight car"),
    ("arrivals_for_inbound", "... of a type an industry there unloads"),
    ("stages_load_on_inbound", "Stage ends with a load on an industry track that unloads it"),
    ("stages_blocked_by_yard", "... while the Division Yard holds no empty of its type"),
    ("unloads", "unloads (R9.3.2)"),
    ("empties_forced", "empty freight cars a seat had to add to a new train (one choice)"),
    ("empties_chosen", "empty freight cars a seat chose among others for a new train"),
)


class ChainError(ValueError):
    """A freight-chain run asked for something it cannot do."""


@dataclass(frozen=True)
class ChainTask:
    """One game: its seed, configuration and the bot spec of each seat."""

    seed: int
    config: GameConfig
    bots: tuple[str, ...]


def _is_load(code: int) -> bool:
    return code >= 0 and code != ENGINE and bool(code & 1) and car_type(code) in FREIGHT_TYPES


def _unloaded_at(state: GameState, office: int) -> set[int]:
    """The car types the industries of ``office`` unload."""
    station = state.stations[office]
    types: set[int] = set()
    for cell in station.boxes:
        if cell != OFFICE_CELL:
            types.update(facility_spec(state, station, cell).inbound)
    return types


def _loads_aboard(state: GameState) -> int:
    return sum(1 for tray in state.trays if tray.train != EMPTY for code in tray.consist if _is_load(code))


def _count_arrival(state: GameState, tray_index: int, office: int, counts: Counter[str]) -> None:
    tray = state.trays[tray_index]
    counts["arrivals"] += 1
    station = state.stations[office]
    waiting = [c for cell, cars in station.cars.items() if cell[0] != 0 for c in cars if _is_load(c)]
    if waiting:
        counts["arrivals_load_waits"] += 1
        counts["arrivals_with_room"] += any(train_takes(state, tray, c & ~FLIPPED) for c in waiting)
    aboard = [c for c in tray.consist if _is_load(c)]
    if aboard:
        counts["arrivals_carrying"] += 1
        unloaded = _unloaded_at(state, office)
        counts["arrivals_for_inbound"] += any(car_type(c) in unloaded for c in aboard)


def _count_departure(state: GameState, tray_index: int, office: int, counts: Counter[str]) -> None:
    tray = state.trays[tray_index]
    aboard = {car_type(c) for c in tray.consist if _is_load(c)}
    if tray.train == EMPTY or not aboard:
        return
    counts["departures_carrying"] += 1
    ahead = range(office + 1, state.n) if tray.direction > 0 else range(office)
    counts["departures_toward_inbound"] += any(aboard & _unloaded_at(state, o) for o in ahead)


def _count_stage_end(state: GameState, counts: Counter[str]) -> None:
    for station in state.stations:
        for cell, cars in station.cars.items():
            if cell not in station.boxes or cell == OFFICE_CELL:
                continue
            inbound = facility_spec(state, station, cell).inbound
            loads = [c for c in cars if _is_load(c) and not c & FLIPPED and car_type(c) in inbound]
            if loads:
                counts["stages_load_on_inbound"] += 1
                counts["stages_blocked_by_yard"] += all(state.division[c - 1] == 0 for c in loads)
    for t in FREIGHT_TYPES:
        counts[f"stages_no_empty_{CAR_TYPES[t]}"] += state.division[t * 2] == 0
    counts["stages"] += 1


class _ChainCounter:
    """Counts the links decision by decision, as ``play_game``'s ``on_decision``: it keeps what
    it needs of the state before each decision (loads aboard, Stages played, empties in the
    Division Yard, the cars a new train may take) from the end of the one before."""

    def __init__(self, state: GameState) -> None:
        self.counts: Counter[str] = Counter()
        self.where = [EMPTY] * len(state.trays)
        self._remember(state)

    def _remember(self, state: GameState) -> None:
        self.aboard = _loads_aboard(state)
        self.stages = state.stages_played
        self.empties = sum(state.division[t * 2] for t in FREIGHT_TYPES)
        self.car_choices = {i.car for i in state.legal_intents() if isinstance(i, AddCar)}

    def __call__(self, state: GameState, intent: Intent) -> None:
        counts = self.counts
        counts["pickups"] += max(0, _loads_aboard(state) - self.aboard)
        if isinstance(intent, AddCar):
            taken = self.empties - sum(state.division[t * 2] for t in FREIGHT_TYPES)
            if taken > 0:
                counts["empties_forced" if len(self.car_choices) == 1 else "empties_chosen"] += taken
        for i, tray in enumerate(state.trays):
            office = tray.office if tray.train != EMPTY else EMPTY
            if office != self.where[i]:
                if self.where[i] != EMPTY:
                    _count_departure(state, i, self.where[i], counts)
                if office != EMPTY:
                    _count_arrival(state, i, office, counts)
            self.where[i] = office
        if state.stages_played != self.stages:
            _count_stage_end(state, counts)
        if not state.is_terminal():
            self._remember(state)


def play_chain(task: ChainTask) -> dict[str, int]:
    """Play one game, as a tournament does (``play_game``), and count its freight chain's links."""
    state = new_game(task.config, seed=task.seed)
    bots = [make_bot(task.bots[s % len(task.bots)], seat_seed(task.seed, s)) for s in range(state.n)]
    counter = _ChainCounter(state)
    play_game(state, bots, counter)
    counts = counter.counts
    for entry in state.ledger:
        counts["loads"] += entry.rule == "R9.3.1"
        counts["unloads"] += entry.rule == "R9.3.2"
    return dict(counts)


def chain_counts(
    bots: Sequence[str], config: GameConfig, games: int, seed: int, jobs: int = 1, progress: bool = False
) -> dict[str, float]:
    """Each link's count per game over ``games`` games (seeds ``seed`` ...), bots seated in
    turn; ``stages_no_empty_<type>`` is the share of Stage ends at which the Division Yard
    holds no empty car of that type (under ``yard_on_demand``, V-yards.2, the Classification
    Yard would still supply one)."""
    tasks = [ChainTask(seed + g, config, tuple(bots)) for g in range(games)]
    total: Counter[str] = Counter()
    for result in run_all(play_chain, tasks, jobs, progress):
        total.update(result)
    stages = max(1, total["stages"])
    out = {key: total[key] / max(1, games) for key, _ in LINKS}
    out.update(
        {
            f"stages_no_empty_{CAR_TYPES[t]}": total[f"stages_no_empty_{CAR_TYPES[t]}"] / stages
            for t in FREIGHT_TYPES
        }
    )
    return out


__all__ = ["LINKS", "ChainError", "ChainTask", "chain_counts", "play_chain"]

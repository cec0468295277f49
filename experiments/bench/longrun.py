"""Long runs: do memory and open files stay flat? ``station-master bench --long-run``.

Three phases, each run from this process and measured by its resident memory (``VmRSS`` of
``/proc/self/status``) and its open file descriptors (``/proc/self/fd``), after a garbage
collection, at the start, at even intervals, and at the end:

- ``env``: ``steps`` random masked steps of ``station_master_v1`` (the wrapped AEC env,
  3 offices, 1 day), one env reset after each game with the next seed;
- ``tournament``: ``games`` tournament games of the random and passenger bots in this process
  (``jobs`` 1), every result kept as the command keeps it;
- ``tournament-pool``: the same games through the spawned process pool (2 workers); the pool's
  workers are measured too while it runs (``workers_rss_kb``), and the descriptors once it is
  shut (pipes left open would show there; the resource tracker that spawning starts once per
  process, and whose pipe stays open, is started before the first sample).

Growth is taken from the first interval on (``warm``): the first games fill caches (the card
catalogue, the action tables, imported modules) once. A leak shows as ``rss_growth_kb`` (end
less warm) and as a steady ``rss_slope_kb`` (least squares, kB per 1,000 units, over the
samples from warm on); ``fd_growth`` must be 0. The one cache that keeps growing for
thousands of games is the station surveys' (``sm_env/core/grid.py``: the surveys of up to
1,024 grids, then it starts afresh): bounded, so the memory levels off once it is full.
Linux only (it reads ``/proc``).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing import resource_tracker
from pathlib import Path
from typing import Any

import numpy as np
from rich.table import Table

STEPS = 100_000
GAMES = 1_000
SAMPLES = 10  # intervals per phase
OFFICES = 3
TOURNAMENT_BOTS = ("random", "passenger")
POOL_JOBS = 2


class LongRunError(RuntimeError):
    """A long run that cannot be measured here (no ``/proc``) or bad sizes."""


@dataclass(frozen=True)
class Sample:
    done: int  # units (steps or games) done when taken
    seconds: float
    rss_kb: int
    fds: int
    workers_rss_kb: int  # the pool's worker processes (0 outside a pool)


@dataclass(frozen=True)
class Phase:
    name: str
    unit: str  # "steps" or "games"
    samples: tuple[Sample, ...]

    @property
    def warm(self) -> Sample:
        return self.samples[1] if len(self.samples) > 2 else self.samples[0]

    @property
    def rss_growth_kb(self) -> int:
        return self.samples[-1].rss_kb - self.warm.rss_kb

    @property
    def rss_slope_kb(self) -> float:
        """kB per 1,000 units, fitted over the samples from warm on."""
        tail = [s for s in self.samples if s.done >= self.warm.done]
        x = np.array([s.done for s in tail], dtype=float)
        if len(tail) < 2 or np.ptp(x) == 0:
            return 0.0
        slope = np.polyfit(x, np.array([s.rss_kb for s in tail], dtype=float), 1)[0]
        return float(slope * 1000)

    @property
    def fd_growth(self) -> int:
        return self.samples[-1].fds - self.samples[0].fds

    def to_json(self) -> dict[str, Any]:
        first, last = self.samples[0], self.samples[-1]
        return {
            "name": self.name,
            "unit": self.unit,
            "done": last.done,
            "seconds": round(last.seconds, 3),
            "rate": round(last.done / last.seconds, 1) if last.seconds else None,
            "rss_start_kb": first.rss_kb,
            "rss_warm_kb": self.warm.rss_kb,
            "rss_end_kb": last.rss_kb,
            "rss_max_kb": max(s.rss_kb for s in self.samples),
            "rss_growth_kb": self.rss_growth_kb,
            "rss_slope_kb_per_1000": round(self.rss_slope_kb, 2),
            "fds_start": first.fds,
            "fds_end": last.fds,
            "fd_growth": self.fd_growth,
            "workers_rss_kb_max": max(s.workers_rss_kb for s in self.samples),
            "samples": [
                {
                    "done": s.done,
                    "seconds": round(s.seconds, 3),
                    "rss_kb": s.rss_kb,
                    "fds": s.fds,
                    "workers_rss_kb": s.workers_rss_kb,
                }
                for s in self.samples
            ],
        }


def rss_kb(pid: int | str = "self") -> int:
    """Resident memory of a process, in kB (``VmRSS``); 0 for one that has gone."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return 0
    for line in text.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


class _Meter:
    """Samples one phase: ``at(done)`` takes a sample when ``done`` reaches the next mark."""

    def __init__(self, total: int, samples: int, pool: bool = False) -> None:
        self.marks = sorted({max(1, round(total * k / samples)) for k in range(1, samples + 1)})
        self.pool = pool
        self.start = time.perf_counter()
        self.samples = [self._sample(0)]

    def _sample(self, done: int) -> Sample:
        gc.collect()
        children = multiprocessing.active_children() if self.pool else []
        workers = sum(rss_kb(p.pid) for p in children if p.pid is not None)
        return Sample(done, time.perf_counter() - self.start, rss_kb(), open_fds(), workers)

    def at(self, done: int) -> None:
        if self.marks and done >= self.marks[0]:
            self.marks.pop(0)
            self.samples.append(self._sample(done))

    def end(self, done: int) -> tuple[Sample, ...]:
        """The last sample, taken again once the phase is over (the pool shut)."""
        if self.samples[-1].done == done:
            self.samples.pop()
        self.samples.append(self._sample(done))
        return tuple(self.samples)


def env_phase(steps: int, samples: int) -> Phase:
    """``steps`` random masked steps of the v1 AEC env, reset with a new seed after each game."""
    import sm_env

    env = sm_env.station_master_v1.env(num_offices=OFFICES, days=1)
    rng = np.random.default_rng(0)
    meter = _Meter(steps, samples)
    done = game = 0
    while done < steps:
        env.reset(seed=game)
        game += 1
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            if action is not None:
                done += 1
                meter.at(done)
                if done >= steps:
                    break
    env.close()
    return Phase("env", "steps", meter.end(done))


def tournament_phase(games: int, samples: int, jobs: int) -> Phase:
    """About ``games`` games (whole deals: every deal is played under each seating) of a
    tournament, its results kept, in this process (``jobs`` 1) or through the pool."""
    from experiments.arena import tournament as tour
    from sm_env.core import GameConfig

    if jobs > 1:
        # started once per process, its pipe kept open for good: not the pool's to count
        resource_tracker.ensure_running()
    seatings = len(tour.seatings(TOURNAMENT_BOTS, OFFICES))
    deals = max(1, round(games / seatings))
    match = tour.Tournament(TOURNAMENT_BOTS, GameConfig(offices=OFFICES, days=1), deals, 1)
    meter = _Meter(deals * seatings, samples, pool=jobs > 1)
    count = 0

    def finished(_result: tour.GameResult) -> None:
        nonlocal count
        count += 1
        meter.at(count)

    results = tour.play(match, jobs, on_result=finished)
    return Phase("tournament-pool" if jobs > 1 else "tournament", "games", meter.end(len(results)))


def run(
    steps: int = STEPS,
    games: int = GAMES,
    samples: int = SAMPLES,
    progress: Callable[[str], None] | None = None,
) -> list[Phase]:
    """Every phase, in order; ``progress`` is told each phase's name as it starts."""
    if steps < 1 or games < 1 or samples < 1:
        raise LongRunError(f"steps, games and samples must be >= 1, got {steps}, {games}, {samples}")
    if not Path("/proc/self/status").exists():
        raise LongRunError("the long run reads /proc/self/status and /proc/self/fd: it needs Linux")
    say = progress or (lambda _: None)
    phases = []
    say(f"env: {steps} steps")
    phases.append(env_phase(steps, samples))
    say(f"tournament: {games} games in this process")
    phases.append(tournament_phase(games, samples, 1))
    say(f"tournament: {games} games through the pool ({POOL_JOBS} workers)")
    phases.append(tournament_phase(games, samples, POOL_JOBS))
    return phases


def document(phases: Sequence[Phase]) -> dict[str, Any]:
    return {"phases": [phase.to_json() for phase in phases]}


def table(phases: Sequence[Phase]) -> Table:
    out = Table(title="Long run: resident memory (kB) and open file descriptors, from warm to end")
    for name in ("phase", "done", "per s", "RSS start", "RSS warm", "RSS end", "growth", "kB/1000", "fds"):
        out.add_column(name, justify="left" if name == "phase" else "right")
    for phase in phases:
        data = phase.to_json()
        out.add_row(
            phase.name,
            f"{data['done']:,} {phase.unit}",
            f"{data['rate']:,.0f}" if data["rate"] else "-",
            f"{data['rss_start_kb']:,}",
            f"{data['rss_warm_kb']:,}",
            f"{data['rss_end_kb']:,}",
            f"{data['rss_growth_kb']:+,}",
            f"{data['rss_slope_kb_per_1000']:+.1f}",
            f"{data['fds_start']} -> {data['fds_end']}",
        )
    return out

"""How long jobs scale: tournament and self-play games a second with the local backend and
with Ray, at 1 and 2 workers, and Ray's cost per batch (``station-master bench --scaling``).

The workloads are the real ones: tournament games of the heuristic bots (``tournament.play_one``)
and recorded self-play games of the search with the shipped network (``selfplay.record_game``).
Ray runs on an instance started on this machine with 1, then 2 CPUs; its start-up (``ray.init``)
is measured apart and not counted in the rates. From the rates and the batch cost, README.md
projects a cluster of N nodes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from experiments.arena.parallel import Workers, run_all
from experiments.arena.tournament import Job, play_one
from experiments.bench.suite import Figure
from experiments.training.samples import record_game
from sm_env.core import GameConfig

TOURNAMENT_BOTS = ("passenger", "freight", "dispatcher")
SELFPLAY_LEARNER = "mcts:net=shipped,iterations=8"
EMPTY_BATCHES = 64  # tiny tasks that measure what a Ray task costs by itself


def tournament_tasks(games: int) -> list[Job]:
    config = GameConfig(offices=3, days=1)
    return [(g, 0, 1000 + g, config, TOURNAMENT_BOTS, "") for g in range(games)]


def selfplay_tasks(games: int) -> list[Any]:
    config = GameConfig(offices=3, days=1)
    players = (SELFPLAY_LEARNER, "passenger", SELFPLAY_LEARNER)
    return [(config, g, 2000 + g, players, (True, False, True), 0.25) for g in range(games)]


def rate(play: Callable[[Any], Any], tasks: Sequence[Any], workers: Workers) -> float:
    """Games a second over ``tasks``."""
    start = time.perf_counter()
    run_all(play, tasks, workers)
    return len(tasks) / (time.perf_counter() - start)


def _nothing(task: int) -> int:
    return task


def run(quick: bool = False, progress: Callable[[str], None] | None = None) -> list[Figure]:
    say = progress or (lambda _: None)
    games = {"tournament": 6 if quick else 48, "selfplay": 2 if quick else 8}
    workloads = {
        "tournament": (play_one, tournament_tasks(games["tournament"])),
        "selfplay": (record_game, selfplay_tasks(games["selfplay"])),
    }
    figures: list[Figure] = []
    for name, (play, tasks) in workloads.items():
        for jobs in (1, 2):
            say(f"{name}, local, {jobs} job(s)")
            figures.append(
                Figure(
                    f"scaling.{name}.local.{jobs}",
                    f"{name} games/s, local backend, {jobs} process(es)",
                    rate(play, tasks, Workers(jobs)),
                    "/s",
                    f"{len(tasks)} games",
                )
            )
    try:
        import ray
    except ImportError:
        note = "Ray not installed: pip install '.[ray]'"
        return figures + [Figure("scaling.ray", "Ray backend", None, "", note)]
    for cpus in (1, 2):
        say(f"Ray with {cpus} CPU(s)")
        start = time.perf_counter()
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
        try:
            figures.append(
                Figure(
                    f"scaling.ray.init.{cpus}", f"ray.init, {cpus} CPU(s)", time.perf_counter() - start, "s"
                )
            )
            for name, (play, tasks) in workloads.items():
                figures.append(
                    Figure(
                        f"scaling.{name}.ray.{cpus}",
                        f"{name} games/s, Ray backend, {cpus} CPU(s)",
                        rate(play, tasks, Workers(backend="ray")),
                        "/s",
                        f"{len(tasks)} games",
                    )
                )
            if cpus == 1:  # one task at a time: the whole of a batch's cost shows
                start = time.perf_counter()
                remote: Any = ray.remote(_nothing)
                for i in range(EMPTY_BATCHES):
                    ray.get(remote.remote(i))
                overhead = (time.perf_counter() - start) / EMPTY_BATCHES
                figures.append(
                    Figure(
                        "scaling.ray.batch_ms",
                        "Ray cost of one batch (an empty task, round trip)",
                        1000 * overhead,
                        "ms",
                    )
                )
        finally:
            ray.shutdown()
    return figures

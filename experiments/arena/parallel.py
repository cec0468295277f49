"""Many games over all cores, with a progress bar: the runner of tournaments, balance runs and
self-play.

Two backends. ``local``: a spawned process pool on this machine. ``ray``: batches of games as
Ray tasks on a cluster (``ray.init(address)``: an address given, else ``RAY_ADDRESS``, else a
Ray instance started on this machine; one already initialised in this process is used as it
is). Results come back as batches finish and the callers sort them, so a run's outputs are the
same on either backend. A Ray worker lost mid-run (a process killed, a node gone) costs only its
batch, which Ray runs again (``RAY_RETRIES``); a game that raises is ``GameFailed`` on both.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import multiprocessing.pool
import os
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from tqdm import tqdm

Task = TypeVar("Task")
Result = TypeVar("Result")

BACKENDS = ("local", "ray")
RAY_RETRIES = 3  # times Ray runs a batch again whose worker died
RAY_BATCHES_PER_CPU = 8  # batches small enough to spread evenly, large enough to amortise a task
ORPHAN_POLL_SECONDS = 0.5  # how often a pool worker checks that the process it works for is alive


class BackendError(RuntimeError):
    """A backend that cannot run here: Ray not installed, or no cluster at the address."""


@dataclass(frozen=True)
class Workers:
    """Where games run: ``jobs`` local processes, or a Ray cluster (``backend="ray"``, at
    ``address``; there the cluster's CPUs decide how many run at once)."""

    jobs: int = 1
    backend: str = "local"
    address: str | None = None

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise BackendError(f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")

    @property
    def parallel(self) -> bool:
        return self.backend == "ray" or self.jobs > 1


def check_backend(workers: Workers) -> None:
    """Refuse a Ray backend that cannot run (Ray missing, nothing at the address) before a
    run writes anything."""
    if workers.backend != "ray":
        return
    _import_ray()
    _check_reachable(workers.address or os.environ.get("RAY_ADDRESS") or None)


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise BackendError("--backend ray needs Ray: pip install 'station-master[ray]'") from None
    return ray


def as_workers(jobs: int | Workers) -> Workers:
    return jobs if isinstance(jobs, Workers) else Workers(jobs)


class GameFailed(RuntimeError):
    """A game raised in a worker: the message names the task and carries the worker's traceback."""


@dataclass(frozen=True)
class _Failure:
    task: str
    trace: str


@dataclass(frozen=True)
class _Guarded(Generic[Task, Result]):
    """``play_one`` that hands back a failure as plain text: an exception that does not
    pickle would otherwise kill the pool's result thread and hang the run."""

    play_one: Callable[[Task], Result]

    def __call__(self, task: Task) -> Result | _Failure:
        try:
            return self.play_one(task)
        except Exception:  # any bug in a bot or the engine: reported, never a hang
            return _Failure(repr(task), traceback.format_exc())


def _checked(result: Result | _Failure) -> Result:
    if isinstance(result, _Failure):
        raise GameFailed(f"a game failed in a worker process, task {result.task}:\n{result.trace}")
    return result


def run_all(
    play_one: Callable[[Task], Result],
    tasks: Sequence[Task],
    jobs: int | Workers = 1,
    progress: bool = False,
    on_result: Callable[[Result], None] | None = None,
) -> list[Result]:
    """``play_one`` of every task, in ``jobs`` worker processes (spawned, so a worker shares
    nothing with the caller) or on a Ray cluster (``Workers``); results come in the order they
    finish, for the caller to sort. ``on_result`` is called in this process with each result
    as it comes back (a journal records it there)."""
    workers = as_workers(jobs)
    results: list[Result] = []

    def take(result: Result) -> None:
        results.append(result)
        if on_result is not None:
            on_result(result)

    with tqdm(total=len(tasks), unit="game", file=sys.stderr, disable=not progress) as bar:
        if not tasks:
            return results
        if workers.backend == "ray":
            for batch in _run_on_ray(play_one, tasks, workers.address):
                for finished in batch:
                    take(finished)
                bar.update(len(batch))
            return results
        if workers.jobs == 1:
            for task in tasks:
                take(play_one(task))
                bar.update()
            return results
        processes = min(workers.jobs, len(tasks))
        # One game a message: a chunk's results come back only when all of it is done, so a
        # chunk of a search's games held back the journal and the progress bar for many
        # minutes, all lost at a kill; a message costs far less than a game of any bot.
        with worker_pool(processes) as pool:
            for result in pool.imap_unordered(_Guarded(play_one), tasks):
                take(_checked(result))
                bar.update()
    return results


def _set_up_worker(parent: int) -> None:
    """A pool worker's initializer. It ignores Ctrl-C: the terminal sends it to the whole
    process group, and the caller alone stops the run (it ends the pool), so no worker prints
    a traceback of its own. It exits once ``parent`` is gone: killed alone (not with its
    process group), a parent leaves its workers playing out their chunks for nobody and then
    waiting on the pool's queue for ever (they hold its write end themselves, so no EOF comes)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="orphan-watch", daemon=True).start()


def worker_pool(processes: int) -> multiprocessing.pool.Pool:
    """A pool of ``processes`` spawned workers (they share nothing with the caller) that leave
    Ctrl-C to the caller and exit when it dies. They ignore it from birth: the caller ignores
    it while it spawns them, and an ignored signal stays ignored through exec and Python's
    start, so a Ctrl-C while a worker still imports prints no traceback either (the
    initializer runs only after the imports)."""
    caller_handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return multiprocessing.get_context("spawn").Pool(
            processes, initializer=_set_up_worker, initargs=(os.getpid(),)
        )
    finally:
        signal.signal(signal.SIGINT, caller_handler)


def _play_batch(play_one: Callable[[Task], Result], batch: Sequence[Task]) -> list[Result | _Failure]:
    guarded = _Guarded(play_one)
    return [guarded(task) for task in batch]


def _check_reachable(address: str | None, seconds: float = 5.0) -> None:
    """Refuse at once a HOST:PORT where nothing listens: Ray itself would wait for minutes."""
    if not address or address in ("auto", "local") or "://" in address or ":" not in address:
        return
    host, _, port = address.rpartition(":")
    if not port.isdigit():
        raise BackendError(f"the Ray address must be HOST:PORT, got {address!r}")
    try:
        with socket.create_connection((host, int(port)), timeout=seconds):
            pass
    except OSError as err:
        raise BackendError(f"no Ray cluster answers at {address}: {err.strerror or err}") from None


@contextmanager
def ray_session(address: str | None) -> Iterator[Any]:
    """Ray for the ``with`` block: the cluster at ``address`` (else ``RAY_ADDRESS``, else a
    Ray instance started here and stopped after), or the one this process already joined."""
    ray = _import_ray()
    started = not ray.is_initialized()
    if started:
        target = address or os.environ.get("RAY_ADDRESS") or None
        _check_reachable(target)
        try:
            ray.init(
                address=target,
                include_dashboard=False,
                logging_level=logging.WARNING,
                log_to_driver=False,
            )
        except (ConnectionError, RuntimeError, ValueError) as err:
            raise BackendError(f"no Ray cluster to run on at {target}: {err}") from None
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()


def _run_on_ray(
    play_one: Callable[[Task], Result], tasks: Sequence[Task], address: str | None
) -> Iterator[list[Result]]:
    """Each batch's results as it finishes on the Ray cluster."""
    with ray_session(address) as ray:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = max(1, math.ceil(len(tasks) / (cpus * RAY_BATCHES_PER_CPU)))
        remote: Any = ray.remote(max_retries=RAY_RETRIES)(_play_batch)
        pending = [remote.remote(play_one, tasks[i : i + size]) for i in range(0, len(tasks), size)]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield [_checked(result) for result in ray.get(done[0])]

"""Many games over all cores, with a progress bar: the runner of tournaments and balance runs."""

from __future__ import annotations

import multiprocessing
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from tqdm import tqdm

Task = TypeVar("Task")
Result = TypeVar("Result")


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
    play_one: Callable[[Task], Result], tasks: Sequence[Task], jobs: int = 1, progress: bool = False
) -> list[Result]:
    """``play_one`` of every task, in ``jobs`` worker processes (spawned, so a worker shares
    nothing with the caller); results come in the order they finish, for the caller to sort."""
    results: list[Result] = []
    with tqdm(total=len(tasks), unit="game", file=sys.stderr, disable=not progress) as bar:
        if jobs == 1:
            for task in tasks:
                results.append(play_one(task))
                bar.update()
            return results
        workers = min(jobs, len(tasks))
        chunk = max(1, len(tasks) // (workers * 16))  # games take milliseconds: batch them
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            for result in pool.imap_unordered(_Guarded(play_one), tasks, chunksize=chunk):
                results.append(_checked(result))
                bar.update()
    return results

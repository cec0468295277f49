"""Many games over all cores, with a progress bar: the runner of tournaments and balance runs."""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

from tqdm import tqdm

Task = TypeVar("Task")
Result = TypeVar("Result")


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
            for result in pool.imap_unordered(play_one, tasks, chunksize=chunk):
                results.append(result)
                bar.update()
    return results

"""The ``station-master`` command: demo games of bots, a seat at the table, and replay files.

station-master demo --seed 1                    # a full game of random bots, stage by stage
station-master demo --seed 7 --offices 4 --days 2 --json
station-master demo --seed 1 --save-replay game.json
station-master replay game.json --verify
station-master play --seats human,passenger,freight   # a seat at the table: you and two bots
station-master replay station-master-game.json        # step through a saved game
station-master serve                                  # the table in your browser
station-master tournament --bots random,random --offices 3 --days 2 --games 20 --seed 1
station-master balance --offices 1,3,6 --days 5 --games 30 --seed 1
station-master train --out runs/first --timesteps 200000 --warm-start passenger
station-master soak --games 10000 --seed 1 --minutes 70   # every configuration, every decision checked

Each subcommand is a ``Command`` of its job's package (its options and its run function);
this module only assembles them into one parser and turns bad input into a one-line error.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from experiments.arena import commands as arena
from experiments.bench import commands as bench
from experiments.command import USAGE_ERRORS
from experiments.play import commands as play
from experiments.play.web.command import SERVE
from experiments.robustness import commands as robustness
from experiments.training import commands as training

COMMANDS = (
    *play.COMMANDS,
    SERVE,
    *arena.COMMANDS,
    *bench.COMMANDS,
    *training.COMMANDS,
    *robustness.COMMANDS,
)
BAD_INPUT = USAGE_ERRORS + tuple(error for command in COMMANDS for error in command.errors)


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``, ``timeout``), raised where Ctrl-C would be: a run stops the same
    way, its worker pool ended and what it finished kept, instead of dying mid-line."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():  # only there can it be set
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    command = next(command for command in COMMANDS if command.name == args.command)
    try:
        with _terminate_as_interrupt():
            return command.run(args)
    except BAD_INPUT as err:
        print(f"station-master: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        terminated = isinstance(stop, Terminated)
        resume = "; the same command with --resume goes on from what it kept" if "resume" in args else ""
        print(f"station-master: {'terminated' if terminated else 'interrupted'}{resume}", file=sys.stderr)
        return 128 + (signal.SIGTERM if terminated else signal.SIGINT)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="station-master", description="Station Master rules engine.")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_arguments(sub.add_parser(command.name, help=command.help))
    return parser


if __name__ == "__main__":
    sys.exit(main())

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
import sys
from collections.abc import Sequence

from experiments.arena import commands as arena
from experiments.bench import commands as bench
from experiments.command import USAGE_ERRORS, Terminated, stop_status, terminate_as_interrupt
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


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    command = next(command for command in COMMANDS if command.name == args.command)
    try:
        with terminate_as_interrupt():
            return command.run(args)
    except BAD_INPUT as err:
        print(f"station-master: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        said = "terminated" if isinstance(stop, Terminated) else "interrupted"
        resume = "; the same command with --resume goes on from what it kept" if command.resumes(args) else ""
        print(f"station-master: {said}{resume}", file=sys.stderr)
        return stop_status(stop)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="station-master", description="Station Master rules engine.")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_arguments(sub.add_parser(command.name, help=command.help))
    return parser


if __name__ == "__main__":
    sys.exit(main())

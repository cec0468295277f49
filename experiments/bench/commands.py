"""The ``bench`` subcommand: every speed figure of the project in one run (``suite``)."""

from __future__ import annotations

import argparse
import json
import sys

from experiments.bench import longrun
from experiments.command import Command, output_console


def _add_bench_arguments(speed: argparse.ArgumentParser) -> None:
    speed.add_argument("--quick", action="store_true", help="every figure at a tiny size (a smoke test)")
    speed.add_argument("--json", action="store_true", help="print only a JSON document")
    speed.add_argument(
        "--scaling",
        action="store_true",
        help="instead: tournament and self-play games/s, local and on Ray, at 1 and 2 workers",
    )
    speed.add_argument(
        "--long-run",
        action="store_true",
        help="instead: memory and open files over env steps and tournament games (in this process "
        "and through the pool), at the start, at intervals and at the end",
    )
    speed.add_argument(
        "--steps",
        type=int,
        default=longrun.STEPS,
        metavar="N",
        help=f"--long-run: env steps (default {longrun.STEPS})",
    )
    speed.add_argument(
        "--games",
        type=int,
        default=longrun.GAMES,
        metavar="N",
        help=f"--long-run: tournament games (default {longrun.GAMES})",
    )
    speed.add_argument(
        "--samples",
        type=int,
        default=longrun.SAMPLES,
        metavar="K",
        help=f"--long-run: intervals measured (default {longrun.SAMPLES})",
    )


def _run_bench(args: argparse.Namespace) -> int:
    from experiments.bench import suite  # the RL stack loads only for this command

    def say(part: str) -> None:
        print(f"bench: {part}", file=sys.stderr, flush=True)

    if args.long_run:
        phases = longrun.run(args.steps, args.games, args.samples, progress=say)
        if args.json:
            print(json.dumps(longrun.document(phases), indent=2))
        else:
            output_console(120).print(longrun.table(phases))
        return 0
    if args.scaling:
        from experiments.bench import scaling

        figures = scaling.run(args.quick, progress=say)
    else:
        figures = suite.run(args.quick, progress=say)
    if args.json:
        print(json.dumps(suite.document(figures, args.quick), indent=2))
    else:
        output_console(120).print(suite.table(figures))
    return 0


BENCH = Command(
    "bench",
    "measure speed: the core, the envs and training, beside PettingZoo and catanatron",
    _add_bench_arguments,
    _run_bench,
    errors=(longrun.LongRunError,),
)

COMMANDS = (BENCH,)

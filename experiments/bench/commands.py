"""The ``bench`` subcommand: every speed figure of the project in one run (``suite``)."""

from __future__ import annotations

import argparse
import json
import sys

from experiments.command import Command, output_console


def _add_bench_arguments(speed: argparse.ArgumentParser) -> None:
    speed.add_argument("--quick", action="store_true", help="every figure at a tiny size (a smoke test)")
    speed.add_argument("--json", action="store_true", help="print only a JSON document")
    speed.add_argument(
        "--scaling",
        action="store_true",
        help="instead: tournament and self-play games/s, local and on Ray, at 1 and 2 workers",
    )


def _run_bench(args: argparse.Namespace) -> int:
    from experiments.bench import suite  # the RL stack loads only for this command

    def say(part: str) -> None:
        print(f"bench: {part}", file=sys.stderr, flush=True)

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
)

COMMANDS = (BENCH,)

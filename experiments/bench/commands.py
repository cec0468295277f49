"""The ``bench`` subcommand: every speed figure of the project in one run (``suite``)."""

from __future__ import annotations

import argparse
import json
import sys

from agents import bot_label, split_bot_list
from experiments.bench import longrun
from experiments.command import Command, add_house_rule_option, known_bots, output_console, positive
from sm_env.core import GameConfig, HouseRules

BOT_GAMES = 12  # --bots: at 3 offices, four deals at each seat


def _add_bench_arguments(speed: argparse.ArgumentParser) -> None:
    speed.add_argument("--quick", action="store_true", help="every figure at a tiny size (a smoke test)")
    speed.add_argument("--json", action="store_true", help="print only a JSON document")
    instead = speed.add_mutually_exclusive_group()
    instead.add_argument(
        "--scaling",
        action="store_true",
        help="instead: tournament and self-play games/s, local and on Ray, at 1 and 2 workers",
    )
    instead.add_argument(
        "--long-run",
        action="store_true",
        help="instead: memory and open files over env steps and tournament games (in this process "
        "and through the pool), at the start, at intervals and at the end",
    )
    instead.add_argument(
        "--bots",
        metavar="SPECS",
        help="instead: ms a decision of these bots (comma-separated specs, known: "
        f"{known_bots()}) on one core, each over --games fixed deals against --against",
    )
    speed.add_argument(
        "--against",
        default="passenger",
        metavar="SPEC",
        help="--bots: the bot at the other seats (default passenger)",
    )
    speed.add_argument("--offices", type=int, default=3, metavar="K", help="--bots: offices (default 3)")
    speed.add_argument("--days", type=int, default=2, metavar="D", help="--bots: days (default 2)")
    speed.add_argument(
        "--seed", type=int, default=300000, metavar="S", help="--bots: first game seed (default 300000)"
    )
    add_house_rule_option(speed)
    speed.add_argument(
        "--steps",
        type=int,
        default=longrun.STEPS,
        metavar="N",
        help=f"--long-run: env steps (default {longrun.STEPS})",
    )
    speed.add_argument(
        "--games",
        type=positive,
        metavar="N",
        help=f"--long-run: tournament games (default {longrun.GAMES}); --bots: games a bot plays "
        f"(default {BOT_GAMES})",
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
        phases = longrun.run(args.steps, args.games or longrun.GAMES, args.samples, progress=say)
        if args.json:
            print(json.dumps(longrun.document(phases), indent=2))
        else:
            output_console(120).print(longrun.table(phases))
        return 0
    if args.bots:
        from experiments.bench import bots

        config = GameConfig(
            offices=args.offices, days=args.days, house_rules=HouseRules.from_names(args.house_rule)
        )
        specs = split_bot_list(args.bots)
        for spec in [*specs, args.against]:
            bot_label(spec)  # a bad spec is refused before any game is played
        games = args.games or BOT_GAMES
        figures = bots.run(specs, config, games, args.seed, args.against.strip(), progress=say)
    elif args.scaling:
        from experiments.bench import scaling

        figures = scaling.run(args.quick, progress=say)
    else:
        figures = suite.run(args.quick, progress=say)
    if args.json:
        print(json.dumps(suite.document(figures, args.quick), indent=2))
    else:
        table = suite.table(figures)
        output_console(120, fits=[table]).print(table)
    return 0


BENCH = Command(
    "bench",
    "measure speed: the core, the envs and training, beside PettingZoo and catanatron",
    _add_bench_arguments,
    _run_bench,
    errors=(longrun.LongRunError,),
)

COMMANDS = (BENCH,)

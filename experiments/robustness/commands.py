"""The robustness subcommands: ``soak`` (games over every configuration, every decision
checked, resumable) and its report."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.table import Table

from agents import split_bot_list
from experiments.command import (
    Command,
    add_backend_options,
    add_jobs_option,
    known_bots,
    output_console,
    stop_status,
    workers_of,
    workers_text,
)
from experiments.robustness import soak as sk

SHOWN_FAILURES = 20  # failure lines printed; failures.txt holds them all


def _add_soak_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--games",
        type=int,
        required=True,
        metavar="N",
        help="games to play: game i plays seed S + i under configuration i of a cycle through every one",
    )
    parser.add_argument("--seed", type=int, default=1, metavar="S", help="the soak's seed (default 1)")
    parser.add_argument(
        "--first",
        type=int,
        default=0,
        metavar="I",
        help="the first game's index (default 0); --first I --games 1 plays game I again",
    )
    parser.add_argument(
        "--bots",
        default=",".join(sk.BOTS),
        metavar="SPECS",
        help=f"the bots each seat is drawn from (default {','.join(sk.BOTS)}; known: {known_bots()})",
    )
    add_jobs_option(parser)
    add_backend_options(parser)
    parser.add_argument(
        "--minutes", type=float, metavar="M", help="start no game after M minutes (go on later with --resume)"
    )
    parser.add_argument(
        "--bound",
        type=int,
        default=sk.BOUND,
        metavar="B",
        help=f"decisions per office and day that make a game a failure (default {sk.BOUND}; bots play ~40)",
    )
    parser.add_argument(
        "--out",
        default="station-master-soak",
        metavar="DIR",
        help="where the journal, the report and each failure's replay file go (default station-master-soak)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="go on with the soak in --out (same --games, --seed, --first, --bots, --bound), or start it",
    )
    parser.add_argument("--json", action="store_true", help="print only the report, as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _run_soak(args: argparse.Namespace) -> int:
    workers = workers_of(args)
    bots = tuple(split_bot_list(args.bots))
    soak = sk.Soak(args.games, args.seed, args.first, bots, args.bound, args.minutes, Path(args.out))
    journal = sk.open_journal(soak, args.resume)
    journal.save(soak.out)
    done = journal.done_count()
    last = soak.first + soak.games - 1
    heading = (
        f"soak of seed {soak.seed}: games {soak.first}..{last}"
        + (f" ({done} done before)" if done else "")
        + f", each under the next configuration of {sk.CONFIGURATIONS}, {workers_text(workers)}"
        + (f", no game started after {soak.minutes:g} min" if soak.minutes else "")
        + f"; into {soak.out}"
    )
    if not (args.json and args.quiet):
        print(heading, file=sys.stderr if args.json else sys.stdout, flush=True)
    stopped: KeyboardInterrupt | None = None  # Ctrl-C or SIGTERM: the report of what was done
    try:
        sk.run(soak, journal, workers, progress=not args.quiet and sys.stderr.isatty())
    except KeyboardInterrupt as stop:
        stopped = stop
    data = sk.report(soak, journal, workers.jobs)
    path = sk.write_report(soak, data)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        _print_report(data, path)
    if stopped is not None or not data["complete"]:
        print(
            f"stopped with {journal.done_count()} of {soak.games} games done: go on with the same "
            f"options and --resume",
            file=sys.stderr,
        )
    if stopped is not None:
        return stop_status(stopped)
    return 1 if journal.failures else 0


def _print_report(data: dict[str, Any], path: Path) -> None:
    console = output_console(140)
    table = Table(title=f"Soak of seed {data['seed']}: {data['games']} of {data['games_asked']} games")
    table.add_column("what", no_wrap=True)
    table.add_column("count", justify="right")
    table.add_column("per second", justify="right")
    seconds = data["seconds"]
    for label, key in (
        ("games", "games"),
        ("decisions", "decisions"),
        ("invariant checks", "checks"),
        ("positions saved", "saved"),
        ("positions read back, same hash", "reloaded"),
        ("decisions compared with the game never saved", "shadowed"),
        ("replays verified", "replays"),
        ("failures", "failures"),
    ):
        count = data[key]
        table.add_row(label, f"{count:,}", f"{count / seconds:,.1f}" if seconds > 0 else "-")
    console.print(table)
    coverage = data["coverage"]

    def counts(name: str) -> str:
        return ", ".join(f"{key} {value:,}" for key, value in coverage[name].items()) or "none"

    longest = data["longest"]
    slowest = data["slowest"]
    lines = [
        f"{seconds:,.1f} s in batches over {data['sessions']} session(s), {data['jobs']} job(s)",
        f"configurations: {data['configurations']:,} of {data['configurations_of']:,} played",
        f"games by offices: {counts('offices')}; by days: {counts('days')}; by mode: {counts('modes')}",
        f"games with each house rule on: {counts('house_rules')}",
        f"seats by bot: {counts('bots')}",
    ]
    if longest:
        lines.append(
            f"longest game: game {longest['game']}, {longest['decisions']:,} decisions "
            f"({longest['per_office_day']:.1f} per office and day; the bound is {data['bound']})"
        )
    if slowest:
        lines.append(
            f"slowest game: game {slowest['game']}, {slowest['seconds']:.2f} s ({slowest['config']})"
        )
    for failure in data["failure_list"][:SHOWN_FAILURES]:
        lines.append(failure["line"])
    if data["failures"]:
        lines.append(
            f"all failures: {Path(data['out']) / sk.FAILURES}; replay one with `station-master replay FILE "
            f"--verify`, play a game again with --first I --games 1"
        )
    lines.append(f"report: {path}")
    console.print("\n".join(lines), markup=False, soft_wrap=True)  # paths whole


SOAK = Command(
    "soak",
    "play games over every configuration, checking every decision, saves, loads and replays",
    _add_soak_arguments,
    _run_soak,
    errors=(sk.SoakError,),
)

COMMANDS = (SOAK,)

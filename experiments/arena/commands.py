"""The arena's subcommands: ``tournament`` (bots rated against each other in every seat),
``balance`` (the rules measured per game-day over many games) and ``freight-chain`` (the
freight chain's links counted over bot games), and their tables."""

from __future__ import annotations

import argparse
import io
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from rich.table import Table

from agents import make_bot, split_bot_list
from experiments.arena import balance as bal
from experiments.arena import freight_chain as chain
from experiments.arena import tournament as tour
from experiments.arena.journal import Journal, JournalError, journal_path
from experiments.command import (
    Command,
    add_backend_options,
    add_house_rule_option,
    add_jobs_option,
    house_rules_text,
    keeps_always,
    known_bots,
    output_console,
    workers_of,
    workers_text,
)
from sm_env.core import GameConfig, HouseRules, write_atomically


def _announce(args: argparse.Namespace, text: str) -> None:
    """A run's heading: on stdout, or on stderr beside ``--json`` (and not at all with
    ``--quiet`` too), so the JSON stays alone on stdout."""
    if not args.json or not args.quiet:
        print(text, file=sys.stderr if args.json else sys.stdout, flush=True)


def _progress(args: argparse.Namespace) -> bool:
    """Whether to draw a progress bar: not when ``--quiet``, nor into a log."""
    return not args.quiet and sys.stderr.isatty()


# ---------------------------------------------------------------------------- tournament


def _add_tournament_arguments(match: argparse.ArgumentParser) -> None:
    match.add_argument(
        "--bots",
        required=True,
        metavar="SPECS",
        help=f"comma-separated bot specs, NAME or NAME:KEY=VALUE,KEY=VALUE (known: {known_bots()})",
    )
    match.add_argument(
        "--against",
        default="",
        metavar="SPEC",
        help="a gauntlet: each bot of --bots in one seat, this bot in every other seat",
    )
    match.add_argument(
        "--offices", type=int, default=3, metavar="K", help="offices (seats), 1..6 (default 3)"
    )
    match.add_argument("--days", type=int, default=1, metavar="D", help="days to play (default 1)")
    match.add_argument(
        "--games",
        type=int,
        default=10,
        metavar="N",
        help="deals, each played under every seating (default 10)",
    )
    match.add_argument(
        "--seed", type=int, default=1, metavar="S", help="first game seed; deal i uses S + i (default 1)"
    )
    add_jobs_option(match)
    add_backend_options(match)
    match.add_argument(
        "--csv", default="tournament.csv", metavar="FILE", help="one row per game (default tournament.csv)"
    )
    match.add_argument(
        "--resume",
        action="store_true",
        help="go on with a stopped run of the same options, or a finished one with more --games: "
        "the games in FILE.journal (every run's record of its finished games) are not played again",
    )
    match.add_argument(
        "--plot", metavar="FILE.png", help="ratings and revenue chart (default: the CSV's name, .png)"
    )
    match.add_argument(
        "--replays",
        metavar="DIR",
        help="also write each game's replay file in DIR (game-SEED-seating-K.json)",
    )
    add_house_rule_option(match)
    match.add_argument("--json", action="store_true", help="print only a JSON summary")
    match.add_argument("--quiet", action="store_true", help="no progress bar")


def _run_tournament(args: argparse.Namespace) -> int:
    workers = workers_of(args)
    config = GameConfig(
        offices=args.offices, days=args.days, house_rules=HouseRules.from_names(args.house_rule)
    )
    against = args.against.strip()
    match = tour.Tournament(tuple(split_bot_list(args.bots)), config, args.games, args.seed, against)
    seatings = match.seatings()
    total = match.deals * len(seatings)
    csv_path = Path(args.csv)
    plot_path = Path(args.plot) if args.plot else csv_path.with_suffix(".png")
    for path, what in ((csv_path, "CSV"), (plot_path, "plot")):  # found out now, not after the games
        if not path.parent.is_dir():
            raise tour.TournamentError(f"no folder {path.parent} to write the {what} {path} in")
    if args.replays:
        Path(args.replays).mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    header, path = tour.journal_header(match), journal_path(csv_path)
    journal = Journal.resume(path, header, grows="games") if args.resume else Journal.start(path, header)
    try:
        done = [
            tour.result_from_json(item, match, f"{path}, game {i + 1}")
            for i, item in enumerate(journal.items)
        ]
        last_seed, lineups = match.seed + match.deals - 1, seatings[-1].lineup + 1
        _announce(
            args,
            f"{total} games: {match.deals} deals (seeds {match.seed}..{last_seed}) under {len(seatings)} "
            f"seatings ({lineups} line-up(s) × {config.offices} rotation(s)), {workers_text(workers)}"
            + (f"; {len(done)} already played ({path})" if args.resume else ""),
        )
        results = tour.play(
            match,
            workers,
            progress=_progress(args),
            replays=args.replays or "",
            done=done,
            on_result=lambda result: journal.append(tour.result_json(result)),
        )
    finally:
        journal.close()
    text = io.StringIO()
    tour.write_csv(text, match, seatings, results)
    write_atomically(csv_path, text.getvalue())
    wall = time.perf_counter() - start
    summaries = tour.summarize(match, seatings, results)
    found = tour.skill(match, seatings, results)
    tour.plot(plot_path, summaries)
    if args.json:
        data = tour.summary_json(match, seatings, summaries)
        data.update(skill=tour.skill_json(found), csv=str(csv_path), plot=str(plot_path), wall_seconds=wall)
        print(json.dumps(data, indent=2))
        return 0
    table = _tournament_table(summaries)
    console = output_console(140, fits=[table])
    console.print(table)
    console.print(_skill_text(found, match.names()))
    console.print(f"{total} games in {wall:.1f} s; wrote {csv_path} and {plot_path}")
    return 0


def _tournament_table(summaries: Sequence[tour.BotSummary]) -> Table:
    ci = f"{tour.CONFIDENCE:.0%} CI"
    table = Table(title="Tournament, best rating first")
    table.add_column("bot", no_wrap=True)
    for name in ("games", "seats", f"revenue ({ci})", f"win rate ({ci})", "collisions/game", "µs/decision"):
        table.add_column(name, justify="right")
    for name in ("mu", "sigma", "mu-3sigma"):
        table.add_column(name, justify="right")
    for s in summaries:
        mean, low, high = s.revenue
        p, p_low, p_high = s.win_rate
        table.add_row(
            s.name,
            str(s.games),
            str(s.seat_games),
            f"{mean:.2f} " + ("(one deal)" if math.isnan(low) else f"({low:.2f}..{high:.2f})"),
            f"{p:.1%} ({p_low:.1%}..{p_high:.1%})",
            f"{s.collisions_per_game:.3f}",
            "-" if s.decision_us is None else f"{s.decision_us:.1f}",
            f"{s.rating.mu:.2f}",
            f"{s.rating.sigma:.2f}",
            f"{s.rating.ordinal:.2f}",
        )
    return table


def _skill_text(found: tour.Skill, names: dict[str, str]) -> str:
    ci = f"{tour.CONFIDENCE:.0%} CI"
    lines = []
    share = found.share
    if share is not None:
        lines.append(
            f"skill: the bot explains {share.bot:.1%} ({share.low:.1%}..{share.high:.1%}, {ci} over "
            f"{share.deals} deals) of the spread of a seat's revenue within a deal; shuffled bots "
            f"explain {share.chance:.1%}; the seat {share.seat:.1%}"
        )
    for a, b, (mean, low, high, deals) in found.pairs:
        interval = "one deal" if math.isnan(low) else f"{low:+.2f}..{high:+.2f}"
        lines.append(f"paired by deal: {names[a]} - {names[b]} = {mean:+.2f} ({interval}) over {deals} deals")
    return "\n".join(lines)


TOURNAMENT = Command(
    "tournament",
    "play bots against each other in every seat and rate them",
    _add_tournament_arguments,
    _run_tournament,
    errors=(tour.TournamentError, JournalError),
    resumes=keeps_always,  # the journal beside --csv
)


# ---------------------------------------------------------------------------- balance


def _add_balance_arguments(balance: argparse.ArgumentParser) -> None:
    balance.add_argument(
        "--offices",
        default="1,3,6",
        metavar="K,K,...",
        help="office counts to play, each 1..6 (default 1,3,6)",
    )
    balance.add_argument("--days", type=int, default=5, metavar="D", help="days per game (default 5)")
    balance.add_argument(
        "--games", type=int, default=30, metavar="N", help="games per office count (default 30)"
    )
    balance.add_argument(
        "--seed", type=int, default=1, metavar="S", help="first game seed; game g uses S + g (default 1)"
    )
    balance.add_argument(
        "--bots",
        default=",".join(bal.DEFAULT_BOTS),
        metavar="SPECS",
        help=f"bots cycled over the seats, rotated by game (default {','.join(bal.DEFAULT_BOTS)}; "
        f"known: {known_bots()})",
    )
    balance.add_argument(
        "--paired",
        action="store_true",
        help="play every deal once under each rotation of the bots (N × len(bots) games per office "
        "count) and report the skill measure and every pair's paired difference; needs two distinct bots",
    )
    add_jobs_option(balance)
    add_backend_options(balance)
    add_house_rule_option(balance)
    balance.add_argument(
        "--journal",
        metavar="FILE",
        help="keep a journal of the finished games in FILE (removed once the tables are out), "
        "so that a stopped run can --resume",
    )
    balance.add_argument(
        "--resume", action="store_true", help="go on with the stopped run of --journal FILE (same options)"
    )
    balance.add_argument("--json", action="store_true", help="print only a JSON document")
    balance.add_argument("--quiet", action="store_true", help="no progress bar")


def _run_balance(args: argparse.Namespace) -> int:
    workers = workers_of(args)
    run = bal.Balance(
        offices=bal.parse_offices(args.offices),
        days=args.days,
        games=args.games,
        seed=args.seed,
        bots=tuple(split_bot_list(args.bots)),
        house_rules=HouseRules.from_names(args.house_rule),
        paired=args.paired,
    )
    journal = _balance_journal(args, run)
    total = len(run.offices) * run.games_per_office_count()
    per_office_count = f"{run.games} deals × {len(run.bots)} rotations" if run.paired else str(run.games)
    _announce(
        args,
        f"{total} games: {per_office_count} per office count {','.join(map(str, run.offices))} "
        f"(seeds {run.seed}..{run.seed + run.games - 1}), {run.days} day(s), bots {','.join(run.bots)} "
        f"rotated over the seats, house rules: {house_rules_text(run.house_rules)}, {workers_text(workers)}"
        + (f"; {len(journal.items)} already played ({journal.path})" if journal and args.resume else ""),
    )
    start = time.perf_counter()
    if journal is None:
        records = bal.play(run, workers, progress=_progress(args))
    else:
        try:
            done = [
                bal.record_from_json(item, run, f"{journal.path}, game {i + 1}")
                for i, item in enumerate(journal.items)
            ]
            records = bal.play(
                run, workers, _progress(args), done, lambda record: journal.append(bal.record_json(record))
            )
        finally:
            journal.close()
    wall = time.perf_counter() - start
    _print_balance(args, run, bal.summarize(run, records), f"{total} games in {wall:.1f} s")
    if journal is not None:
        journal.finish()
    return 0


def _balance_journal(args: argparse.Namespace, run: bal.Balance) -> Journal | None:
    """The journal of ``--journal``, resumed with ``--resume``; None without one."""
    if args.journal is None:
        if args.resume:
            raise bal.BalanceError("--resume goes on from a journal: give --journal FILE")
        return None
    path = Path(args.journal)
    if not path.parent.is_dir():
        raise bal.BalanceError(f"no folder {path.parent} to write the journal {path} in")
    header = bal.journal_header(run)
    return Journal.resume(path, header) if args.resume else Journal.start(path, header)


def _print_balance(
    args: argparse.Namespace, run: bal.Balance, summaries: Sequence[bal.OfficeSummary], timing: str
) -> None:
    if args.json:
        print(json.dumps(bal.document(run, summaries), indent=2))
        return
    tables = [_balance_table(run, summary) for summary in summaries]
    console = output_console(160, fits=tables)
    for summary, table in zip(summaries, tables, strict=True):
        console.print(table)
        d = summary.collision_decisions
        console.print(
            f"collisions led to by a seat's decision: {d['led']} of {d['of']} "
            f"(switching {d['switching']}, clearance {d['clearance']}, full Office {d['office']}); "
            f"averted by a RED FLAG: {d['red_flags']}"
        )
        if summary.skill is not None:
            console.print(_skill_text(summary.skill, run.names()))
    console.print(
        "all days: per game, the total of a count and the mean over the days of a day's-end level; "
        "trip lengths by day of completion (docs/balance.md)"
    )
    console.print(timing)


def _balance_table(run: bal.Balance, summary: bal.OfficeSummary) -> Table:
    ci = f"{bal.CONFIDENCE:.0%}"
    games = f"{run.games} deal(s) × {len(run.bots)} rotations" if run.paired else f"{run.games} game(s)"
    table = Table(
        title=f"{summary.offices} office(s), {run.days} day(s), {games}: mean per game ± {ci} half-width",
    )
    table.add_column("metric", no_wrap=True)
    for day in range(run.days):
        table.add_column(f"Day {day + 1}", justify="right", no_wrap=True)
    table.add_column("all days", justify="right", no_wrap=True)
    section = None
    for metric in summary.metrics:
        name = next((name for name, metrics in bal.SECTIONS if metric in metrics), section)
        if section is not None and name != section:
            table.add_section()
        section = name
        cells = [*summary.days[metric.key], summary.all_days[metric.key]]
        table.add_row(metric.label, *(bal.format_cell(cell) for cell in cells))
    return table


BALANCE = Command(
    "balance",
    "measure the rules per game-day over many games of the bots",
    _add_balance_arguments,
    _run_balance,
    errors=(bal.BalanceError, JournalError),
    resumes=lambda args: args.journal is not None,
)


# ---------------------------------------------------------------------------- freight chain


def _add_chain_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bots",
        default="freight",
        metavar="SPEC,SPEC,...",
        help=f"bot specs seated in turn, seat s gets spec s mod N (default freight; known: {known_bots()})",
    )
    parser.add_argument(
        "--offices", type=int, default=3, metavar="K", help="offices (seats), 1..6 (default 3)"
    )
    parser.add_argument("--days", type=int, default=2, metavar="D", help="days per game (default 2)")
    parser.add_argument("--games", type=int, default=20, metavar="N", help="games (default 20)")
    parser.add_argument(
        "--seed", type=int, default=1, metavar="S", help="first game seed; game g uses S + g (default 1)"
    )
    add_jobs_option(parser)
    add_house_rule_option(parser)
    parser.add_argument("--json", action="store_true", help="print only a JSON summary")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _run_chain(args: argparse.Namespace) -> int:
    config = GameConfig(
        offices=args.offices, days=args.days, house_rules=HouseRules.from_names(args.house_rule)
    )
    bots = split_bot_list(args.bots)
    for spec in bots:
        make_bot(spec, 0)  # a bad spec is refused here, before any game
    if args.games < 1:
        raise chain.ChainError(f"--games must be at least 1, got {args.games}")
    counts = chain.chain_counts(bots, config, args.games, args.seed, args.jobs, not args.quiet)
    if args.json:
        run = {
            "bots": bots,
            "offices": args.offices,
            "days": args.days,
            "games": args.games,
            "seed": args.seed,
        }
        print(json.dumps({**run, "house_rules": config.house_rules.to_dict(), **counts}))
        return 0
    table = Table(
        title=f"The freight chain: {', '.join(bots)} at {args.offices} office(s), {args.days} day(s), "
        f"{args.games} game(s) from seed {args.seed}, house rules: {house_rules_text(config.house_rules)}"
    )
    table.add_column("link", no_wrap=True)
    table.add_column("per game", justify="right")
    for key, label in chain.LINKS:
        table.add_row(label, f"{counts[key]:.2f}")
    table.add_section()
    for key, value in counts.items():
        if key.startswith("stages_no_empty_"):
            table.add_row(
                f"Stage ends with no empty {key.removeprefix('stages_no_empty_')} in the Division Yard",
                f"{value:.0%}",
            )
    output_console(110).print(table)
    return 0


FREIGHT_CHAIN = Command(
    "freight-chain",
    "count the freight chain's links (loads, pickups, deliveries, unloads) over bot games",
    _add_chain_arguments,
    _run_chain,
    errors=(chain.ChainError,),
)

COMMANDS = (TOURNAMENT, BALANCE, FREIGHT_CHAIN)

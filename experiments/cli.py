"""The ``station-master`` command: demo games of bots, a seat at the table, and replay files.

station-master demo --seed 1                    # a full game of random bots, stage by stage
station-master demo --seed 7 --offices 4 --days 2 --json
station-master demo --seed 1 --save-replay game.json
station-master replay game.json --verify
station-master play --seats human,passenger,freight   # a seat at the table: you and two bots
station-master replay station-master-game.json        # step through a saved game
station-master tournament --bots random,random --offices 3 --days 2 --games 20 --seed 1
station-master balance --offices 1,3,6 --days 5 --games 30 --seed 1
station-master train --out runs/first --timesteps 200000 --warm-start passenger
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import secrets
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from agents import REGISTRY, BotSpecError, bot_label, bot_name, make_bot, play_game, seat_seed, split_bot_list
from experiments.arena import balance as bal
from experiments.arena import tournament as tour
from experiments.arena.ledger import LEDGER_KINDS, tally
from experiments.play.table.app import TableApp
from experiments.play.table.session import HUMAN, SeatError, Session, check_save_target
from experiments.play.table.viewer import Positions, run_viewer
from experiments.training.train import TrainError, TrainSettings, train
from sm_env.core import (
    CLOCK,
    ConfigError,
    Event,
    GameConfig,
    GameState,
    HouseRules,
    Intent,
    Mode,
    Replay,
    ReplayError,
    SnapshotError,
    event_text,
    load_replay,
    new_game,
    render_division,
    render_station,
)

DEMO_BOTS = ("passenger", "freight", "dispatcher")
PLAY_SEATS = ("human", "passenger", "freight")
DEFAULT_SAVE = "station-master-game.json"


class PlayError(ValueError):
    """Options of ``play`` that do not fit together."""


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "demo":
            return _demo(args)
        if args.command == "play":
            return _play(args)
        if args.command == "tournament":
            return _tournament(args)
        if args.command == "balance":
            return _balance(args)
        if args.command == "bench":
            return _bench(args)
        if args.command == "train":
            return _train(args)
        return _replay(args)
    except (
        ConfigError,
        ReplayError,
        SnapshotError,
        BotSpecError,
        SeatError,
        PlayError,
        tour.TournamentError,
        bal.BalanceError,
        TrainError,
        OSError,
    ) as err:
        print(f"station-master: error: {err}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="station-master", description="Station Master rules engine.")
    sub = parser.add_subparsers(dest="command", required=True)

    bots = ", ".join(sorted(REGISTRY))
    demo = sub.add_parser("demo", help="play a full game of bots and print it")
    demo.add_argument("--seed", type=int, default=1, help="game seed, 0..4294967295 (default 1)")
    demo.add_argument("--offices", type=int, default=3, help="offices (seats), 1..6 (default 3)")
    demo.add_argument("--days", type=int, default=1, help="days to play (default 1)")
    demo.add_argument("--target", type=int, default=None, help="target revenue that ends the game")
    demo.add_argument("--mode", choices=[m.value for m in Mode], default=Mode.COMPETITIVE.value)
    _add_house_rule_option(demo)
    demo.add_argument(
        "--bots",
        default=",".join(DEMO_BOTS),
        metavar="SPECS",
        help=f"bots for the seats, in turn (default {','.join(DEMO_BOTS)}; known: {bots})",
    )
    demo.add_argument("--json", action="store_true", help="print only a JSON summary")
    demo.add_argument("--save-replay", metavar="FILE", help="write the game's replay file")

    play = sub.add_parser("play", help="sit at the table: play seats yourself, bots fill the others")
    play.add_argument(
        "--seats",
        metavar="SPECS",
        help="who holds each seat, in turn: human or a bot spec (default human,passenger,freight; "
        f"known bots: {bots})",
    )
    play.add_argument(
        "--offices", type=int, metavar="K", help="offices (seats), 1..6 (default: as many as --seats, or 3)"
    )
    play.add_argument("--days", type=int, metavar="D", help="days to play (default 1)")
    play.add_argument("--target", type=int, metavar="T", help="target revenue that ends the game")
    play.add_argument("--mode", choices=[m.value for m in Mode], help="competitive (default) or coop")
    _add_house_rule_option(play)
    play.add_argument(
        "--seed", type=int, metavar="S", help="game seed, 0..4294967295 (default: a random one)"
    )
    play.add_argument(
        "--save",
        metavar="FILE",
        help=f"save after every decision to FILE (default: {DEFAULT_SAVE} in the current folder, "
        "or -2, -3, ... when taken; with --resume, the file resumed)",
    )
    play.add_argument("--resume", metavar="FILE", help="go on with a saved game")
    play.add_argument("--fast", action="store_true", help="no pauses between the bots' decisions")
    play.add_argument(
        "--pace",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="pause after each bot decision (default 0.5)",
    )

    replay = sub.add_parser(
        "replay", help="step through a replay file (in a terminal), or re-run it and print a summary"
    )
    replay.add_argument("file", help="replay file written by play or by demo --save-replay")
    replay.add_argument("--verify", action="store_true", help="check the final state hash it records")
    view = replay.add_mutually_exclusive_group()
    view.add_argument(
        "--step", action="store_true", help="step through it at the keyboard even off a terminal"
    )
    view.add_argument("--summary", action="store_true", help="print the one-line summary even in a terminal")

    match = sub.add_parser("tournament", help="play bots against each other in every seat and rate them")
    match.add_argument(
        "--bots",
        required=True,
        metavar="SPECS",
        help=f"comma-separated bot specs, NAME or NAME:KEY=VALUE,KEY=VALUE (known: {bots})",
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
    _add_jobs_option(match)
    match.add_argument(
        "--csv", default="tournament.csv", metavar="FILE", help="one row per game (default tournament.csv)"
    )
    match.add_argument(
        "--plot", metavar="FILE.png", help="ratings and revenue chart (default: the CSV's name, .png)"
    )
    _add_house_rule_option(match)
    match.add_argument("--json", action="store_true", help="print only a JSON summary")
    match.add_argument("--quiet", action="store_true", help="no progress bar")

    balance = sub.add_parser("balance", help="measure the rules per game-day over many games of the bots")
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
        f"known: {bots})",
    )
    _add_jobs_option(balance)
    _add_house_rule_option(balance)
    balance.add_argument("--json", action="store_true", help="print only a JSON document")
    balance.add_argument("--quiet", action="store_true", help="no progress bar")

    speed = sub.add_parser(
        "bench", help="measure speed: the core, the envs and training, beside PettingZoo and catanatron"
    )
    speed.add_argument("--quick", action="store_true", help="every figure at a tiny size (a smoke test)")
    speed.add_argument("--json", action="store_true", help="print only a JSON document")

    learn = sub.add_parser(
        "train", help="train a MaskablePPO policy on StationMaster-v1 against bots and its past selves"
    )
    learn.add_argument(
        "--out", required=True, metavar="DIR", help="the run's directory (new, or with --resume)"
    )
    learn.add_argument("--resume", action="store_true", help="go on from the last checkpoint in --out")
    learn.add_argument("--quiet", action="store_true", help="no progress bar")
    learn.add_argument(
        "--stop-after", type=_positive, metavar="N", help="stop after N segments (go on later with --resume)"
    )
    for name, (default, text) in TRAIN_OPTIONS.items():
        kind = type(default)
        flag = "--" + name.replace("_", "-")
        if isinstance(default, tuple):
            learn.add_argument(
                flag,
                default=None,
                metavar="A,B,...",
                help=f"{text} (default {','.join(map(str, default)) or 'none'})",
            )
        else:
            learn.add_argument(
                flag,
                type=kind,
                default=None,
                metavar=kind.__name__.upper(),
                help=f"{text} (default {default!r})",
            )
    return parser


# Every TrainSettings field is an option of `train`: its default and what it sets.
_TRAIN_DEFAULTS = TrainSettings.defaults()
TRAIN_OPTIONS = {
    name: (_TRAIN_DEFAULTS[name], text)
    for name, text in {
        "offices": "offices (seats), 1..6",
        "days": "days a game",
        "timesteps": "tokens to train on, rounded up to whole segments",
        "seed": "the run's seed: envs, network and evaluation follow from it",
        "envs": "environments, one worker process each (SubprocVecEnv); the default is the CPU count",
        "opponents": "bot specs the opponent seats are drawn from",
        "segment": "timesteps between evaluations, checkpoints and snapshots (a multiple of n_steps x envs)",
        "eval_bots": "bots the policy is evaluated against after each segment",
        "eval_deals": "fixed deals per evaluation bot, each played with the policy at every seat",
        "snapshot_prob": "chance an opponent seat takes a snapshot from the pool",
        "pool_size": "snapshots the pool keeps",
        "warm_start": "a bot to clone before PPO starts (empty: none)",
        "warm_episodes": "episodes of the warm-start bot to clone",
        "warm_epochs": "epochs of the cloning fit",
        "shaping": "a potential for reward shaping (docs/signals.md; empty: none)",
        "shaping_gamma": "the shaping's discount",
        "shaping_scale": "the shaping's scale",
        "scenario": "starting scenarios of the learner's seat, A,B,... (docs/signals.md; empty: none)",
        "scenario_prob": "the share of episodes that start from the scenario",
        "n_steps": "PPO steps per env per rollout",
        "batch_size": "PPO minibatch size",
        "n_epochs": "PPO epochs per rollout",
        "learning_rate": "Adam step size",
        "gamma": "discount",
        "gae_lambda": "GAE lambda",
        "clip_range": "PPO clip range",
        "ent_coef": "entropy bonus",
        "net": "hidden layer sizes of the policy and value networks",
    }.items()
}


def _train(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if args.resume:
        if not (out / "meta.json").exists():
            raise TrainError(f"{out} holds no run to resume (no meta.json)")
        recorded = json.loads((out / "meta.json").read_text())["settings"]
        given = [name for name in TRAIN_OPTIONS if getattr(args, name) is not None]
        if given:
            flags = ", ".join("--" + name.replace("_", "-") for name in given)
            raise TrainError(f"--resume takes the run's recorded settings; drop {flags}")
        settings = TrainSettings.from_json(recorded)
    else:
        values: dict[str, object] = {}
        for name, (default, _) in TRAIN_OPTIONS.items():
            value = getattr(args, name)
            if value is None:
                continue
            if isinstance(default, tuple):
                items = [item.strip() for item in value.split(",") if item.strip()]
                value = tuple(int(i) for i in items) if name == "net" else tuple(split_bot_list(value))
            values[name] = value
        settings = TrainSettings(**values)  # type: ignore[arg-type]
    run = train(settings, out, resume=args.resume, progress=not args.quiet, stop_after=args.stop_after)
    done = json.loads(run.checkpoint.read_text())["segment"]
    if not run.final.exists():
        print(f"stopped in {run.root} after segment {done}; go on: station-master train --out {out} --resume")
        return 0
    print(f"trained {run.root} ({done} segments): best.npz, final.npz, progress.csv, curve.png")
    print(f"play it: --bots policy:path={run.best}")
    return 0


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _add_jobs_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--jobs",
        type=_positive,
        default=os.cpu_count() or 1,
        metavar="J",
        help="worker processes (default: the CPU count)",
    )


def _add_house_rule_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--house-rule",
        action="append",
        default=[],
        choices=HouseRules.names(),
        metavar="NAME",
        help=f"switch on a house rule (repeatable): {', '.join(HouseRules.names())}",
    )


def _demo(args: argparse.Namespace) -> int:
    config = GameConfig(
        offices=args.offices,
        days=args.days,
        target_revenue=args.target,
        mode=Mode(args.mode),
        house_rules=HouseRules.from_names(args.house_rule),
    )
    specs = split_bot_list(args.bots)
    seat_bots = [specs[seat % len(specs)] for seat in range(config.offices)]
    agents = [make_bot(spec, seat_seed(args.seed, seat)) for seat, spec in enumerate(seat_bots)]
    state = new_game(config, args.seed)
    counts: Counter[str] = Counter()
    # Piped output gets room for the final table (rich assumes 80 columns off a terminal).
    width = None if sys.stdout.isatty() else 120
    console = None if args.json else Console(highlight=False, soft_wrap=True, width=width)
    printer = _StagePrinter(console)

    def drain(state: GameState, _: Intent | None = None) -> None:
        for event in state.events:
            counts[event.kind] += 1
            printer.show(event, state)
        state.events.clear()

    if console is not None:
        rules = ", ".join(n for n in HouseRules.names() if getattr(config.house_rules, n)) or "none"
        console.print(
            f"[bold]Station Master demo[/] — seed {args.seed}, {config.offices} offices, "
            f"{config.days} day(s), {config.mode.value}, house rules: {rules}"
        )
    drain(state)
    decisions = play_game(state, agents, drain)
    final_hash = state.state_hash()
    if args.save_replay:
        Replay(args.seed, config, tuple(decisions), final_hash).save(args.save_replay)
    if console is None:
        summary = {
            "seed": args.seed,
            "offices": config.offices,
            "days": config.days,
            "mode": config.mode.value,
            "house_rules": config.house_rules.to_dict(),
            "bots": [bot_label(spec) for spec in seat_bots],
            "revenue": list(state.revenue()),
            "revenue_by_kind": [_revenue_by_kind(state, seat) for seat in range(config.offices)],
            "revenue_by_rule": [_revenue_by_rule(state, seat) for seat in range(config.offices)],
            "winners": list(state.winners()),
            "events": dict(sorted(counts.items())),
            "stages_played": state.stages_played,
            "decisions": len(decisions),
            "final_hash": final_hash,
        }
        print(json.dumps(summary, indent=2))
        return 0
    console.print(render_division(state), markup=False)
    for office in range(config.offices):
        console.print(render_station(state, office), markup=False)
    _print_revenue(console, state, [bot_name(spec) for spec in seat_bots])
    console.print(f"{state.stages_played} stages, {len(decisions)} decisions; final state hash {final_hash}")
    if args.save_replay:
        console.print(f"replay written to {args.save_replay}")
    return 0


class _StagePrinter:
    """Prints events under a heading for each Stage."""

    def __init__(self, console: Console | None) -> None:
        self.console = console
        self.heading: tuple[int, int] | None = None

    def show(self, event: Event, state: GameState) -> None:
        if self.console is None:
            return
        if event.kind not in ("setup", "seating", "superintendent") and self.heading != (
            event.day,
            event.stage,
        ):
            self.heading = (event.day, event.stage)
            self.console.rule(
                f"Day {event.day + 1} · stage {event.stage + 1} · {CLOCK[event.stage]}", style="dim"
            )
        self.console.print(f"  {event_text(event, state)}", markup=False)


def _revenue_by_rule(state: GameState, seat: int) -> dict[str, int]:
    """A seat's ledger summed by rule id (R2.4.7)."""
    totals: Counter[str] = Counter()
    for entry in state.ledger:
        if entry.seat == seat:
            totals[entry.rule] += entry.amount
    return dict(sorted(totals.items()))


def _revenue_by_kind(state: GameState, seat: int) -> dict[str, dict[str, int]]:
    """How a seat earned its revenue: per kind of ledger entry, how many and how much (R2.4.7)."""
    out = {}
    for kind, rules in LEDGER_KINDS:
        count, revenue = tally(state, seat, rules)
        out[kind] = {"count": count, "revenue": revenue}
    return out


def _print_revenue(console: Console, state: GameState, bots: Sequence[str]) -> None:
    """Each seat's bot and revenue, and how it was earned: per kind of ledger entry, how many
    and their revenue (R2.4.7)."""
    table = Table(title="Final revenue: count (revenue) by kind")
    table.add_column("seat", justify="right")
    table.add_column("bot", no_wrap=True)
    for name in ("office", *(name for name, _ in LEDGER_KINDS), "revenue"):
        table.add_column(name, justify="right")
    table.add_column("", no_wrap=True)
    winners = state.winners()
    for seat, revenue in enumerate(state.revenue()):
        kinds = _revenue_by_kind(state, seat)
        table.add_row(
            str(seat),
            bots[seat],
            str(state.office_of_seat[seat]),
            *(f"{k['count']} ({k['revenue']:+d})" if k["count"] else "0" for k in kinds.values()),
            str(revenue),
            "winner" if seat in winners else "",
        )
    console.print(table)


def _tournament(args: argparse.Namespace) -> int:
    config = GameConfig(
        offices=args.offices, days=args.days, house_rules=HouseRules.from_names(args.house_rule)
    )
    match = tour.Tournament(tuple(split_bot_list(args.bots)), config, args.games, args.seed)
    seatings = match.seatings()
    total = match.deals * len(seatings)
    csv_path = Path(args.csv)
    plot_path = Path(args.plot) if args.plot else csv_path.with_suffix(".png")
    if not plot_path.parent.is_dir():  # found out now, not after the games
        raise tour.TournamentError(f"no folder {plot_path.parent} to write the plot {plot_path} in")
    start = time.perf_counter()
    with csv_path.open("w", newline="", encoding="utf-8") as out:
        if not args.json or not args.quiet:
            last_seed, lineups = match.seed + match.deals - 1, seatings[-1].lineup + 1
            print(
                f"{total} games: {match.deals} deals (seeds {match.seed}..{last_seed}) under {len(seatings)} "
                f"seatings ({lineups} line-up(s) × {config.offices} rotation(s)), {args.jobs} job(s)",
                file=sys.stderr if args.json else sys.stdout,
                flush=True,
            )
        results = tour.play(match, args.jobs, progress=not args.quiet and sys.stderr.isatty())
        tour.write_csv(out, match, seatings, results)
    wall = time.perf_counter() - start
    summaries = tour.summarize(match, seatings, results)
    tour.plot(plot_path, summaries)
    if args.json:
        data = tour.summary_json(match, seatings, summaries)
        data.update(csv=str(csv_path), plot=str(plot_path), wall_seconds=wall)
        print(json.dumps(data, indent=2))
        return 0
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 140)  # logs: no squeeze
    console.print(_summary_table(summaries))
    console.print(f"{total} games in {wall:.1f} s; wrote {csv_path} and {plot_path}")
    return 0


def _summary_table(summaries: Sequence[tour.BotSummary]) -> Table:
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


def _balance(args: argparse.Namespace) -> int:
    run = bal.Balance(
        offices=bal.parse_offices(args.offices),
        days=args.days,
        games=args.games,
        seed=args.seed,
        bots=tuple(split_bot_list(args.bots)),
        house_rules=HouseRules.from_names(args.house_rule),
    )
    total = len(run.offices) * run.games
    if not args.json or not args.quiet:
        rules = ", ".join(n for n in HouseRules.names() if getattr(run.house_rules, n)) or "none"
        print(
            f"{total} games: {run.games} per office count {','.join(map(str, run.offices))} "
            f"(seeds {run.seed}..{run.seed + run.games - 1}), {run.days} day(s), bots {','.join(run.bots)} "
            f"rotated over the seats, house rules: {rules}, {args.jobs} job(s)",
            file=sys.stderr if args.json else sys.stdout,
            flush=True,
        )
    start = time.perf_counter()
    records = bal.play(run, args.jobs, progress=not args.quiet and sys.stderr.isatty())
    wall = time.perf_counter() - start
    summaries = bal.summarize(run, records)
    if args.json:
        print(json.dumps(bal.document(run, summaries), indent=2))
        return 0
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)  # logs: no squeeze
    for summary in summaries:
        console.print(_balance_table(run, summary))
        d = summary.collision_decisions
        console.print(
            f"collisions led to by a seat's decision: {d['led']} of {d['of']} "
            f"(switching {d['switching']}, clearance {d['clearance']}); "
            f"averted by a RED FLAG: {d['red_flags']}"
        )
    console.print(
        "all days: per game, the total of a count and the mean over the days of a day's-end level; "
        "trip lengths by day of completion (docs/balance.md)"
    )
    console.print(f"{total} games in {wall:.1f} s")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from experiments.bench import suite as bench  # the RL stack loads only for this command

    def say(part: str) -> None:
        print(f"bench: {part}", file=sys.stderr, flush=True)

    figures = bench.run(args.quick, progress=say)
    if args.json:
        print(json.dumps(bench.document(figures, args.quick), indent=2))
    else:
        Console(highlight=False, width=None if sys.stdout.isatty() else 120).print(bench.table(figures))
    return 0


def _balance_table(run: bal.Balance, summary: bal.OfficeSummary) -> Table:
    ci = f"{bal.CONFIDENCE:.0%}"
    table = Table(
        title=f"{summary.offices} office(s), {run.days} day(s), {run.games} game(s): "
        f"mean per game ± {ci} half-width",
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


def _play_seats(text: str | None, offices: int) -> list[str]:
    """The seats' holders: ``--seats`` as given (one per office), or a person and the default
    bots."""
    if text is not None:
        seats = split_bot_list(text)
        if offices != len(seats):
            raise PlayError(
                f"the game has {offices} office(s) but --seats names {len(seats)} seat(s): "
                "give one holder per office"
            )
        return seats
    bots = PLAY_SEATS[1:]
    return [HUMAN] + [bots[i % len(bots)] for i in range(offices - 1)]


def _default_save() -> Path:
    """``station-master-game.json`` in the current folder, or the first free ``-2``, ``-3``..."""
    path = Path(DEFAULT_SAVE)
    number = 2
    while path.exists():
        path = Path(f"{Path(DEFAULT_SAVE).stem}-{number}.json")
        number += 1
    return path


def _play(args: argparse.Namespace) -> int:
    if args.pace < 0:
        raise PlayError(f"--pace must be >= 0 seconds, got {args.pace}")
    pace = 0.0 if args.fast else args.pace
    if args.resume:
        fixed = [
            f"--{name.replace('_', '-')}"
            for name in ("offices", "days", "target", "mode", "seed")
            if getattr(args, name) is not None
        ] + (["--house-rule"] if args.house_rule else [])
        if fixed:
            raise PlayError(
                f"{', '.join(fixed)}: the saved game fixes these; give only --seats, --save, --pace"
            )
        replay = load_replay(args.resume)
        seats = None
        if args.seats is not None or not replay.seats:
            seats = _play_seats(args.seats, replay.config.offices)
        save = Path(args.save) if args.save else Path(args.resume)
        if args.save:
            check_save_target(save)
        session = Session.resume(replay, seats, save)
        if seats is not None or save != Path(args.resume):
            session.save()
    else:
        offices = args.offices
        if offices is None:
            offices = len(split_bot_list(args.seats)) if args.seats is not None else len(PLAY_SEATS)
        config = GameConfig(
            offices=offices,
            days=args.days if args.days is not None else 1,
            target_revenue=args.target,
            mode=Mode(args.mode or Mode.COMPETITIVE.value),
            house_rules=HouseRules.from_names(args.house_rule),
        )
        seats = _play_seats(args.seats, config.offices)
        seed = args.seed if args.seed is not None else secrets.randbelow(2**32)
        save = Path(args.save) if args.save else _default_save()
        check_save_target(save)
        session = Session(seed, config, seats, save)
        session.save()
    if sys.stdin.isatty():
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401  # line editing and history at the prompts
    console = Console(highlight=False)
    return TableApp(session, console, pace, resumed=bool(args.resume)).run()


def _replay(args: argparse.Namespace) -> int:
    replay = load_replay(args.file)
    step = args.step or (not args.summary and sys.stdin.isatty() and sys.stdout.isatty())
    if args.verify:
        try:
            state = replay.verify()
        except ReplayError as err:
            print(f"station-master: replay does not verify: {err}", file=sys.stderr)
            return 1
        print(f"verified: {len(replay.decisions)} decisions reproduce final state hash {state.state_hash()}")
        if not args.step:
            return 0
    if step:
        positions = Positions(replay, verify=True)
        return run_viewer(positions, Console(highlight=False), args.file)
    state = replay.run()
    revenue = list(state.revenue())
    print(f"replayed {len(replay.decisions)} decisions: revenue {revenue}, hash {state.state_hash()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

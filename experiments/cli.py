"""The ``station-master`` command: demo games of bots and replay files.

station-master demo --seed 1                    # a full game of random bots, stage by stage
station-master demo --seed 7 --offices 4 --days 2 --json
station-master demo --seed 1 --save-replay game.json
station-master replay game.json --verify
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from agents import REGISTRY, play_game, seat_seed
from sm_env.core.config import GameConfig, HouseRules, Mode
from sm_env.core.engine import new_game
from sm_env.core.errors import ConfigError, ReplayError
from sm_env.core.intents import Intent
from sm_env.core.replay import Replay, load_replay
from sm_env.core.state import CLOCK, Event, GameState
from sm_env.core.text import event_text, render_division, render_station


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "demo":
            return _demo(args)
        return _replay(args)
    except (ConfigError, ReplayError, OSError) as err:
        print(f"station-master: error: {err}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="station-master", description="Station Master rules engine.")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="play a full game of random bots and print it")
    demo.add_argument("--seed", type=int, default=1, help="game seed, 0..4294967295 (default 1)")
    demo.add_argument("--offices", type=int, default=3, help="offices (seats), 1..6 (default 3)")
    demo.add_argument("--days", type=int, default=1, help="days to play (default 1)")
    demo.add_argument("--target", type=int, default=None, help="target revenue that ends the game")
    demo.add_argument("--mode", choices=[m.value for m in Mode], default=Mode.COMPETITIVE.value)
    demo.add_argument(
        "--house-rule",
        action="append",
        default=[],
        choices=HouseRules.names(),
        metavar="NAME",
        help=f"switch on a house rule (repeatable): {', '.join(HouseRules.names())}",
    )
    demo.add_argument("--json", action="store_true", help="print only a JSON summary")
    demo.add_argument("--save-replay", metavar="FILE", help="write the game's replay file")

    replay = sub.add_parser("replay", help="re-run a replay file")
    replay.add_argument("file", help="replay file written by demo --save-replay")
    replay.add_argument("--verify", action="store_true", help="check the final state hash it records")
    return parser


def _demo(args: argparse.Namespace) -> int:
    config = GameConfig(
        offices=args.offices,
        days=args.days,
        target_revenue=args.target,
        mode=Mode(args.mode),
        house_rules=HouseRules.from_names(args.house_rule),
    )
    state = new_game(config, args.seed)
    agents = [REGISTRY["random"](seat_seed(args.seed, seat)) for seat in range(config.offices)]
    counts: Counter[str] = Counter()
    console = None if args.json else Console(highlight=False, soft_wrap=True)
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
            "revenue": list(state.revenue()),
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
    _print_revenue(console, state)
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


_LEDGER_COLUMNS = (
    ("boarded", ("R9.2.1",)),
    ("detrained", ("R9.2.2",)),
    ("loaded", ("R9.3.1",)),
    ("unloaded", ("R9.3.2",)),
    ("collisions", ("R8.2.3", "R8.2.4", "R10.1")),
)


def _revenue_by_rule(state: GameState, seat: int) -> dict[str, int]:
    """A seat's ledger summed by rule id (R2.4.7)."""
    totals: Counter[str] = Counter()
    for entry in state.ledger:
        if entry.seat == seat:
            totals[entry.rule] += entry.amount
    return dict(sorted(totals.items()))


def _print_revenue(console: Console, state: GameState) -> None:
    """Each seat's revenue, with the ledger's entries counted by kind (R2.4.7)."""
    table = Table(title="Final revenue")
    for name in ("seat", "office", *(name for name, _ in _LEDGER_COLUMNS), "revenue"):
        table.add_column(name, justify="right", min_width=len(name))
    table.add_column("")
    winners = state.winners()
    for seat, revenue in enumerate(state.revenue()):
        counts = [
            sum(1 for e in state.ledger if e.seat == seat and e.rule in rules) for _, rules in _LEDGER_COLUMNS
        ]
        table.add_row(
            str(seat),
            str(state.office_of_seat[seat]),
            *(str(count) for count in counts),
            str(revenue),
            "winner" if seat in winners else "",
        )
    console.print(table)


def _replay(args: argparse.Namespace) -> int:
    replay = load_replay(args.file)
    if args.verify:
        try:
            state = replay.verify()
        except ReplayError as err:
            print(f"station-master: replay does not verify: {err}", file=sys.stderr)
            return 1
        print(f"verified: {len(replay.decisions)} decisions reproduce final state hash {state.state_hash()}")
        return 0
    state = replay.run()
    revenue = list(state.revenue())
    print(f"replayed {len(replay.decisions)} decisions: revenue {revenue}, hash {state.state_hash()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

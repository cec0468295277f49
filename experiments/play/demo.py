"""A game of bots played through, for ``station-master demo``: printed stage by stage with the
final boards and revenue, or summed up as JSON."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table

from agents import bot_label, bot_name, make_bot, play_game, seat_seed
from experiments.arena.ledger import LEDGER_KINDS, tally
from experiments.command import house_rules_text
from sm_env.core import (
    CLOCK,
    Event,
    GameConfig,
    GameState,
    Intent,
    Replay,
    event_text,
    new_game,
    render_division,
    render_station,
)


@dataclass(frozen=True)
class DemoGame:
    """A finished demo game: its state, each seat's bot spec, the decisions and how many events
    of each kind it raised."""

    seed: int
    state: GameState
    seat_bots: list[str]
    decisions: list[Intent]
    events: Counter[str]

    def replay(self) -> Replay:
        return Replay(self.seed, self.state.config, tuple(self.decisions), self.state.state_hash())

    def summary(self) -> dict[str, Any]:
        """The game as the JSON of ``demo --json``."""
        state, config = self.state, self.state.config
        return {
            "seed": self.seed,
            "offices": config.offices,
            "days": config.days,
            "mode": config.mode.value,
            "house_rules": config.house_rules.to_dict(),
            "bots": [bot_label(spec) for spec in self.seat_bots],
            "revenue": list(state.revenue()),
            "revenue_by_kind": [_revenue_by_kind(state, seat) for seat in range(config.offices)],
            "revenue_by_rule": [_revenue_by_rule(state, seat) for seat in range(config.offices)],
            "winners": list(state.winners()),
            "events": dict(sorted(self.events.items())),
            "stages_played": state.stages_played,
            "decisions": len(self.decisions),
            "final_hash": state.state_hash(),
        }

    def print_final(self, console: Console) -> None:
        """The final boards, each seat's revenue and how it was earned, and the game's size."""
        state = self.state
        console.print(render_division(state), markup=False)
        for office in range(state.config.offices):
            console.print(render_station(state, office), markup=False)
        console.print(_revenue_table(state, [bot_name(spec) for spec in self.seat_bots]))
        console.print(
            f"{state.stages_played} stages, {len(self.decisions)} decisions; "
            f"final state hash {state.state_hash()}"
        )


def play_demo(config: GameConfig, seed: int, specs: Sequence[str], console: Console | None) -> DemoGame:
    """Play one game of the bots ``specs`` (cycled over the seats), printing its events stage
    by stage on ``console`` (none: print nothing)."""
    seat_bots = [specs[seat % len(specs)] for seat in range(config.offices)]
    agents = [make_bot(spec, seat_seed(seed, seat)) for seat, spec in enumerate(seat_bots)]
    state = new_game(config, seed)
    counts: Counter[str] = Counter()
    printer = _StagePrinter(console)

    def drain(state: GameState, _: Intent | None = None) -> None:
        for event in state.events:
            counts[event.kind] += 1
            printer.show(event, state)
        state.events.clear()

    if console is not None:
        console.print(
            f"[bold]Station Master demo[/] — seed {seed}, {config.offices} offices, "
            f"{config.days} day(s), {config.mode.value}, house rules: {house_rules_text(config.house_rules)}"
        )
    drain(state)
    decisions = play_game(state, agents, drain)
    return DemoGame(seed, state, seat_bots, list(decisions), counts)


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


def _revenue_table(state: GameState, bots: Sequence[str]) -> Table:
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
    return table

"""How long bots take to decide, on one core (``station-master bench --bots SPECS``).

Each bot plays ``games`` fixed deals (game seeds from ``seed``), deal ``i`` at seat
``i % offices``, the ``against`` bot at every other seat, one game after another in this one
process: one core, whatever the machine has. Every time the bot is asked counts as a decision,
as the tournament's ``ms a decision`` counts them (a decision with one legal intent too); the
decisions with a choice (two or more legal intents) are given apart, with their 95th percentile
and slowest. CPU time (``time.process_time``) is what the bot itself costs, whatever else runs
on the machine; wall time is given beside it. The mean's 95% interval is a bootstrap over the
games (a game's decisions are not independent of each other), from a fixed seed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agents import Agent, make_bot, play_game, seat_seed
from experiments.bench.suite import Figure
from sm_env.core import GameConfig, Intent, SeatView, new_game

BOOTSTRAP = 2000  # resamples of the games for the mean's interval
CLOCKS = {"cpu": "CPU", "wall": "wall-clock"}


@dataclass(frozen=True)
class Decision:
    """One timed decision: its CPU and wall seconds, and whether the bot had a choice."""

    cpu: float
    wall: float
    choice: bool


class _Stopwatch:
    """Forwards ``choose`` to a bot, timing each decision (as the tournament's ``_Timed`` adds
    them up, but one by one)."""

    def __init__(self, bot: Agent) -> None:
        self.bot = bot
        self.name = bot.name
        self.decisions: list[Decision] = []

    def choose(self, view: SeatView) -> Intent:
        choice = len(view.legal_intents()) > 1
        cpu, wall = time.process_time(), time.perf_counter()
        intent = self.bot.choose(view)
        self.decisions.append(Decision(time.process_time() - cpu, time.perf_counter() - wall, choice))
        return intent


def timed_game(config: GameConfig, game_seed: int, seat: int, spec: str, against: str) -> list[Decision]:
    """The decisions of ``spec`` at ``seat`` over one game, ``against`` at the other seats."""
    timed = _Stopwatch(make_bot(spec, seat_seed(game_seed, seat)))
    bots = [timed if s == seat else make_bot(against, seat_seed(game_seed, s)) for s in range(config.offices)]
    play_game(new_game(config, game_seed), bots)
    return timed.decisions


def mean_interval(games: Sequence[Sequence[float]], seed: int = 0) -> tuple[float, float, float]:
    """The mean over every value of ``games`` (lists of a game's values), and its 95%
    bootstrap interval resampling whole games."""
    totals = np.array([sum(g) for g in games], dtype=float)
    counts = np.array([len(g) for g in games], dtype=float)
    mean = float(totals.sum() / counts.sum())
    picks = np.random.default_rng(seed).integers(0, len(games), size=(BOOTSTRAP, len(games)))
    means = totals[picks].sum(axis=1) / np.maximum(counts[picks].sum(axis=1), 1.0)
    low, high = np.percentile(means, [2.5, 97.5])
    return mean, float(low), float(high)


def bot_figures(
    spec: str, config: GameConfig, games: int, seed: int, against: str, progress: Callable[[str], None]
) -> list[Figure]:
    """The speed figures of one bot (``bots.<spec>.*``), in milliseconds."""
    played: list[list[Decision]] = []
    for deal in range(games):
        progress(f"{spec}: game {deal + 1} of {games}")
        played.append(timed_game(config, seed + deal, deal % config.offices, spec, against))
    decisions = sum(len(g) for g in played)
    choices = [d.cpu * 1000 for g in played for d in g if d.choice]
    where = f"{games} games from seed {seed}, against {against}, {decisions} decisions"
    figures = []
    for clock in CLOCKS:
        mean, low, high = mean_interval([[getattr(d, clock) * 1000 for d in g] for g in played])
        figures.append(
            Figure(
                f"bots.{spec}.{clock}_ms",
                f"{spec}: {CLOCKS[clock]} ms a decision",
                mean,
                "ms",
                f"95% CI {low:.4g}..{high:.4g}; {where}",
            )
        )
    if choices:
        mean, low, high = mean_interval([[d.cpu * 1000 for d in g if d.choice] for g in played])
        figures.append(
            Figure(
                f"bots.{spec}.choice_cpu_ms",
                f"{spec}: CPU ms a decision with a choice",
                mean,
                "ms",
                f"95% CI {low:.4g}..{high:.4g}; 95th percentile {np.percentile(choices, 95):.1f}, "
                f"slowest {max(choices):.1f}; {len(choices)} of the {decisions} decisions",
            )
        )
    return figures


def run(
    specs: Sequence[str],
    config: GameConfig,
    games: int,
    seed: int,
    against: str,
    progress: Callable[[str], None] | None = None,
) -> list[Figure]:
    """Every bot's figures, in the order given."""
    say = progress or (lambda _: None)
    return [figure for spec in specs for figure in bot_figures(spec, config, games, seed, against, say)]

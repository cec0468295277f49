"""Difficulty levels for a person's table: ``easy``, ``medium``, ``hard`` and ``expert``.

Each level is a registered bot whose play is another registered bot's spec, so a person
picks a strength without knowing the bots; the ladder that orders them is measured in
docs/agents.md ("Difficulty levels"). ``easy`` is the passenger bot with lapses: at a share
of its decisions it takes a uniform legal choice instead, as a beginner would.
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.base import Agent
from sm_env.core import Intent, Rng, SeatView

_MASK = 0xFFFFFFFF


@dataclass(frozen=True)
class Level:
    """A difficulty level: its name, the bot spec it plays, the share of its decisions taken at
    random instead (``lapse``), a line for a person, and its version (raised when the bot it
    plays changes its play, so a run's labels tell the two apart)."""

    name: str
    spec: str
    lapse: float
    summary: str
    version: int = 1


# weakest first; docs/agents.md ("Difficulty levels") measures each against the next.
# hard and expert are version 2 since they play freight@5 (a siding laid before the danger) and,
# for expert, search@5 (its rollouts follow the prior's switching plan)
LEVELS: tuple[Level, ...] = (
    Level("easy", "passenger", 0.3, "the passenger bot, but 3 decisions in 10 are a random legal choice"),
    Level("medium", "passenger", 0.0, "the passenger bot: stocks coaches, boards, detrains"),
    Level("hard", "freight", 0.0, "the freight bot: lays industries, spots cars, loads and ships freight", 2),
    Level("expert", "search:prior=freight", 0.0, "the freight bot, its options tried in rollouts", 2),
)


class LevelBot:
    """A level's bot: plays ``base``'s choices, except that with probability ``level.lapse``,
    at a decision with more than one legal intent, it takes a uniform legal choice instead
    (from its own seeded stream)."""

    def __init__(self, level: Level, base: Agent, seed: int) -> None:
        self.name = level.name
        self.base = base
        self.lapse = level.lapse
        self.rng = Rng(seed & _MASK)
        self.reason: str | None = None

    def choose(self, view: SeatView) -> Intent:
        legal = view.legal_intents()
        if self.lapse and len(legal) > 1 and self.rng.below(1 << 24) < self.lapse * (1 << 24):
            self.reason = "a lapse: a random legal choice"
            return legal[self.rng.below(len(legal))]
        choice = self.base.choose(view)
        self.reason = getattr(self.base, "reason", None)
        return choice


__all__ = ["LEVELS", "Level", "LevelBot"]

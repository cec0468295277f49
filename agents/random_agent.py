"""The random bot: a uniform choice among the legal intents, from its own seeded stream."""

from __future__ import annotations

from sm_env.core import Intent, Rng, SeatView


class RandomAgent:
    name = "random"

    def __init__(self, seed: int) -> None:
        self.rng = Rng(seed & 0xFFFFFFFF)

    def choose(self, view: SeatView) -> Intent:
        legal = view.legal_intents()
        return legal[self.rng.below(len(legal))]

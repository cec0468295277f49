"""What every bot offers, and the loop that lets bots play a game."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from sm_env.core import GameState, Intent, SeatView


class Agent(Protocol):
    name: str

    def choose(self, view: SeatView) -> Intent:
        """One of ``view.legal_intents()``. A bot sees only its seat's view, never the state."""
        ...


def play_game(
    state: GameState,
    agents: Sequence[Agent],
    on_decision: Callable[[GameState, Intent], None] | None = None,
) -> list[Intent]:
    """Let the agents (one per seat) decide until the game ends; return the decisions.
    Each bot is handed its own seat's view.

    ``on_decision`` is called after each accepted decision, with the state after it.
    """
    decisions: list[Intent] = []
    while not state.is_terminal():
        seat = state.current_player()
        intent = agents[seat].choose(state.view(seat))
        state.apply(intent)
        decisions.append(intent)
        if on_decision is not None:
            on_decision(state, intent)
    return decisions

"""What every bot offers, and the loop that lets bots play a game."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from sm_env.core.intents import Intent
from sm_env.core.state import GameState


class Agent(Protocol):
    name: str

    def choose(self, state: GameState) -> Intent: ...


def play_game(
    state: GameState,
    agents: Sequence[Agent],
    on_decision: Callable[[GameState, Intent], None] | None = None,
) -> list[Intent]:
    """Let the agents (one per seat) decide until the game ends; return the decisions.

    ``on_decision`` is called after each accepted decision, with the state after it.
    """
    decisions: list[Intent] = []
    while not state.is_terminal():
        intent = agents[state.current_player()].choose(state)
        state.apply(intent)
        decisions.append(intent)
        if on_decision is not None:
            on_decision(state, intent)
    return decisions

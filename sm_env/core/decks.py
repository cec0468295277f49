"""The card decks (R6.2.5, R6.2.6, D-deck): Department refills and Home Office reshuffles."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sm_env.core.chance import shuffle
from sm_env.core.state import DEPARTMENTS

if TYPE_CHECKING:
    from sm_env.core.state import GameState


def refill_department(state: GameState, d: int) -> None:
    """R6.2.6: an emptied Department takes the top Home Office card."""
    if not state.home_office:
        return
    card = state.home_office.pop()
    state.departments[d].append(card)
    state.log("department-refill", -1, department=d, card=card)
    if not state.home_office:
        reshuffle(state)


def reshuffle(state: GameState) -> None:
    """R6.2.5: Salvage Yard and Departments shuffled into a new Home Office; one card to each
    Department first (D-deck.2: a small pool may leave the Home Office empty)."""
    pool = state.salvage + [card for dept in state.departments for card in dept]
    state.salvage = []
    state.departments = [[] for _ in range(DEPARTMENTS)]
    shuffle(state, pool)
    state.home_office = pool
    for d in range(DEPARTMENTS):
        if pool:
            state.departments[d].append(pool.pop())
    state.log("reshuffle", -1, cards=len(pool))

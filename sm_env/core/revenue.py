"""Revenue (R2.4.7): every change of a seat's Revenue is one ledger entry, with the rule that
causes it; a seat's revenue is the sum of its entries."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sm_env.core.state import LedgerEntry

if TYPE_CHECKING:
    from sm_env.core.state import GameState


def earn(state: GameState, seat: int, amount: int, rule: str, text: str) -> None:
    state.revenue_by_seat[seat] += amount
    state.ledger.append(LedgerEntry(state.day, state.stage, seat, amount, rule, text))
    state.log("revenue", seat, amount=amount, rule=rule, text=text)

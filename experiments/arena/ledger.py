"""Ledger entries (R2.4.7) grouped by kind through their rule ids, for the demo and tournaments."""

from sm_env.core import GameState

LEDGER_KINDS = (
    ("boarded", ("R9.2.1",)),
    ("detrained", ("R9.2.2",)),
    ("loaded", ("R9.3.1",)),
    ("unloaded", ("R9.3.2",)),
    ("collisions", ("R8.2.3", "R8.2.4", "R10.1")),
)


def tally(state: GameState, seat: int, rules: tuple[str, ...]) -> tuple[int, int]:
    """How many of a seat's ledger entries come from these rules, and their revenue."""
    entries = [e.amount for e in state.ledger if e.seat == seat and e.rule in rules]
    return len(entries), sum(entries)

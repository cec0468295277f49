"""Ledger entries (R2.4.7) grouped by kind through their rule ids, for the demo and tournaments."""

LEDGER_KINDS = (
    ("boarded", ("R9.2.1",)),
    ("detrained", ("R9.2.2",)),
    ("loaded", ("R9.3.1",)),
    ("unloaded", ("R9.3.2",)),
    ("collisions", ("R8.2.3", "R8.2.4", "R10.1")),
)

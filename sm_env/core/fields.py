"""GameState's fields, declared once: each one, its type, how ``clone()`` copies it, and
whether a snapshot holds it (under which key, encoded how) or it is derived.

``GameState`` (``sm_env.core.state``) keeps its ``__slots__``, ``clone()`` and ``snapshot()``
written out by hand: ``clone()`` is the search bots' hot path, and the state module is compiled
with mypyc, where a loop over field names would be slower and dynamic. The snapshot reader's
key lists (``sm_env.core.snapshot``) derive from ``LAYOUT``; tests/test_state_fields.py holds
the hand-written code to it field by field (slots and annotations, clone independence,
snapshot round trip, setup), so a field added to the state and not declared here, or declared
and then forgotten in one of them, fails a test.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType
from typing import NamedTuple


class Clone(Enum):
    """How ``GameState.clone()`` gives a copy its own value of a field."""

    SHARED = "shared"  # the same object: immutable, or static data every state of the game shares
    COPIED = "copied"  # a new container (or random stream) whose items are immutable
    EACH_COPIED = "each copied"  # a new list of new copies of each item (lists, stations, trays)
    EMPTIED = "emptied"  # starts empty in the copy


class Field(NamedTuple):
    """One field of ``GameState``. ``key`` is the snapshot entry that holds it (several fields
    may share one), or None for a field derived from the others or the game (``derived``
    says from what); ``encoding`` is how the snapshot writes it when not as plain JSON."""

    name: str
    type: str  # the annotation, as GameState writes it
    clone: Clone
    key: str | None
    encoding: str = ""
    derived: str = ""


_S, _C, _E = Clone.SHARED, Clone.COPIED, Clone.EACH_COPIED

LAYOUT: tuple[Field, ...] = (
    Field("config", "GameConfig", _S, None, derived="the config load_snapshot is given"),
    Field("catalogue", "Catalogue", _S, None, derived="the catalogue load_snapshot is given"),
    Field("rules", "Rules", _S, None, derived="the engine that loads the snapshot"),
    Field("n", "int", _S, None, derived="config.offices"),
    Field("rng", "Chance", _C, "rng", "the stream's state, an unsigned 32-bit integer"),
    Field("day", "int", _S, "day"),
    Field("stage", "int", _S, "stage"),
    Field("stages_played", "int", _S, "stages_played"),
    Field("phase", "Phase", _S, "phase", "the phase's value, a string"),
    Field("turn", "int", _S, "turn"),
    Field("fedora", "int", _S, "fedora"),
    Field("office_of_seat", "list[int]", _C, "office_of_seat"),
    Field("seat_of_office", "list[int]", _C, None, derived="the inverse of office_of_seat"),
    Field("mainline", "tuple[int, ...]", _S, "mainline", "a list"),
    Field("hands", "list[list[int]]", _E, "hands"),
    Field("home_office", "list[int]", _C, "home_office"),
    Field("departments", "list[list[int]]", _E, "departments"),
    Field("salvage", "list[int]", _C, "salvage"),
    Field("set_aside", "list[int]", _C, "set_aside"),
    Field(
        "stations",
        "list[Station]",
        _E,
        "stations",
        "per station an object of sorted [cell, ...] lists: grid, boxes, cars, modifiers, modifiers_used",
    ),
    Field("timetable", "list[int]", _C, "timetable"),
    Field("pending_extras", "list[tuple[int, int]]", _C, "pending_extras", "[card, seat] lists"),
    Field("trays", "list[Tray]", _E, "trays", "Tray.snapshot() lists"),
    Field("division", "list[int]", _C, "division"),
    Field("division_total", "int", _S, None, derived="the sum of division"),
    Field("classification", "list[int]", _C, "classification"),
    Field("revenue_by_seat", "list[int]", _C, "revenue"),
    Field("moves_left", "int", _S, "moves_left"),
    Field("events", "list[Event]", Clone.EMPTIED, None, derived="nothing: a new state's events start empty"),
    Field("held", "list[int]", _C, "held"),
    Field("actor", "int", _S, "actor"),
    Field("building", "int", _S, "building", "[building, build_owner, build_turn]"),
    Field("build_owner", "int", _S, "building", "[building, build_owner, build_turn]"),
    Field("build_turn", "int", _S, "building", "[building, build_owner, build_turn]"),
    Field("mainline_queue", "list[int]", _C, "mainline_queue"),
    Field("workers_used", "dict[Cell, int]", _C, "workers_used", "sorted [cell, used] lists"),
    Field("ledger", "list[LedgerEntry]", _C, "ledger", "[day, stage, seat, amount, rule, text] lists"),
    Field("collision", "Collision | None", _S, "collision", "null, or its fields as a list, the cell a list"),
    Field("red_flag_card", "int", _S, None, derived="the catalogue's first RED FLAG, or EMPTY"),
    # Shared by clones: the same position has the same choices, and the list is read-only.
    Field("legal_cache", "list[Intent] | None", _S, None, derived="nothing: listed again when asked for"),
)

FIELDS: Mapping[str, Field] = MappingProxyType({field.name: field for field in LAYOUT})
SLOTS: tuple[str, ...] = tuple(FIELDS)
SNAPSHOT_KEYS: tuple[str, ...] = tuple(dict.fromkeys(f.key for f in LAYOUT if f.key is not None))
DERIVED: frozenset[str] = frozenset(f.name for f in LAYOUT if f.key is None)

__all__ = ["DERIVED", "FIELDS", "LAYOUT", "SLOTS", "SNAPSHOT_KEYS", "Clone", "Field"]

"""The decision menu: a person's legal decisions, numbered and grouped, and what was typed at it.

Every legal intent but a switching Move is one entry, read by ``describe`` (without its
``seat N:`` prefix). The Moves of one Crew Tray make one entry (``TrayChoice``); the Move
itself is then built step by step (``experiments.table.builder``). Entries come in groups,
in a fixed order (``GROUPS``), and are numbered from 1 across the groups.

A person picks an entry by its number or by a short name (``Menu.pick``): an exact label or
alias (``pass``, ``draw``, ``end``, ``clear``, ``hold``, ``move``, ``tray 2``, ``east`` ...)
first, then a prefix of one label, then words that begin, in order, words of one label
(``play mine``, ``take 1``, ``lay straight 0 1``). More than one match at the first level that
has any is ambiguous, and the message lists them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from sm_env.core import (
    OFFICE_CELL,
    ChooseDivisionPoint,
    Clearance,
    DrawDepartment,
    GameState,
    Intent,
    IntentKind,
    MoveTray,
    RedFlag,
    card_name,
    consist_label,
    describe,
    train_label,
)


@dataclass(frozen=True, slots=True)
class TrayChoice:
    """The switching Moves of one Crew Tray, picked as one menu entry."""

    tray: int
    moves: tuple[MoveTray, ...]


Action = Intent | TrayChoice


@dataclass(frozen=True, slots=True)
class Entry:
    number: int
    group: str
    label: str
    action: Action
    aliases: tuple[str, ...] = ()


T = TypeVar("T")


class MenuError(ValueError):
    """What was typed picks no entry; the message says why and what would."""


# Groups in the order shown; within a group the legal order, with the kinds that end a step last.
GROUPS: tuple[tuple[str, tuple[IntentKind, ...]], ...] = (
    (
        "Local Operations",
        (IntentKind.PASS, IntentKind.CHOOSE_SWITCH, IntentKind.DRAW_HOME_OFFICE, IntentKind.DRAW_DEPARTMENT),
    ),
    ("Freight Agent", (IntentKind.STOCK_OUTBOUND, IntentKind.CLEAR_INBOUND, IntentKind.UNJAM)),
    ("Switching Moves", (IntentKind.MOVE_TRAY, IntentKind.END_SWITCHING)),
    ("Cards to play or lay", (IntentKind.PLAY_CARD, IntentKind.PLACE_CARD, IntentKind.PLACE_MODIFIER)),
    ("Discards", (IntentKind.DISCARD, IntentKind.END_TURN)),
    ("Train cars", (IntentKind.ADD_CAR, IntentKind.END_CONSIST)),
    ("Extra's Division Point", (IntentKind.CHOOSE_DIVISION_POINT,)),
    ("Clearance", (IntentKind.CLEARANCE,)),
    ("RED FLAG", (IntentKind.RED_FLAG,)),
    ("Workers and cargo", (IntentKind.LABOR, IntentKind.BOARD, IntentKind.DETRAIN, IntentKind.END_CARGO)),
)
_GROUP_OF = {kind: (g, name) for g, (name, kinds) in enumerate(GROUPS) for kind in kinds}
_LAST = frozenset(
    {IntentKind.END_SWITCHING, IntentKind.END_TURN, IntentKind.END_CONSIST, IntentKind.END_CARGO}
)
_ENDS = ("end", "done")


def intent_label(board: GameState, intent: Intent) -> str:
    """``describe`` without its ``seat N:`` prefix."""
    return describe(board, intent).split(": ", 1)[1]


def tray_label(board: GameState, tray: int, moves: int) -> str:
    t = board.trays[tray]
    assert t.cell is not None
    where = card_name(board.catalogue, board.stations[t.office].grid[t.cell][0])
    home = " (the office)" if t.cell == OFFICE_CELL else ""
    plural = "" if moves == 1 else "s"
    return (
        f"move tray {tray}: {train_label(board.catalogue, t.train)} [{consist_label(t.consist, t.facing)}] "
        f"on {t.cell} {where}{home}: {moves} Move{plural}"
    )


def _aliases(intent: Intent) -> tuple[str, ...]:
    kind = intent.kind
    if kind in _LAST:
        return _ENDS + (("none", "no car") if kind is IntentKind.END_CONSIST else ())
    if kind is IntentKind.PASS:
        return ("pass",)
    if kind is IntentKind.CHOOSE_SWITCH:
        return ("switch",)
    if kind is IntentKind.DRAW_HOME_OFFICE:
        return ("draw", "home office")
    if isinstance(intent, DrawDepartment):
        return (f"department {intent.department}", f"dept {intent.department}")
    if isinstance(intent, Clearance):
        return ("clear",) if intent.clear else ("hold",)
    if isinstance(intent, RedFlag):
        return ("red flag", "flag", "yes") if intent.play else ("no flag", "no red flag", "no")
    if isinstance(intent, ChooseDivisionPoint):
        return ("east",) if intent.east else ("west",)
    return ()


class Menu:
    """The numbered, grouped entries of one decision."""

    def __init__(self, entries: Sequence[Entry]) -> None:
        self.entries = tuple(entries)

    @classmethod
    def of(cls, board: GameState, legal: Sequence[Intent]) -> Menu:
        """The menu of ``legal`` (the deciding seat's intents), labelled from ``board`` (its view)."""
        moves: dict[int, list[MoveTray]] = {}
        items: list[tuple[tuple[int, int, int], str, str, Action, tuple[str, ...]]] = []
        for i, intent in enumerate(legal):
            g, group = _GROUP_OF[intent.kind]
            if isinstance(intent, MoveTray):
                if intent.tray not in moves:
                    moves[intent.tray] = []
                    items.append(((g, 0, i), group, "", TrayChoice(intent.tray, ()), ()))
                moves[intent.tray].append(intent)
                continue
            order = (g, int(intent.kind in _LAST), i)
            items.append((order, group, intent_label(board, intent), intent, _aliases(intent)))
        items.sort(key=lambda item: item[0])
        entries = []
        for number, (_, group, label, action, aliases) in enumerate(items, 1):
            if isinstance(action, TrayChoice):
                tray_moves = tuple(moves[action.tray])
                action = TrayChoice(action.tray, tray_moves)
                label = tray_label(board, action.tray, len(tray_moves))
                aliases = (f"tray {action.tray}", f"move {action.tray}", "move")
            entries.append(Entry(number, group, label, action, aliases))
        return cls(entries)

    def groups(self) -> list[tuple[str, list[Entry]]]:
        out: list[tuple[str, list[Entry]]] = []
        for entry in self.entries:
            if not out or out[-1][0] != entry.group:
                out.append((entry.group, []))
            out[-1][1].append(entry)
        return out

    def intents(self) -> list[Intent]:
        """Every legal intent the menu leads to (each tray's Moves included)."""
        out: list[Intent] = []
        for entry in self.entries:
            if isinstance(entry.action, TrayChoice):
                out.extend(entry.action.moves)
            else:
                out.append(entry.action)
        return out

    def entry_of(self, intent: Intent) -> Entry | None:
        """The entry that leads to ``intent`` (a Move's tray entry for a Move)."""
        for entry in self.entries:
            action = entry.action
            if action == intent or (isinstance(action, TrayChoice) and intent in action.moves):
                return entry
        return None

    def pick(self, text: str) -> Entry:
        """The entry ``text`` picks: a number, or a name (see the module's docstring)."""
        typed = text.strip()
        if not self.entries:
            raise MenuError("there is nothing to decide here")
        if typed.isdigit():
            number = int(typed)
            if not 1 <= number <= len(self.entries):
                raise MenuError(f"there is no decision {number}: choose 1..{len(self.entries)}")
            return self.entries[number - 1]
        return pick_by_name(
            typed, self.entries, lambda e: e.label, lambda e: e.aliases, "decision or command"
        )


def words(text: str) -> list[str]:
    """Lower-case words and (signed) numbers: ``lay Left-hand Turnout at (0, -1)`` gives
    ``lay left hand turnout at 0 -1``."""
    return re.findall(r"-?\d+|[a-z]+", text.lower())


def _in_order(typed: list[str], label: list[str]) -> bool:
    """Each typed word begins a word of the label, in order (earliest match first suffices)."""
    i = 0
    for word in typed:
        while i < len(label) and not label[i].startswith(word):
            i += 1
        if i == len(label):
            return False
        i += 1
    return True


def pick_by_name(
    typed: str,
    items: Sequence[T],
    label: Callable[[T], str],
    aliases: Callable[[T], Sequence[str]],
    what: str,
) -> T:
    """The one item a name picks (exact label or alias, then label prefix, then words in
    order); ``MenuError`` for none or several. ``label`` and ``aliases`` read an item."""
    key = words(typed)
    if not key:
        raise MenuError(f"type a number, or a name of a {what}")
    joined = " ".join(key)
    levels = (
        [it for it in items if joined == " ".join(words(label(it))) or joined in aliases(it)],
        [it for it in items if " ".join(words(label(it))).startswith(joined)],
        [
            it
            for it in items
            if _in_order(key, words(label(it))) or any(_in_order(key, words(a)) for a in aliases(it))
        ],
    )
    for found in levels:
        if len(found) == 1:
            return found[0]
        if found:
            shown = "; ".join(_name(it, label) for it in found[:6])
            more = f" and {len(found) - 6} more" if len(found) > 6 else ""
            raise MenuError(
                f"{typed!r} is ambiguous: it could be {shown}{more}. Type more of the name or a number"
            )
    raise MenuError(f"no {what} matches {typed!r}: type a number from the list, or 'help'")


def _name(item: T, label: Callable[[T], str]) -> str:
    number = getattr(item, "number", None)
    return f"{number} {label(item)}" if number is not None else str(label(item))

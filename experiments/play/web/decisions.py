"""A seat's legal decisions as the page offers them, and why the rest are greyed.

Each legal intent is one decision, numbered by its place in the legal list: the page sends
that number back with the decision number it answers, so it can only ever pick an intent the
engine listed. A decision carries its group and label (the terminal table's, ``menu``) and
what it concerns on the board (a card in hand, a cell, a tray, a Move's route), so the page
can highlight where it acts.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from typing import Any

from experiments.play.table.menu import GROUPS, intent_label
from experiments.play.web.scene import station_info, train_info
from sm_env.core import (
    HAND_LIMIT,
    HIDDEN,
    GameState,
    IllegalIntent,
    Intent,
    IntentKind,
    MoveTray,
    Phase,
    apply_move,
    train_label,
)

_GROUP_OF = {kind: name for name, kinds in GROUPS for kind in kinds}

# What each phase asks, in a person's words.
PHASE_WORDS: dict[Phase, str] = {
    Phase.LOCAL_OPS: "Local Operations: switch, draw a card, use the Freight Agent, or pass",
    Phase.SWITCHING: "Switching: move your trains' Crew Trays in your station",
    Phase.CARD_PLAY: "Card play: play, lay or discard cards, then end your turn",
    Phase.NEW_TRAIN: "New Train: put a car on the train being made up",
    Phase.EXTRA_SIDE: "an Extra: choose the Division Point it starts from",
    Phase.EXTRA_CONSIST: "an Extra: choose its cars",
    Phase.CLEARANCE: "Clearance: the Superintendent clears or holds a following train",
    Phase.RED_FLAG: "RED FLAG: play one to stop short of a collision, or take the penalty",
    Phase.CARGO: "Cargo: your Porters and Laborers work, one action at a time",
    Phase.GAME_OVER: "the game is over",
}

# The buttons beside the board: the intent kinds each stands for and the phase it belongs to.
BUTTONS: tuple[tuple[str, tuple[IntentKind, ...], Phase], ...] = (
    ("switch", (IntentKind.CHOOSE_SWITCH,), Phase.LOCAL_OPS),
    ("draw", (IntentKind.DRAW_HOME_OFFICE, IntentKind.DRAW_DEPARTMENT), Phase.LOCAL_OPS),
    (
        "freight_agent",
        (IntentKind.STOCK_OUTBOUND, IntentKind.CLEAR_INBOUND, IntentKind.UNJAM),
        Phase.LOCAL_OPS,
    ),
    ("pass", (IntentKind.PASS,), Phase.LOCAL_OPS),
    ("clearance", (IntentKind.CLEARANCE,), Phase.CLEARANCE),
    ("red_flag", (IntentKind.RED_FLAG,), Phase.RED_FLAG),
    (
        "end",
        (IntentKind.END_SWITCHING, IntentKind.END_TURN, IntentKind.END_CONSIST, IntentKind.END_CARGO),
        Phase.CARD_PLAY,
    ),
)


def _plain(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, enum.Enum):
        return value.name.lower()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _cell_words(board: GameState, office: int, cell: tuple[int, int]) -> str:
    placed = board.stations[office].grid.get(cell)
    name = board.catalogue.cards[placed[0]].name if placed is not None else "track"
    return f"{name} ({cell[0]}, {cell[1]})"


def move_words(board: GameState, move: MoveTray) -> str:
    """A switching Move in words: the train, where it goes and by which cards, the cars it
    leaves and pushes off."""
    tray = board.trays[move.tray]
    office = tray.office
    words = [
        f"move {train_label(board.catalogue, tray.train)} from {_cell_words(board, office, move.path[0])} "
        f"to {_cell_words(board, office, move.path[-1])}"
    ]
    if len(move.path) > 2:
        words.append("via " + ", ".join(f"({r}, {c})" for r, c in move.path[1:-1]))
    left = [(cell, k) for cell, k in zip(move.path, move.drops, strict=True) if k]
    for cell, k in left:
        words.append(f"leaving {k} car{'s' if k > 1 else ''} at ({cell[0]}, {cell[1]})")
    if move.push:
        words.append(f"pushing {move.push} car{'s' if move.push > 1 else ''} off ahead at the end")
    return ", ".join(words)


def decision_label(board: GameState, intent: Intent) -> str:
    """A decision as the page words it (a Move in words, the rest as the terminal table does)."""
    return move_words(board, intent) if isinstance(intent, MoveTray) else intent_label(board, intent)


def decision_info(board: GameState, index: int, intent: Intent) -> dict[str, Any]:
    """One legal intent: its number, kind, group, label and its fields (cells as [row, col])."""
    fields = {f.name: _plain(getattr(intent, f.name)) for f in dataclasses.fields(intent) if f.name != "seat"}
    return {
        "id": index,
        "kind": intent.kind.value,
        "group": _GROUP_OF[intent.kind],
        "label": decision_label(board, intent),
        **fields,
    }


def decision_list(board: GameState, legal: Sequence[Intent]) -> list[dict[str, Any]]:
    return [decision_info(board, i, intent) for i, intent in enumerate(legal)]


def move_preview(board: GameState, move: MoveTray) -> dict[str, Any]:
    """The station and its trains as they would be after ``move``, on a copy of the seat's
    board (it holds no hidden card that a Move could touch)."""
    after = board.clone()
    try:
        apply_move(after, move)
    except IllegalIntent as err:  # the move was listed as legal: a bug, said plainly
        raise ValueError(f"the preview failed: {err}") from None
    office = board.trays[move.tray].office
    return {
        "station": station_info(after, office),
        "trains": [
            train_info(after, i, t) for i, t in enumerate(after.trays) if t.office == office and t.cell
        ],
    }


def unavailable(
    board: GameState, seat: int, labels: Sequence[str], legal: Sequence[Intent]
) -> dict[str, str]:
    """Why each button the seat cannot use now is greyed, in a person's words."""
    kinds = {intent.kind for intent in legal}
    deciding = board.current_player()
    out: dict[str, str] = {}
    for name, button_kinds, phase in BUTTONS:
        if kinds.intersection(button_kinds):
            continue
        if board.is_terminal():
            out[name] = "The game is over."
        elif deciding != seat:
            out[name] = f"{labels[deciding]} is deciding: {PHASE_WORDS[board.phase]}."
        elif name == "end" and board.phase is Phase.CARD_PLAY:
            out[name] = f"You hold more than {HAND_LIMIT} cards: play, lay or discard first."
        elif board.phase is not phase and name != "end":
            out[name] = f"Only in {PHASE_WORDS[phase].split(':')[0]}; now: {PHASE_WORDS[board.phase]}."
        else:
            out[name] = f"Not possible now: {PHASE_WORDS[board.phase]}."
    return out


def hand_reasons(board: GameState, seat: int, legal: Sequence[Intent]) -> dict[int, str]:
    """For each card in the seat's hand that no legal decision uses: why."""
    usable = {getattr(intent, "card", None) for intent in legal if intent.kind in _CARD_KINDS}
    out: dict[int, str] = {}
    for card in board.hands[seat]:
        if card == HIDDEN or card in usable:
            continue
        kind = board.catalogue.cards[card].kind.value
        if board.current_player() != seat or board.phase is not Phase.CARD_PLAY:
            out[card] = "Cards are played, laid or discarded in your card play, after you draw."
        elif kind in ("track", "facility", "modifier", "office"):
            out[card] = "No free place at your station fits this card now."
        else:
            out[card] = "This card cannot be played now."
    return out


_CARD_KINDS = frozenset(
    {IntentKind.PLAY_CARD, IntentKind.PLACE_CARD, IntentKind.PLACE_MODIFIER, IntentKind.DISCARD}
)

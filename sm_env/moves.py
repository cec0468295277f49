"""Switching Moves as short token sequences (see ``sm_env.actions``).

A legal ``MoveTray(seat, tray, path, drops, push)`` is spelled ``move_tray(tray)``, then one
``move_step(drops[i], end)`` per card left behind (the end it leaves by), then
``move_stop(drops[-1], push)`` at the destination. The spelling is unique, so the legal Moves
form a prefix tree; the mask at each token offers exactly the children of the current node,
and every unmasked token leads on to at least one legal Move.
"""

from __future__ import annotations

from typing import Union

from sm_env.actions import ActionTable
from sm_env.core import END_OFFSET, Cell, MoveTray

_END_OF_OFFSET = {offset: end for end, offset in enumerate(END_OFFSET)}

Node = dict[int, Union["Node", MoveTray]]


def spell(table: ActionTable, move: MoveTray) -> list[int]:
    """The token actions of a Move."""
    blocks = table.blocks
    tokens = [blocks["move_tray"].index(move.tray)]
    for i in range(len(move.path) - 1):
        end = _end_between(move.path[i], move.path[i + 1])
        tokens.append(blocks["move_step"].index(move.drops[i], end))
    tokens.append(blocks["move_stop"].index(move.drops[-1], move.push))
    return tokens


def _end_between(a: Cell, b: Cell) -> int:
    return _END_OF_OFFSET[(b[0] - a[0], b[1] - a[1])]


class MoveBuilder:
    """The prefix tree of the legal Moves and the tokens chosen so far (with the tray and
    the card they have reached, for the observation)."""

    __slots__ = ("table", "root", "node", "tokens", "tray", "cell", "_tray_cells")

    def __init__(self, table: ActionTable, moves: list[MoveTray], tray_cells: dict[int, Cell]) -> None:
        self.table = table
        self.root: Node = {}
        for move in moves:
            node = self.root
            *head, last = spell(table, move)
            for token in head:
                child = node.setdefault(token, {})
                assert isinstance(child, dict)
                node = child
            node[last] = move
        self._tray_cells = tray_cells
        self.node = self.root
        self.tokens: list[int] = []
        self.tray = -1
        self.cell: Cell | None = None

    def options(self) -> list[int]:
        """The tokens that may come next."""
        return list(self.node)

    def advance(self, token: int) -> MoveTray | None:
        """Take a token; the finished Move when it was the last one, else None."""
        nxt = self.node[token]
        if isinstance(nxt, MoveTray):
            self.node, self.tokens, self.tray, self.cell = self.root, [], -1, None
            return nxt
        name, params = self.table.decode(token)
        if name == "move_tray":
            self.tray = params[0]
            self.cell = self._tray_cells[self.tray]
        else:  # move_step: on through an end
            assert self.cell is not None
            dr, dc = END_OFFSET[params[1]]
            self.cell = (self.cell[0] + dr, self.cell[1] + dc)
        self.node = nxt
        self.tokens.append(token)
        return None

    @property
    def started(self) -> bool:
        return bool(self.tokens)

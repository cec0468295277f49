"""The flat action space: one ``Discrete(N)`` per config covering every decision.

The space is a sequence of blocks, one per intent kind, in the order of the intent registry
(``sm_env.core.registry``), each with a small parameter grid (a card, a station cell, a car
type, ...). The table is built once per configuration: per seat a list action -> intent, and
a dict intent -> action. A switching Move is too varied for one action each (busy stations
list thousands of Moves), so it is built from tokens: ``move_tray`` picks the tray, then at
each card ``move_step`` (drop k cars off the trailing end, then go on through an end) or
``move_stop`` (drop k, push p off the leading end, stop here). ``sm_env.moves.MoveBuilder``
checks the tokens against the legal Moves. docs/actions.md documents the layout.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from sm_env.core import INTENTS, Catalogue, GameConfig, Intent, MoveTray
from sm_env.core import Block as BlockSpec
from sm_env.layout import Block, IllegalActionError

__all__ = ["ActionTable"]


class ActionTable:
    """The action layout of one configuration (the number of Crew Trays depends on it)."""

    def __init__(self, config: GameConfig, catalogue: Catalogue) -> None:
        self.catalogue = catalogue
        self.blocks: dict[str, Block] = {}
        self._specs: dict[str, BlockSpec] = {}
        self._values: dict[str, tuple[Sequence[Any], ...]] = {}
        self._block_of: list[str] = []  # action -> block name
        start = 0
        for entry in INTENTS:
            for spec in entry.blocks:
                values = tuple(param.values(config, catalogue) for param in spec.params)
                block = Block(spec.name, start, tuple(len(v) for v in values))
                self.blocks[spec.name] = block
                self._specs[spec.name] = spec
                self._values[spec.name] = values
                self._block_of.extend([spec.name] * block.size)
                start += block.size
        self.size = start
        self.trays = self.blocks["move_tray"].size
        # Per seat: action -> intent (None for the Move tokens); and intent -> action.
        self.intents: list[list[Intent | None]] = []
        self.action_of: dict[Intent, int] = {}
        for seat in range(config.offices):
            row: list[Intent | None] = []
            for name, block in self.blocks.items():
                make = self._specs[name].make
                if make is None:
                    row.extend([None] * block.size)
                    continue
                for point in itertools.product(*self._values[name]):
                    intent = make(seat, *point)
                    self.action_of[intent] = len(row)
                    row.append(intent)
            self.intents.append(row)

    def index(self, intent: Intent) -> int:
        """The action of a core intent (not a MoveTray: Moves are built from tokens)."""
        action = self.action_of.get(intent)
        if action is None:
            if isinstance(intent, MoveTray):
                raise TypeError(f"{intent!r} has no single action (Moves are built from move_* tokens)")
            raise ValueError(f"{intent!r} is outside this configuration's action space")
        return action

    def decode(self, action: int) -> tuple[str, tuple[int, ...]]:
        """(block name, parameters) of an action."""
        if not 0 <= action < self.size:
            raise IllegalActionError(f"action {action} is outside Discrete({self.size})")
        block = self.blocks[self._block_of[action]]
        return block.name, block.params(action)

    def intent(self, seat: int, action: int) -> Intent | None:
        """The core intent of an action for ``seat``; None for the move_* tokens."""
        if not 0 <= action < self.size:
            raise IllegalActionError(f"action {action} is outside Discrete({self.size})")
        return self.intents[seat][action]

    def describe(self, action: int) -> str:
        """A short, state-free reading of an action."""
        name, p = self.decode(action)
        spec = self._specs[name]
        parts = [
            f"{param.label}={param.show(self.catalogue, values[i])}"
            for param, values, i in zip(spec.params, self._values[name], p, strict=True)
        ]
        return f"{name}({', '.join(parts)})" if parts else name

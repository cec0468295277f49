"""The v1 action space: every decision spelled in a few tokens of one small ``Discrete(N)``.

Every intent kind of the registry (``sm_env.core.registry``) gets a *head* block: the kind with
its small parameters (a card, a car type, a department, a tray, ...). A parameter that is a
station cell is not part of the head: it follows as a token of the one shared ``cell`` block.
So ``place_card(card, rotated)`` is followed by ``cell``, ``labor(spot, car type)`` by ``cell``,
and ``discard(card, department)`` or ``end_turn`` are one token each. A switching Move keeps
its v0 spelling (``move_tray``, then ``move_step`` per card left behind, then ``move_stop``;
``sm_env.moves``). The spellings of all intents are distinct and none is a prefix of another.

A decision is a walk down the prefix tree of the legal intents' spellings (``Speller``): the
mask offers exactly the tokens that continue some legal intent, and the decision completes as
soon as the tokens taken so far fit one legal intent only: its remaining tokens would be
forced, so they are never asked for. Every legal intent is reached by exactly one token
sequence (the shortest prefix of its spelling that no other legal intent shares), and every
unmasked token leads on to at least one legal intent. docs/actions.md documents the layout.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter
from typing import Any

from sm_env.core import (
    CELL,
    END_OFFSET,
    INTENT_CLASSES,
    INTENTS,
    Catalogue,
    GameConfig,
    Intent,
    MoveTray,
    Param,
)
from sm_env.core import Block as BlockSpec
from sm_env.layout import Block, IllegalActionError

_END_OF_OFFSET = {offset: end for end, offset in enumerate(END_OFFSET)}

Spelling = tuple[int, ...]


class TokenTable:
    """The v1 token layout of one configuration, and the spelling of every intent."""

    def __init__(self, config: GameConfig, catalogue: Catalogue) -> None:
        self.config = config
        self.catalogue = catalogue
        self.blocks: dict[str, Block] = {}
        self._params: dict[str, tuple[Param, ...]] = {}
        self._values: dict[str, tuple[Sequence[Any], ...]] = {}
        self._block_of: list[str] = []
        heads: list[tuple[BlockSpec, tuple[int, ...]]] = []  # (spec, positions of the head params)
        start = 0

        def add(name: str, params: tuple[Param, ...]) -> Block:
            nonlocal start
            values = tuple(p.values(config, catalogue) for p in params)
            block = Block(name, start, tuple(len(v) for v in values))
            self.blocks[name] = block
            self._params[name] = params
            self._values[name] = values
            self._block_of.extend([name] * block.size)
            start += block.size
            return block

        for entry in INTENTS:
            for spec in entry.blocks:
                kept = tuple(i for i, p in enumerate(spec.params) if p is not CELL)
                add(spec.name, tuple(spec.params[i] for i in kept))
                heads.append((spec, kept))
        cell_block = add("cell", (CELL,))
        self.size = start
        self.trays = self.blocks["move_tray"].size
        # The heads whose intents take a cell token next (for the observation's prefix).
        self.two_token_heads = tuple(spec.name for spec, kept in heads if len(kept) < len(spec.params))
        # Every intent but a Move, for every seat: its spelling, keyed by its class and fields
        # (``fields_key``): hashing and comparing an intent runs its dataclass methods in
        # Python, a tuple of its fields is hashed and compared in C.
        self._fields: dict[type, Callable[[Any], Any]] = {
            cls: attrgetter(*(f.name for f in dataclasses.fields(cls))) for cls in INTENT_CLASSES.values()
        }
        self.spelling: dict[tuple[type, Any], Spelling] = {}
        self.intent_of: list[dict[Spelling, Intent]] = []
        for seat in range(config.offices):
            of: dict[Spelling, Intent] = {}
            for spec, kept in heads:
                if spec.make is None:
                    continue
                block = self.blocks[spec.name]
                values = tuple(p.values(config, catalogue) for p in spec.params)
                cell_at = [i for i, p in enumerate(spec.params) if p is CELL]
                for point in itertools.product(*(range(len(v)) for v in values)):
                    intent = spec.make(seat, *(values[i][k] for i, k in enumerate(point)))
                    head = block.index(*(point[i] for i in kept))
                    spelled = (head, *(cell_block.start + point[i] for i in cell_at))
                    self.spelling[self.fields_key(intent)] = spelled
                    of[spelled] = intent
            self.intent_of.append(of)
        self._tray_start = self.blocks["move_tray"].start
        self._step = self.blocks["move_step"]
        self._stop = self.blocks["move_stop"]

    # ------------------------------------------------------------------ spellings

    def fields_key(self, intent: Intent) -> tuple[type, Any]:
        """What ``spelling`` is keyed by: the intent's class and its fields."""
        cls = type(intent)
        return cls, self._fields[cls](intent)

    def spell(self, intent: Intent) -> Spelling:
        """The full spelling of an intent (a decision may complete before its end)."""
        if type(intent) is MoveTray:
            return self.spell_move(intent)
        try:
            return self.spelling[self.fields_key(intent)]
        except KeyError:
            raise ValueError(f"{intent!r} is outside this configuration's action space") from None

    def spell_move(self, move: MoveTray) -> Spelling:
        step, stop = self._step, self._stop
        tokens = [self._tray_start + move.tray]
        path, drops = move.path, move.drops
        for i in range(len(path) - 1):
            a, b = path[i], path[i + 1]
            end = _END_OF_OFFSET[(b[0] - a[0], b[1] - a[1])]
            tokens.append(step.start + drops[i] * step.dims[1] + end)
        tokens.append(stop.start + drops[-1] * stop.dims[1] + move.push)
        return tuple(tokens)

    def spell_all(self, intents: Iterable[Intent]) -> list[tuple[Spelling, Intent]]:
        spelling, fields = self.spelling, self._fields
        out: list[tuple[Spelling, Intent]] = []
        for intent in intents:
            if type(intent) is MoveTray:
                out.append((self.spell_move(intent), intent))
            else:
                cls = type(intent)
                out.append((spelling[cls, fields[cls](intent)], intent))
        return out

    # ------------------------------------------------------------------ reading tokens

    def decode(self, token: int) -> tuple[str, tuple[int, ...]]:
        """(block name, parameters) of a token."""
        if not 0 <= token < self.size:
            raise IllegalActionError(f"action {token} is outside Discrete({self.size})")
        block = self.blocks[self._block_of[token]]
        return block.name, block.params(token)

    def block_name(self, token: int) -> str:
        return self._block_of[token]

    def describe(self, token: int) -> str:
        """A short, state-free reading of a token."""
        name, p = self.decode(token)
        parts = [
            f"{param.label}={param.show(self.catalogue, values[i])}"
            for param, values, i in zip(self._params[name], self._values[name], p, strict=True)
        ]
        return f"{name}({', '.join(parts)})" if parts else name

    def __reduce__(self) -> tuple[Callable[..., TokenTable], tuple[GameConfig, Catalogue]]:
        return (token_table, (self.config, self.catalogue))  # pickles and copies (compiled too)


class Speller:
    """One decision being spelled: the legal intents that fit the tokens taken so far,
    grouped by their next token (the mask)."""

    __slots__ = ("groups", "depth", "tokens")

    def __init__(self, spelled: list[tuple[Spelling, Intent]]) -> None:
        self.depth = 0
        self.tokens: list[int] = []
        self.groups = _group(spelled, 0)

    def options(self) -> Iterable[int]:
        """The tokens that may come next."""
        return self.groups.keys()

    def advance(self, token: int) -> Intent | None:
        """Take an offered token: the intent when the decision is complete, else None."""
        fitting = self.groups[token]
        if len(fitting) == 1:
            return fitting[0][1]
        self.depth += 1
        self.tokens.append(token)
        self.groups = _group(fitting, self.depth)
        return None

    @property
    def started(self) -> bool:
        return bool(self.tokens)

    def __reduce__(self) -> tuple[Callable[..., Speller], tuple[object, ...]]:
        return (_speller_at, (self.groups, self.depth, self.tokens))  # pickles and copies (compiled too)

    def path_to(self, intent: Intent, table: TokenTable) -> list[int]:
        """The tokens that complete ``intent`` from here (its spelling up to where no other
        legal intent fits); ValueError when it does not fit the tokens taken so far."""
        spelled = table.spell(intent)
        if list(spelled[: self.depth]) != self.tokens:
            raise ValueError(f"{intent!r} does not continue the tokens taken so far")
        groups, depth, out = self.groups, self.depth, []
        while True:
            token = spelled[depth]
            fitting = groups.get(token)
            if fitting is None or not any(i == intent for _, i in fitting):
                raise ValueError(f"{intent!r} is not legal now")
            out.append(token)
            if len(fitting) == 1:
                return out
            depth += 1
            groups = _group(fitting, depth)


def _speller_at(groups: dict[int, list[tuple[Spelling, Intent]]], depth: int, tokens: list[int]) -> Speller:
    speller = Speller([])
    speller.groups, speller.depth, speller.tokens = groups, depth, tokens
    return speller


def _group(spelled: list[tuple[Spelling, Intent]], depth: int) -> dict[int, list[tuple[Spelling, Intent]]]:
    groups: dict[int, list[tuple[Spelling, Intent]]] = {}
    for item in spelled:
        token = item[0][depth]
        group = groups.get(token)
        if group is None:
            groups[token] = [item]
        else:
            group.append(item)
    return groups


_TABLES: dict[tuple[int, int], tuple[Catalogue, TokenTable]] = {}


def token_table(config: GameConfig, catalogue: Catalogue) -> TokenTable:
    """The table of a configuration, built once per office count and catalogue (it depends on
    nothing else) and shared: it is read-only."""
    key = (config.offices, id(catalogue))
    entry = _TABLES.get(key)
    if entry is None or entry[0] is not catalogue:
        entry = (catalogue, TokenTable(config, catalogue))
        _TABLES[key] = entry
    return entry[1]


__all__ = ["Speller", "TokenTable", "token_table"]

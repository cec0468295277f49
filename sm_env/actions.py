"""The flat action space: one ``Discrete(N)`` per config covering every decision.

The space is a sequence of blocks, each one decision kind with a small parameter grid (a card,
a station cell, a car type, ...). ``ActionTable.index`` turns a core intent into its action;
``ActionTable.decode`` turns an action back into the block and parameters. A switching Move
is too varied for one action each (busy stations list thousands of Moves), so it is built from
tokens: ``move_tray`` picks the tray, then at each card ``move_step`` (drop k cars off the
trailing end, then go on through an end) or ``move_stop`` (drop k, push p off the leading end,
stop here). ``sm_env.moves.MoveBuilder`` checks the tokens against the legal Moves.
docs/actions.md documents the layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sm_env.core.cars import CABOOSE, CAR_TYPES, N_CAR_CODES, car_name
from sm_env.core.catalogue import CardKind, Catalogue
from sm_env.core.config import GameConfig
from sm_env.core.intents import (
    AddCar,
    Area,
    Board,
    Cell,
    ChooseDivisionPoint,
    ChooseSwitch,
    Clearance,
    ClearInbound,
    Detrain,
    Discard,
    DrawDepartment,
    DrawHomeOffice,
    EndCargo,
    EndConsist,
    EndSwitching,
    EndTurn,
    Intent,
    Labor,
    Pass,
    PlaceCard,
    PlaceModifier,
    PlayCard,
    RedFlag,
    Spot,
    StockOutbound,
    Unjam,
)
from sm_env.core.state import DEPARTMENTS, EXTRA_TRAYS
from sm_env.core.station import COL_LIMIT, END_NAMES, MAX_TRAY_CARS, ROW_LIMIT

# Every cell a station may use (D-grid.9), row-major from the south-west corner.
CELLS: tuple[Cell, ...] = tuple(
    (r, c) for r in range(-ROW_LIMIT, ROW_LIMIT + 1) for c in range(-COL_LIMIT, COL_LIMIT + 1)
)
CELL_INDEX = {cell: i for i, cell in enumerate(CELLS)}
CARGO_TYPES = tuple(range(CABOOSE))  # loads are loaded cars of these types
NEIGHBOURS: tuple[Cell, ...] = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0))
DROPS = MAX_TRAY_CARS + 1  # 0..4 cars


class IllegalActionError(ValueError):
    """An action the mask forbids, or one outside the action space."""


@dataclass(frozen=True, slots=True)
class Block:
    name: str
    start: int
    dims: tuple[int, ...]
    labels: tuple[str, ...]  # one per dimension, for docs and action_to_str

    @property
    def size(self) -> int:
        size = 1
        for d in self.dims:
            size *= d
        return size

    def index(self, *params: int) -> int:
        offset = 0
        for value, dim in zip(params, self.dims, strict=True):
            if not 0 <= value < dim:
                raise ValueError(f"{self.name}: parameter {value} out of range {dim}")
            offset = offset * dim + value
        return self.start + offset

    def params(self, action: int) -> tuple[int, ...]:
        offset = action - self.start
        out = []
        for dim in reversed(self.dims):
            out.append(offset % dim)
            offset //= dim
        return tuple(reversed(out))


class ActionTable:
    """The action layout of one configuration (the number of Crew Trays depends on it)."""

    def __init__(self, config: GameConfig, catalogue: Catalogue) -> None:
        self.catalogue = catalogue
        self.trays = config.offices + EXTRA_TRAYS
        cards = len(catalogue.cards)
        self.laid_cards = catalogue.of_kind(CardKind.TRACK) + catalogue.of_kind(CardKind.FACILITY)
        self.modifier_cards = catalogue.of_kind(CardKind.MODIFIER)
        self._laid_index = {card: i for i, card in enumerate(self.laid_cards)}
        self._modifier_index = {card: i for i, card in enumerate(self.modifier_cards)}
        spec: list[tuple[str, tuple[int, ...], tuple[str, ...]]] = [
            ("pass", (), ()),
            ("choose_switch", (), ()),
            ("draw_home_office", (), ()),
            ("draw_department", (DEPARTMENTS,), ("department",)),
            ("stock_outbound", (len(CELLS), len(CARGO_TYPES)), ("cell", "car type")),
            ("clear_inbound", (len(CELLS), len(CARGO_TYPES)), ("cell", "car type")),
            ("unjam", (len(CELLS), len(Area), len(CARGO_TYPES)), ("cell", "area", "car type")),
            ("end_switching", (), ()),
            ("move_tray", (self.trays,), ("tray",)),
            ("move_step", (DROPS, len(END_NAMES)), ("drops", "end")),
            ("move_stop", (DROPS, DROPS), ("drops", "push")),
            ("play_card", (cards,), ("card",)),
            ("place_card", (len(self.laid_cards), len(CELLS), 2), ("card", "cell", "rotated")),
            (
                "place_modifier",
                (len(self.modifier_cards), len(CELLS), len(NEIGHBOURS)),
                ("card", "cell", "facility"),
            ),
            ("discard", (cards, DEPARTMENTS), ("card", "department")),
            ("end_turn", (), ()),
            ("add_car", (N_CAR_CODES,), ("car",)),
            ("end_consist", (), ()),
            ("choose_division_point", (2,), ("east",)),
            ("clearance", (2,), ("clear",)),
            ("red_flag", (2,), ("play",)),
            ("labor", (len(CELLS), len(Spot), len(CARGO_TYPES)), ("cell", "spot", "car type")),
            ("board", (self.trays,), ("tray",)),
            ("detrain", (self.trays,), ("tray",)),
            ("end_cargo", (), ()),
        ]
        self.blocks: dict[str, Block] = {}
        start = 0
        for name, dims, labels in spec:
            block = Block(name, start, dims, labels)
            self.blocks[name] = block
            start += block.size
        self.size = start
        self._starts = sorted((b.start, b.name) for b in self.blocks.values())

    # ------------------------------------------------------------------ intents -> actions

    def index(self, intent: Intent) -> int:
        """The action of a core intent (not a MoveTray: Moves are built from tokens)."""
        b = self.blocks
        if isinstance(intent, Pass):
            return b["pass"].start
        if isinstance(intent, ChooseSwitch):
            return b["choose_switch"].start
        if isinstance(intent, DrawHomeOffice):
            return b["draw_home_office"].start
        if isinstance(intent, DrawDepartment):
            return b["draw_department"].index(intent.department)
        if isinstance(intent, StockOutbound):
            return b["stock_outbound"].index(CELL_INDEX[intent.cell], _cargo(intent.car))
        if isinstance(intent, ClearInbound):
            return b["clear_inbound"].index(CELL_INDEX[intent.cell], _cargo(intent.car))
        if isinstance(intent, Unjam):
            return b["unjam"].index(CELL_INDEX[intent.cell], int(intent.area), _cargo(intent.car))
        if isinstance(intent, EndSwitching):
            return b["end_switching"].start
        if isinstance(intent, PlayCard):
            return b["play_card"].index(intent.card)
        if isinstance(intent, PlaceCard):
            laid = self._laid_index[intent.card]
            return b["place_card"].index(laid, CELL_INDEX[intent.cell], int(intent.rotated))
        if isinstance(intent, PlaceModifier):
            offset = (intent.facility[0] - intent.cell[0], intent.facility[1] - intent.cell[1])
            card = self._modifier_index[intent.card]
            return b["place_modifier"].index(card, CELL_INDEX[intent.cell], NEIGHBOURS.index(offset))
        if isinstance(intent, Discard):
            return b["discard"].index(intent.card, intent.department)
        if isinstance(intent, EndTurn):
            return b["end_turn"].start
        if isinstance(intent, AddCar):
            return b["add_car"].index(intent.car)
        if isinstance(intent, EndConsist):
            return b["end_consist"].start
        if isinstance(intent, ChooseDivisionPoint):
            return b["choose_division_point"].index(int(intent.east))
        if isinstance(intent, Clearance):
            return b["clearance"].index(int(intent.clear))
        if isinstance(intent, RedFlag):
            return b["red_flag"].index(int(intent.play))
        if isinstance(intent, Labor):
            return b["labor"].index(CELL_INDEX[intent.cell], int(intent.spot), _cargo(intent.car))
        if isinstance(intent, Board):
            return b["board"].index(intent.tray)
        if isinstance(intent, Detrain):
            return b["detrain"].index(intent.tray)
        if isinstance(intent, EndCargo):
            return b["end_cargo"].start
        raise TypeError(f"{intent!r} has no single action (Moves are built from move_* tokens)")

    # ------------------------------------------------------------------ actions -> intents

    def decode(self, action: int) -> tuple[str, tuple[int, ...]]:
        """(block name, parameters) of an action."""
        if not 0 <= action < self.size:
            raise IllegalActionError(f"action {action} is outside Discrete({self.size})")
        lo, hi = 0, len(self._starts) - 1
        while lo < hi:  # the last block starting at or before the action
            mid = (lo + hi + 1) // 2
            if self._starts[mid][0] <= action:
                lo = mid
            else:
                hi = mid - 1
        block = self.blocks[self._starts[lo][1]]
        return block.name, block.params(action)

    def intent(self, seat: int, action: int) -> Intent | None:
        """The core intent of an action for ``seat``; None for the move_* tokens."""
        name, p = self.decode(action)
        cell = CELLS[p[0]] if p and name in _CELL_FIRST else None
        if name == "pass":
            return Pass(seat)
        if name == "choose_switch":
            return ChooseSwitch(seat)
        if name == "draw_home_office":
            return DrawHomeOffice(seat)
        if name == "draw_department":
            return DrawDepartment(seat, p[0])
        if name == "stock_outbound":
            assert cell is not None
            return StockOutbound(seat, cell, p[1] * 2 + 1)
        if name == "clear_inbound":
            assert cell is not None
            return ClearInbound(seat, cell, p[1] * 2 + 1)
        if name == "unjam":
            assert cell is not None
            return Unjam(seat, cell, Area(p[1]), p[2] * 2 + 1)
        if name == "end_switching":
            return EndSwitching(seat)
        if name == "play_card":
            return PlayCard(seat, p[0])
        if name == "place_card":
            return PlaceCard(seat, self.laid_cards[p[0]], CELLS[p[1]], bool(p[2]))
        if name == "place_modifier":
            at = CELLS[p[1]]
            dr, dc = NEIGHBOURS[p[2]]
            return PlaceModifier(seat, self.modifier_cards[p[0]], at, (at[0] + dr, at[1] + dc))
        if name == "discard":
            return Discard(seat, p[0], p[1])
        if name == "end_turn":
            return EndTurn(seat)
        if name == "add_car":
            return AddCar(seat, p[0])
        if name == "end_consist":
            return EndConsist(seat)
        if name == "choose_division_point":
            return ChooseDivisionPoint(seat, bool(p[0]))
        if name == "clearance":
            return Clearance(seat, bool(p[0]))
        if name == "red_flag":
            return RedFlag(seat, bool(p[0]))
        if name == "labor":
            assert cell is not None
            return Labor(seat, cell, Spot(p[1]), p[2] * 2 + 1)
        if name == "board":
            return Board(seat, p[0])
        if name == "detrain":
            return Detrain(seat, p[0])
        if name == "end_cargo":
            return EndCargo(seat)
        return None  # move_tray, move_step, move_stop

    def describe(self, action: int) -> str:
        """A short, state-free reading of an action."""
        name, p = self.decode(action)
        block = self.blocks[name]
        parts = [f"{label}={self._value(label, value)}" for label, value in zip(block.labels, p, strict=True)]
        return f"{name}({', '.join(parts)})" if parts else name

    def _value(self, label: str, value: int) -> Any:
        if label == "cell":
            return CELLS[value]
        if label == "card":
            return self.catalogue.cards[value].id
        if label == "car type":
            return CAR_TYPES[value]
        if label == "car":
            return car_name(value)
        if label == "end":
            return END_NAMES[value]
        if label == "area":
            return Area(value).name.lower()
        if label == "spot":
            return Spot(value).name.lower()
        if label == "facility":
            return NEIGHBOURS[value]
        if label in ("rotated", "east", "clear", "play"):
            return bool(value)
        return value

    def layout(self) -> list[tuple[str, int, int, tuple[str, ...], tuple[int, ...]]]:
        """(name, first action, size, parameter names, parameter sizes) of every block."""
        return [(b.name, b.start, b.size, b.labels, b.dims) for b in self.blocks.values()]


_CELL_FIRST = frozenset({"stock_outbound", "clear_inbound", "unjam", "labor"})


def _cargo(code: int) -> int:
    """Loads are loaded cars; the action names their type."""
    if not code & 1 or not 0 <= code >> 1 < CABOOSE:
        raise ValueError(f"{car_name(code)} is not a load")
    return code >> 1


__all__ = ["CELLS", "ActionTable", "Block", "IllegalActionError"]

"""The intent registry: one entry per intent kind, giving the phases it is a decision of, the
handler that carries it out, and its action block for the environments' flat action space.

Adding an intent kind: its class in ``sm_env.core.intents`` (with its ``kind`` and the
``text`` template it reads as), and one ``IntentEntry`` here. The engine takes the phases and
handlers from here; ``sm_env.actions`` builds the action table from the blocks, in this order.

A block is a grid of parameters; every point of the grid is one action, whose intent the
block's ``make`` builds as ``make(seat, *values)``. A switching Move has no single action: it
is spelled in the three token blocks of ``MoveTray`` (``sm_env.moves``), whose ``make`` is None.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from sm_env.core import card_play, cargo, collisions, local_ops, mainline, new_train
from sm_env.core.cars import CABOOSE, CAR_TYPES, N_CAR_CODES, car_name
from sm_env.core.catalogue import CardKind, Catalogue
from sm_env.core.config import GameConfig
from sm_env.core.grid import COL_LIMIT, END_NAMES, ROW_LIMIT
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
    IntentKind,
    Labor,
    MoveTray,
    Pass,
    PlaceCard,
    PlaceModifier,
    PlayCard,
    RedFlag,
    Spot,
    StockOutbound,
    Unjam,
)
from sm_env.core.phases import Next, Phase
from sm_env.core.state import DEPARTMENTS, EXTRA_TRAYS
from sm_env.core.switching import MAX_TRAY_CARS

if TYPE_CHECKING:
    from sm_env.core.state import GameState

# Every cell a station may use (D-grid.9), row-major from the south-west corner.
CELLS: tuple[Cell, ...] = tuple(
    (r, c) for r in range(-ROW_LIMIT, ROW_LIMIT + 1) for c in range(-COL_LIMIT, COL_LIMIT + 1)
)
CARGO_TYPES = tuple(range(CABOOSE))  # loads are loaded cars of these types
NEIGHBOURS: tuple[Cell, ...] = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0))
DROPS = tuple(range(MAX_TRAY_CARS + 1))  # 0..4 cars
BOOLS = (False, True)


def _as_is(catalogue: Catalogue, value: Any) -> object:
    return value


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of an action block: its label, its values in a configuration, and how a
    value reads (for docs and ``action_to_str``)."""

    label: str
    values: Callable[[GameConfig, Catalogue], Sequence[Any]]
    show: Callable[[Catalogue, Any], object] = _as_is


@dataclass(frozen=True, slots=True)
class Block:
    name: str
    params: tuple[Param, ...] = ()
    make: Callable[..., Intent] | None = None  # (seat, *values) -> intent; None for Move tokens


@dataclass(frozen=True, slots=True)
class IntentEntry:
    cls: type[Any]
    phases: frozenset[Phase]
    handler: Callable[[GameState, Any], Next]
    blocks: tuple[Block, ...]

    @property
    def kind(self) -> IntentKind:
        kind: IntentKind = self.cls.kind
        return kind


# The parameters' functions are module-level functions and partials of them, not lambdas, so
# the tables built from them (and the environments holding those) pickle and deep-copy.


def _given(values: Sequence[Any], config: GameConfig, catalogue: Catalogue) -> Sequence[Any]:
    return values


def _fixed(values: Sequence[Any]) -> Callable[[GameConfig, Catalogue], Sequence[Any]]:
    return partial(_given, values)


def _cards_of_kinds(kinds: tuple[CardKind, ...], config: GameConfig, catalogue: Catalogue) -> Sequence[int]:
    return [card for kind in kinds for card in catalogue.of_kind(kind)]


def _cards_of(*kinds: CardKind) -> Callable[[GameConfig, Catalogue], Sequence[int]]:
    return partial(_cards_of_kinds, kinds)


def _card_id(catalogue: Catalogue, card: int) -> str:
    return catalogue.cards[card].id


def _name(catalogue: Catalogue, value: Any) -> str:
    return str(value.name.lower())


def _car_type_name(catalogue: Catalogue, car_type: int) -> str:
    return CAR_TYPES[car_type]


def _end_name(catalogue: Catalogue, end: int) -> str:
    return END_NAMES[end]


def _car_code_name(catalogue: Catalogue, code: int) -> str:
    return car_name(code)


def _trays(config: GameConfig, catalogue: Catalogue) -> Sequence[int]:
    return range(config.offices + EXTRA_TRAYS)


def _all_cards(config: GameConfig, catalogue: Catalogue) -> Sequence[int]:
    return range(len(catalogue.cards))


DEPARTMENT = Param("department", _fixed(range(DEPARTMENTS)))
CELL = Param("cell", _fixed(CELLS))
CARGO_TYPE = Param("car type", _fixed(CARGO_TYPES), _car_type_name)
TRAY = Param("tray", _trays)
CARD = Param("card", _all_cards, _card_id)


def _load(car_type: int) -> int:
    """Loads are loaded cars; the action names their type."""
    return car_type * 2 + 1


def _modifier(seat: int, card: int, cell: Cell, offset: Cell) -> PlaceModifier:
    return PlaceModifier(seat, card, cell, (cell[0] + offset[0], cell[1] + offset[1]))


def _stock_outbound(seat: int, cell: Cell, car_type: int) -> StockOutbound:
    return StockOutbound(seat, cell, _load(car_type))


def _clear_inbound(seat: int, cell: Cell, car_type: int) -> ClearInbound:
    return ClearInbound(seat, cell, _load(car_type))


def _unjam(seat: int, cell: Cell, area: Area, car_type: int) -> Unjam:
    return Unjam(seat, cell, area, _load(car_type))


def _labor(seat: int, cell: Cell, spot: Spot, car_type: int) -> Labor:
    return Labor(seat, cell, spot, _load(car_type))


LOCAL = frozenset({Phase.LOCAL_OPS})
SWITCHING = frozenset({Phase.SWITCHING})
CARD_PLAY = frozenset({Phase.CARD_PLAY})
CARGO = frozenset({Phase.CARGO})

INTENTS: tuple[IntentEntry, ...] = (
    IntentEntry(Pass, LOCAL, local_ops.apply_pass, (Block("pass", (), Pass),)),
    IntentEntry(
        ChooseSwitch, LOCAL, local_ops.apply_choose_switch, (Block("choose_switch", (), ChooseSwitch),)
    ),
    IntentEntry(
        DrawHomeOffice,
        LOCAL,
        local_ops.apply_draw_home_office,
        (Block("draw_home_office", (), DrawHomeOffice),),
    ),
    IntentEntry(
        DrawDepartment,
        LOCAL,
        local_ops.apply_draw_department,
        (Block("draw_department", (DEPARTMENT,), DrawDepartment),),
    ),
    IntentEntry(
        StockOutbound,
        LOCAL,
        local_ops.apply_stock_outbound,
        (Block("stock_outbound", (CELL, CARGO_TYPE), _stock_outbound),),
    ),
    IntentEntry(
        ClearInbound,
        LOCAL,
        local_ops.apply_clear_inbound,
        (Block("clear_inbound", (CELL, CARGO_TYPE), _clear_inbound),),
    ),
    IntentEntry(
        Unjam,
        LOCAL,
        local_ops.apply_unjam,
        (
            Block(
                "unjam",
                (CELL, Param("area", _fixed(tuple(Area)), _name), CARGO_TYPE),
                _unjam,
            ),
        ),
    ),
    IntentEntry(
        EndSwitching, SWITCHING, local_ops.apply_end_switching, (Block("end_switching", (), EndSwitching),)
    ),
    IntentEntry(
        MoveTray,
        SWITCHING,
        local_ops.apply_move_tray,
        (
            Block("move_tray", (TRAY,)),
            Block(
                "move_step",
                (
                    Param("drops", _fixed(DROPS)),
                    Param("end", _fixed(range(len(END_NAMES))), _end_name),
                ),
            ),
            Block("move_stop", (Param("drops", _fixed(DROPS)), Param("push", _fixed(DROPS)))),
        ),
    ),
    IntentEntry(PlayCard, CARD_PLAY, card_play.apply_play_card, (Block("play_card", (CARD,), PlayCard),)),
    IntentEntry(
        PlaceCard,
        CARD_PLAY,
        card_play.apply_place_card,
        (
            Block(
                "place_card",
                (
                    Param("card", _cards_of(CardKind.TRACK, CardKind.FACILITY), _card_id),
                    CELL,
                    Param("rotated", _fixed(BOOLS)),
                ),
                PlaceCard,
            ),
        ),
    ),
    IntentEntry(
        PlaceModifier,
        CARD_PLAY,
        card_play.apply_place_modifier,
        (
            Block(
                "place_modifier",
                (
                    Param("card", _cards_of(CardKind.MODIFIER), _card_id),
                    CELL,
                    Param("facility", _fixed(NEIGHBOURS)),
                ),
                _modifier,
            ),
        ),
    ),
    IntentEntry(
        Discard, CARD_PLAY, card_play.apply_discard, (Block("discard", (CARD, DEPARTMENT), Discard),)
    ),
    IntentEntry(EndTurn, CARD_PLAY, card_play.apply_end_turn, (Block("end_turn", (), EndTurn),)),
    IntentEntry(
        AddCar,
        frozenset({Phase.NEW_TRAIN, Phase.EXTRA_CONSIST}),
        new_train.apply_add_car,
        (Block("add_car", (Param("car", _fixed(range(N_CAR_CODES)), _car_code_name),), AddCar),),
    ),
    IntentEntry(
        EndConsist,
        frozenset({Phase.NEW_TRAIN, Phase.EXTRA_CONSIST}),
        new_train.apply_end_consist,
        (Block("end_consist", (), EndConsist),),
    ),
    IntentEntry(
        ChooseDivisionPoint,
        frozenset({Phase.EXTRA_SIDE}),
        new_train.apply_choose_division_point,
        (Block("choose_division_point", (Param("east", _fixed(BOOLS)),), ChooseDivisionPoint),),
    ),
    IntentEntry(
        Clearance,
        frozenset({Phase.CLEARANCE}),
        mainline.apply_clearance,
        (Block("clearance", (Param("clear", _fixed(BOOLS)),), Clearance),),
    ),
    IntentEntry(
        RedFlag,
        frozenset({Phase.RED_FLAG}),
        collisions.apply_red_flag,
        (Block("red_flag", (Param("play", _fixed(BOOLS)),), RedFlag),),
    ),
    IntentEntry(
        Labor,
        CARGO,
        cargo.apply_labor,
        (
            Block(
                "labor",
                (CELL, Param("spot", _fixed(tuple(Spot)), _name), CARGO_TYPE),
                _labor,
            ),
        ),
    ),
    IntentEntry(Board, CARGO, cargo.apply_board, (Block("board", (TRAY,), Board),)),
    IntentEntry(Detrain, CARGO, cargo.apply_detrain, (Block("detrain", (TRAY,), Detrain),)),
    IntentEntry(EndCargo, CARGO, cargo.apply_end_cargo, (Block("end_cargo", (), EndCargo),)),
)

BY_CLASS: Mapping[type, IntentEntry] = MappingProxyType({entry.cls: entry for entry in INTENTS})

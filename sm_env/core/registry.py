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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of an action block: its label, its values in a configuration, and how a
    value reads (for docs and ``action_to_str``)."""

    label: str
    values: Callable[[GameConfig, Catalogue], Sequence[Any]]
    show: Callable[[Catalogue, Any], object] = lambda catalogue, value: value


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


def _fixed(values: Sequence[Any]) -> Callable[[GameConfig, Catalogue], Sequence[Any]]:
    return lambda config, catalogue: values


def _cards_of(*kinds: CardKind) -> Callable[[GameConfig, Catalogue], Sequence[int]]:
    return lambda config, catalogue: [card for kind in kinds for card in catalogue.of_kind(kind)]


def _card_id(catalogue: Catalogue, card: int) -> str:
    return catalogue.cards[card].id


def _name(catalogue: Catalogue, value: Any) -> str:
    return str(value.name.lower())


def _trays(config: GameConfig, catalogue: Catalogue) -> Sequence[int]:
    return range(config.offices + EXTRA_TRAYS)


def _all_cards(config: GameConfig, catalogue: Catalogue) -> Sequence[int]:
    return range(len(catalogue.cards))


DEPARTMENT = Param("department", _fixed(range(DEPARTMENTS)))
CELL = Param("cell", _fixed(CELLS))
CARGO_TYPE = Param("car type", _fixed(CARGO_TYPES), lambda catalogue, t: CAR_TYPES[t])
TRAY = Param("tray", _trays)
CARD = Param("card", _all_cards, _card_id)


def _load(car_type: int) -> int:
    """Loads are loaded cars; the action names their type."""
    return car_type * 2 + 1


def _modifier(seat: int, card: int, cell: Cell, offset: Cell) -> PlaceModifier:
    return PlaceModifier(seat, card, cell, (cell[0] + offset[0], cell[1] + offset[1]))


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
        (Block("stock_outbound", (CELL, CARGO_TYPE), lambda s, cell, t: StockOutbound(s, cell, _load(t))),),
    ),
    IntentEntry(
        ClearInbound,
        LOCAL,
        local_ops.apply_clear_inbound,
        (Block("clear_inbound", (CELL, CARGO_TYPE), lambda s, cell, t: ClearInbound(s, cell, _load(t))),),
    ),
    IntentEntry(
        Unjam,
        LOCAL,
        local_ops.apply_unjam,
        (
            Block(
                "unjam",
                (CELL, Param("area", _fixed(tuple(Area)), _name), CARGO_TYPE),
                lambda s, cell, area, t: Unjam(s, cell, area, _load(t)),
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
                    Param("end", _fixed(range(len(END_NAMES))), lambda c, e: END_NAMES[e]),
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
        (
            Block(
                "add_car", (Param("car", _fixed(range(N_CAR_CODES)), lambda c, code: car_name(code)),), AddCar
            ),
        ),
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
                lambda s, cell, spot, t: Labor(s, cell, spot, _load(t)),
            ),
        ),
    ),
    IntentEntry(Board, CARGO, cargo.apply_board, (Block("board", (TRAY,), Board),)),
    IntentEntry(Detrain, CARGO, cargo.apply_detrain, (Block("detrain", (TRAY,), Detrain),)),
    IntentEntry(EndCargo, CARGO, cargo.apply_end_cargo, (Block("end_cargo", (), EndCargo),)),
)

BY_CLASS: dict[type, IntentEntry] = {entry.cls: entry for entry in INTENTS}

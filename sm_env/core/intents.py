"""Player decisions as immutable intent objects (one class per kind).

The core lists the legal intents of the seat that must decide (``GameState.legal_intents``)
and validates any intent it is given (``GameState.apply``). Each class carries its kind and
the template ``sm_env.core.text.describe`` reads it with; ``sm_env.core.registry`` gives each
its phases, handler and action block. A new kind is a class here (and in ``Intent``) plus
one registry entry. Intents are small frozen,
slotted, hashable values, so tables and caches can key on them. Card fields hold catalogue
type indices (copies of a card are interchangeable); cells are ``(row, col)`` station-grid
coordinates; cars are car codes (``sm_env.core.cars``).

In replay files an intent is a JSON object: ``{"kind": ..., "seat": ..., <fields>}`` with
cards by catalogue id, cells as ``[row, col]`` and cars by name (``"loaded boxcar"``).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any, ClassVar, get_args

from sm_env.core.cars import CABOOSE, N_CAR_CODES, car_code, car_name
from sm_env.core.catalogue import Catalogue

Cell = tuple[int, int]


class IntentKind(enum.Enum):
    PASS = "pass"
    CHOOSE_SWITCH = "choose_switch"
    END_SWITCHING = "end_switching"
    DRAW_HOME_OFFICE = "draw_home_office"
    DRAW_DEPARTMENT = "draw_department"
    PLAY_CARD = "play_card"
    DISCARD = "discard"
    END_TURN = "end_turn"
    STOCK_OUTBOUND = "stock_outbound"
    CLEAR_INBOUND = "clear_inbound"
    UNJAM = "unjam"
    MOVE_TRAY = "move_tray"
    PLACE_CARD = "place_card"
    PLACE_MODIFIER = "place_modifier"
    ADD_CAR = "add_car"
    END_CONSIST = "end_consist"
    CHOOSE_DIVISION_POINT = "choose_division_point"
    CLEARANCE = "clearance"
    RED_FLAG = "red_flag"
    LABOR = "labor"
    BOARD = "board"
    DETRAIN = "detrain"
    END_CARGO = "end_cargo"

    __hash__ = object.__hash__  # members are singletons: hash by identity, in C (hot path)


class Area(enum.IntEnum):
    """Where a Freight Agent may take a jammed car from (R6.3.3)."""

    OUTBOUND = 0
    MEN = 1
    AT = 2
    WORK = 3


class Spot(enum.IntEnum):
    """Where a load is that a Laborer moves on (R9.1.7): the green box, a MEN|AT|WORK slot, or
    a loaded car on the industry track (to be unloaded)."""

    GREEN = 0
    MEN = 1
    AT = 2
    WORK = 3
    TRACK = 4


@dataclass(frozen=True, slots=True)
class Pass:
    """Local Operations: do none of the three things (D-play.1)."""

    seat: int
    kind: ClassVar[IntentKind] = IntentKind.PASS
    text: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class ChooseSwitch:
    """Local Operations: switch with a train (R6.1)."""

    seat: int
    kind: ClassVar[IntentKind] = IntentKind.CHOOSE_SWITCH
    text: ClassVar[str] = "switch with a train"


@dataclass(frozen=True, slots=True)
class EndSwitching:
    """Stop switching; unused Moves are lost (R6.1.2)."""

    seat: int
    kind: ClassVar[IntentKind] = IntentKind.END_SWITCHING
    text: ClassVar[str] = "end switching"


@dataclass(frozen=True, slots=True)
class DrawHomeOffice:
    """Local Operations: draw the top face-down Home Office card (R6.2.1)."""

    seat: int
    kind: ClassVar[IntentKind] = IntentKind.DRAW_HOME_OFFICE
    text: ClassVar[str] = "draw from the Home Office"


@dataclass(frozen=True, slots=True)
class DrawDepartment:
    """Local Operations: take the top face-up card of Department 0, 1 or 2 (R6.2.1)."""

    seat: int
    department: int
    kind: ClassVar[IntentKind] = IntentKind.DRAW_DEPARTMENT
    text: ClassVar[str] = "take the top of Department {department}{department:top}"


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play a card from hand: a train, an Extra or an office upgrade (R6.2.2)."""

    seat: int
    card: int
    kind: ClassVar[IntentKind] = IntentKind.PLAY_CARD
    text: ClassVar[str] = "play {card:card}"


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard a card face up onto a Department deck (R6.2.4)."""

    seat: int
    card: int
    department: int
    kind: ClassVar[IntentKind] = IntentKind.DISCARD
    text: ClassVar[str] = "discard {card:card} onto Department {department}"


@dataclass(frozen=True, slots=True)
class EndTurn:
    """Finish the card-play step; legal once the hand is within the limit (R6.2.4)."""

    seat: int
    kind: ClassVar[IntentKind] = IntentKind.END_TURN
    text: ClassVar[str] = "end the turn"


@dataclass(frozen=True, slots=True)
class StockOutbound:
    """Freight Agent: a loaded car from the Division Yard onto a green box (R6.3.1)."""

    seat: int
    cell: Cell
    car: int
    kind: ClassVar[IntentKind] = IntentKind.STOCK_OUTBOUND
    text: ClassVar[str] = "Freight Agent stocks a {car:car} on the green box at {cell}"


@dataclass(frozen=True, slots=True)
class ClearInbound:
    """Freight Agent: a car from a red box to the Classification Yard (R6.3.2)."""

    seat: int
    cell: Cell
    car: int
    kind: ClassVar[IntentKind] = IntentKind.CLEAR_INBOUND
    text: ClassVar[str] = "Freight Agent clears a {car:car} from the red box at {cell}"


@dataclass(frozen=True, slots=True)
class Unjam:
    """Freight Agent: a car from the green box or a MEN|AT|WORK slot to the
    Classification Yard (R6.3.3)."""

    seat: int
    cell: Cell
    area: Area
    car: int
    kind: ClassVar[IntentKind] = IntentKind.UNJAM
    text: ClassVar[str] = "Freight Agent unjams a {car:car} from {area:name} at {cell}"


@dataclass(frozen=True, slots=True)
class MoveTray:
    """One Move (RA.0.2): a Crew Tray goes along ``path`` (its own card first, the
    destination last) in one east-west direction. ``drops[i]`` cars come off its trailing
    end at ``path[i]``; ``push`` cars come off its leading end at the destination (RA.3)."""

    seat: int
    tray: int
    path: tuple[Cell, ...]
    drops: tuple[int, ...]
    push: int = 0
    kind: ClassVar[IntentKind] = IntentKind.MOVE_TRAY
    text: ClassVar[str] = "move tray {tray} {path:path}, drops {drops:list}, push {push}"


@dataclass(frozen=True, slots=True)
class PlaceCard:
    """Lay a track or facility card from hand on the station grid (D-grid.6, D-grid.7)."""

    seat: int
    card: int
    cell: Cell
    rotated: bool = False
    kind: ClassVar[IntentKind] = IntentKind.PLACE_CARD
    text: ClassVar[str] = "lay {card:card}{rotated: turned 180°|} at {cell}"


@dataclass(frozen=True, slots=True)
class PlaceModifier:
    """Lay a Modifier Facility at ``cell``, serving the facility at ``facility`` (R9.0.3)."""

    seat: int
    card: int
    cell: Cell
    facility: Cell
    kind: ClassVar[IntentKind] = IntentKind.PLACE_MODIFIER
    text: ClassVar[str] = "lay {card:card} at {cell}, serving {facility}"


@dataclass(frozen=True, slots=True)
class AddCar:
    """New Train: put one car from the Division Yard on the train being built (R7.4, R7.5)."""

    seat: int
    car: int
    kind: ClassVar[IntentKind] = IntentKind.ADD_CAR
    text: ClassVar[str] = "add one {car:car} to the new train"


@dataclass(frozen=True, slots=True)
class EndConsist:
    """New Train: a seat places no car on a timetabled train (R7.4), or an Extra's owner stops
    adding cars (R7.5)."""

    seat: int
    kind: ClassVar[IntentKind] = IntentKind.END_CONSIST
    text: ClassVar[str] = "add no more cars to the train"


@dataclass(frozen=True, slots=True)
class ChooseDivisionPoint:
    """New Train: the Extra's owner sets its tray at the East (runs west) or West (runs east)
    Division Point (R7.5)."""

    seat: int
    east: bool
    kind: ClassVar[IntentKind] = IntentKind.CHOOSE_DIVISION_POINT
    text: ClassVar[str] = "set the Extra at the {east:East|West} Division Point (it runs {east:west|east})"


@dataclass(frozen=True, slots=True)
class Clearance:
    """Mainline: the Superintendent clears a following train to depart, or holds it (R8.1.4)."""

    seat: int
    clear: bool
    kind: ClassVar[IntentKind] = IntentKind.CLEARANCE
    text: ClassVar[str] = "{clear:clear|hold} the following train"


@dataclass(frozen=True, slots=True)
class RedFlag:
    """Mainline: the seat about to be charged a collision plays a RED FLAG, or not (D-redflag.1)."""

    seat: int
    play: bool
    kind: ClassVar[IntentKind] = IntentKind.RED_FLAG
    text: ClassVar[str] = "{play:play|do not play} a RED FLAG"


@dataclass(frozen=True, slots=True)
class Labor:
    """Cargo: the facility's Laborers move the load ``car`` at ``spot`` one step on, hopping
    over occupied slots at one Laborer per position (R9.1.7, R9.3.1, R9.3.2)."""

    seat: int
    cell: Cell
    spot: Spot
    car: int
    kind: ClassVar[IntentKind] = IntentKind.LABOR
    text: ClassVar[str] = "Laborers move the {car:car} at {spot:name} of {cell} on"


@dataclass(frozen=True, slots=True)
class Board:
    """Cargo: a Porter boards passengers onto the train in Crew Tray ``tray`` (R9.2.1)."""

    seat: int
    tray: int
    kind: ClassVar[IntentKind] = IntentKind.BOARD
    text: ClassVar[str] = "a Porter boards passengers onto tray {tray}"


@dataclass(frozen=True, slots=True)
class Detrain:
    """Cargo: a Porter helps passengers off the train in Crew Tray ``tray`` (R9.2.2)."""

    seat: int
    tray: int
    kind: ClassVar[IntentKind] = IntentKind.DETRAIN
    text: ClassVar[str] = "a Porter helps passengers off tray {tray}"


@dataclass(frozen=True, slots=True)
class EndCargo:
    """Cargo: the seat's workers are done for this Stage (R9.0.1)."""

    seat: int
    kind: ClassVar[IntentKind] = IntentKind.END_CARGO
    text: ClassVar[str] = "end the Cargo turn"


Intent = (
    Pass
    | ChooseSwitch
    | EndSwitching
    | DrawHomeOffice
    | DrawDepartment
    | PlayCard
    | Discard
    | EndTurn
    | StockOutbound
    | ClearInbound
    | Unjam
    | MoveTray
    | PlaceCard
    | PlaceModifier
    | AddCar
    | EndConsist
    | ChooseDivisionPoint
    | Clearance
    | RedFlag
    | Labor
    | Board
    | Detrain
    | EndCargo
)

INTENT_CLASSES: Mapping[IntentKind, type[Any]] = MappingProxyType({cls.kind: cls for cls in get_args(Intent)})

_CAR_BY_NAME = {car_name(code): code for code in range(N_CAR_CODES) if code != car_code(CABOOSE, False)}


def _is_cell(value: object) -> bool:
    return type(value) is tuple and len(value) == 2 and type(value[0]) is int and type(value[1]) is int


_BOOL_CHECK: tuple[Callable[[Any], bool], str] = (lambda v: type(v) is bool, "True or False")
_FIELD_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "cell": (_is_cell, "a (row, col) tuple of two ints"),
    "facility": (_is_cell, "a (row, col) tuple of two ints"),
    "path": (
        lambda v: type(v) is tuple and len(v) >= 2 and all(_is_cell(c) for c in v),
        "a tuple of at least two (row, col) cells",
    ),
    "drops": (lambda v: type(v) is tuple and all(type(k) is int for k in v), "a tuple of ints"),
    "area": (lambda v: isinstance(v, Area), "an Area"),
    "spot": (lambda v: isinstance(v, Spot), "a Spot"),
    "rotated": _BOOL_CHECK,
    "east": _BOOL_CHECK,
    "clear": _BOOL_CHECK,
    "play": _BOOL_CHECK,
}
_INT_CHECK: tuple[Callable[[Any], bool], str] = (lambda v: type(v) is int, "an int")
_CHECKS = {
    cls: tuple((f.name, *_FIELD_CHECKS.get(f.name, _INT_CHECK)) for f in fields(cls))
    for cls in INTENT_CLASSES.values()
}


def malformed(intent: Intent) -> str | None:
    """What is wrong with the types of an intent's fields, or None when they are well formed."""
    for name, check, expected in _CHECKS[type(intent)]:
        value = getattr(intent, name)
        if not check(value):
            return f"{intent.kind.value}: {name} must be {expected}, got {value!r}"
    return None


def intent_to_json(intent: Intent, catalogue: Catalogue) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": intent.kind.value}
    for f in fields(intent):
        value = getattr(intent, f.name)
        if f.name == "card":
            value = catalogue.cards[value].id
        elif f.name in ("cell", "facility"):
            value = list(value)
        elif f.name == "path":
            value = [list(cell) for cell in value]
        elif f.name == "drops":
            value = list(value)
        elif f.name == "car":
            value = car_name(value)
        elif f.name in ("area", "spot"):
            value = value.name.lower()
        out[f.name] = value
    return out


def intent_from_json(data: object, catalogue: Catalogue) -> Intent:
    """Decode one intent; ValueError says what is wrong with it."""
    if not isinstance(data, dict):
        raise ValueError(f"an intent must be a JSON object, got {type(data).__name__}")
    kind_name = str(data.get("kind"))
    try:
        cls = INTENT_CLASSES[IntentKind(kind_name)]
    except ValueError:
        known = ", ".join(k.value for k in IntentKind)
        raise ValueError(f"unknown intent kind {kind_name!r} (known: {known})") from None
    names = [f.name for f in fields(cls)]
    extra = sorted(set(data) - set(names) - {"kind"})
    if extra:
        raise ValueError(f"{kind_name}: unknown field(s) {', '.join(extra)} (fields: {', '.join(names)})")
    values: dict[str, Any] = {}
    for name in names:
        if name not in data:
            raise ValueError(f"{kind_name}: missing field {name!r}")
        values[name] = _decode_field(kind_name, name, data[name], catalogue)
    result: Intent = cls(**values)
    return result


_BOOL_FIELDS = frozenset({"rotated", "east", "clear", "play"})


def _decode_field(kind: str, name: str, value: object, catalogue: Catalogue) -> Any:
    if name == "card":
        if not isinstance(value, str) or value not in catalogue.by_id:
            raise ValueError(f"{kind}: card {value!r} is not a card id of the catalogue")
        return catalogue.by_id[value]
    if name in ("cell", "facility"):
        return _decode_cell(kind, name, value)
    if name == "path":
        if not isinstance(value, list) or len(value) < 2:
            raise ValueError(f"{kind}: path must be a list of at least two [row, col] cells, got {value!r}")
        return tuple(_decode_cell(kind, name, cell) for cell in value)
    if name == "drops":
        if not isinstance(value, list) or not all(_is_int(v) for v in value):
            raise ValueError(f"{kind}: drops must be a list of integers, got {value!r}")
        return tuple(value)
    if name in _BOOL_FIELDS:
        if not isinstance(value, bool):
            raise ValueError(f"{kind}: {name} must be true or false, got {value!r}")
        return value
    if name == "car":
        if not isinstance(value, str) or value not in _CAR_BY_NAME:
            raise ValueError(f"{kind}: car must be one of {', '.join(sorted(_CAR_BY_NAME))}; got {value!r}")
        return _CAR_BY_NAME[value]
    if name in ("area", "spot"):
        names = Area if name == "area" else Spot
        try:
            return names[str(value).upper()]
        except KeyError:
            known = ", ".join(a.name.lower() for a in names)
            raise ValueError(f"{kind}: {name} must be one of {known}, got {value!r}") from None
    if not _is_int(value):
        raise ValueError(f"{kind}: {name} must be an integer, got {value!r}")
    return value


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _decode_cell(kind: str, name: str, value: object) -> Cell:
    if not isinstance(value, list) or len(value) != 2 or not all(_is_int(v) for v in value):
        raise ValueError(f"{kind}: {name} cells must be [row, col] of two integers, got {value!r}")
    return (value[0], value[1])


__all__ = [
    "AddCar",
    "Area",
    "Board",
    "Cell",
    "ChooseDivisionPoint",
    "ChooseSwitch",
    "Clearance",
    "ClearInbound",
    "Discard",
    "DrawDepartment",
    "Detrain",
    "DrawHomeOffice",
    "EndCargo",
    "EndConsist",
    "EndSwitching",
    "EndTurn",
    "INTENT_CLASSES",
    "Intent",
    "IntentKind",
    "Labor",
    "MoveTray",
    "Pass",
    "PlaceCard",
    "PlaceModifier",
    "PlayCard",
    "RedFlag",
    "Spot",
    "StockOutbound",
    "Unjam",
    "intent_from_json",
    "malformed",
    "intent_to_json",
]

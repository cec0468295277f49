"""The card catalogue: card types, worker kinds and the rolling-stock supply.

The default catalogue is the packaged ``sm_env/core/data/cards.json``. A catalogue file is one
JSON object; every key below is required, and any key not listed is an error:

- ``format`` ``"station-master-catalogue"``, ``version`` ``1``, ``rules_version`` ``"0.4.5"``.
- ``rolling_stock``: one ``{type, loaded, empty, use}`` per car type, in ``CAR_TYPES`` order.
- ``workers``: ``{id, name, icon, handles, uses_per_stage, text}``.
- ``cards``: card types, ``{id, name, kind, deck, count, text}`` plus the fields of the kind:

  ==============  ============================================================
  office          tier, control_point, ad_tracks, track, facility (tier >= 1)
  limits          track
  mainline        regions
  division_point  side, control_point
  track           shape, track, points (turnouts only)
  facility        track (industry track, with track_capacity), facility
  modifier        applies_to, adds {laborers, porters, capacity}
  train           number (1..12), direction, consist
  extra_train     number (seniority), direction ("either"), consist
  red_flag        nothing more
  ==============  ============================================================

  A track is ``{ends, wheel}``; a facility ``{category, outbound, inbound, capacity, laborers,
  porters, men_at_work}`` with capacity ``{outbound, inbound}`` or ``{shared}``; a consist
  ``{max_cars, allowed: {car type: max}, caboose}``.

Every error names the file, the place in it and what was expected, e.g.
``cards.json: cards[12] ('freight-house'): facility.laborers must be an integer >= 1, got -1``.
"""

from __future__ import annotations

import enum
import functools
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from types import MappingProxyType
from typing import NoReturn, TypeVar

from sm_env.core.cars import CABOOSE, CAR_TYPES, COACH, N_CAR_CODES, car_code, car_type_index
from sm_env.core.errors import CatalogueError

FORMAT = "station-master-catalogue"
VERSION = 1
RULES_VERSION = "0.4.5"
MAX_OFFICES = 6  # the setup cards must cover the largest game
TIMETABLED_NUMBERS = range(1, 13)  # number boards 1-12 (R2.3.1)
MAX_CARS = 4  # a Crew Tray moves at most four cars (RA.4)
TRACK_ENDS = ("W", "E", "NW", "NE", "SW", "SE")
WEST_ENDS = frozenset({"W", "NW", "SW"})  # the other three ends are the east side
REQUIRED_WORKERS = ("laborer", "porter", "freight-agent")
MAX_NUMBER = 1000  # no count, capacity or size on a card comes near: larger is a broken file
MAX_JSON_DEPTH = 64  # the core's files nest 6 deep
_TOO_DEEP = f"lists and objects nest deeper than {MAX_JSON_DEPTH} levels"
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]" + "|[\ud800-\udfff]")  # a surrogate, escaped or not

_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_E = TypeVar("_E", bound=enum.Enum)


class CardKind(enum.Enum):
    OFFICE = "office"
    LIMITS = "limits"
    MAINLINE = "mainline"
    DIVISION_POINT = "division_point"
    TRACK = "track"
    FACILITY = "facility"
    MODIFIER = "modifier"
    TRAIN = "train"
    EXTRA_TRAIN = "extra_train"
    RED_FLAG = "red_flag"


class Deck(enum.Enum):
    HOME_OFFICE = "home_office"
    SETUP = "setup"
    MAINLINE = "mainline"
    TOOLBOX = "toolbox"


@dataclass(frozen=True, slots=True)
class TrackSpec:
    """Track on a card. Ends W, NW, SW are its west side; E, NE, SE its east side."""

    ends: tuple[str, ...]
    wheel: bool  # Operational Rail: a train may stop here
    shape: str  # "straight", "turnout", "junction"; a facility's one-ended industry track is "spur"
    points: tuple[str, str, str] | None  # a turnout's ends A, B, C
    track_capacity: int | None  # cars an industry track holds


@dataclass(frozen=True, slots=True)
class FacilitySpec:
    """Green (outbound) and red (inbound) boxes and the workers of a facility."""

    category: str  # "passenger" or "freight"
    outbound: tuple[int, ...]  # car type indices
    inbound: tuple[int, ...]
    outbound_capacity: int  # with a shared capacity, each box may take up to the shared total
    inbound_capacity: int
    shared_capacity: int | None  # limit on both boxes together
    laborers: int
    porters: int
    men_at_work: bool


@dataclass(frozen=True, slots=True)
class OfficeSpec:
    tier: int  # 0 whistle post, 1 depot, 2 station, 3 terminal
    control_point: bool
    ad_tracks: int


@dataclass(frozen=True, slots=True)
class ModifierSpec:
    applies_to: str  # "freight" or "passenger"
    laborers: int
    porters: int
    capacity: int


@dataclass(frozen=True, slots=True)
class ConsistSpec:
    max_cars: int  # the caboose counts
    allowed: tuple[tuple[int, int], ...]  # (car type index, max count), by type index
    caboose: str  # "required", "permitted" or "forbidden"


@dataclass(frozen=True, slots=True)
class TrainSpec:
    number: int  # timetable number, or an extra's seniority
    direction: str  # "west", "east", or "either" for an extra
    extra: bool
    consist: ConsistSpec


@dataclass(frozen=True, slots=True)
class CardType:
    index: int  # position in Catalogue.cards
    id: str
    name: str
    kind: CardKind
    deck: Deck
    count: int
    text: str
    track: TrackSpec | None = None
    office: OfficeSpec | None = None
    facility: FacilitySpec | None = None
    modifier: ModifierSpec | None = None
    train: TrainSpec | None = None
    regions: int = 0  # mainline cards
    side: str = ""  # division points: "east" or "west"


@dataclass(frozen=True, slots=True)
class WorkerKind:
    id: str
    name: str
    icon: str
    handles: str
    uses_per_stage: int
    text: str


@dataclass(frozen=True, slots=True)
class Catalogue:
    """A validated catalogue. Immutable: the default one is shared by every game."""

    cards: tuple[CardType, ...]
    by_id: Mapping[str, int] = field(compare=False)  # derived from cards
    workers: tuple[WorkerKind, ...]
    stock_loaded: tuple[int, ...]  # per car type index
    stock_empty: tuple[int, ...]
    source: str = field(compare=False)
    train_by_number: Mapping[int, int] = field(compare=False)  # timetabled trains with count > 0

    def __deepcopy__(self, memo: dict[int, object]) -> Catalogue:
        return self  # immutable: copies of a game share it

    def __reduce__(self) -> tuple[object, ...]:
        """Pickles (for process pools) with its indexes as plain dicts."""
        fields_ = (
            self.cards, dict(self.by_id), self.workers, self.stock_loaded, self.stock_empty,
            self.source, dict(self.train_by_number),
        )  # fmt: skip
        return (_unpickle_catalogue, fields_)

    def card(self, card_id: str) -> CardType:
        try:
            return self.cards[self.by_id[card_id]]
        except KeyError:
            raise KeyError(f"no card type {card_id!r} in {self.source}") from None

    def of_kind(self, kind: CardKind) -> tuple[int, ...]:
        return tuple(card.index for card in self.cards if card.kind is kind)

    def deck(self, deck: Deck) -> list[int]:
        """Card type indices of a deck, each repeated ``count`` times, in catalogue order."""
        return [card.index for card in self.cards if card.deck is deck for _ in range(card.count)]

    def car_supply(self) -> tuple[int, ...]:
        """The Division Yard at setup: number of cars per car code."""
        supply = [0] * N_CAR_CODES
        for type_index, (loaded, empty) in enumerate(zip(self.stock_loaded, self.stock_empty, strict=True)):
            supply[car_code(type_index, True)] = loaded
            supply[car_code(type_index, False)] = empty
        return tuple(supply)


def _unpickle_catalogue(
    cards: tuple[CardType, ...],
    by_id: dict[str, int],
    workers: tuple[WorkerKind, ...],
    stock_loaded: tuple[int, ...],
    stock_empty: tuple[int, ...],
    source: str,
    train_by_number: dict[int, int],
) -> Catalogue:
    return Catalogue(
        cards,
        MappingProxyType(by_id),
        workers,
        stock_loaded,
        stock_empty,
        source,
        MappingProxyType(train_by_number),
    )


def load_catalogue(path: str | os.PathLike[str] | None = None) -> Catalogue:
    """Read and validate a catalogue file; ``None`` is the packaged default, loaded once."""
    if path is None:
        return _default_catalogue()
    return _load(Path(path), os.fspath(path))


def parse_catalogue(data: object, source: str = "<data>") -> Catalogue:
    """Validate decoded JSON data; ``source`` names it in error messages."""
    top = _Obj(data, source, "")
    top.allow(("format", "version", "rules_version", "rolling_stock", "workers", "cards"))
    top.text("format", (FORMAT,))
    top.integer("version", VERSION, VERSION, " (the only format version)")
    top.text("rules_version", (RULES_VERSION,), " (the rules this engine implements)")
    loaded, empty = _rolling_stock(top)
    workers = tuple(_worker(_Obj(value, source, where)) for where, value in top.items("workers"))
    cards = tuple(
        _card(index, _Obj(value, source, where)) for index, (where, value) in enumerate(top.items("cards"))
    )
    _check_workers(workers, source)
    _check_cards(cards, source)
    return Catalogue(
        cards=cards,
        by_id=MappingProxyType({card.id: card.index for card in cards}),
        workers=workers,
        stock_loaded=loaded,
        stock_empty=empty,
        source=source,
        train_by_number=MappingProxyType(
            {
                card.train.number: card.index
                for card in cards
                if card.kind is CardKind.TRAIN and card.train and card.count
            }
        ),
    )


@functools.cache
def _default_catalogue() -> Catalogue:
    resource = resources.files("sm_env.core.data").joinpath("cards.json")
    return _load(resource, str(resource))


def _load(file: Traversable, source: str) -> Catalogue:
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CatalogueError(f"{source}: catalogue file not found") from None
    except UnicodeDecodeError as exc:
        raise CatalogueError(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise CatalogueError(f"{source}: cannot read the catalogue file: {exc.strerror or exc}") from None
    try:
        data = decode_json(text)
    except json.JSONDecodeError as exc:
        raise CatalogueError(
            f"{source}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except ValueError as exc:
        raise CatalogueError(f"{source}: {exc}") from None
    return parse_catalogue(data, source)


# --- the JSON of the core's files --------------------------------------------------------------


def decode_json(text: str) -> object:
    """The JSON value of a file's text (a catalogue, a replay, a position), stricter than
    ``json.loads``: ``json.JSONDecodeError`` (line and column) for text that is not JSON, and
    ``ValueError`` saying what is wrong for a key given twice in one object (json would keep
    the last silently), NaN or Infinity (not JSON), lists and objects nested deeper than
    ``MAX_JSON_DEPTH`` (a file of ours nests 6 deep; much deeper would overflow the stack of
    whatever walks it), a number too long to read, or a string holding half of a surrogate
    pair (it cannot be written back as UTF-8)."""
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_not_a_number)
    except RecursionError:
        raise _JSONProblem(_TOO_DEEP) from None
    except (json.JSONDecodeError, _JSONProblem):
        raise
    except ValueError:  # the one other: int() refusing a number of thousands of digits
        raise _JSONProblem(f"a number has more than {sys.get_int_max_str_digits()} digits") from None
    texts = _SURROGATE.search(text) is not None  # only then can a string fail to be text
    pending: list[tuple[object, int]] = [(data, 1)]
    while pending:  # iterative: a recursive walk is what the limit protects
        value, depth = pending.pop()
        if isinstance(value, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise _JSONProblem(_TOO_DEEP)
            items = value.values() if isinstance(value, dict) else value
            pending.extend((item, depth + 1) for item in items)
            if texts and isinstance(value, dict):
                pending.extend((key, depth) for key in value)
        elif texts and isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise _JSONProblem(
                    f"the string {_show(value)} holds half of a surrogate pair (\\ud800-\\udfff): not text"
                ) from None
    return data


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    # json keeps the last of repeated keys silently; a repeat in a hand-edited file is a mistake
    obj: dict[str, object] = {}
    for key, value in pairs:
        if key in obj:
            name = dict(pairs).get("id")
            where = f" (in the object with id {_show(name)})" if isinstance(name, str) else ""
            raise _JSONProblem(f"duplicate key {_show(key)} in a JSON object{where}")
        obj[key] = value
    return obj


def _not_a_number(name: str) -> NoReturn:
    raise _JSONProblem(f"{name} is not a JSON number")


class _JSONProblem(ValueError):
    """Valid JSON syntax that ``decode_json`` refuses."""


# --- reading JSON values with their place in the file ----------------------------------------


def _show(value: object) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _fail(source: str, where: str, message: str) -> NoReturn:
    raise CatalogueError(f"{source}: {where}: {message}")


class _Obj:
    """A JSON object under validation; ``head`` and ``path`` place it in the file."""

    __slots__ = ("data", "head", "path", "source")

    def __init__(self, value: object, source: str, head: str, path: str = "") -> None:
        self.source, self.head, self.path = source, head, path
        if not isinstance(value, dict):
            self.fail("", f"must be a JSON object, got {_show(value)}")
        self.data: dict[object, object] = value

    def where(self, key: str = "") -> str:
        inner = ".".join(part for part in (self.path, key) if part)
        return ": ".join(part for part in (self.head, inner) if part) or "top level"

    def fail(self, key: str, message: str) -> NoReturn:
        """Report a bad value ("x.key must be ..."), or with key "" a bad object ("x: ...")."""
        if not key:
            _fail(self.source, self.where(), message)
        raise CatalogueError(f"{self.source}: {self.where(key)} {message}")

    def allow(self, keys: Iterable[str], note: str = "") -> None:
        allowed = tuple(keys)
        for key in self.data:
            if key not in allowed:
                self.fail("", f"unknown key {_show(key)}{note} (allowed: {', '.join(allowed)})")

    def value(self, key: str) -> object:
        if key not in self.data:
            self.fail("", f"missing key {_show(key)}")
        return self.data[key]

    def child(self, key: str) -> _Obj:
        return _Obj(self.value(key), self.source, self.head, ".".join(p for p in (self.path, key) if p))

    def items(self, key: str) -> list[tuple[str, object]]:
        """The elements of a list, each with its key path (``key[i]``)."""
        value = self.value(key)
        if not isinstance(value, list):
            self.fail(key, f"must be a JSON list, got {_show(value)}")
        return [(f"{key}[{i}]", element) for i, element in enumerate(value)]

    def text(self, key: str, choices: Sequence[str] = (), why: str = "") -> str:
        value = self.value(key)
        if choices and value not in choices:
            shown = [_show(choice) for choice in choices]
            expected = " or ".join(shown) if len(shown) <= 2 else f"one of {', '.join(shown)}"
            self.fail(key, f"must be {expected}{why}, got {_show(value)}")
        if not isinstance(value, str) or not value.strip():
            self.fail(key, f"must be a non-empty string, got {_show(value)}")
        return value

    def member(self, key: str, enum_type: type[_E]) -> _E:
        return enum_type(self.text(key, tuple(str(member.value) for member in enum_type)))

    def integer(self, key: str, lo: int, hi: int | None = None, why: str = "") -> int:
        value = self.value(key)
        # bool is a subclass of int, but true is not a count
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or value < lo
            or (hi is not None and value > hi)
        ):
            if lo == hi:
                expected = str(lo)
            elif hi is None:
                expected = f"an integer >= {lo}"
            else:
                expected = f"an integer in {lo}..{hi}"
            self.fail(key, f"must be {expected}{why}, got {_show(value)}")
        if value > MAX_NUMBER:  # a deck of a billion cards would be dealt before anything failed
            self.fail(key, f"must be at most {MAX_NUMBER}, got {_show(value)}")
        return value

    def flag(self, key: str, expected: bool | None = None, why: str = "") -> bool:
        value = self.value(key)
        if not isinstance(value, bool) or (expected is not None and value is not expected):
            wanted = "true or false" if expected is None else _show(expected)
            self.fail(key, f"must be {wanted}{why}, got {_show(value)}")
        return value


def _with_id(obj: _Obj) -> tuple[_Obj, str]:
    """Read an object's id and return the object renamed by it for later messages."""
    ident = obj.text("id")
    if not _ID.fullmatch(ident):
        obj.fail("id", f'must be lower-case kebab-case like "freight-house", got {_show(ident)}')
    return _Obj(obj.data, obj.source, f"{obj.head} ({ident!r})"), ident


def _car_type(obj: _Obj, key: str, value: object) -> int:
    if not isinstance(value, str) or value not in CAR_TYPES:
        obj.fail(key, f"must be a car type ({', '.join(CAR_TYPES)}), got {_show(value)}")
    return car_type_index(value)


def _car_types(obj: _Obj, key: str) -> tuple[int, ...]:
    types: list[int] = []
    for where, value in obj.items(key):
        type_index = _car_type(obj, where, value)
        if type_index in types:
            obj.fail(where, f"repeats car type {_show(value)}")
        types.append(type_index)
    return tuple(types)


# --- sections ---------------------------------------------------------------------------------


def _rolling_stock(top: _Obj) -> tuple[tuple[int, ...], tuple[int, ...]]:
    entries = top.items("rolling_stock")
    if len(entries) != len(CAR_TYPES):
        top.fail(
            "rolling_stock",
            f"must list the {len(CAR_TYPES)} car types once each, got {len(entries)} entries",
        )
    loaded: list[int] = []
    empty: list[int] = []
    for type_index, (where, value) in enumerate(entries):
        obj = _Obj(value, top.source, where)
        obj.allow(("type", "loaded", "empty", "use"))
        obj.text("type", (CAR_TYPES[type_index],), f" (car types in the order {', '.join(CAR_TYPES)})")
        loaded.append(obj.integer("loaded", 0))
        if type_index == CABOOSE:
            empty.append(obj.integer("empty", 0, 0, " (a caboose is always red, C-stock.1)"))
        else:
            empty.append(obj.integer("empty", 0))
        obj.text("use")
    return tuple(loaded), tuple(empty)


def _worker(obj: _Obj) -> WorkerKind:
    obj, ident = _with_id(obj)
    obj.allow(("id", "name", "icon", "handles", "uses_per_stage", "text"))
    return WorkerKind(
        id=ident,
        name=obj.text("name"),
        icon=obj.text("icon"),
        handles=obj.text("handles"),
        uses_per_stage=obj.integer("uses_per_stage", 1),
        text=obj.text("text"),
    )


_COMMON_KEYS = ("id", "name", "kind", "deck", "count", "text")
_KIND_KEYS: dict[CardKind, tuple[str, ...]] = {
    CardKind.OFFICE: ("tier", "control_point", "ad_tracks", "track", "facility"),
    CardKind.LIMITS: ("track",),
    CardKind.MAINLINE: ("regions",),
    CardKind.DIVISION_POINT: ("side", "control_point"),
    CardKind.TRACK: ("shape", "track", "points"),
    CardKind.FACILITY: ("track", "facility"),
    CardKind.MODIFIER: ("applies_to", "adds"),
    CardKind.TRAIN: ("number", "direction", "consist"),
    CardKind.EXTRA_TRAIN: ("number", "direction", "consist"),
    CardKind.RED_FLAG: (),
}
_KIND_DECK: dict[CardKind, Deck] = {  # offices: by tier
    CardKind.LIMITS: Deck.SETUP,
    CardKind.MAINLINE: Deck.MAINLINE,
    CardKind.DIVISION_POINT: Deck.SETUP,
    CardKind.TRACK: Deck.HOME_OFFICE,
    CardKind.FACILITY: Deck.HOME_OFFICE,
    CardKind.MODIFIER: Deck.HOME_OFFICE,
    CardKind.TRAIN: Deck.HOME_OFFICE,
    CardKind.EXTRA_TRAIN: Deck.HOME_OFFICE,
    CardKind.RED_FLAG: Deck.TOOLBOX,
}


def _card(index: int, obj: _Obj) -> CardType:
    obj, ident = _with_id(obj)
    kind = obj.member("kind", CardKind)
    obj.allow(_COMMON_KEYS + _KIND_KEYS[kind], f" for kind {_show(kind.value)}")
    name = obj.text("name")
    deck = obj.member("deck", Deck)
    if kind is CardKind.TRAIN:
        count = obj.integer("count", 0, 1, " (each timetabled train has one number board)")
    else:
        count = obj.integer("count", 0)
    text = obj.text("text")
    track: TrackSpec | None = None
    office: OfficeSpec | None = None
    facility: FacilitySpec | None = None
    modifier: ModifierSpec | None = None
    train: TrainSpec | None = None
    regions = 0
    side = ""
    expected_deck = _KIND_DECK.get(kind, Deck.HOME_OFFICE)
    if kind is CardKind.OFFICE:
        tier = obj.integer("tier", 0, 3)
        control_point = obj.flag("control_point", tier > 0, " (only the whistle post is not a Control Point)")
        office = OfficeSpec(tier, control_point, obj.integer("ad_tracks", 1))
        track = _running_track(obj.child("track"))
        if tier == 0:
            if "facility" in obj.data:
                obj.fail("facility", "must be absent: a whistle post (tier 0) has no facility")
            expected_deck = Deck.SETUP
        else:
            facility = _facility(obj.child("facility"), "passenger")
    elif kind is CardKind.LIMITS:
        track = _running_track(obj.child("track"))
    elif kind is CardKind.MAINLINE:
        regions = obj.integer("regions", 1)
    elif kind is CardKind.DIVISION_POINT:
        side = obj.text("side", ("east", "west"))
        obj.flag("control_point", True, " (a Division Point is a Control Point)")
    elif kind is CardKind.TRACK:
        track = _track_card(obj)
    elif kind is CardKind.FACILITY:
        track = _industry_track(obj.child("track"))
        facility = _facility(obj.child("facility"), "freight")
    elif kind is CardKind.MODIFIER:
        modifier = _modifier(obj)
    elif kind is CardKind.TRAIN or kind is CardKind.EXTRA_TRAIN:
        train = _train(obj, extra=kind is CardKind.EXTRA_TRAIN)
    if deck is not expected_deck:
        obj.fail(
            "deck",
            f"must be {_show(expected_deck.value)} for this {kind.value} card, got {_show(deck.value)}",
        )
    return CardType(
        index=index,
        id=ident,
        name=name,
        kind=kind,
        deck=deck,
        count=count,
        text=text,
        track=track,
        office=office,
        facility=facility,
        modifier=modifier,
        train=train,
        regions=regions,
        side=side,
    )


def _ends(obj: _Obj) -> tuple[str, ...]:
    ends: list[str] = []
    for where, value in obj.items("ends"):
        if not isinstance(value, str) or value not in TRACK_ENDS:
            obj.fail(where, f"must be a track end ({', '.join(TRACK_ENDS)}), got {_show(value)}")
        if value in ends:
            obj.fail(where, f"repeats end {_show(value)}")
        ends.append(value)
    if not ends:
        obj.fail("ends", "must list at least one end, got []")
    return tuple(ends)


_NOT_INDUSTRY = "; track_capacity is only for a facility's industry track"


def _running_track(obj: _Obj) -> TrackSpec:
    obj.allow(("ends", "wheel"), _NOT_INDUSTRY)
    if _ends(obj) != ("W", "E"):
        obj.fail("ends", f'must be ["W", "E"] on the Running Track, got {_show(obj.data["ends"])}')
    obj.flag("wheel", True, " (the Running Track is Operational Rail)")
    return TrackSpec(("W", "E"), True, "straight", None, None)


def _industry_track(obj: _Obj) -> TrackSpec:
    obj.allow(("ends", "wheel", "track_capacity"))
    if _ends(obj) != ("W",):
        obj.fail("ends", f'must be ["W"] on an industry track, got {_show(obj.data["ends"])}')
    obj.flag("wheel", True, " (an industry track is Operational Rail)")
    return TrackSpec(("W",), True, "spur", None, obj.integer("track_capacity", 1))


# (west-side, east-side) ends each shape has; a turnout's sides follow from its points
_SHAPE_SIDES: dict[str, tuple[int, int] | None] = {
    "straight": (1, 1),
    "turnout": None,
    "junction": (2, 2),
}


def _track_card(obj: _Obj) -> TrackSpec:
    shape = obj.text("shape", tuple(_SHAPE_SIDES))
    spec = obj.child("track")
    spec.allow(("ends", "wheel"), _NOT_INDUSTRY)
    ends = _ends(spec)
    wheel = spec.flag("wheel")
    sides = _SHAPE_SIDES[shape]
    west = sum(end in WEST_ENDS for end in ends)
    if sides is not None and (west, len(ends) - west) != sides:
        spec.fail(
            "ends",
            f"must have {sides[0]} west-side and {sides[1]} east-side end(s) for a {shape}, "
            f"got {_show(list(ends))}",
        )
    if shape != "turnout":
        if "points" in obj.data:
            obj.fail("points", f"must be absent: only a turnout has points, this is a {shape}")
        return TrackSpec(ends, wheel, shape, None, None)
    if len(ends) != 3:
        spec.fail("ends", f"must have 3 ends for a turnout, got {_show(list(ends))}")
    points = obj.child("points")
    points.allow(("a", "b", "c"))
    a, b, c = (points.text(key, ends, " (one of the track's ends)") for key in ("a", "b", "c"))
    if len({a, b, c}) != 3 or (b in WEST_ENDS) != (c in WEST_ENDS) or (a in WEST_ENDS) == (b in WEST_ENDS):
        obj.fail(
            "points",
            f"must be three ends with b and c on the side opposite a (A.1), got {_show(points.data)}",
        )
    return TrackSpec(ends, wheel, shape, (a, b, c), None)


def _facility(obj: _Obj, category: str) -> FacilitySpec:
    obj.allow(("category", "outbound", "inbound", "capacity", "laborers", "porters", "men_at_work"))
    passenger = category == "passenger"
    why = f" for a {category} facility"
    obj.text("category", (category,), " on this card")
    outbound = _car_types(obj, "outbound")
    inbound = _car_types(obj, "inbound")
    for key, boxes in (("outbound", outbound), ("inbound", inbound)):
        if passenger and boxes != (COACH,):
            obj.fail(key, f'must be ["coach"]{why}, got {_show(obj.data[key])}')
        if not passenger and (COACH in boxes or CABOOSE in boxes):
            obj.fail(key, f"must not take coaches or cabooses{why}, got {_show(obj.data[key])}")
    if not outbound and not inbound:
        obj.fail("", "needs an outbound or an inbound box; both lists are empty")
    laborers = obj.integer("laborers", 0, 0, why) if passenger else obj.integer("laborers", 1, None, why)
    porters = obj.integer("porters", 1, None, why) if passenger else obj.integer("porters", 0, 0, why)
    men_at_work = obj.flag("men_at_work", not passenger, why)
    capacity = obj.child("capacity")
    shared: int | None = None
    if "shared" in capacity.data:
        capacity.allow(("shared",), ' beside "shared"')
        if not outbound or not inbound:
            capacity.fail("shared", "needs both an outbound and an inbound box")
        shared = out_capacity = in_capacity = capacity.integer("shared", 1)
    else:
        capacity.allow(("outbound", "inbound", "shared"))  # names the alternative too
        out_capacity = _box_capacity(capacity, "outbound", outbound)
        in_capacity = _box_capacity(capacity, "inbound", inbound)
    return FacilitySpec(
        category,
        outbound,
        inbound,
        out_capacity,
        in_capacity,
        shared,
        laborers,
        porters,
        men_at_work,
    )


def _box_capacity(capacity: _Obj, key: str, boxes: tuple[int, ...]) -> int:
    if boxes:
        return capacity.integer(key, 1)
    if key in capacity.data:
        return capacity.integer(key, 0, 0, f" (the {key} box list is empty)")
    return 0


def _modifier(obj: _Obj) -> ModifierSpec:
    applies_to = obj.text("applies_to", ("freight", "passenger"))
    adds = obj.child("adds")
    adds.allow(("laborers", "porters", "capacity"))
    if applies_to == "freight":
        laborers = adds.integer("laborers", 0)
        porters = adds.integer("porters", 0, 0, " (freight facilities have no Porters)")
    else:
        laborers = adds.integer("laborers", 0, 0, " (passenger facilities have no Laborers)")
        porters = adds.integer("porters", 0)
    capacity = adds.integer("capacity", 0)
    if laborers + porters + capacity == 0:
        adds.fail("", "must add at least one laborer, porter or capacity, got all 0")
    return ModifierSpec(applies_to, laborers, porters, capacity)


def _train(obj: _Obj, extra: bool) -> TrainSpec:
    if extra:
        number = obj.integer("number", 1, None, " (an extra's seniority)")
        direction = obj.text(
            "direction", ("either",), " (an extra runs from the Division Point its player picks)"
        )
    else:
        number = obj.integer("number", TIMETABLED_NUMBERS.start, TIMETABLED_NUMBERS.stop - 1)
        odd = number % 2 == 1
        expected = "west" if odd else "east"
        direction = obj.text(
            "direction", (expected,), f" for {'odd' if odd else 'even'} train {number} (R2.3.1)"
        )
    return TrainSpec(number, direction, extra, _consist(obj.child("consist")))


def _consist(obj: _Obj) -> ConsistSpec:
    obj.allow(("max_cars", "allowed", "caboose"))
    max_cars = obj.integer("max_cars", 1, MAX_CARS, " (a Crew Tray moves at most four cars)")
    caboose = obj.text("caboose", ("required", "permitted", "forbidden"))
    # max_cars counts the caboose, so a required one takes a place
    room = max_cars - (caboose == "required")
    why = f" (max_cars {max_cars}{', less the required caboose' if caboose == 'required' else ''})"
    allowed = obj.child("allowed")
    if not allowed.data:
        obj.fail("allowed", "must allow at least one car type, got {}")
    limits: list[tuple[int, int]] = []
    for key in allowed.data:
        if not isinstance(key, str):
            allowed.fail("", f"keys must be car type names, got {_show(key)}")
        type_index = _car_type(allowed, key, key)
        if type_index == CABOOSE:
            allowed.fail(key, 'must not be listed; the consist\'s "caboose" says whether one runs')
        limits.append((type_index, allowed.integer(key, 1, room, why)))
    return ConsistSpec(max_cars, tuple(sorted(limits)), caboose)


# --- whole-catalogue checks -------------------------------------------------------------------


def _check_workers(workers: tuple[WorkerKind, ...], source: str) -> None:
    seen: dict[str, int] = {}
    for index, worker in enumerate(workers):
        if worker.id in seen:
            _fail(
                source,
                f"workers[{index}] ({worker.id!r})",
                f"id repeats workers[{seen[worker.id]}]",
            )
        seen[worker.id] = index
    missing = [ident for ident in REQUIRED_WORKERS if ident not in seen]
    if missing:
        _fail(
            source,
            "workers",
            f"must include {', '.join(REQUIRED_WORKERS)}; missing {', '.join(missing)}",
        )


def _check_cards(cards: tuple[CardType, ...], source: str) -> None:
    ids: dict[str, int] = {}
    timetabled: dict[int, int] = {}
    extras: dict[int, int] = {}
    for card in cards:
        where = f"cards[{card.index}] ({card.id!r})"
        if card.id in ids:
            _fail(source, where, f"id repeats cards[{ids[card.id]}]")
        ids[card.id] = card.index
        if card.train is not None:
            numbers = extras if card.train.extra else timetabled
            if card.train.number in numbers:
                other = cards[numbers[card.train.number]]
                _fail(
                    source,
                    where,
                    f"number {card.train.number} repeats cards[{other.index}] ({other.id!r})",
                )
            numbers[card.train.number] = card.index
    missing = [str(number) for number in TIMETABLED_NUMBERS if number not in timetabled]
    if missing:
        _fail(
            source,
            "cards",
            f"need one train card per timetable number 1-12 (R2.3.1); missing {', '.join(missing)}",
        )

    def total(counts: Callable[[CardType], bool]) -> int:
        return sum(card.count for card in cards if counts(card))

    for side in ("east", "west"):
        got = sum(card.count for card in cards if card.kind is CardKind.DIVISION_POINT and card.side == side)
        if got != 1:
            _fail(source, "cards", f"need exactly one {side} division point, got {got}")
    whistle_posts = total(lambda card: card.office is not None and card.office.tier == 0)
    limits = total(lambda card: card.kind is CardKind.LIMITS)
    mainline = total(lambda card: card.kind is CardKind.MAINLINE)
    for what, got, need in (
        ("whistle posts (one per office)", whistle_posts, MAX_OFFICES),
        ("limits cards (two per office)", limits, 2 * MAX_OFFICES),
        ("mainline cards (one per gap between offices)", mainline, MAX_OFFICES + 1),
    ):
        if got < need:
            _fail(source, "cards", f"need at least {need} {what} for {MAX_OFFICES} offices, got {got}")

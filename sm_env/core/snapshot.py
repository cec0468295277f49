"""Rebuilding a game from ``GameState.snapshot()`` data, validated (C-rng.2).

``from_snapshot(data, config, rules)`` (``engine.load_snapshot(data, config)`` passes the
engine) gives a new state whose hash and continuation equal those of the state the snapshot
was taken from. The data is checked while it is read (keys, types, lengths, ranges), then the
rebuilt state as a whole by ``sm_env.core.invariants.check_invariants`` (every card and car in
exactly one place, each seat's revenue equal to its ledger, each Crew Tray free or in one
place, the phase agreeing with who decides, ...). Anything wrong raises ``SnapshotError``
naming the place in the data and what was expected, e.g.
``snapshot: hands[1][2]: 999 is not a card index (0..43)``.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Any, NoReturn

from sm_env.core import fields
from sm_env.core.cars import FLIPPED, N_CAR_CODES
from sm_env.core.catalogue import CardKind, Catalogue, load_catalogue
from sm_env.core.config import GameConfig
from sm_env.core.errors import ConfigError, SnapshotError, shown_value
from sm_env.core.grid import COL_LIMIT, MAX_STANDING_CARS, ROW_LIMIT
from sm_env.core.intents import Cell
from sm_env.core.invariants import check_invariants
from sm_env.core.phases import Phase
from sm_env.core.pieces import EMPTY, OFFICE_CELL, WORK_SLOTS, Boxes, Station, Tray
from sm_env.core.queries import MOVES_PER_SWITCH
from sm_env.core.rng import Rng
from sm_env.core.state import (
    DEPARTMENTS,
    EXTRA_TRAYS,
    STAGES_PER_DAY,
    Collision,
    GameState,
    LedgerEntry,
    Rules,
)

# The keys GameState.snapshot() writes, each required, and the slots it does not hold, which
# from_snapshot derives: both from the state's declared layout (sm_env.core.fields).
SNAPSHOT_KEYS = fields.SNAPSHOT_KEYS
DERIVED_SLOTS = fields.DERIVED

_PHASES = {phase.value: phase for phase in Phase}
_GRID_KINDS = (CardKind.LIMITS, CardKind.TRACK, CardKind.FACILITY, CardKind.MODIFIER)
_TRAIN_KINDS = (CardKind.TRAIN, CardKind.EXTRA_TRAIN)
_STATION_KEYS = ("grid", "boxes", "cars", "modifiers", "modifiers_used")
_TRAY_FIELDS = (
    "office", "cell", "consist", "facing", "train", "split",
    "direction", "line", "region", "at_dp", "cleared_by",
)  # fmt: skip
_COLLISION_FIELDS = ("mover", "struck", "office", "cell", "seat", "rule", "where")
_LEDGER_FIELDS = ("day", "stage", "seat", "amount", "rule", "text")


def from_snapshot(
    data: object, config: GameConfig, rules: Rules, catalogue: Catalogue | None = None
) -> GameState:
    """A new state equal to the one ``data`` (``GameState.snapshot()``, or that as JSON) was
    taken from, for the same config and catalogue, played by ``rules`` (the engine's
    ``load_snapshot`` passes itself). SnapshotError if the data is malformed or inconsistent;
    nothing of ``data`` is shared with the result."""
    if not isinstance(config, GameConfig):
        raise ConfigError(f"config must be a GameConfig, got {type(config).__name__}")
    cat = catalogue or load_catalogue()
    top = _object(data, "", SNAPSHOT_KEYS)
    read = _Reader(config, cat)
    n = config.offices

    # Every slot, read or derived (tests/test_state_fields.py checks that none is left unset).
    state = GameState()
    state.config = config
    state.catalogue = cat
    state.rules = rules
    state.legal_cache = None
    state.n = n
    state.rng = Rng(_int(top["rng"], "rng", 0, 0xFFFFFFFF))
    state.day = _int(top["day"], "day", 0, config.days - 1, "a day of the game")
    state.stage = _int(top["stage"], "stage", 0, STAGES_PER_DAY - 1, "a stage")
    state.stages_played = _int(top["stages_played"], "stages_played", 0, STAGES_PER_DAY * config.days)
    state.phase = _phase(top["phase"], "phase")
    state.turn = _int(top["turn"], "turn", 0, n, "a seat position")
    state.fedora = read.seat(top["fedora"], "fedora")
    state.office_of_seat = read.office_of_seat(top["office_of_seat"], "office_of_seat")
    state.seat_of_office = [0] * n
    for seat, office in enumerate(state.office_of_seat):
        state.seat_of_office[office] = seat
    state.mainline = tuple(
        read.cards(top["mainline"], "mainline", (CardKind.MAINLINE,), n + 1, " (one per gap and end)")
    )
    state.hands = [read.hand(v, p) for v, p in _entries(top["hands"], "hands", n, " (one per seat)")]
    state.home_office = read.cards(top["home_office"], "home_office")
    state.departments = [
        read.cards(v, p) for v, p in _entries(top["departments"], "departments", DEPARTMENTS)
    ]
    state.salvage = read.cards(top["salvage"], "salvage")
    state.set_aside = read.cards(top["set_aside"], "set_aside")
    state.stations = [
        read.station(v, p) for v, p in _entries(top["stations"], "stations", n, " (one per office)")
    ]
    state.timetable = [
        read.card(v, p, (CardKind.TRAIN,), empty=True)
        for v, p in _entries(top["timetable"], "timetable", STAGES_PER_DAY, " (one per stage)")
    ]
    state.pending_extras = [
        read.pending_extra(v, p) for v, p in _entries(top["pending_extras"], "pending_extras")
    ]
    state.trays = [
        read.tray(v, p)
        for v, p in _entries(top["trays"], "trays", n + EXTRA_TRAYS, " (offices + 3, C-trays.1)")
    ]
    state.division = read.counts(top["division"], "division")
    state.division_total = sum(state.division)
    state.classification = read.counts(top["classification"], "classification")
    state.revenue_by_seat = [_int(v, p) for v, p in _entries(top["revenue"], "revenue", n, " (one per seat)")]
    state.moves_left = _int(top["moves_left"], "moves_left", 0, MOVES_PER_SWITCH)
    state.events = []
    state.held = read.cards(top["held"], "held", (CardKind.TRAIN,))
    state.actor = read.seat(top["actor"], "actor", empty=True)
    state.building, state.build_owner, state.build_turn = read.building(top["building"], "building")
    state.mainline_queue = [
        read.tray_index(v, p) for v, p in _entries(top["mainline_queue"], "mainline_queue")
    ]
    state.collision = None if top["collision"] is None else read.collision(top["collision"], "collision")
    red_flags = cat.of_kind(CardKind.RED_FLAG)  # as the setup picks it
    state.red_flag_card = red_flags[0] if red_flags else EMPTY
    state.workers_used = _workers_used(top["workers_used"], "workers_used")
    state.ledger = [read.ledger_entry(v, p) for v, p in _entries(top["ledger"], "ledger")]

    problems = check_invariants(state)
    if problems:
        raise SnapshotError(f"snapshot: {problems[0]}")
    return state


# ---------------------------------------------------------------------------- plain values


def _fail(path: str, message: str) -> NoReturn:
    raise SnapshotError(": ".join(part for part in ("snapshot", path, message) if part))


def _int(
    value: object, path: str, lo: int | None = None, hi: int | None = None, what: str = "an integer"
) -> int:
    # bool is a subclass of int, but true is not a count
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and (lo is None or value >= lo)
        and (hi is None or value <= hi)
    ):
        return value
    if lo is not None and hi is not None:
        span = f" ({lo}..{hi})"
    elif lo is not None:
        span = f" (>= {lo})"
    else:
        span = ""
    _fail(path, f"{shown_value(value)} is not {what}{span}")


def _one_of(value: object, path: str, choices: tuple[int, ...], what: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value in choices:
        return value
    _fail(path, f"{shown_value(value)} is not {what} ({' or '.join(map(str, choices))})")


def _bool(value: object, path: str) -> bool:
    if not isinstance(value, bool):
        _fail(path, f"{shown_value(value)} is not true or false")
    return value


def _text(value: object, path: str) -> str:
    if not isinstance(value, str):
        _fail(path, f"{shown_value(value)} is not a string")
    return value


def _object(value: object, path: str, keys: tuple[str, ...]) -> dict[Any, Any]:
    if not isinstance(value, dict):
        _fail(path, f"must be a JSON object, got {type(value).__name__}")
    missing = [key for key in keys if key not in value]
    if missing:
        _fail(path, f"missing key(s): {', '.join(missing)}")
    unknown = sorted(shown_value(key) for key in value if key not in keys)
    if unknown:  # the first few: a file may hold thousands
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        _fail(path, f"unknown key(s): {', '.join(unknown[:5])}{more}")
    return value


def _entries(value: object, path: str, length: int | None = None, why: str = "") -> list[tuple[object, str]]:
    """The items of a list, each with its path; ``length`` for a list of fixed size."""
    if not isinstance(value, list):
        _fail(path, f"must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        _fail(path, f"must have {length} entries{why}, got {len(value)}")
    return [(item, f"{path}[{i}]") for i, item in enumerate(value)]


def _fields(value: object, path: str, names: tuple[str, ...]) -> dict[str, tuple[object, str]]:
    """A fixed-size list read by name: each field with its path, e.g. ``trays[2][1] (cell)``."""
    if not isinstance(value, list) or len(value) != len(names):
        _fail(path, f"must be a list of {len(names)} [{', '.join(names)}], got {shown_value(value)}")
    return {name: (value[i], f"{path}[{i}] ({name})") for i, name in enumerate(names)}


def _cell(value: object, path: str, taken: Container[Cell] = ()) -> Cell:
    """A [row, col] pair inside the station window (D-grid.9), not one of ``taken``."""
    if not (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) for x in value)
        and abs(value[0]) <= ROW_LIMIT
        and abs(value[1]) <= COL_LIMIT
    ):
        _fail(
            path,
            f"{shown_value(value)} is not a cell: [row, col] integers with row in "
            f"-{ROW_LIMIT}..{ROW_LIMIT} and col in -{COL_LIMIT}..{COL_LIMIT} (D-grid.9)",
        )
    cell = (value[0], value[1])
    if cell in taken:
        _fail(path, f"cell {value} appears twice")
    return cell


def _cell_of(
    value: object, path: str, cells: Container[Cell], what: str, taken: Container[Cell] = ()
) -> Cell:
    """A cell of ``cells`` (described by ``what``), not one of ``taken``."""
    cell = _cell(value, path, taken)
    if cell not in cells:
        _fail(path, f"{list(cell)} is not {what}")
    return cell


def _phase(value: object, path: str) -> Phase:
    if isinstance(value, str) and value in _PHASES:
        return _PHASES[value]
    _fail(path, f"{shown_value(value)} is not a phase (one of {', '.join(_PHASES)})")


def _car(value: object, path: str, flipped: bool = False, marker: str = "") -> int:
    """A car code; with ``flipped`` also one loaded this visit (R9.3.4); with ``marker`` also
    -1, which stands for the engine in a consist or an empty MEN|AT|WORK slot."""
    if isinstance(value, int) and not isinstance(value, bool):
        code = value & ~FLIPPED if flipped and value >= 0 else value
        if 0 <= code < N_CAR_CODES or (marker and value == -1):
            return value
    also = f", {FLIPPED}..{FLIPPED + N_CAR_CODES - 1} flipped" if flipped else ""
    also += f", or -1 for {marker}" if marker else ""
    _fail(path, f"{shown_value(value)} is not a car code (0..{N_CAR_CODES - 1}{also})")


def _workers_used(value: object, path: str) -> dict[Cell, int]:
    used: dict[Cell, int] = {}
    for item, item_path in _entries(value, path):
        f = _fields(item, item_path, ("cell", "used"))
        cell = _cell(*f["cell"], taken=used)
        used[cell] = _int(*f["used"], 0, what="a number of workers")
    return used


# ---------------------------------------------------------------------------- game pieces


class _Reader:
    """Reads the parts of a snapshot whose ranges depend on the game's size or catalogue."""

    __slots__ = ("cat", "n", "days", "regions")

    def __init__(self, config: GameConfig, cat: Catalogue) -> None:
        self.cat, self.n, self.days = cat, config.offices, config.days
        self.regions = max(cat.cards[card].regions for card in cat.of_kind(CardKind.MAINLINE))

    def counts(self, value: object, path: str) -> list[int]:
        """Cars per (unflipped) car code, as the yards hold them: at most the supply."""
        supply = self.cat.car_supply()
        entries = _entries(value, path, N_CAR_CODES, " (one per car code)")
        return [_int(v, p, 0, supply[code], "a count") for code, (v, p) in enumerate(entries)]

    def seat(self, value: object, path: str, empty: bool = False) -> int:
        return _int(value, path, EMPTY if empty else 0, self.n - 1, "a seat or -1" if empty else "a seat")

    def office(self, value: object, path: str, empty: bool = False) -> int:
        return _int(
            value, path, EMPTY if empty else 0, self.n - 1, "an office or -1" if empty else "an office"
        )

    def tray_index(self, value: object, path: str, empty: bool = False) -> int:
        what = "a Crew Tray index or -1" if empty else "a Crew Tray index"
        return _int(value, path, EMPTY if empty else 0, self.n + EXTRA_TRAYS - 1, what)

    def card(self, value: object, path: str, kinds: tuple[CardKind, ...] = (), empty: bool = False) -> int:
        what = "a card index or -1" if empty else "a card index"
        index = _int(value, path, EMPTY if empty else 0, len(self.cat.cards) - 1, what)
        if index != EMPTY and kinds and self.cat.cards[index].kind not in kinds:
            card = self.cat.cards[index]
            wanted = " or ".join(repr(kind.value) for kind in kinds)
            _fail(path, f"card {index} ({card.id!r}) is of kind {card.kind.value!r}, not {wanted}")
        return index

    def cards(
        self,
        value: object,
        path: str,
        kinds: tuple[CardKind, ...] = (),
        length: int | None = None,
        why: str = "",
    ) -> list[int]:
        return [self.card(v, p, kinds) for v, p in _entries(value, path, length, why)]

    def hand(self, value: object, path: str) -> list[int]:
        hand = self.cards(value, path)
        if hand != sorted(hand):
            _fail(path, f"{hand} is not sorted (a hand is kept in card index order)")
        return hand

    def office_of_seat(self, value: object, path: str) -> list[int]:
        offices = [self.office(v, p) for v, p in _entries(value, path, self.n, " (one per seat)")]
        twice = [office for office in range(self.n) if offices.count(office) > 1]
        if twice:
            _fail(
                path,
                f"{offices} is not a permutation of 0..{self.n - 1}: "
                f"office {twice[0]} is held by two seats (D-seat.1)",
            )
        return offices

    def pending_extra(self, value: object, path: str) -> tuple[int, int]:
        f = _fields(value, path, ("card", "seat"))
        return self.card(*f["card"], (CardKind.EXTRA_TRAIN,)), self.seat(*f["seat"])

    def building(self, value: object, path: str) -> tuple[int, int, int]:
        f = _fields(value, path, ("tray", "owner", "turn"))
        tray = self.tray_index(*f["tray"], empty=True)
        return tray, self.seat(*f["owner"], empty=True), _int(*f["turn"], 0, self.n, "a seat position")

    def ledger_entry(self, value: object, path: str) -> LedgerEntry:
        f = _fields(value, path, _LEDGER_FIELDS)
        return LedgerEntry(
            _int(*f["day"], 0, self.days - 1, "a day of the game"),
            _int(*f["stage"], 0, STAGES_PER_DAY - 1, "a stage"),
            self.seat(*f["seat"]),
            _int(*f["amount"]),
            _text(*f["rule"]),
            _text(*f["text"]),
        )

    def collision(self, value: object, path: str) -> Collision:
        f = _fields(value, path, _COLLISION_FIELDS)
        cell, cell_path = f["cell"]
        return Collision(
            self.tray_index(*f["mover"]),
            self.tray_index(*f["struck"], empty=True),
            self.office(*f["office"], empty=True),
            None if cell is None else _cell(cell, cell_path),
            self.seat(*f["seat"]),
            _text(*f["rule"]),
            _text(*f["where"]),
        )

    def tray(self, value: object, path: str) -> Tray:
        f = _fields(value, path, _TRAY_FIELDS)
        tray = Tray()
        tray.office = self.office(*f["office"], empty=True)
        cell, cell_path = f["cell"]
        tray.cell = None if cell is None else _cell(cell, cell_path)
        tray.consist = tuple(_car(v, p, True, "the engine") for v, p in _entries(*f["consist"]))
        tray.facing = _one_of(*f["facing"], (1, -1), "a facing")
        tray.train = self.card(*f["train"], _TRAIN_KINDS, empty=True)
        tray.split = _int(*f["split"], 0, MAX_STANDING_CARS, "a number of cars standing")
        tray.direction = _one_of(*f["direction"], (1, -1, 0), "a direction")
        tray.line = _int(*f["line"], EMPTY, self.n, "a Mainline card or -1")
        tray.region = _int(*f["region"], 0, self.regions - 1, "a Mainline region")
        tray.at_dp = _bool(*f["at_dp"])
        tray.cleared_by = self.seat(*f["cleared_by"], empty=True)
        return tray

    def station(self, value: object, path: str) -> Station:
        data = _object(value, path, _STATION_KEYS)
        station = Station()
        self._grid(station, data["grid"], f"{path}.grid")
        facilities = {cell for cell, (card, _) in station.grid.items() if self.cat.cards[card].facility}
        for item, item_path in _entries(data["boxes"], f"{path}.boxes"):
            f = _fields(item, item_path, ("cell", "outbound", "inbound", "work", "unloading"))
            cell = _cell_of(*f["cell"], facilities, "a cell with a facility card", station.boxes)
            boxes = station.boxes[cell] = Boxes()
            boxes.outbound = [_car(v, p) for v, p in _entries(*f["outbound"])]
            boxes.inbound = [_car(v, p) for v, p in _entries(*f["inbound"])]
            boxes.work = [_car(v, p, marker="an empty slot") for v, p in _entries(*f["work"], WORK_SLOTS)]
            boxes.unloading = [_bool(v, p) for v, p in _entries(*f["unloading"], WORK_SLOTS)]
        without = sorted(facilities - station.boxes.keys())
        if without:
            _fail(f"{path}.boxes", f"the facility at {list(without[0])} has no boxes")
        for item, item_path in _entries(data["cars"], f"{path}.cars"):
            f = _fields(item, item_path, ("cell", "cars"))
            cell = _cell_of(*f["cell"], station.grid, "a cell of the station's grid", station.cars)
            cars = tuple(_car(v, p, flipped=True) for v, p in _entries(*f["cars"]))
            if not cars:
                _fail(f["cars"][1], "must list the cars standing there (a cell without cars is left out)")
            station.cars[cell] = cars
        modifier_cells = {c for c, (card, _) in station.grid.items() if self._kind(card) is CardKind.MODIFIER}
        for item, item_path in _entries(data["modifiers"], f"{path}.modifiers"):
            f = _fields(item, item_path, ("cell", "serves"))
            cell = _cell_of(*f["cell"], modifier_cells, "a cell with a Modifier card", station.modifiers)
            station.modifiers[cell] = _cell_of(*f["serves"], station.boxes, "a facility with boxes (R9.0.3)")
        unserved = sorted(modifier_cells - station.modifiers.keys())
        if unserved:
            _fail(f"{path}.modifiers", f"the Modifier at {list(unserved[0])} serves no facility (R9.0.3)")
        for value, item_path in _entries(data["modifiers_used"], f"{path}.modifiers_used"):
            used = station.modifiers_used
            used.add(_cell_of(value, item_path, modifier_cells, "a cell with a Modifier card", used))
        return station

    def _grid(self, station: Station, value: object, path: str) -> None:
        """Placed cards: the office on (0, 0) between Limits on the Running Track (R4.1)."""
        for item, item_path in _entries(value, path):
            f = _fields(item, item_path, ("cell", "card", "rotated"))
            cell = _cell(*f["cell"], taken=station.grid)
            kinds = (CardKind.OFFICE,) if cell == OFFICE_CELL else _GRID_KINDS
            station.grid[cell] = (self.card(*f["card"], kinds), _bool(*f["rotated"]))
        if OFFICE_CELL not in station.grid:
            _fail(path, "no office card on cell [0, 0] (R4.1)")
        limits = [
            c for (r, c), (card, _) in station.grid.items() if r == 0 and self._kind(card) is CardKind.LIMITS
        ]
        if not any(c < 0 for c in limits) or not any(c > 0 for c in limits):
            _fail(path, "the Running Track needs a Limits card west and one east of the office (R4.1)")

    def _kind(self, card: int) -> CardKind:
        return self.cat.cards[card].kind


__all__ = ["DERIVED_SLOTS", "SNAPSHOT_KEYS", "from_snapshot"]

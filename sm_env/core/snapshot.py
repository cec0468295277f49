"""Rebuilding a game from ``GameState.snapshot()`` data, validated (C-rng.2).

``from_snapshot(data, config, rules)`` (``engine.load_snapshot(data, config)`` passes the
engine) gives a new state whose hash and continuation equal those of the state the snapshot
was taken from. The data is checked while it is read (keys, types,
lengths, ranges), then the rebuilt state as a whole: every card and car in exactly one place,
each seat's revenue equal to its ledger, each Crew Tray free or in one place, the phase
agreeing with who decides. Anything wrong raises ``SnapshotError`` naming the place in the
data and what was expected, e.g. ``snapshot: hands[1][2]: 999 is not a card index (0..43)``.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Any, NoReturn

from sm_env.core.cars import ENGINE, FLIPPED, N_CAR_CODES, car_name, unflipped
from sm_env.core.catalogue import CardKind, Catalogue, load_catalogue
from sm_env.core.config import GameConfig
from sm_env.core.errors import ConfigError, SnapshotError
from sm_env.core.grid import COL_LIMIT, MAX_STANDING_CARS, ROW_LIMIT
from sm_env.core.intents import Cell
from sm_env.core.phases import SEAT_TURN_PHASES, Phase
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

# The keys GameState.snapshot() writes, each required.
SNAPSHOT_KEYS = (
    "rng", "day", "stage", "stages_played", "phase", "turn", "fedora", "office_of_seat",
    "mainline", "hands", "home_office", "departments", "salvage", "set_aside", "stations",
    "timetable", "pending_extras", "trays", "division", "classification", "revenue",
    "moves_left", "held", "actor", "building", "mainline_queue", "workers_used", "ledger",
    "collision",
)  # fmt: skip

# GameState slots the snapshot does not hold: from_snapshot derives them. Every other slot is
# read from the data; tests/test_snapshot.py checks that none is left unset.
DERIVED_SLOTS = frozenset(
    {
        "config",
        "catalogue",
        "rules",
        "n",
        "seat_of_office",
        "division_total",
        "red_flag_card",
        "events",
        "legal_cache",
    }
)

# The phases outside SEAT_TURN_PHASES in which GameState.actor decides.
TRAIN_PHASES = frozenset(
    {Phase.NEW_TRAIN, Phase.EXTRA_SIDE, Phase.EXTRA_CONSIST, Phase.CLEARANCE, Phase.RED_FLAG}
)
_BUILD_PHASES = frozenset({Phase.NEW_TRAIN, Phase.EXTRA_SIDE, Phase.EXTRA_CONSIST})
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
_FREE_TRAY = Tray().snapshot()


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

    # The one place that knows GameState's layout: every slot, read or derived.
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

    _check_clock(state)
    _check_cards(state)
    _check_held(state)
    _check_cars(state)
    _check_revenue(state)
    _check_trays(state)
    _check_phase(state)
    return state


# ---------------------------------------------------------------------------- plain values


def _fail(path: str, message: str) -> NoReturn:
    raise SnapshotError(": ".join(part for part in ("snapshot", path, message) if part))


def _show(value: object) -> str:
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an int too long to print, or nesting too deep
        return "a value too large to show"
    return text if len(text) <= 60 else text[:57] + "..."


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
    _fail(path, f"{_show(value)} is not {what}{span}")


def _one_of(value: object, path: str, choices: tuple[int, ...], what: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value in choices:
        return value
    _fail(path, f"{_show(value)} is not {what} ({' or '.join(map(str, choices))})")


def _bool(value: object, path: str) -> bool:
    if not isinstance(value, bool):
        _fail(path, f"{_show(value)} is not true or false")
    return value


def _text(value: object, path: str) -> str:
    if not isinstance(value, str):
        _fail(path, f"{_show(value)} is not a string")
    return value


def _object(value: object, path: str, keys: tuple[str, ...]) -> dict[Any, Any]:
    if not isinstance(value, dict):
        _fail(path, f"must be a JSON object, got {type(value).__name__}")
    missing = [key for key in keys if key not in value]
    if missing:
        _fail(path, f"missing key(s): {', '.join(missing)}")
    unknown = sorted(repr(key) for key in value if key not in keys)
    if unknown:
        _fail(path, f"unknown key(s): {', '.join(unknown)}")
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
        _fail(path, f"must be a list of {len(names)} [{', '.join(names)}], got {_show(value)}")
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
            f"{_show(value)} is not a cell: [row, col] integers with row in "
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
    _fail(path, f"{_show(value)} is not a phase (one of {', '.join(_PHASES)})")


def _car(value: object, path: str, flipped: bool = False, marker: str = "") -> int:
    """A car code; with ``flipped`` also one loaded this visit (R9.3.4); with ``marker`` also
    -1, which stands for the engine in a consist or an empty MEN|AT|WORK slot."""
    if isinstance(value, int) and not isinstance(value, bool):
        code = value & ~FLIPPED if flipped and value >= 0 else value
        if 0 <= code < N_CAR_CODES or (marker and value == -1):
            return value
    also = f", {FLIPPED}..{FLIPPED + N_CAR_CODES - 1} flipped" if flipped else ""
    also += f", or -1 for {marker}" if marker else ""
    _fail(path, f"{_show(value)} is not a car code (0..{N_CAR_CODES - 1}{also})")


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


# ---------------------------------------------------------------------------- consistency


def _check_clock(state: GameState) -> None:
    """Stages played so far: one more than the current Stage's number once the game is over."""
    expected = state.day * STAGES_PER_DAY + state.stage + int(state.phase is Phase.GAME_OVER)
    if state.stages_played != expected:
        _fail(
            "stages_played",
            f"{state.stages_played} does not agree with day {state.day}, stage {state.stage} "
            f"and phase {state.phase.value!r}: expected {expected}",
        )


def _place_name(area: str, key: Any) -> str:
    """Where a card lies, as a snapshot path: ``hands[1]``, ``stations[0].grid [1, 2]``."""
    if key is None:
        return area
    if area == "stations":
        office, cell = key
        return f"stations[{office}].grid {list(cell)}"
    return f"{area}[{key}]"


def _check_cards(state: GameState) -> None:
    """Every card copy of the catalogue in exactly one place."""
    places: dict[int, list[str]] = {}
    for index, area, key in state.card_places():
        places.setdefault(index, []).append(_place_name(area, key))
    for card in state.catalogue.cards:
        found = places.get(card.index, [])
        if len(found) != card.count:
            where = f" ({', '.join(found[:6])}{', ...' if len(found) > 6 else ''})" if found else ""
            _fail(
                "cards",
                f"{len(found)} copies of {card.id!r} (card {card.index}) in the game{where}; "
                f"the catalogue has {card.count}",
            )


def _check_held(state: GameState) -> None:
    """R7.1: held trains are timetabled trains on the chart, each once."""
    for i, card in enumerate(state.held):
        if card not in state.timetable:
            _fail(
                f"held[{i}]",
                f"card {card} ({state.catalogue.cards[card].id!r}) is not on the timetable (R7.1)",
            )
        if card in state.held[:i]:
            _fail(f"held[{i}]", f"card {card} is held twice")


def _check_cars(state: GameState) -> None:
    """C-stock.1: the cars of each code over the yards, trains, station cards and boxes make
    up the supply."""
    trays, standing, boxed = [0] * N_CAR_CODES, [0] * N_CAR_CODES, [0] * N_CAR_CODES
    for tray in state.trays:
        for code in tray.consist:
            if code != ENGINE:  # C-stock.3
                trays[unflipped(code)] += 1
    for station in state.stations:
        for cars in station.cars.values():
            for code in cars:
                standing[unflipped(code)] += 1
        for boxes in station.boxes.values():
            for code in boxes.cars():
                boxed[code] += 1
    places = {
        "Division Yard": state.division,
        "Classification Yard": state.classification,
        "trains": trays,
        "station cards": standing,
        "facility boxes": boxed,
    }
    for code, supply in enumerate(state.catalogue.car_supply()):
        total = sum(counts[code] for counts in places.values())
        if total != supply:
            detail = ", ".join(f"{name} {counts[code]}" for name, counts in places.items())
            _fail(
                "cars",
                f"{total} {car_name(code)} car(s) in the game ({detail}); "
                f"the supply has {supply} (C-stock.1)",
            )


def _check_revenue(state: GameState) -> None:
    """R2.4.7: a seat's revenue is the sum of its ledger entries."""
    totals = [0] * state.n
    for entry in state.ledger:
        totals[entry.seat] += entry.amount
    for seat, (revenue, total) in enumerate(zip(state.revenue_by_seat, totals, strict=True)):
        if revenue != total:
            _fail(
                f"revenue[{seat}]",
                f"{_show(revenue)} is not the sum of seat {seat}'s ledger entries, {_show(total)} (R2.4.7)",
            )


def _check_trays(state: GameState) -> None:
    """C-trays.1: a tray is free, or one train in one place with one engine."""
    on_line: dict[tuple[int, int], int] = {}
    for i, tray in enumerate(state.trays):
        path = f"trays[{i}]"
        if tray.train == EMPTY:
            if tray.snapshot() != _FREE_TRAY:
                _fail(
                    path,
                    f"a free tray (train -1) has nothing else set: "
                    f"expected {_FREE_TRAY}, got {tray.snapshot()}",
                )
            continue
        spec = state.catalogue.cards[tray.train]
        if spec.kind is CardKind.TRAIN and tray.train not in state.timetable:
            _fail(path, f"timetabled train {spec.id!r} runs but is not on the timetable (R10.3)")
        if state.phase is Phase.EXTRA_SIDE and i == state.building:
            _check_waiting_extra(tray, path)
            continue
        _check_train_place(state, i, on_line)
        if tray.consist.count(ENGINE) != 1:
            _fail(path, f"a train has exactly one engine (-1) in its consist, got {list(tray.consist)}")
        if tray.direction == 0:
            _fail(path, "a train runs east (1) or west (-1), not 0")


def _check_waiting_extra(tray: Tray, path: str) -> None:
    """R7.5: an Extra whose Division Point is still to be chosen has a tray and nothing else."""
    expected = Tray()
    expected.train = tray.train
    if tray.snapshot() != expected.snapshot():
        _fail(
            path, f"an Extra waiting for its Division Point is only a card on a tray, got {tray.snapshot()}"
        )


def _check_train_place(state: GameState, index: int, on_line: dict[tuple[int, int], int]) -> None:
    """A train is at its Division Point, on a free region of a Mainline card (recorded in
    ``on_line``), or on a cell of a station; the fields of the other places are unset."""
    tray, path = state.trays[index], f"trays[{index}]"
    places = [
        name
        for name, here in (
            ("at its Division Point", tray.at_dp),
            ("on a Mainline card", tray.line != EMPTY),
            ("in a station", tray.office != EMPTY),
        )
        if here
    ]
    if len(places) != 1:
        _fail(path, f"a train is in exactly one place; this one is {' and '.join(places) or 'nowhere'}")
    if tray.office != EMPTY:
        station = state.stations[tray.office]
        if tray.cell is None or tray.cell not in station.grid:
            _fail(
                path, f"its cell {tray.cell and list(tray.cell)} is not on the grid of station {tray.office}"
            )
        standing = len(station.cars.get(tray.cell, ()))
        if tray.split > standing:
            _fail(path, f"split {tray.split} is more than the {standing} car(s) standing on its cell")
    elif tray.cell is not None or tray.split:
        _fail(path, "a train outside the stations has no cell (null) and split 0")
    if tray.line != EMPTY:
        regions = state.catalogue.cards[state.mainline[tray.line]].regions
        if tray.region >= regions:
            _fail(path, f"Mainline {tray.line} has regions 0..{regions - 1}, not {tray.region}")
        other = on_line.get((tray.line, tray.region))
        if other is not None:
            _fail(
                path,
                f"region {tray.region} of Mainline {tray.line} is taken by trays[{other}] (D-mainline.3)",
            )
        on_line[tray.line, tray.region] = index
        if tray.cleared_by == EMPTY:
            _fail(path, "a train on the Mainline records the Superintendent who cleared it (cleared_by)")
    elif tray.region:
        _fail(path, "a train off the Mainline has region 0")


def _check_phase(state: GameState) -> None:
    """The phase agrees with who decides (R5.0.1): the seat in turn, or ``actor``."""
    phase, n = state.phase, state.n
    name = phase.value
    if phase in SEAT_TURN_PHASES:
        if not state.turn < n:
            _fail("turn", f"{state.turn} is not a seat position (0..{n - 1}), as {name!r} needs")
        if state.actor != EMPTY:
            _fail("actor", f"must be -1 in {name!r}, where the seat in turn decides; got {state.actor}")
    elif phase in TRAIN_PHASES:
        if state.actor == EMPTY:
            _fail("actor", f"{name!r} needs the deciding seat (0..{n - 1}), got -1")
        if state.turn != n:
            _fail("turn", f"must be {n} in {name!r}: every seat has had its Local Operations turn")
    if (phase is Phase.SWITCHING) != (state.moves_left > 0):
        _fail("moves_left", f"{state.moves_left} Moves left do not fit {name!r} (R6.1.2)")
    if (phase in _BUILD_PHASES) != (state.building != EMPTY):
        _fail("building", f"a train is being made up exactly in the New Train decisions, not in {name!r}")
    if phase in _BUILD_PHASES:
        _check_building(state)
    if phase is Phase.CLEARANCE and state.actor != state.fedora:
        _fail("actor", f"the Superintendent (seat {state.fedora}) clears a following train (R8.1.4)")
    if phase in (Phase.CLEARANCE, Phase.RED_FLAG):
        if not state.mainline_queue or state.trays[state.mainline_queue[0]].train == EMPTY:
            _fail("mainline_queue", f"{name!r} needs the acting train first in the queue")
    elif state.mainline_queue:
        _fail("mainline_queue", f"trains queue only during the Mainline decisions, not in {name!r}")
    if phase is Phase.RED_FLAG:
        _check_red_flag(state)
    elif state.collision is not None:
        _fail("collision", f"a collision waits only in 'red_flag', not in {name!r}")


def _check_building(state: GameState) -> None:
    """R7.4, R7.5: the train being made up, and the seat choosing its cars."""
    if state.trays[state.building].train == EMPTY:
        _fail("building", f"trays[{state.building}] is free: no train is being made up on it")
    extra = state.phase is not Phase.NEW_TRAIN
    if extra and state.actor != state.build_owner:
        _fail("actor", f"the Extra's owner (seat {state.build_owner}) decides, not seat {state.actor}")
    if not extra and state.build_owner != EMPTY:
        _fail("building", "a timetabled train has no owner (-1)")
    if not extra and state.build_turn >= state.n:
        _fail("building", f"every seat has added its car; turn {state.build_turn} is not a seat position")
    if not extra and state.actor != (state.fedora + state.build_turn) % state.n:
        seat = (state.fedora + state.build_turn) % state.n
        _fail(
            "actor", f"seat {seat} adds the next car (R7.4: from the Superintendent), not seat {state.actor}"
        )


def _check_red_flag(state: GameState) -> None:
    """D-redflag.1: the seat to be charged the waiting collision holds a RED FLAG."""
    collision = state.collision
    if collision is None:
        _fail("collision", "'red_flag' needs the collision waiting for the decision, got null")
    if collision.seat != state.actor:
        _fail("actor", f"seat {collision.seat}, charged with the collision, decides; not seat {state.actor}")
    if state.red_flag_card not in state.hands[collision.seat]:
        _fail(f"hands[{collision.seat}]", "the seat deciding on a RED FLAG holds none (D-redflag.1)")
    if collision.mover != state.mainline_queue[0]:
        _fail("collision", f"the moving train is trays[{state.mainline_queue[0]}], first in the queue")
    if state.trays[collision.mover].train == EMPTY:
        _fail("collision", f"the moving trays[{collision.mover}] is free")
    if collision.struck != EMPTY:
        if state.trays[collision.struck].train == EMPTY:
            _fail("collision", f"the struck trays[{collision.struck}] is free")
    elif collision.office == EMPTY or collision.cell not in state.stations[collision.office].cars:
        _fail("collision", "a train striking standing cars names their office and a cell where cars stand")


__all__ = ["DERIVED_SLOTS", "SNAPSHOT_KEYS", "TRAIN_PHASES", "from_snapshot"]

"""The rules core of Station Master (see the modules; README.md, "How the core is built").

The core is pure Python. Built with ``SM_ENV_COMPILE=1 pip install .`` (``setup.py``), its hot
modules (``COMPILED``), and the environments' (``sm_env.COMPILED``), are also compiled with
mypyc into C extension modules installed beside their sources, and Python loads those. Compiled
or not, the same seed and decisions make the same game, bit for bit, and the same observations
(``tests/test_compiled.py`` holds the two builds to the same corpus hashes); the pure build is
the sources themselves. ``compiled_modules()`` names the modules that were loaded compiled.

A compiled module never stands in for an edited source: the build records the hash of every
source it compiled (``COMPILED_SOURCES``), and importing the package refuses extension modules
whose sources beside them differ from what was compiled, or that no build recorded.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import sys
from collections.abc import Sequence
from pathlib import Path

# The modules mypyc compiles (setup.py reads this list): every rules module that runs in play,
# the board queries they call (``queries``) and the state. The engine stays Python: its tables
# are what tests and tools watch and patch (``PHASES``, ``STEPS``), and ``new_game`` must refuse
# a bad seed with a ConfigError, where a compiled function's typed arguments would raise a
# TypeError first. Setup, snapshots, replays, text, the catalogue, the intents and the config
# stay Python too: they run once per game, or are data the compiled modules read.
COMPILED = (
    "state",
    "pieces",
    "rng",
    "chance",
    "grid",
    "card_play",
    "local_ops",
    "switching",
    "new_train",
    "mainline",
    "collisions",
    "cargo",
    "stage_end",
    "yards",
    "decks",
    "trains",
    "queries",
    "revenue",
    "cars",
)


COMPILED_SOURCES = "compiled-sources.json"  # setup.py writes it into a compiled build


def _check_compiled_build() -> None:
    """Refuse extension modules of this package that were not compiled from the sources beside
    them (a source edited after the build, or an extension left behind by another build)."""
    package = Path(__file__).resolve().parent.parent
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    folders = (package, package / "core")
    built = [path for folder in folders for path in folder.iterdir() if path.name.endswith(suffixes)]
    if not built:
        return
    try:
        recorded = json.loads((package / "core" / COMPILED_SOURCES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        recorded = {}
    stale = []
    for extension in built:
        source = extension.with_name(extension.name.partition(".")[0] + ".py")
        if not source.is_file():
            continue  # mypyc's shared runtime library, which has no source of its own
        key = source.relative_to(package).as_posix()
        if recorded.get(key) != hashlib.sha256(source.read_bytes()).hexdigest():
            stale.append(key)
    if stale:
        raise ImportError(
            f"sm_env: the compiled {', '.join(sorted(stale))} in {package} were not built from the "
            "sources beside them; rebuild (SM_ENV_COMPILE=1 pip install .) or delete the extension modules"
        )


_check_compiled_build()


def compiled_modules(package: str = __name__, names: Sequence[str] = COMPILED) -> list[str]:
    """Which of ``names`` in ``package`` (the core's hot modules by default) were loaded so far
    as compiled extensions (none in the pure build)."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    out = []
    for name in names:
        module = sys.modules.get(f"{package}.{name}")
        if module is not None and str(getattr(module, "__file__", "")).endswith(suffixes):
            out.append(name)
    return out


# ---------------------------------------------------------------------------- the public face
# What a bot, a table, a tool or a test needs, in one place: code above the core imports these
# names from ``sm_env.core``, never a rules module (tests/test_layering.py holds agents/ and
# experiments/ to it). The modules behind them are free to change. They load after the check
# of the compiled build above, hence the late imports.
# ruff: noqa: E402

from sm_env.core.cars import (  # rolling-stock codes (C-stock.1)
    BOXCAR,
    CABOOSE,
    CABOOSE_CODE,
    CAR_TYPES,
    COACH,
    EMPTY_COACH,
    ENGINE,
    FLIPPED,
    HOPPER,
    LOADED_COACH,
    N_CAR_CODES,
    REEFER,
    TANK,
    car_code,
    car_name,
    car_type,
    is_flipped,
    unflipped,
)
from sm_env.core.catalogue import (
    CardKind,
    CardType,
    Catalogue,
    Deck,
    FacilitySpec,
    decode_json,
    load_catalogue,
    parse_catalogue,
)
from sm_env.core.chance import ForcedRolls, force_rolls
from sm_env.core.collisions import COLLISION_PENALTY
from sm_env.core.config import MAX_OFFICES, MIN_OFFICES, RULES_EDITION, GameConfig, HouseRules, Mode
from sm_env.core.editing import PositionError, edit  # the one way to edit a position by hand
from sm_env.core.engine import load_snapshot, new_game
from sm_env.core.errors import (
    CatalogueError,
    ConfigError,
    IllegalIntent,
    ReplayError,
    SnapshotError,
    StationMasterError,
    cut_line,
    shown_value,
)
from sm_env.core.grid import (
    COL_LIMIT,
    END_NAMES,
    END_OFFSET,
    NE,
    NW,
    ROW_LIMIT,
    SE,
    SW,
    E,
    W,
    cell_ends,
    geometry_for,
    is_locked,
    limits_cols,
    place,
    placements_by_card,
)
from sm_env.core.intents import (
    INTENT_CLASSES,
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
    intent_from_json,
    intent_to_json,
)
from sm_env.core.invariants import check_conservation, check_invariants
from sm_env.core.phases import Phase
from sm_env.core.pieces import EMPTY, OFFICE_CELL, WORK_SLOTS, Boxes, Station, Tray
from sm_env.core.queries import (  # board queries that rules and bots share
    HAND_LIMIT,
    ad_tracks,
    box_room,
    capacity_bonus,
    eta,
    facility_spec,
    free_slot,
    makeup_problem,
    move_graph,
    moves_for_switch,
    office_tier,
    porters,
    reachable,
    reachable_cells,
    regions,
    room,
    spec_of,
    start_line,
    train_label,
    train_takes,
    tray_on_region,
    trays_at,
    workers,
)
from sm_env.core.registry import CARGO_TYPES, CELL, CELLS, INTENTS, Block, Param  # action layout
from sm_env.core.replay import FORMAT as REPLAY_FORMAT
from sm_env.core.replay import (
    Replay,
    load_position,
    load_replay,
    parse_position,
    parse_replay,
    position_to_json,
    save_position,
    write_atomically,
)
from sm_env.core.rng import Rng
from sm_env.core.scenarios import apply_scenarios, scenario_names
from sm_env.core.state import (
    CLOCK,
    DEPARTMENTS,
    HIDDEN,
    STAGES_PER_DAY,
    Event,
    GameState,
    LedgerEntry,
    SeatView,
)
from sm_env.core.switching import MAX_TRAY_CARS, after_move, apply_move, station_moves
from sm_env.core.text import (
    board_text,
    car_label,
    card_name,
    consist_label,
    describe,
    event_text,
    render_division,
    render_station,
    waiting_lines,
    yard_text,
)

__all__ = [
    "AddCar",
    "Area",
    "BOXCAR",
    "Block",
    "Board",
    "Boxes",
    "CABOOSE",
    "CABOOSE_CODE",
    "CARGO_TYPES",
    "CAR_TYPES",
    "CELL",
    "CELLS",
    "CLOCK",
    "COACH",
    "COLLISION_PENALTY",
    "COL_LIMIT",
    "COMPILED",
    "CardKind",
    "CardType",
    "Catalogue",
    "CatalogueError",
    "Cell",
    "ChooseDivisionPoint",
    "ChooseSwitch",
    "ClearInbound",
    "Clearance",
    "ConfigError",
    "DEPARTMENTS",
    "Deck",
    "Detrain",
    "Discard",
    "DrawDepartment",
    "DrawHomeOffice",
    "E",
    "EMPTY",
    "EMPTY_COACH",
    "END_NAMES",
    "END_OFFSET",
    "ENGINE",
    "EndCargo",
    "EndConsist",
    "EndSwitching",
    "EndTurn",
    "Event",
    "FLIPPED",
    "FacilitySpec",
    "ForcedRolls",
    "GameConfig",
    "GameState",
    "HAND_LIMIT",
    "HIDDEN",
    "HOPPER",
    "HouseRules",
    "INTENTS",
    "INTENT_CLASSES",
    "IllegalIntent",
    "Intent",
    "IntentKind",
    "LOADED_COACH",
    "Labor",
    "LedgerEntry",
    "MAX_OFFICES",
    "MAX_TRAY_CARS",
    "MIN_OFFICES",
    "Mode",
    "MoveTray",
    "NE",
    "NW",
    "N_CAR_CODES",
    "OFFICE_CELL",
    "Param",
    "Pass",
    "Phase",
    "PlaceCard",
    "PlaceModifier",
    "PlayCard",
    "PositionError",
    "REEFER",
    "REPLAY_FORMAT",
    "ROW_LIMIT",
    "RULES_EDITION",
    "RedFlag",
    "Replay",
    "ReplayError",
    "Rng",
    "SE",
    "STAGES_PER_DAY",
    "SW",
    "SeatView",
    "SnapshotError",
    "Spot",
    "Station",
    "StationMasterError",
    "StockOutbound",
    "TANK",
    "Tray",
    "Unjam",
    "W",
    "WORK_SLOTS",
    "ad_tracks",
    "after_move",
    "apply_move",
    "apply_scenarios",
    "board_text",
    "box_room",
    "capacity_bonus",
    "car_code",
    "car_label",
    "car_name",
    "car_type",
    "card_name",
    "cell_ends",
    "check_conservation",
    "check_invariants",
    "compiled_modules",
    "consist_label",
    "cut_line",
    "decode_json",
    "describe",
    "edit",
    "eta",
    "event_text",
    "facility_spec",
    "force_rolls",
    "free_slot",
    "geometry_for",
    "intent_from_json",
    "intent_to_json",
    "is_flipped",
    "is_locked",
    "limits_cols",
    "load_catalogue",
    "load_position",
    "load_replay",
    "load_snapshot",
    "makeup_problem",
    "move_graph",
    "moves_for_switch",
    "new_game",
    "office_tier",
    "parse_catalogue",
    "parse_position",
    "parse_replay",
    "place",
    "placements_by_card",
    "porters",
    "position_to_json",
    "reachable",
    "reachable_cells",
    "regions",
    "render_division",
    "render_station",
    "room",
    "save_position",
    "scenario_names",
    "shown_value",
    "spec_of",
    "start_line",
    "station_moves",
    "train_label",
    "train_takes",
    "tray_on_region",
    "trays_at",
    "unflipped",
    "waiting_lines",
    "workers",
    "write_atomically",
    "yard_text",
]

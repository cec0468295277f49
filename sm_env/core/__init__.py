"""The rules core of Station Master (see the modules; README.md, "How the core is built").

The core is pure Python. Built with ``SM_ENV_COMPILE=1`` (``setup.py``), its hot modules
(``COMPILED``), and the environments' (``sm_env.COMPILED``), are also compiled with mypyc into
C extension modules installed beside their sources; Python then loads those. Compiled or not,
the same seed and decisions make the same game, bit for bit, and the same observations
(``tests/test_compiled.py`` holds the two builds to the same corpus hashes). With
``SM_ENV_PURE=1`` in the environment the sources of the whole package are loaded even where
the compiled modules are installed: the pure-Python fallback, for comparison and debugging.
``compiled_modules()`` names the modules that were loaded compiled.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from types import ModuleType

# The modules mypyc compiles (setup.py reads this list): every rules module that runs in play,
# and the state. The engine stays Python: its tables are what tests and tools watch and patch
# (``PHASES``, ``STEPS``), and ``new_game`` must refuse a bad seed with a ConfigError, where a
# compiled function's typed arguments would raise a TypeError first. Setup, snapshots, replays,
# text, the catalogue, the intents and the config stay Python too: they run once per game, or
# are data the compiled modules read.
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
    "revenue",
    "cars",
)

PURE = bool(os.environ.get("SM_ENV_PURE"))  # load the sources even where compiled modules exist


PACKAGE = __name__.partition(".")[0]  # sm_env: the environments' modules are compiled too


class _SourcesFirst(importlib.abc.MetaPathFinder):
    """Finds any ``sm_env.<...>`` module as its ``.py`` source, skipping a compiled extension
    (``sm_env/__init__.py`` imports this package first, so this is in place before any)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(PACKAGE + "."):
            return None
        name = fullname.rpartition(".")[2]
        for folder in path or __path__:
            source = os.path.join(folder, name + ".py")
            if os.path.isfile(source):
                return importlib.util.spec_from_file_location(fullname, source)
        return None


if PURE:
    sys.meta_path.insert(0, _SourcesFirst())


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
# experiments/ to it). The modules behind them are free to change.

# Board queries that rules and bots share.
from sm_env.core.card_play import HAND_LIMIT  # noqa: E402
from sm_env.core.cargo import capacity_bonus, facility_spec, room, workers  # noqa: E402
from sm_env.core.cars import (  # noqa: E402  # rolling-stock codes (C-stock.1)
    BOXCAR,
    CABOOSE,
    CABOOSE_CODE,
    CAR_TYPES,
    COACH,
    ENGINE,
    FLIPPED,
    HOPPER,
    N_CAR_CODES,
    REEFER,
    TANK,
    car_code,
    car_name,
    car_type,
    is_flipped,
    unflipped,
)
from sm_env.core.catalogue import (  # noqa: E402
    CardKind,
    CardType,
    Catalogue,
    Deck,
    FacilitySpec,
    load_catalogue,
    parse_catalogue,
)
from sm_env.core.chance import ForcedRolls, force_rolls  # noqa: E402
from sm_env.core.collisions import COLLISION_PENALTY  # noqa: E402
from sm_env.core.config import MAX_OFFICES, MIN_OFFICES, RULES_EDITION, GameConfig, HouseRules, Mode  # noqa: E402
from sm_env.core.editing import PositionError, edit  # noqa: E402  # the one way to edit a position by hand
from sm_env.core.engine import load_snapshot, new_game  # noqa: E402
from sm_env.core.errors import (  # noqa: E402
    CatalogueError,
    ConfigError,
    IllegalIntent,
    ReplayError,
    SnapshotError,
    StationMasterError,
)
from sm_env.core.grid import (  # noqa: E402
    COL_LIMIT,
    EAST_SIDE_MASK,
    END_NAMES,
    END_OFFSET,
    NE,
    NW,
    ROW_LIMIT,
    SE,
    SW,
    WEST_SIDE_MASK,
    E,
    W,
    cell_ends,
    end_direction,
    geometry_for,
    is_locked,
    limits_cols,
    neighbour,
    place,
    placements_by_card,
)
from sm_env.core.intents import (  # noqa: E402
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
from sm_env.core.invariants import check_conservation, check_invariants  # noqa: E402
from sm_env.core.local_ops import MOVES_AT_NIGHT, MOVES_PER_SWITCH, NIGHT_STAGES  # noqa: E402
from sm_env.core.mainline import eta, makeup_problem, regions, start_line  # noqa: E402
from sm_env.core.phases import Phase  # noqa: E402
from sm_env.core.pieces import EMPTY, OFFICE_CELL, WORK_SLOTS, Boxes, Station, Tray  # noqa: E402
from sm_env.core.registry import CARGO_TYPES, CELL, CELLS, INTENTS, Block, Param  # noqa: E402  # action layout
from sm_env.core.replay import FORMAT as REPLAY_FORMAT  # noqa: E402
from sm_env.core.replay import (  # noqa: E402
    Replay,
    load_position,
    load_replay,
    parse_position,
    parse_replay,
    position_to_json,
    save_position,
)
from sm_env.core.rng import Rng  # noqa: E402
from sm_env.core.scenarios import apply_scenarios, scenario_names  # noqa: E402
from sm_env.core.state import (  # noqa: E402
    CLOCK,
    DEPARTMENTS,
    HIDDEN,
    STAGES_PER_DAY,
    Event,
    GameState,
    LedgerEntry,
    SeatView,
)
from sm_env.core.switching import MAX_TRAY_CARS, apply_move, list_moves  # noqa: E402
from sm_env.core.text import (  # noqa: E402
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
from sm_env.core.trains import spec_of, train_label, tray_on_region  # noqa: E402

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
    "EAST_SIDE_MASK",
    "EMPTY",
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
    "Labor",
    "LedgerEntry",
    "MAX_OFFICES",
    "MAX_TRAY_CARS",
    "MIN_OFFICES",
    "MOVES_AT_NIGHT",
    "MOVES_PER_SWITCH",
    "Mode",
    "MoveTray",
    "NE",
    "NIGHT_STAGES",
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
    "WEST_SIDE_MASK",
    "WORK_SLOTS",
    "apply_move",
    "apply_scenarios",
    "board_text",
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
    "describe",
    "edit",
    "end_direction",
    "eta",
    "event_text",
    "facility_spec",
    "force_rolls",
    "geometry_for",
    "intent_from_json",
    "intent_to_json",
    "is_flipped",
    "is_locked",
    "limits_cols",
    "list_moves",
    "load_catalogue",
    "load_position",
    "load_replay",
    "load_snapshot",
    "makeup_problem",
    "neighbour",
    "new_game",
    "parse_catalogue",
    "parse_position",
    "parse_replay",
    "place",
    "placements_by_card",
    "position_to_json",
    "regions",
    "render_division",
    "render_station",
    "room",
    "save_position",
    "scenario_names",
    "spec_of",
    "start_line",
    "train_label",
    "tray_on_region",
    "unflipped",
    "waiting_lines",
    "workers",
    "yard_text",
]

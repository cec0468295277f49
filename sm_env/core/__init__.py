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

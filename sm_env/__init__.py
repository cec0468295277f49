"""Station Master as a reinforcement-learning environment.

- ``sm_env.env(**config)`` / ``sm_env.raw_env(**config)``: the PettingZoo AEC environment of the
  newest version, ``station_master_v1`` (``sm_env.station_master_v1``, loaded on first use):
  decisions spelled in a few tokens of a small action space, a compact observation. The
  unversioned names have meant v1 since issue 21; ``env_v1`` / ``raw_env_v1`` stay as aliases;
- ``sm_env.station_master_v0.env(**config)`` / ``.raw_env``: ``station_master_v0``, live beside
  it, every decision one action of a flat ``Discrete(6488)`` (docs/actions.md);
- ``gymnasium.make("StationMaster-v1" or "StationMaster-v0", opponents=..., **config)``: the
  single-agent views (``sm_env.single_agent``), registered once this package is imported and
  Gymnasium is too;
- ``sm_env.core``: the rules engine, pure Python, usable without any RL framework.

Built with ``SM_ENV_COMPILE=1`` (setup.py), the environments' hot modules (``COMPILED``: the
token speller and the v1 observation encoder, which every step runs) are compiled with mypyc
beside the core's; ``compiled_modules()`` names those loaded compiled.

Importing ``sm_env.core`` runs this file too, so it must not import Gymnasium: the registration
is done at once when Gymnasium is already loaded, and otherwise the moment it is (an import
hook that waits for ``gymnasium`` and then goes away), so ``import sm_env`` before or after
``import gymnasium`` both let ``gymnasium.make("StationMaster-v1")`` work. Gymnasium's own
entry-point plugins (``gymnasium.envs``) would do this without a hook, but Gymnasium 1.0
removed them (its release notes: "Removing the plugin system"), and this package needs 1.0 or
later; ``gymnasium.make("sm_env:StationMaster-v1")`` imports the package itself, which a
fresh interpreter (a worker process, say) needs.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from sm_env import core  # first: it refuses compiled modules not built from the sources beside them
from sm_env.layout import IllegalActionError

# The environment modules mypyc compiles (setup.py reads this list, beside sm_env.core.COMPILED).
COMPILED = ("actions_v1", "observations_v1")


def compiled_modules() -> list[str]:
    """Which of ``COMPILED`` were loaded so far as compiled extensions (none when pure)."""
    return core.compiled_modules(__name__, COMPILED)


GYM_ID_V0 = "StationMaster-v0"
GYM_ID_V1 = "StationMaster-v1"
GYM_ID = GYM_ID_V1  # the newest version
ENTRY_POINT_V0 = "sm_env.single_agent:StationMasterEnvV0"
ENTRY_POINT_V1 = "sm_env.single_agent:StationMasterEnvV1"


def _register(gymnasium: ModuleType) -> None:
    for gym_id, entry_point in ((GYM_ID_V0, ENTRY_POINT_V0), (GYM_ID_V1, ENTRY_POINT_V1)):
        if gym_id not in gymnasium.registry:
            gymnasium.register(id=gym_id, entry_point=entry_point)
    # Gymnasium warns "out of date" when an older version of a name is made while a newer one
    # is registered; v0 stays fully supported, so the v1 spec does not take part in that check
    # (its ``version`` is left unset; ``gymnasium.make("StationMaster-v1")`` finds it by id).
    gymnasium.registry[GYM_ID_V1].version = None


class _RegisterOnLoad(importlib.abc.Loader):
    """Gymnasium's own loader, registering the environment once the module has run."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _GymnasiumWatcher)]
        _register(module)

    def __getattr__(self, name: str) -> Any:  # get_resource_reader, is_package, get_code, ...
        return getattr(self._loader, name)


class _GymnasiumWatcher(importlib.abc.MetaPathFinder):
    """Finds nothing itself: asked for ``gymnasium``, it hands back the spec the other finders
    give, with the registering loader. It leaves ``sys.meta_path`` only once Gymnasium has run
    (a mere ``importlib.util.find_spec("gymnasium")``, checking it is installed, loads nothing)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "gymnasium":
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec: importlib.machinery.ModuleSpec | None = find(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _RegisterOnLoad(spec.loader)
                return spec
        return None


def _register_now_or_on_import() -> None:
    gymnasium = sys.modules.get("gymnasium")
    if gymnasium is not None and hasattr(gymnasium, "registry"):
        _register(gymnasium)
    elif not any(isinstance(finder, _GymnasiumWatcher) for finder in sys.meta_path):
        sys.meta_path.insert(0, _GymnasiumWatcher())


_register_now_or_on_import()


VERSIONS = ("station_master_v0", "station_master_v1")  # the live versions, oldest first


def __getattr__(name: str) -> Any:
    """The environments, loaded on first use (they need Gymnasium and PettingZoo)."""
    if name in ("env", "raw_env", "env_v1", "raw_env_v1"):
        return getattr(importlib.import_module(f"sm_env.{VERSIONS[-1]}"), name.removesuffix("_v1"))
    if name in VERSIONS:
        return importlib.import_module(f"sm_env.{name}")
    raise AttributeError(f"module 'sm_env' has no attribute {name!r}")


__all__ = [
    "COMPILED",
    "GYM_ID",
    "GYM_ID_V0",
    "GYM_ID_V1",
    "VERSIONS",
    "IllegalActionError",
    "compiled_modules",
    "env",
    "env_v1",
    "raw_env",
    "raw_env_v1",
    "station_master_v0",
    "station_master_v1",
]

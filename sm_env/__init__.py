"""Station Master as a reinforcement-learning environment.

- ``sm_env.env_v1(**config)`` / ``sm_env.raw_env_v1(**config)``: the PettingZoo AEC
  environment ``station_master_v1`` (``sm_env.aec_v1``, loaded on first use), the recommended
  version: decisions spelled in a few tokens of a small action space, a compact observation;
- ``sm_env.env(**config)`` / ``sm_env.raw_env(**config)``: ``station_master_v0`` (``sm_env.aec``);
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
``import gymnasium`` both let ``gymnasium.make("StationMaster-v0")`` work.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from sm_env import core  # first: it refuses compiled modules not built from the sources beside them

# The environment modules mypyc compiles (setup.py reads this list, beside sm_env.core.COMPILED).
COMPILED = ("actions_v1", "observations_v1")


def compiled_modules() -> list[str]:
    """Which of ``COMPILED`` were loaded so far as compiled extensions (none when pure)."""
    return core.compiled_modules(__name__, COMPILED)


GYM_ID = "StationMaster-v0"
ENTRY_POINT = "sm_env.single_agent:StationMasterEnv"
GYM_ID_V1 = "StationMaster-v1"
ENTRY_POINT_V1 = "sm_env.single_agent:StationMasterEnvV1"


def _register(gymnasium: ModuleType) -> None:
    for gym_id, entry_point in ((GYM_ID, ENTRY_POINT), (GYM_ID_V1, ENTRY_POINT_V1)):
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


def __getattr__(name: str) -> Any:
    if name in ("env", "raw_env"):
        from sm_env import aec

        return getattr(aec, name)
    if name in ("env_v1", "raw_env_v1"):
        from sm_env import aec_v1

        return getattr(aec_v1, name)
    raise AttributeError(f"module 'sm_env' has no attribute {name!r}")


__all__ = ["COMPILED", "GYM_ID", "GYM_ID_V1", "compiled_modules", "env", "env_v1", "raw_env", "raw_env_v1"]

"""The PEP 517 build backend: setuptools' own, with mypy (and numpy) added to the build
requirements when the hot modules are to be compiled (``SM_ENV_COMPILE=1``, see setup.py), and
refusing a compiled editable install, whose extension modules would stand in the source tree
in place of the sources being edited."""

from __future__ import annotations

import os
from collections.abc import Callable

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  # every hook as setuptools has it

MYPYC = "mypy>=1.10"  # mypyc comes with mypy
NUMPY = "numpy>=1.26"  # the types of the compiled observation encoder
COMPILE = "SM_ENV_COMPILE"


def _compile_requested() -> bool:
    return os.environ.get(COMPILE, "").strip().lower() in ("1", "true", "yes", "on")


def _listing(hook: Callable[[dict[str, object] | None], list[str]]) -> Callable[..., list[str]]:
    """A requirements hook of setuptools, which runs setup.py: it runs as for a pure build, since
    mypyc, which a compiled build's setup.py imports, is one of the requirements it lists."""

    def listed(config_settings: dict[str, object] | None = None) -> list[str]:
        if not _compile_requested():
            return list(hook(config_settings))
        flag = os.environ.pop(COMPILE)
        try:
            return list(hook(config_settings)) + [MYPYC, NUMPY]
        finally:
            os.environ[COMPILE] = flag

    return listed


def build_editable(
    wheel_directory: str,
    config_settings: dict[str, object] | None = None,
    metadata_directory: str | None = None,
) -> str:
    if _compile_requested():
        raise SystemExit(
            f"{COMPILE}=1 builds a wheel, not an editable install: its extension modules would stand "
            f"in the source tree in place of the sources you edit. Use: {COMPILE}=1 pip install ."
        )
    return str(_setuptools.build_editable(wheel_directory, config_settings, metadata_directory))


get_requires_for_build_wheel = _listing(_setuptools.get_requires_for_build_wheel)
get_requires_for_build_editable = _listing(_setuptools.get_requires_for_build_editable)

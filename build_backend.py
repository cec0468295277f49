"""The PEP 517 build backend: setuptools' own, with mypy (and numpy) added to the build
requirements when the hot modules are to be compiled (``SM_ENV_COMPILE=1``, see setup.py)."""

from __future__ import annotations

import os
from collections.abc import Callable

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  # every hook as setuptools has it

MYPYC = "mypy>=1.10"  # mypyc comes with mypy
NUMPY = "numpy>=1.26"  # the types of the compiled observation encoder


def _compile_requires() -> list[str]:
    flag = os.environ.get("SM_ENV_COMPILE", "").strip().lower()
    return [MYPYC, NUMPY] if flag in ("1", "true", "yes", "on") else []


def _listing(hook: Callable[[dict[str, object] | None], list[str]]) -> Callable[..., list[str]]:
    """A requirements hook of setuptools, which runs setup.py: told (by the environment) that it
    only lists requirements, setup.py leaves mypyc alone, which may not be installed yet."""

    def listed(config_settings: dict[str, object] | None = None) -> list[str]:
        os.environ["SM_ENV_LISTING_REQUIREMENTS"] = "1"
        try:
            return list(hook(config_settings)) + _compile_requires()
        finally:
            del os.environ["SM_ENV_LISTING_REQUIREMENTS"]

    return listed


get_requires_for_build_wheel = _listing(_setuptools.get_requires_for_build_wheel)
get_requires_for_build_editable = _listing(_setuptools.get_requires_for_build_editable)

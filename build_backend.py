"""The PEP 517 build backend: setuptools' own, with mypy added to the build requirements when
the rules core is to be compiled (``SM_ENV_COMPILE=1``, see setup.py)."""

from __future__ import annotations

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  # every hook as setuptools has it

MYPYC = "mypy>=1.10"  # mypyc comes with mypy


def _compile_requires() -> list[str]:
    flag = os.environ.get("SM_ENV_COMPILE", "").strip().lower()
    return [MYPYC] if flag in ("1", "true", "yes", "on") else []


def get_requires_for_build_wheel(config_settings: dict[str, object] | None = None) -> list[str]:
    return list(_setuptools.get_requires_for_build_wheel(config_settings)) + _compile_requires()


def get_requires_for_build_editable(config_settings: dict[str, object] | None = None) -> list[str]:
    return list(_setuptools.get_requires_for_build_editable(config_settings)) + _compile_requires()

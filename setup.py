"""The optional compiled core. ``pip install .`` and ``pip install -e .`` build pure Python
(all the metadata is in pyproject.toml). With ``SM_ENV_COMPILE=1`` in the environment, the
hot modules of the rules core (``sm_env.core.COMPILED``) and of the environments
(``sm_env.COMPILED``) are compiled with mypyc into C extension modules, installed beside
their sources; that needs a C compiler, and mypy, which
the build backend (build_backend.py) then adds to the build requirements. The sources stay the
pure-Python fallback, and play the same games (``SM_ENV_PURE=1`` loads them instead).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent


def compile_requested() -> bool:
    return os.environ.get("SM_ENV_COMPILE", "").strip().lower() in ("1", "true", "yes", "on")


def compiled_modules(package: str) -> list[str]:
    """``COMPILED`` of a package's ``__init__.py`` (``sm_env/core``, ``sm_env``), read without
    importing the package."""
    init = ROOT / package / "__init__.py"
    tree = ast.parse(init.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "COMPILED" for t in node.targets):
            return [str(name) for name in ast.literal_eval(node.value)]
    raise RuntimeError(f"{init} defines no COMPILED")


def ext_modules() -> list[object]:
    if not compile_requested():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        if os.environ.get("SM_ENV_LISTING_REQUIREMENTS"):  # build_backend.py: mypy comes next
            return []
        raise SystemExit(
            "SM_ENV_COMPILE=1 compiles the core with mypyc, which comes with mypy: "
            "pip install mypy (or let pip's build isolation install it)"
        ) from None

    packages = ("sm_env/core", "sm_env")
    paths = [f"{package}/{name}.py" for package in packages for name in compiled_modules(package)]
    # The compiled modules are type-checked (strictly, as pyproject.toml says); the modules
    # they lead to are read for their types only: Gymnasium and PettingZoo need not be
    # installed where it is built (numpy is, for the encoder's types: build_backend.py).
    return list(mypycify(["--follow-imports=silent", *paths], opt_level="3", debug_level="0"))


setup(ext_modules=ext_modules())

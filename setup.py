"""The optional compiled core. ``pip install .`` and ``pip install -e .`` build pure Python
(all the metadata is in pyproject.toml). With ``SM_ENV_COMPILE=1`` in the environment, the
hot modules of the rules core (``sm_env.core.COMPILED``) are compiled with mypyc into C
extension modules, installed beside their sources; that needs a C compiler, and mypy, which
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


def compiled_modules() -> list[str]:
    """``COMPILED`` of sm_env/core/__init__.py, read without importing the package."""
    tree = ast.parse((ROOT / "sm_env" / "core" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "COMPILED" for t in node.targets):
            return [str(name) for name in ast.literal_eval(node.value)]
    raise RuntimeError("sm_env/core/__init__.py defines no COMPILED")


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

    paths = [f"sm_env/core/{name}.py" for name in compiled_modules()]
    # The compiled modules are type-checked (strictly, as pyproject.toml says); the modules
    # they lead to are read for their types only: the environments' numpy and Gymnasium need
    # not be installed where the core is built.
    return list(mypycify(["--follow-imports=silent", *paths], opt_level="3", debug_level="0"))


setup(ext_modules=ext_modules())

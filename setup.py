"""The optional compiled build. ``pip install .`` and ``pip install -e .`` build pure Python
(all the metadata is in pyproject.toml). ``SM_ENV_COMPILE=1 pip install .`` compiles the hot
modules of the rules core (``sm_env.core.COMPILED``) and of the environments
(``sm_env.COMPILED``) with mypyc into C extension modules installed beside their sources; that
needs a C compiler, and mypy, which the build backend (build_backend.py) then adds to the build
requirements. The build also records the hash of every source it compiled
(``sm_env.core.COMPILED_SOURCES``), so that an extension never runs in place of a source edited
since: importing ``sm_env`` refuses it. The sources are the pure-Python build, and play the
same games.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

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


def compiled_paths() -> list[str]:
    packages = ("sm_env/core", "sm_env")
    return [f"{package}/{name}.py" for package in packages for name in compiled_modules(package)]


def ext_modules() -> list[object]:
    if not compile_requested():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        raise SystemExit(
            "SM_ENV_COMPILE=1 compiles the core with mypyc, which comes with mypy: "
            "pip install mypy (or let pip's build isolation install it)"
        ) from None

    paths = compiled_paths()
    # The compiled modules are type-checked (strictly, as pyproject.toml says); the modules
    # they lead to are read for their types only: Gymnasium and PettingZoo need not be
    # installed where it is built (numpy is, for the encoder's types: build_backend.py).
    return list(mypycify(["--follow-imports=silent", *paths], opt_level="3", debug_level="0"))


class BuildPyRecordingSources(build_py):
    """setuptools' build_py, writing the hashes of the compiled sources into a compiled build."""

    def run(self) -> None:
        super().run()
        if compile_requested():
            hashes = {
                path.removeprefix("sm_env/"): hashlib.sha256((ROOT / path).read_bytes()).hexdigest()
                for path in compiled_paths()
            }
            record = Path(self.build_lib) / "sm_env" / "core" / "compiled-sources.json"
            record.write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n", encoding="utf-8")


setup(ext_modules=ext_modules(), cmdclass={"build_py": BuildPyRecordingSources})

"""Layering: the rules core (sm_env/core) is pure Python; it imports no RL framework, no
deep-learning library and nothing from the bots or experiments built on top of it."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "sm_env" / "core"
FORBIDDEN = ("gymnasium", "gym", "pettingzoo", "torch", "agents", "experiments")
CORE_FILES = sorted(CORE.rglob("*.py"))


def imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names.append(node.args[0].value)
    return names


def test_core_files_exist() -> None:
    names = {p.name for p in CORE_FILES}
    assert {"rng.py", "config.py", "cars.py", "catalogue.py", "intents.py", "state.py", "replay.py"} <= names


@pytest.mark.parametrize("path", CORE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_core_module_imports_nothing_forbidden(path: Path) -> None:
    bad = [name for name in imported_modules(path) if name.split(".")[0] in FORBIDDEN]
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_importing_the_core_loads_nothing_forbidden() -> None:
    code = (
        "import json, sys\n"
        "import sm_env.core.state, sm_env.core.replay, sm_env.core.catalogue\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, timeout=60
    )
    loaded = json.loads(result.stdout)
    bad = [name for name in loaded if name.split(".")[0] in FORBIDDEN]
    assert not bad

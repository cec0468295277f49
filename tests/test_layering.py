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
    """Nothing of the RL stack: the package registers its Gymnasium env only once Gymnasium
    is imported by someone else."""
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


def test_the_core_runs_without_the_rl_stack() -> None:
    """With Gymnasium, PettingZoo, NumPy and torch unimportable, a game still plays."""
    code = (
        "import sys\n"
        "for name in ('gymnasium', 'pettingzoo', 'numpy', 'torch'):\n"
        "    sys.modules[name] = None\n"
        "from sm_env.core.config import GameConfig\n"
        "from sm_env.core.engine import new_game\n"
        "s = new_game(GameConfig(offices=2, days=1), 3)\n"
        "while not s.is_terminal():\n"
        "    s.apply(s.legal_intents()[0])\n"
        "print(s.stages_played)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, timeout=120
    )
    assert result.stdout.strip() == "12"


def _core_imports(path: Path) -> set[str]:
    """The sm_env.core modules a core module imports, TYPE_CHECKING imports included."""
    out = set()
    for name in imported_modules(path):
        if name.startswith("sm_env.core."):
            out.add(name.split(".")[2])
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):  # ``from sm_env.core import cargo, trains``
        if isinstance(node, ast.ImportFrom) and node.module == "sm_env.core":
            out.update(alias.name for alias in node.names)
    return out - {path.stem}


def test_core_modules_import_each_other_in_no_circle() -> None:
    """The rules modules import the state and the pieces, never each other in a circle."""
    graph = {path.stem: _core_imports(path) for path in CORE_FILES if path.stem != "__init__"}
    done: set[str] = set()

    def visit(module: str, trail: tuple[str, ...]) -> None:
        assert module not in trail, f"import circle: {' -> '.join((*trail, module))}"
        if module in done:
            return
        for imported in sorted(graph.get(module, ())):
            visit(imported, (*trail, module))
        done.add(module)

    for module in sorted(graph):
        visit(module, ())


def test_only_the_engine_writes_the_phase() -> None:
    """Rules modules say what comes next; the engine alone sets ``state.phase`` (the state's
    own copies and rebuilds aside)."""
    writers = []
    for path in CORE_FILES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else []
            for target in targets:
                for leaf in target.elts if isinstance(target, ast.Tuple) else [target]:
                    if isinstance(leaf, ast.Attribute) and leaf.attr == "phase":
                        writers.append(path.name)
    assert set(writers) - {"state.py", "snapshot.py"} == {"engine.py"}, writers


ENV_FILES = sorted(p for p in (ROOT / "sm_env").glob("*.py"))


@pytest.mark.parametrize("path", ENV_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_env_modules_import_no_bots_experiments_or_torch(path: Path) -> None:
    """core <- env <- agents <- experiments: the environments sit below the bots."""
    bad = [
        name for name in imported_modules(path) if name.split(".")[0] in ("agents", "experiments", "torch")
    ]
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


@pytest.mark.parametrize("path", sorted((ROOT / "agents").rglob("*.py")), ids=lambda p: p.name)
def test_agents_import_no_experiments(path: Path) -> None:
    bad = [name for name in imported_modules(path) if name.split(".")[0] == "experiments"]
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


ABOVE_THE_CORE = sorted(
    [*(ROOT / "sm_env").glob("*.py"), *(ROOT / "agents").rglob("*.py"), *(ROOT / "experiments").rglob("*.py")]
)


@pytest.mark.parametrize("path", ABOVE_THE_CORE, ids=lambda p: str(p.relative_to(ROOT)))
def test_code_above_the_core_imports_only_its_public_face(path: Path) -> None:
    """The envs, the bots and the experiments import ``sm_env.core`` itself, never one of its
    rules modules: the modules behind the face are free to change."""
    inner = [name for name in imported_modules(path) if name.startswith("sm_env.core.")]
    assert not inner, f"{path.relative_to(ROOT)} imports {inner}: import from sm_env.core"


def test_the_public_face_lists_what_it_exports() -> None:
    import sm_env.core

    missing = [name for name in sm_env.core.__all__ if not hasattr(sm_env.core, name)]
    assert not missing
    assert len(set(sm_env.core.__all__)) == len(sm_env.core.__all__)

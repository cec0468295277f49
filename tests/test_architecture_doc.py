"""docs/architecture.md stays true: every file and module it names exists, its table of the
core names every core module, and each rule module it places is where it says."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
CORE = ROOT / "sm_env" / "core"


def test_every_path_it_names_exists() -> None:
    paths = set(re.findall(r"`((?:sm_env|agents|experiments|tests|docs)/[\w/.<>]*)`", DOC))
    assert len(paths) > 15
    missing = [p for p in paths if "<" not in p and not (ROOT / p).exists()]
    assert not missing


def test_the_core_table_names_every_core_module() -> None:
    table = DOC.split("## The core: where each rule lives", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`(\w+)\.py`", table))
    modules = {p.stem for p in CORE.glob("*.py")} - {"__init__"}
    assert named == modules


def test_the_python_commands_it_gives_name_real_modules() -> None:
    for module in re.findall(r"python -m ([\w.]+)", DOC):
        assert (ROOT / (module.replace(".", "/") + ".py")).is_file(), module

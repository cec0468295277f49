"""The one way to a compiled build (setup.py, build_backend.py): a wheel, whose extension
modules import only beside the very sources they were compiled from."""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = importlib.machinery.EXTENSION_SUFFIXES[0]


def _package_copy(tmp_path: Path) -> Path:
    skipped = shutil.ignore_patterns("__pycache__", "*.so")
    shutil.copytree(ROOT / "sm_env", tmp_path / "sm_env", ignore=skipped)
    return tmp_path / "sm_env"


def _import_error(root: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-c", "import sm_env.core"],
        capture_output=True,
        text=True,
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": ""},
        timeout=60,
    )
    return result.stderr if result.returncode else ""


def test_an_extension_module_no_build_recorded_is_refused(tmp_path: Path) -> None:
    package = _package_copy(tmp_path)
    (package / "core" / f"grid{EXTENSION}").write_bytes(b"")  # as an old in-place build left it
    error = _import_error(tmp_path)
    assert "ImportError: sm_env: the compiled core/grid.py" in error
    assert "rebuild (SM_ENV_COMPILE=1 pip install .)" in error


def test_an_extension_module_whose_source_was_edited_since_is_refused(tmp_path: Path) -> None:
    package = _package_copy(tmp_path)
    source = package / "actions_v1.py"
    record = {"actions_v1.py": hashlib.sha256(source.read_bytes()).hexdigest()}
    (package / "core" / "compiled-sources.json").write_text(json.dumps(record), encoding="utf-8")
    (package / f"actions_v1{EXTENSION}").write_bytes(b"")
    assert _import_error(tmp_path) == ""  # recorded as built from this source: not refused here
    source.write_text(source.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    assert "the compiled actions_v1.py" in _import_error(tmp_path)


def test_a_compiled_editable_install_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    import build_backend

    monkeypatch.setenv("SM_ENV_COMPILE", "1")
    with pytest.raises(SystemExit, match="builds a wheel, not an editable install"):
        build_backend.build_editable(str(tmp_path))
    assert not list(tmp_path.iterdir())

"""``station-master bench --quick`` runs and reports every figure (no test decides by time)."""

from __future__ import annotations

import json
import math
import os

import pytest

from experiments.bench import suite
from experiments.cli import main


def test_bench_quick_reports_every_figure() -> None:
    figures = suite.run(quick=True)
    by_key = {f.key: f for f in figures}
    cores = os.cpu_count() or 1
    kinds = ("ppo", "ppo_trivial", "ppo_v1", "ppo_trivial_v1")
    ppo = {f"{kind}.{envs}.frames_per_s" for kind in kinds for envs in (1, cores)}
    ppo |= {f"{kind}.{envs}.decisions_per_s" for kind in ("ppo", "ppo_v1") for envs in (1, cores)}
    growth = {f"growth.offices.{o}" for o in suite.GROWTH_OFFICES} | {
        f"growth.days.{d}" for d in suite.GROWTH_DAYS
    }
    assert set(suite.FIGURE_KEYS) | ppo | growth == set(by_key)
    for figure in figures:
        assert figure.value is not None, f"{figure.key}: {figure.note}"
        assert math.isfinite(figure.value) and figure.value > 0, figure
    doc = suite.document(figures, quick=True)
    assert set(doc["figures"]) == set(by_key) and doc["machine"]["cpus"] == os.cpu_count()
    assert doc["build"] == "pure Python" or doc["build"].startswith("compiled (mypyc)")
    assert suite.table(figures).row_count == len(figures)


def test_bench_command_quick_json(capsys: pytest.CaptureFixture[str]) -> None:
    """The command prints the same figures as a JSON document."""
    assert main(["bench", "--quick", "--json"]) == 0
    out = capsys.readouterr()
    doc = json.loads(out.out)
    assert set(suite.FIGURE_KEYS) <= set(doc["figures"])
    assert "bench: rules core" in out.err


def test_bench_rejects_an_unknown_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "--fastest"])
    assert exit_.value.code == 2
    assert "unrecognized arguments: --fastest" in capsys.readouterr().err

"""``station-master bench --quick`` runs and reports every figure (no test decides by time)."""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

import pytest

from experiments.bench import bots, suite
from experiments.cli import main


def test_bench_quick_reports_every_figure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """And its PPO runs leave no log folder in the temporary directory."""
    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    figures = suite.run(quick=True)
    assert not list(tmp_path.glob("SB3-*"))
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


def test_bench_bots_times_each_bot_on_fixed_deals(capsys: pytest.CaptureFixture[str]) -> None:
    """``--bots``: CPU and wall ms a decision with their intervals, and the decisions with a
    choice apart, for each bot; the counts are the games' own (the same deals each run)."""
    argv = ["bench", "--bots", "passenger,random", "--against", "freight", "--games", "2", "--json"]
    assert main([*argv, "--days", "1"]) == 0
    out = capsys.readouterr()
    figures = json.loads(out.out)["figures"]
    for spec in ("passenger", "random"):
        keys = {f"bots.{spec}.{kind}" for kind in ("cpu_ms", "wall_ms", "choice_cpu_ms")}
        assert keys <= set(figures), sorted(figures)
        for key in keys:
            figure = figures[key]
            low, high = (float(x) for x in figure["note"].split("95% CI ")[1].split(";")[0].split(".."))
            assert figure["value"] > 0 and low * 0.999 <= figure["value"] <= high * 1.001, figure  # 4 digits
    assert "2 games from seed 300000, against freight" in figures["bots.passenger.cpu_ms"]["note"]
    assert "passenger: game 2 of 2" in out.err


def test_bench_bots_table_off_a_terminal_keeps_a_long_spec_whole(capsys: pytest.CaptureFixture[str]) -> None:
    spec = "freight:w_spot=3.1,w_carry=1.3,w_deliver=2.1,w_network=1.6,w_fstock=2.6"
    assert main(["bench", "--bots", spec, "--games", "1", "--days", "1"]) == 0
    out = capsys.readouterr().out
    assert f"│ {spec}: CPU ms a decision " in out and "…" not in out


def test_bench_bots_mean_interval_resamples_whole_games() -> None:
    mean, low, high = bots.mean_interval([[1.0, 3.0], [2.0], [2.0, 2.0, 2.0]])
    assert mean == pytest.approx(2.0)
    assert low == pytest.approx(2.0) and high == pytest.approx(2.0)  # every game's mean is 2
    mean, low, high = bots.mean_interval([[1.0], [3.0]])
    assert mean == 2.0 and 1.0 <= low < 2.0 < high <= 3.0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bots", "passenger", "--scaling"], "not allowed with argument"),
        (["--bots", "nobody"], "unknown bot 'nobody'"),
        (["--bots", "passenger", "--against", "search:rollouts=x"], "rollouts"),
        (["--bots", "passenger", "--games", "0"], "must be >= 1"),
        (["--bots", "passenger", "--offices", "9"], "offices"),
    ],
)
def test_bench_bots_refuses_bad_input_in_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(["bench", *argv])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err

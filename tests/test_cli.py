"""The ``station-master`` command, called in-process (and once as the installed script)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from experiments.arena import balance as bal
from experiments.cli import main
from experiments.command import Terminated


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_prints_stages_and_the_revenue_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "demo", "--seed", "1")
    assert code == 0
    assert "Station Master demo" in out and "seed 1" in out
    assert "Day 1 · stage 1 · Midnight" in out
    assert "Day 1 · stage 12 · 10:00 PM" in out
    assert "Final revenue" in out
    assert "winner" in out
    assert "final state hash" in out
    assert err == ""


def test_demo_json_summary_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("demo", "--seed", "3", "--offices", "4", "--days", "2", "--json")
    code, out, _ = run(capsys, *argv)
    assert code == 0
    summary = json.loads(out)
    assert {"revenue", "events", "stages_played", "final_hash"} <= set(summary)
    assert summary["stages_played"] == 24
    assert len(summary["revenue"]) == 4
    assert summary["offices"] == 4 and summary["days"] == 2 and summary["seed"] == 3
    assert len(summary["final_hash"]) == 64
    assert isinstance(summary["events"], dict) and summary["events"]["fedora"] == 8
    again = run(capsys, *argv)
    assert again == (0, out, "")


def test_demo_json_with_house_rules_and_coop(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "demo",
        "--seed", "5", "--offices", "2", "--mode", "coop", "--target", "50",
        "--house-rule", "sister_trains", "--house-rule", "employee_rotation", "--json",
    )  # fmt: skip
    assert code == 0
    summary = json.loads(out)
    assert summary["mode"] == "coop"
    assert summary["house_rules"]["sister_trains"] and summary["house_rules"]["employee_rotation"]
    assert not summary["house_rules"]["reduced_visibility"]
    assert summary["winners"] == []  # the team misses the target


def test_save_replay_then_verify(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    code, out, _ = run(capsys, "demo", "--seed", "2", "--offices", "3", "--json", "--save-replay", str(path))
    assert code == 0
    final_hash = json.loads(out)["final_hash"]
    assert json.loads(path.read_text(encoding="utf-8"))["final_hash"] == final_hash
    code, out, err = run(capsys, "replay", str(path), "--verify")
    assert code == 0
    assert "verified" in out and final_hash in out
    assert err == ""
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and final_hash in out


def test_save_replay_in_text_mode(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    code, out, _ = run(capsys, "demo", "--seed", "4", "--save-replay", str(path))
    assert code == 0 and "replay written to" in out
    assert run(capsys, "replay", str(path), "--verify")[0] == 0


def test_tampered_replay_does_not_verify(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    run(capsys, "demo", "--seed", "2", "--json", "--save-replay", str(path))
    data = json.loads(path.read_text(encoding="utf-8"))
    data["final_hash"] = "0" * 64
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = run(capsys, "replay", str(path), "--verify")
    assert code == 1
    assert "does not verify" in err and "hash mismatch" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("content", ["garbage", "[1, 2]", '{"format": "station-master-replay"}'])
def test_garbage_replay_is_an_error_without_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    for argv in (("replay", str(path)), ("replay", str(path), "--verify")):
        code, out, err = run(capsys, *argv)
        assert code == 2
        assert err.startswith("station-master: error:")
        assert "Traceback" not in err
        assert out == ""


def test_missing_replay_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "replay", str(tmp_path / "missing.json"))
    assert code == 2 and "no such file" in err


def test_unknown_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["demo", "--colour", "red"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "usage: station-master" in err and "--colour" in err


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_unknown_house_rule_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["demo", "--house-rule", "fog"])
    assert info.value.code == 2
    assert "fog" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "field"),
    [
        (("--offices", "9"), "offices"),
        (("--offices", "0"), "offices"),
        (("--days", "0"), "days"),
        (("--target", "0"), "target_revenue"),
        (("--mode", "coop"), "target_revenue"),
        (("--seed", "-1"), "seed"),
        (("--seed", str(2**32)), "seed"),
    ],
)
def test_bad_demo_values_exit_2_naming_the_field(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], field: str
) -> None:
    code, out, err = run(capsys, "demo", *argv, "--json")
    assert code == 2
    assert err.startswith("station-master: error:") and field in err
    assert "Traceback" not in err
    assert out == ""


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["demo", "--help"])
    assert info.value.code == 0
    assert "--save-replay" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("station-master") is None, reason="console script not installed")
def test_installed_console_script_runs(capsys: pytest.CaptureFixture[str]) -> None:
    result = subprocess.run(
        ["station-master", "demo", "--seed", "1", "--json"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["seed"] == 1 and summary["stages_played"] == 12
    code, out, _ = run(capsys, "demo", "--seed", "1", "--json")
    assert json.loads(out)["final_hash"] == summary["final_hash"]


def test_deeply_nested_replay_is_an_error_without_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "nested.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2 and err.startswith("station-master: error:")


def test_unwritable_save_replay_path_is_an_error_without_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "no-such-dir" / "game.json"
    code, _, err = run(capsys, "demo", "--seed", "1", "--json", "--save-replay", str(target))
    assert code == 2 and err.startswith("station-master: error:")


def test_demo_json_revenue_by_rule_adds_up_to_the_revenue(capsys: pytest.CaptureFixture[str]) -> None:
    """R2.4.7: the summary's ledger, summed by rule id, makes each seat's revenue."""
    code, out, _ = run(capsys, "demo", "--seed", "6", "--offices", "4", "--days", "2", "--json")
    assert code == 0
    summary = json.loads(out)
    by_rule = summary["revenue_by_rule"]
    assert [sum(rules.values()) for rules in by_rule] == summary["revenue"]
    assert any(by_rule), "seed 6 has revenue changes to show"


def test_demo_seats_the_heuristic_bots_and_says_how_revenue_was_earned(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "demo", "--seed", "1", "--json")
    assert code == 0
    summary = json.loads(out)
    assert [label.split("(")[0] for label in summary["bots"]] == ["passenger@3", "freight@5", "dispatcher@4"]
    kinds = summary["revenue_by_kind"]
    assert set(kinds[0]) == {"boarded", "detrained", "loaded", "unloaded", "collisions"}
    assert sum(k["revenue"] for seat in kinds for k in seat.values()) == sum(summary["revenue"])
    code, text, _ = run(capsys, "demo", "--seed", "1")
    assert "passenger@3" in text and "count (revenue) by kind" in text


def test_demo_plays_random_bots_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo", "--seed", "2", "--bots", "random", "--json")
    assert code == 0 and json.loads(out)["bots"] == ["random@1"] * 3
    code, _, err = run(capsys, "demo", "--bots", "nobody")
    assert code == 2 and "unknown bot 'nobody'" in err


def _stopped_by(stop: KeyboardInterrupt) -> Callable[..., object]:
    def play(*args: object, **kwargs: object) -> object:
        raise stop

    return play


@pytest.mark.parametrize(
    ("stop", "journal", "said"),
    [
        (KeyboardInterrupt(), False, "station-master: interrupted"),
        (Terminated(), False, "station-master: terminated"),
        (
            Terminated(),
            True,
            "station-master: terminated; the same command with --resume goes on from what it kept",
        ),
    ],
    ids=["ctrl-c", "sigterm", "sigterm with a journal"],
)
def test_a_stopped_balance_says_how_to_go_on_only_when_it_kept_its_games(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    stop: KeyboardInterrupt,
    journal: bool,
    said: str,
) -> None:
    """``balance`` keeps its finished games only in a ``--journal``: without one, a stopped run
    has nothing for ``--resume`` to go on from, and its stop line says nothing of it."""
    monkeypatch.setattr(bal, "play", _stopped_by(stop))
    argv = ["balance", "--offices", "2", "--days", "1", "--games", "2", "--jobs", "1", "--quiet"]
    if journal:
        argv += ["--journal", str(tmp_path / "balance.journal")]
    code, _, err = run(capsys, *argv)
    assert (code, err.strip()) == (143 if isinstance(stop, Terminated) else 130, said)

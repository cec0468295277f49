"""Expert iteration (experiments.training.selfplay), its samples and its fit: tiny runs that
finish, resume bit for bit, refuse bad settings, and learn from what they record."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from agents.net import Net
from experiments.cli import main
from experiments.training.fit import fit
from experiments.training.samples import Samples, record_game
from experiments.training.selfplay import RunDir, SelfPlayError, SelfPlaySettings, seat_players, selfplay
from sm_env.actions_v1 import token_table
from sm_env.core import GameConfig, new_game

pytest.importorskip("torch")

TINY = {
    "days": 1,
    "generations": 2,
    "gen0_games": 3,
    "games": 2,
    "iterations": 3,
    "gate_deals": 2,
    "eval_deals": 2,
    "epochs": 1,
    "trunk": (16,),
}


def tiny(**extra: object) -> SelfPlaySettings:
    return SelfPlaySettings(**{**TINY, **extra})  # type: ignore[arg-type]


def digests(root: Path) -> dict[str, str]:
    """Every file a run made, by content; gates and progress without their timing, networks
    by their arrays."""
    out = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.parent.name == "tb" or path.name == "curve.png":
            continue
        data = path.read_bytes()
        if path.suffix == ".json" and path.parent.name == "gates":
            record = json.loads(data)
            record.pop("seconds")
            data = json.dumps(record, sort_keys=True).encode()
        if path.name == "progress.csv":
            rows = list(csv.DictReader(path.read_text().splitlines()))
            data = json.dumps([{k: v for k, v in r.items() if k != "seconds"} for r in rows]).encode()
        if path.name == "meta.json":
            data = json.dumps(json.loads(data)["settings"], sort_keys=True).encode()
        if path.parent.name == "nets" and path.suffix == ".npz" or path.name == "best.npz":
            net = Net.load(path)  # its command names the run's directory
            arrays = [a for layer in (*net.trunk, *net.heads.values()) for a in layer]
            data = b"".join(a.tobytes() for a in arrays)
        out[str(path.relative_to(root))] = hashlib.sha256(data).hexdigest()
    return out


def test_a_tiny_run_makes_every_file_and_resumes_bit_for_bit(tmp_path: Path) -> None:
    whole = tmp_path / "whole"
    assert selfplay(tiny(), whole, log=lambda _: None)
    run = RunDir(whole)
    for gen in (0, 1):
        assert run.data(gen).exists() and run.net(gen).exists() and run.gate(gen).exists()
    assert run.best.exists() and run.curve.exists() and any(run.tb.iterdir())
    rows = list(csv.DictReader(run.progress.read_text().splitlines()))
    assert [r["generation"] for r in rows] == ["0", "1"]
    assert rows[0]["kept"] == "1" and rows[0]["gate_diff"] == "" and rows[1]["gate_diff"] != ""
    assert "eval_passenger_diff" in rows[0]
    meta = json.loads(run.meta.read_text())
    assert (
        meta["command"].startswith("station-master selfplay --out ") and "--gen0-games 3" in meta["command"]
    )
    assert Net.load(run.best).meta["command"] == meta["command"]

    parts = tmp_path / "parts"
    assert not selfplay(tiny(), parts, stop_after=2, log=lambda _: None)  # data and fit of gen 0
    assert RunDir(parts).net(0).exists() and not RunDir(parts).gate(0).exists()
    assert not selfplay(tiny(), parts, resume=True, stop_after=2, log=lambda _: None)
    assert selfplay(tiny(jobs=2), parts, resume=True, log=lambda _: None)  # jobs change nothing
    assert digests(parts) == digests(whole)

    shorter = tmp_path / "extended"  # a finished run, extended by a generation on resume
    assert selfplay(tiny(generations=1), shorter, log=lambda _: None)
    with pytest.raises(SelfPlayError, match="may only extend"):
        selfplay(tiny(), shorter, resume=True, generations=0, log=lambda _: None)
    assert selfplay(tiny(), shorter, resume=True, generations=2, log=lambda _: None)
    assert digests(shorter) == digests(whole)
    assert "--generations 2 " in json.loads(RunDir(shorter).meta.read_text())["command"]


def test_bad_settings_and_directories_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SelfPlayError, match="games must be >= 1"):
        tiny(games=0)
    with pytest.raises(SelfPlayError, match="opponent_share"):
        tiny(opponent_share=1.0)
    with pytest.raises(SelfPlayError, match="no run to resume"):
        selfplay(tiny(), tmp_path / "none", resume=True)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "meta.json").write_text("{}")
    with pytest.raises(SelfPlayError, match="already holds a run"):
        selfplay(tiny(), tmp_path / "run")


def test_cli_refuses_bad_options_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--out", str(tmp_path / "a"), "--games", "0"]) == 2
    assert "games must be >= 1" in capsys.readouterr().err
    assert main(["selfplay", "--out", str(tmp_path / "b"), "--resume", "--games", "3"]) == 2
    assert "drop --games" in capsys.readouterr().err
    assert main(["selfplay", "--out", str(tmp_path / "b"), "--resume", "--generations", "9"]) == 2
    assert "no run to resume" in capsys.readouterr().err
    assert main(["selfplay", "--out", str(tmp_path / "c"), "--opponents", "nobody"]) == 2
    assert "unknown bot 'nobody'" in capsys.readouterr().err


def test_seat_players_keep_a_learner_seat_and_follow_the_seed() -> None:
    settings = tiny(opponent_share=0.9)
    seatings = [seat_players(settings, 1, g, "L", ["P"]) for g in range(40)]
    assert all(
        "L" in players and recorded == tuple(p == "L" for p in players) for players, recorded in seatings
    )
    assert any(p not in ("L",) for players, _ in seatings for p in players)
    assert seatings == [seat_players(settings, 1, g, "L", ["P"]) for g in range(40)]


def test_samples_spell_the_legal_intents_and_their_targets() -> None:
    """Each sample's intents are the legal ones of its decision, spelled in v1 tokens; a
    heuristic's target is its choice, the search's its visit shares; outcomes are relative."""
    config = GameConfig(offices=3, days=1)
    players = ("passenger", "mcts:iterations=16", "random")
    index, samples, revenue = record_game((config, 7, 11, players, (True, True, False), 1.0))
    assert index == 7 and len(samples) > 10 and set(samples.game.tolist()) == {7}
    starts = samples.intent_start
    sums = np.add.reduceat(samples.target, starts[:-1])
    np.testing.assert_allclose(sums, 1.0, rtol=1e-5)
    shares = [samples.target[starts[i] : starts[i + 1]] for i in range(len(samples))]
    assert any(((s > 0) & (s < 1)).any() for s in shares)  # the search's visit shares
    assert all(np.diff(starts) >= 2)  # only real choices are recorded
    table = token_table(config, new_game(config, 1).catalogue)
    assert int(samples.tokens.max()) < table.size
    np.testing.assert_allclose(samples.win.sum(axis=1), 1.0)
    assert samples.obs.shape[1] > 1000
    best = max(revenue)
    assert set(np.unique(samples.win[:, 0])) <= {0.0, 1.0, 0.5, 1 / 3} or best == min(revenue)
    both = Samples.concat([samples, samples])
    assert len(both) == 2 * len(samples) and both.intent_start[-1] == 2 * starts[-1]


def test_fit_learns_the_recorded_choices(tmp_path: Path) -> None:
    """More epochs on the same games lower the policy loss; the file round-trips."""
    config = GameConfig(offices=3, days=1)
    parts = [record_game((config, g, 30 + g, ("passenger",) * 3, (True,) * 3, 1.0))[1] for g in range(4)]
    data = Samples.concat(parts)
    tokens = token_table(config, new_game(config, 1).catalogue).size
    args = {"batch_size": 64, "learning_rate": 3e-3, "seed": 1}
    _, short = fit(data, None, (32,), tokens, {"offices": 3}, epochs=1, **args)  # type: ignore[arg-type]
    net, long = fit(data, None, (32,), tokens, {"offices": 3}, epochs=12, **args)  # type: ignore[arg-type]
    assert long.policy < short.policy * 0.7
    net.save(tmp_path / "n.npz")
    assert Net.load(tmp_path / "n.npz").tokens == tokens


def test_a_share_of_the_decisions_is_recorded_from_the_same_game() -> None:
    """``share`` records a random subset of the decisions; the game played is the same."""
    config = GameConfig(offices=3, days=1)
    task = (config, 0, 5, ("passenger",) * 3, (True,) * 3)
    _, every, revenue = record_game((*task, 1.0))
    _, some, again = record_game((*task, 0.25))
    assert again == revenue
    assert 0.1 * len(every) < len(some) < 0.45 * len(every)
    rows = {row.tobytes() for row in every.obs}
    assert all(row.tobytes() in rows for row in some.obs)

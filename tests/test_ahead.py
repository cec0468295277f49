"""Who is ahead (agents.ahead.WinEstimator): each seat's chance to win from a seat's view by
rollouts, or from a network's win head; a spectator's over a replay; exact at the end."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import new_state
from test_net import random_net

from agents import WinEstimator, make_bot, play_game, seat_seed
from agents.net import Net, NetEvaluator, table_win_chances, win_chances, win_shares
from experiments.cli import main
from sm_env.core import Replay
from sm_env.core.rng import Rng


def finished_replay(seed: int) -> Replay:
    state = new_state(3, seed, days=1)
    decisions = play_game(state, [make_bot("passenger", seat_seed(seed, s)) for s in range(3)])
    return Replay(seed, state.config, tuple(decisions), state.state_hash())


def test_chances_are_a_distribution_and_deterministic() -> None:
    state = new_state(3, 31, days=1)
    chances = WinEstimator(samples=4, seed=2).for_seat(state.view(0))
    assert len(chances) == 3 and all(0.0 <= c <= 1.0 for c in chances)
    assert sum(chances) == pytest.approx(1.0)
    assert WinEstimator(samples=4, seed=2).for_seat(state.view(0)) == chances


def test_a_seat_estimate_reads_its_view_only() -> None:
    """Two games that differ only in what seat 0 cannot see give seat 0 the same estimate."""
    state = new_state(3, 32, days=1)
    view = state.view(0)
    one, two = view.determinize(Rng(1)), view.determinize(Rng(2))
    assert one.hands != two.hands
    estimator = WinEstimator(samples=3, seed=5)
    assert estimator.for_seat(one.view(0)) == estimator.for_seat(two.view(0))


def test_over_replay_charts_every_stage_and_ends_exact() -> None:
    """A point at the start, after every Stage and at the end; the last is the game's result."""
    replay = finished_replay(33)
    state = replay.run()
    points = WinEstimator(samples=1, seed=1).over_replay(replay)
    assert points[0].decisions == 0 and points[-1].decisions == len(replay.decisions)
    assert [p.stages for p in points] == list(range(state.stages_played + 1))
    assert points[-1].chances == tuple(win_shares(state))
    assert points[-1].revenue == state.revenue() and points[0].revenue == (0, 0, 0)
    for point in points:
        assert sum(point.chances) == pytest.approx(1.0)


def test_a_clear_leader_is_seen_ahead() -> None:
    """A passenger seat against two random ones is the favourite once the game is under way."""
    seed = 34
    state = new_state(3, seed, days=1)
    agents = [make_bot("passenger", 1), make_bot("random", 2), make_bot("random", 3)]
    while state.stages_played < 8:
        seat = state.current_player()
        state.apply(agents[seat].choose(state.view(seat)))
    chances = WinEstimator(samples=8, seed=3).for_table(state)
    assert chances[0] == max(chances) and chances[0] > 0.5


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="samples"):
        WinEstimator(samples=0)


def test_replay_chances_prints_a_line_per_stage(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``station-master replay FILE --chances``: a heading and a line per Stage, the last with
    the game's revenue and its winners' share of the win."""
    path = tmp_path / "game.json"
    replay = finished_replay(35)
    replay.save(path)
    assert main(["replay", str(path), "--chances", "--samples", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    state = replay.run()
    assert lines[0].split()[:2] == ["stage", "decision"] and len(lines) == state.stages_played + 2
    last = lines[-1].split()
    assert int(last[0]) == state.stages_played and int(last[1]) == len(replay.decisions)
    shares = win_shares(state)
    assert [int(x) for x in last[2::2]] == list(state.revenue())
    assert [x for x in last[3::2]] == [f"{s:.0%}" for s in shares]
    with pytest.raises(SystemExit):
        main(["replay", str(path), "--chances", "--samples", "0"])


def test_with_a_network_it_reads_the_win_head(tmp_path: Path) -> None:
    """``net=FILE``: the network's win chances, a seat's from its view, the table's the mean."""
    path = tmp_path / "net.npz"
    random_net(3, seed=4).save(path)
    estimator = WinEstimator(net=str(path))
    evaluator = NetEvaluator(Net.load(path))
    state = new_state(3, 36, days=1)
    assert estimator.for_seat(state.view(1)) == win_chances(state.view(1), evaluator)
    assert estimator.for_table(state) == table_win_chances(state, evaluator)

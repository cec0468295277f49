"""The search network's file, its numpy forward pass and the win-chance API (agents.net)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents import make_bot, play_game, seat_seed
from agents.net import Net, NetEvaluator, NetFileError, save_arrays, table_win_chances, win_chances
from sm_env.actions_v1 import token_table
from sm_env.core import GameConfig, new_game
from sm_env.observations_v1 import ObservationEncoderV1


def random_net(offices: int, seed: int = 0, width: int = 16) -> Net:
    config = GameConfig(offices=offices, days=1)
    state = new_game(config, 1)
    table = token_table(config, state.catalogue)
    size = ObservationEncoderV1(config, state.catalogue, table).size
    rng = np.random.default_rng(seed)

    def layer(out: int, inp: int) -> tuple[np.ndarray, np.ndarray]:
        return rng.normal(0, 0.3, (out, inp)).astype(np.float32), rng.normal(0, 0.1, out).astype(np.float32)

    trunk = [layer(width, size), layer(width, width)]
    heads = {
        "policy": layer(table.size, width),
        "win": layer(offices, width),
        "margin": layer(offices, width),
    }
    return Net(trunk, heads, {"offices": offices})


def test_file_round_trip_gives_the_same_outputs(tmp_path):
    net = random_net(3)
    net.save(tmp_path / "n.npz")
    loaded = Net.load(tmp_path / "n.npz")
    obs = np.random.default_rng(1).random(net.obs_size).astype(np.float32)
    for a, b in zip(net.forward(obs), loaded.forward(obs), strict=True):
        np.testing.assert_array_equal(a, b)
    assert loaded.meta["offices"] == 3 and loaded.meta["kind"] == "net"


def test_a_file_of_another_rules_edition_or_kind_is_refused(tmp_path):
    net = random_net(3)
    net.save(tmp_path / "n.npz")
    with np.load(tmp_path / "n.npz") as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    meta["rules_edition"] = 2
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "old.npz", **arrays)
    with pytest.raises(NetFileError, match="rules edition 2"):
        Net.load(tmp_path / "old.npz")
    with pytest.raises(NetFileError, match="no network file"):
        Net.load(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(NetFileError, match="is not a network file"):
        Net.load(tmp_path / "junk.npz")


def test_a_bad_layer_shape_is_refused(tmp_path):
    net = random_net(3)
    trunk = [net.trunk[0], (net.trunk[1][0][:, :3], net.trunk[1][1])]
    save_arrays(tmp_path / "bad.npz", trunk, net.heads, {})
    with pytest.raises(NetFileError, match="trunk layer 1"):
        Net.load(tmp_path / "bad.npz")


def test_a_game_of_another_office_count_is_refused():
    evaluator = NetEvaluator(random_net(3))
    state = new_game(GameConfig(offices=2, days=1), 1)
    with pytest.raises(NetFileError, match="trained for 3 offices"):
        evaluator.evaluate(state, state.current_player(), state.legal_intents())


def test_priors_cover_the_legal_intents_and_values_are_by_absolute_seat():
    evaluator = NetEvaluator(random_net(3))
    state = new_game(GameConfig(offices=3, days=1), 5)
    bots = [make_bot("passenger", seat_seed(5, s)) for s in range(3)]
    checked = 0
    while not state.is_terminal() and checked < 40:
        seat = state.current_player()
        legal = state.legal_intents()
        prior, win, margin = evaluator.evaluate(state, seat, legal)
        assert prior.shape == (len(legal),) and abs(prior.sum() - 1) < 1e-6 and (prior > 0).all()
        assert abs(win.sum() - 1) < 1e-6 and margin.shape == (3,)
        # the seat's own estimate is the same read from its view: it sees nothing more
        view_win = win_chances(state.view(seat), evaluator)
        np.testing.assert_allclose(view_win, win, rtol=1e-6)
        # the relative head order is turned to absolute seats
        logits, rel_win, _ = evaluator.net.forward(evaluator.observe(state, seat))
        rel = np.exp(rel_win - rel_win.max())
        rel /= rel.sum()
        np.testing.assert_allclose(win[seat], rel[0], rtol=1e-6)
        state.apply(bots[seat].choose(state.view(seat)))
        checked += 1


def test_table_win_chances_are_exact_at_the_end():
    evaluator = NetEvaluator(random_net(3))
    state = new_game(GameConfig(offices=3, days=1), 9)
    live = table_win_chances(state, evaluator)
    assert abs(sum(live) - 1) < 1e-6
    play_game(state, [make_bot("passenger", seat_seed(9, s)) for s in range(3)])
    winners = state.winners()
    assert table_win_chances(state, evaluator) == tuple(
        1 / len(winners) if s in winners else 0.0 for s in range(3)
    )

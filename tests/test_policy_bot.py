"""The ``policy`` bot (agents/policy.py): it loads the shipped policy file, plays a trained
policy exactly as the v1 env would feed it (its seat's observation and the exact mask), and
refuses files that do not fit."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents import make_bot, play_game
from agents.net import softmax
from agents.policy import PolicyBot, PolicyEnsemble, PolicyFileError, PolicyNet, shipped_policy_path
from sm_env.core.config import GameConfig
from sm_env.core.engine import new_game
from sm_env.core.intents import PlaceCard
from sm_env.core.rng import Rng
from sm_env.station_master_v1 import raw_env as raw_env_v1


def _random_policy_file(path: Path, offices: int, seed: int = 0) -> Path:
    """A policy file of an untrained MaskablePPO policy (its weights random, seeded)."""
    pytest.importorskip("sb3_contrib")
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO

    from agents.policy import export_policy

    torch.manual_seed(seed)
    env = gymnasium.make("sm_env:StationMaster-v1", num_offices=offices, days=1)
    model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [24, 24]}, seed=seed, device="cpu")
    export_policy(model.policy, path, {"offices": offices, "command": "test"})
    return path


@pytest.fixture(scope="module")
def policy_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _random_policy_file(tmp_path_factory.mktemp("policy") / "p.npz", offices=2)


def test_numpy_forward_pass_equals_the_torch_policy(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO

    from agents.policy import export_policy

    env = gymnasium.make("sm_env:StationMaster-v1", num_offices=2, days=1)
    model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [32, 16]}, seed=1, device="cpu")
    export_policy(model.policy, tmp_path / "p.npz", {"offices": 2})
    net = PolicyNet.load(tmp_path / "p.npz")
    obs, _ = env.reset(seed=4)
    with torch.no_grad():
        latent = model.policy.mlp_extractor.forward_actor(torch.as_tensor(obs[None]))
        expected = model.policy.action_net(latent)[0].numpy()
    assert np.allclose(net.logits(obs), expected, atol=1e-5)


def test_the_bot_decides_as_the_env_would_feed_its_policy(policy_file: Path) -> None:
    """At every decision of seat 0 the bot's choice on its view equals the intent the v1 env
    completes when the same network picks the most likely unmasked token from the env's own
    observation at each token: the bot encodes exactly the seat's v1 observation."""
    net = PolicyNet.load(policy_file)
    env = raw_env_v1(num_offices=2, days=1)
    env.reset(seed=9)
    game = env.game
    assert game is not None
    bot = PolicyBot(0, str(policy_file))
    other = make_bot("random", 5)
    compared = 0
    while not game.is_terminal():
        seat = game.current_player()
        if seat != 0:
            env.step_intent(other.choose(game.view(seat)))
            continue
        expected = bot.choose(game.view(0))
        agent = env.agent_selection
        chosen = None
        while chosen is None:
            seen = env.observe(agent)
            options = np.flatnonzero(seen["action_mask"])
            token = int(options[np.argmax(net.logits(seen["observation"])[options])])
            assert env.speller is not None
            fitting = env.speller.groups[token]
            if len(fitting) == 1:
                chosen = fitting[0][1]
            env.step(token)
        assert chosen == expected
        compared += 1
    assert compared > 10


def test_the_policy_bot_is_legal_and_deterministic(policy_file: Path) -> None:
    for sample in (True, False):
        games = []
        for _ in range(2):
            state = new_game(GameConfig(offices=2, days=1), seed=21)
            spec = f"policy:path={policy_file},deterministic={not sample}"
            decisions = play_game(state, [make_bot(spec, 7), make_bot("passenger", 8)])
            games.append((decisions, state.state_hash()))
        assert games[0] == games[1]


def test_a_policy_bot_moved_to_another_board_sees_it_whole(policy_file: Path) -> None:
    """Two boards that differ only in where one card was laid (the same card count, office and
    Modifiers): a bot that decided on one, its encoder's caches holding that board, still sees
    the other as a new bot does, and decides the same."""
    rng = Rng(3)
    state = new_game(GameConfig(offices=2, days=1), seed=4)
    while True:
        legal = state.legal_intents()
        places = [i for i in legal if isinstance(i, PlaceCard)]
        pair = next(((a, b) for a in places for b in places if a.card == b.card and a.cell != b.cell), None)
        if pair is not None:
            break
        state.apply(legal[rng.below(len(legal))])
    boards = []
    for place in pair:
        board = state.clone()
        board.apply(place)
        assert len(board.legal_intents()) > 1
        boards.append(board.view(board.current_player()))
    moved, new = PolicyBot(0, str(policy_file)), PolicyBot(0, str(policy_file))
    moved.choose(boards[0])
    assert moved.choose(boards[1]) == new.choose(boards[1])
    assert np.array_equal(moved._obs, new._obs)


def test_an_ensemble_plays_the_product_of_its_members_distributions(
    policy_file: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """``path=A+B`` plays ``PolicyEnsemble``: over the legal tokens its distribution is the
    normalised product of A's and B's; a policy joined with itself picks as it does alone."""
    other = _random_policy_file(tmp_path_factory.mktemp("other") / "q.npz", offices=2, seed=1)
    first, second = PolicyNet.load(policy_file), PolicyNet.load(other)
    ensemble = PolicyEnsemble([first, second], [str(policy_file), str(other)])
    observation = np.random.default_rng(0).random(first.obs_size).astype(np.float32)
    legal = np.array([3, 8, 40, 41, first.actions - 1])
    product = softmax(first.logits(observation)[legal]) * softmax(second.logits(observation)[legal])
    assert np.allclose(softmax(ensemble.logits(observation)[legal]), product / product.sum())

    games = []
    for path in (str(policy_file), f"{policy_file}+{policy_file}", f"{policy_file}+{other}"):
        state = new_game(GameConfig(offices=2, days=1), seed=21)
        bot = make_bot(f"policy:path={path}", 7)
        games.append((play_game(state, [bot, make_bot("passenger", 8)]), state.state_hash()))
    assert games[0] == games[1] and games[2] != games[0]


def test_an_ensemble_of_policies_for_other_spaces_is_refused(
    policy_file: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    three = _random_policy_file(tmp_path_factory.mktemp("three") / "three.npz", offices=3)
    with pytest.raises(PolicyFileError, match="cannot join .* in an ensemble"):
        PolicyBot(0, f"{policy_file}+{three}")
    with pytest.raises(PolicyFileError, match="no policy file at .*missing.npz"):
        PolicyBot(0, f"{policy_file}+{three.parent / 'missing.npz'}")
    with pytest.raises(PolicyFileError, match=r"names an empty policy beside a '\+'"):
        PolicyBot(0, f"{policy_file}+")


def test_a_policy_for_other_spaces_is_refused(policy_file: Path) -> None:
    state = new_game(GameConfig(offices=3, days=1), seed=1)
    bot = PolicyBot(0, str(policy_file))
    seat = state.current_player()
    with pytest.raises(PolicyFileError, match="trained for 2 offices.*this game has 3 offices"):
        bot.choose(state.view(seat))


def test_bad_policy_files_are_refused(policy_file: Path, tmp_path: Path) -> None:
    with pytest.raises(PolicyFileError, match="no policy file"):
        PolicyNet.load(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(PolicyFileError, match="is not a policy file"):
        PolicyNet.load(tmp_path / "junk.npz")
    with np.load(policy_file, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    for key, value, message in (("rules_edition", 1, "rules edition 1"), ("format", 99, "format 99")):
        changed = dict(arrays, meta=np.array(json.dumps({**meta, key: value})))
        np.savez(tmp_path / "other.npz", **changed)
        with pytest.raises(PolicyFileError, match=message):
            PolicyNet.load(tmp_path / "other.npz")


@pytest.mark.parametrize(
    ("spec", "name", "teacher"),
    [
        ("policy", "shipped", "passenger"),
        ("policy:path=expert-clone", "expert-clone", "expert"),
        (
            "policy:path=search-net-clone",
            "search-net-clone",
            "search:prior=freight,net=shipped,rollouts=24,rival=1,keep=industry,halve=4",
        ),
    ],
)
def test_the_registry_loads_each_shipped_policy_and_it_plays_three_offices(
    spec: str, name: str, teacher: str
) -> None:
    """``policy`` plays the passenger bot's clone; ``path=expert-clone`` the ``expert`` search's,
    ``path=search-net-clone`` the search's with the network (docs/training.md); each file
    records the command that trained it."""
    assert shipped_policy_path(name).exists()
    bot = make_bot(spec, 3)
    assert isinstance(bot, PolicyBot) and bot.path == shipped_policy_path(name)
    meta = bot.net.meta
    assert meta["offices"] == 3 and meta["command"].startswith("station-master train ")
    assert f"--warm-start {teacher} " in meta["command"]
    assert shipped_policy_path(name).stat().st_size < 8 * 2**20
    state = new_game(GameConfig(offices=3, days=1), seed=2)
    play_game(state, [bot, make_bot("passenger", 1), make_bot("freight", 2)])
    assert state.is_terminal()


def test_the_two_distilled_searches_play_as_one() -> None:
    """The fast policy of docs/training.md ("Two distilled policies as one"): the two shipped
    distillations of the search, multiplied, beside the freight bot's station guard."""
    bot = make_bot("policy:path=expert-clone+search-net-clone,guard=freight", 3)
    assert isinstance(bot, PolicyBot) and isinstance(bot.net, PolicyEnsemble)
    assert [net.meta["command"] for net in bot.net.members] == [
        PolicyNet.load(shipped_policy_path(name)).meta["command"]
        for name in ("expert-clone", "search-net-clone")
    ]
    state = new_game(GameConfig(offices=3, days=1), seed=2)
    play_game(state, [bot, make_bot("passenger", 1), make_bot("freight", 2)])
    assert state.is_terminal()

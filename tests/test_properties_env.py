"""Property tests of the environments over whole games (issue 26), for both versions
(``station_master_v0``, ``station_master_v1``) and the single-agent Gymnasium views
(``StationMaster-v0``, ``-v1``): hypothesis draws the configuration (1-6 offices, days, house
rules, competitive or co-op), the seed and the action choices (a seed for the choice among the
unmasked actions at every step).

- the mask is exact at every step, in the middle of a decision spelled in several actions too:
  it offers exactly the first actions of the legal intents' spellings (``Spaces.spell``), an
  unmasked action is accepted, a masked one refused (the raw env raises, the wrapped env ends
  the game with the offender's penalty, the single-agent view penalizes);
- a refused action changes nothing (hash, observation, mask, the decision spelled so far), and
  the game then goes on exactly as the same game without it;
- a copy of the env (pickle, deepcopy) taken at any step plays on exactly as the original;
- an observation is the same, byte for byte, for two games that differ only in what its seat
  cannot see;
- every observation is in its agent's declared space;
- every episode ends, within the core's decision bound (tests/test_properties_engine.py).

tests/test_env.py, test_env_v1.py and test_gym_contract.py hold the same contracts on fixed
configurations, with more detail; these draw the configurations."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from conftest import hide_differently
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties_engine import configs, decision_bound, sweep

from sm_env import IllegalActionError, station_master_v0, station_master_v1
from sm_env.base import wrap
from sm_env.core import GameConfig, GameState, Rng, load_catalogue
from sm_env.single_agent import StationMasterEnvV0, StationMasterEnvV1

pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
    pytest.mark.filterwarnings("ignore:.*illegal move.*:UserWarning"),
]

VERSIONS: dict[str, ModuleType] = {"v0": station_master_v0, "v1": station_master_v1}
SINGLE_AGENT: dict[str, type[Any]] = {"v0": StationMasterEnvV0, "v1": StationMasterEnvV1}
COPIES: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
    "deepcopy": copy.deepcopy,
}

PROPERTY = settings(
    max_examples=5,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
seeds = st.integers(0, 2**31 - 1)


def env_kwargs(config: GameConfig) -> dict[str, Any]:
    return {
        "num_offices": config.offices,
        "days": config.days,
        "target_revenue": config.target_revenue,
        "mode": config.mode.value,
        "house_rules": [name for name, on in config.house_rules.to_dict().items() if on],
    }


def game_of(raw: Any) -> GameState:
    game = raw.game
    assert game is not None
    return game


def expected_mask(raw: Any) -> set[int]:
    """The reference: the next action of every legal intent still reachable from the actions
    of the decision taken so far. v1's ``spell`` gives the actions still to take (ValueError
    for an intent the tokens so far do not lead to); v0's gives a Move's whole spelling, also
    in the middle of it, so the Move's tokens so far are matched here."""
    builder = getattr(raw.spaces, "builder", None)  # v0's Move being built
    prefix = builder.tokens if builder is not None and builder.started else []
    out: set[int] = set()
    for intent in game_of(raw).legal_intents():
        try:
            spelled = raw.spell(intent)
        except ValueError:
            continue
        if spelled[: len(prefix)] == prefix and len(spelled) > len(prefix):
            out.add(spelled[len(prefix)])
    return out


def sharing_tables(raw: Any) -> Any:
    """A deep copy of a raw env that shares its static tables (quick: pickling v0's action
    table alone takes about a second)."""
    return copy.deepcopy(raw, {id(x): x for x in (raw.catalogue, raw.table, raw.encoder)})


def seen(raw: Any, agent: str) -> tuple[Any, ...]:
    """Everything a refused action must leave alone, and a twin must equal."""
    obs = raw.observe(agent)
    return (
        game_of(raw).state_hash(),
        raw.agent_selection,
        raw.spaces.spelling(),
        obs["observation"].tobytes(),
        obs["action_mask"].tobytes(),
        dict(raw._cumulative_rewards),
    )


# --------------------------------------------------------------------------- the AEC envs


@PROPERTY
@given(config=configs(max_days=1), seed=seeds, play=seeds)
@pytest.mark.parametrize("version", list(VERSIONS))
def test_mask_exact_refusals_change_nothing_and_observations_fit(
    version: str, config: GameConfig, seed: int, play: int
) -> None:
    """At every step of a game: the mask is the reference mask; the observation is in its
    space; up to three masked actions and one outside the space raise IllegalActionError and
    change nothing, and the env then goes on exactly as a twin that was never offered them;
    now and then each agent's observation is in its space, its mask zero unless it acts, and
    unmasked actions other than the one played are accepted by a copy. The game ends within
    the core's bound."""
    raw = VERSIONS[version].raw_env(**env_kwargs(config))
    twin = VERSIONS[version].raw_env(**env_kwargs(config))
    raw.reset(seed=seed)
    twin.reset(seed=seed)
    rng = np.random.default_rng(play)
    size = raw.table.size
    steps = decisions = refused = 0
    while not game_of(raw).is_terminal():
        agent = raw.agent_selection
        mask = raw.action_mask().copy()
        legal = np.flatnonzero(mask)
        assert set(legal.tolist()) == expected_mask(raw)
        obs = raw.observe(agent)
        assert raw.observation_space(agent).contains(obs)
        before = seen(raw, agent)
        assert before == seen(twin, agent)
        masked = np.flatnonzero(mask == 0)
        tries = [int(a) for a in rng.choice(masked, size=min(3, masked.size), replace=False)]
        for action in [*tries, [-1, size][steps % 2]]:
            with pytest.raises(IllegalActionError, match=agent):
                raw.step(action)
            refused += 1
        assert seen(raw, agent) == before
        if steps % 25 == 0:
            for other in raw.agents:
                other_obs = raw.observe(other)
                assert raw.observation_space(other).contains(other_obs)
                assert other == agent or not other_obs["action_mask"].any()
            for action in rng.choice(legal, size=min(3, legal.size), replace=False):
                sharing_tables(raw).step(int(action))  # accepted: no error
        action = int(rng.choice(legal))
        raw.step(action)
        twin.step(action)
        steps += 1
        decisions += raw.decision_done
    assert seen(raw, raw.agent_selection) == seen(twin, twin.agent_selection)
    assert all(raw.terminations.values()) and not raw.action_mask().any()
    assert decisions <= decision_bound(game_of(raw).config, load_catalogue())
    assert refused >= steps


test_mask_exact_sweep = sweep(  # the body keeps its parametrization over the versions
    test_mask_exact_refusals_change_nothing_and_observations_fit,
    8,
    config=configs(max_days=2),
    seed=seeds,
    play=seeds,
)


def game_length(raw: Any, seed: int, play: int) -> int:
    """How many steps the game of ``seed`` lasts with the random unmasked actions of ``play``."""
    raw.reset(seed=seed)
    rng, steps = np.random.default_rng(play), 0
    while not game_of(raw).is_terminal():
        raw.step(int(rng.choice(np.flatnonzero(raw.action_mask()))))
        steps += 1
    return steps


@settings(PROPERTY, max_examples=6)
@given(config=configs(max_days=1), seed=seeds, play=seeds, at=st.integers(0, 10**6))
@pytest.mark.parametrize("version", list(VERSIONS))
def test_the_wrapped_env_ends_the_game_on_a_masked_action(
    version: str, config: GameConfig, seed: int, play: int, at: int
) -> None:
    """``env()`` (``illegal_action="terminate"``): a masked action at any step of a game ends
    it for every agent, the offender rewarded -1 and the others 0, the game left as it was;
    with ``"raise"`` it raises, changes nothing and the game goes on."""
    raw = VERSIONS[version].raw_env(**env_kwargs(config))
    length = game_length(sharing_tables(raw), seed, play)
    for mode in ("terminate", "raise"):
        env = wrap(sharing_tables(raw), mode, -1.0)  # what ``env(illegal_action=mode)`` makes
        env.reset(seed=seed)
        rng = np.random.default_rng(play)
        for _ in range(at % length):  # the same game as ``game_length``'s, stopped short of its end
            env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
        offender = env.agent_selection
        game = game_of(env.unwrapped)
        state_hash = game.state_hash()
        mask = env.last()[0]["action_mask"]
        masked = int(rng.choice(np.flatnonzero(mask == 0)))
        if mode == "raise":
            with pytest.raises(IllegalActionError, match="masked out"):
                env.step(masked)
            assert env.agent_selection == offender and not any(env.terminations.values())
            assert game.state_hash() == state_hash
            env.step(int(rng.choice(np.flatnonzero(mask))))  # and it goes on
            continue
        env.step(masked)
        assert game.state_hash() == state_hash
        rewards = {}
        for agent in env.agent_iter():
            _, reward, terminated, _, _ = env.last()
            assert terminated
            rewards[agent] = reward
            env.step(None)
        assert rewards == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}


def aec_trace(raw: Any, rng: np.random.Generator) -> list[tuple[Any, ...]]:
    """The rest of the game with random unmasked actions: what each step saw."""
    out = []
    while not game_of(raw).is_terminal():
        agent = raw.agent_selection
        out.append(seen(raw, agent))
        raw.step(int(rng.choice(np.flatnonzero(raw.action_mask()))))
    out.append(seen(raw, raw.agent_selection))
    return out


@settings(PROPERTY, max_examples=3)
@given(
    config=configs(max_days=1),
    seed=seeds,
    play=seeds,
    at=st.integers(0, 300),
    how=st.sampled_from(list(COPIES)),
)
@pytest.mark.parametrize("version", list(VERSIONS))
def test_a_copy_taken_at_any_step_plays_on_as_the_original(
    version: str, config: GameConfig, seed: int, play: int, at: int, how: str
) -> None:
    """Saving an env (pickle, deepcopy) at any step, in the middle of a spelled decision too,
    and going on with the copy equals going on with the original, step for step."""
    raw = VERSIONS[version].raw_env(**env_kwargs(config))
    raw.reset(seed=seed)
    rng = np.random.default_rng(play)
    for _ in range(at):
        if game_of(raw).is_terminal():
            break
        raw.step(int(rng.choice(np.flatnonzero(raw.action_mask()))))
    saved = COPIES[how](raw)
    assert game_of(saved) is not game_of(raw)
    assert aec_trace(saved, np.random.default_rng(play + 1)) == aec_trace(
        raw, np.random.default_rng(play + 1)
    )


@PROPERTY
@given(config=configs(max_days=2), seed=seeds, play=seeds, deal=seeds, every=st.integers(3, 30))
@pytest.mark.parametrize("version", list(VERSIONS))
def test_an_observation_is_blind_to_what_its_seat_cannot_see(
    version: str, config: GameConfig, seed: int, play: int, deal: int, every: int
) -> None:
    """D-view.1: at the start of every ``every``-th decision, for every agent, the game with
    the other hands, the Home Office and the random stream dealt again (``hide_differently``)
    and the game the seat's view determinizes give that agent the very observation and mask
    (spaces apart from the env's encode them all; the env's own, cached, agrees)."""
    raw = VERSIONS[version].raw_env(**env_kwargs(config))
    raw.reset(seed=seed)
    fresh = type(raw.spaces)(raw.config, raw.catalogue)
    rng = np.random.default_rng(play)
    checked = decisions = 0
    while not game_of(raw).is_terminal():
        if raw.spaces.spelling() is None and decisions % every == 0:
            game = game_of(raw)
            for agent in raw.agents:
                seat = raw.seat_of(agent)
                acting = agent == raw.agent_selection
                ours = encode(fresh, game, seat, acting)
                assert ours == encode_env(raw, agent)
                assert encode(fresh, hide_differently(game, seat, Rng(deal)), seat, acting) == ours
                full = game.view(seat).determinize(Rng(deal + 1))
                assert encode(fresh, full, seat, acting) == ours
                checked += 1
        raw.step(int(rng.choice(np.flatnonzero(raw.action_mask()))))
        decisions += raw.decision_done
    assert checked >= config.offices  # the first decision at least, every agent


def encode(spaces: Any, game: GameState, seat: int, acting: bool) -> tuple[bytes, bytes]:
    """``seat``'s observation and mask of ``game``, from spaces apart from the env's, told
    the game afresh (no cache of the env's comes into it)."""
    spaces.new_game(game)
    obs = spaces.observe(seat, acting)
    return obs["observation"].tobytes(), obs["action_mask"].tobytes()


def encode_env(raw: Any, agent: str) -> tuple[bytes, bytes]:
    obs = raw.observe(agent)
    return obs["observation"].tobytes(), obs["action_mask"].tobytes()


# --------------------------------------------------------------------------- the single-agent views


@PROPERTY
@given(config=configs(max_days=2), seed=seeds, play=seeds, learner=st.integers(0, 5))
@pytest.mark.parametrize("version", list(SINGLE_AGENT))
def test_single_agent_mask_exact_penalties_change_nothing_and_observations_fit(
    version: str, config: GameConfig, seed: int, play: int, learner: int
) -> None:
    """``StationMaster-v0``/``-v1`` with random opponents: at every step the observation is
    in the observation space and ``action_masks()`` is the reference mask; a masked action
    costs -1, is flagged, changes nothing, and the episode goes on exactly as a twin's that
    never took it; each decision takes at most as many actions as its intent's spelling, and
    the episode ends within the core's bound of decisions."""
    kwargs = env_kwargs(config) | {"learner": f"office_{learner % config.offices}"}
    env, twin = SINGLE_AGENT[version](**kwargs), SINGLE_AGENT[version](**kwargs)
    obs, _ = env.reset(seed=seed)
    twin_obs, _ = twin.reset(seed=seed)
    rng = np.random.default_rng(play)
    done, decisions, tokens, longest = False, 0, 0, 0
    while not done:
        assert env.observation_space.contains(obs)
        assert obs.tobytes() == twin_obs.tobytes()
        masks = env.action_masks()
        assert set(np.flatnonzero(masks).tolist()) == expected_mask(env.aec)
        if env.aec.spaces.spelling() is None:  # a decision of the learner begins
            longest = max(len(env.aec.spell(intent)) for intent in game_of(env.aec).legal_intents())
            tokens = 0
        if rng.random() < 0.3 and (~masks).any():
            state_hash = game_of(env.aec).state_hash()
            again, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(~masks))))
            assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, False, False, True)
            assert again.tobytes() == obs.tobytes() and game_of(env.aec).state_hash() == state_hash
            assert np.array_equal(env.action_masks(), masks)
        action = int(rng.choice(np.flatnonzero(masks)))
        obs, reward, terminated, truncated, info = env.step(action)
        twin_obs, twin_reward, *twin_ends, twin_info = twin.step(action)
        assert (reward, terminated, truncated) == (twin_reward, *twin_ends)
        assert info["revenue_events"] == twin_info["revenue_events"] and not info["illegal_action"]
        assert game_of(env.aec).state_hash() == game_of(twin.aec).state_hash()
        done = terminated or truncated
        tokens += 1
        assert tokens <= longest, "a decision took more actions than its spelling"
        decisions += env.aec.spaces.spelling() is None  # opponents never act inside one
        assert decisions <= decision_bound(config, load_catalogue())
    assert env.observation_space.contains(obs) and not env.action_masks().any()
    assert game_of(env.aec).is_terminal() and decisions > 0

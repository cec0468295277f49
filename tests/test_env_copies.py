"""Every environment pickles and deep-copies (process pools, Ray and users' own tools pickle
envs): v0 and v1, raw and wrapped, and both single-agent views, made directly and through
``gymnasium.make``; before reset and in the middle of a game (also in the middle of a decision
being spelled). The copy then plays on exactly as the original: the same observations, masks,
rewards, ends and state hashes, step for step."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest

import sm_env
from sm_env import station_master_v0, station_master_v1
from sm_env.single_agent import StationMasterEnvV0, StationMasterEnvV1

COPIES: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
    "deepcopy": copy.deepcopy,
}
AEC_ENVS: dict[str, Callable[..., Any]] = {
    "v0": station_master_v0.env,
    "v1": station_master_v1.env,
    "raw_v0": station_master_v0.raw_env,
    "raw_v1": station_master_v1.raw_env,
}
SINGLE_AGENT_ENVS: dict[str, Callable[..., Any]] = {
    "v0": StationMasterEnvV0,
    "v1": StationMasterEnvV1,
    "made_v0": lambda **config: gymnasium.make(sm_env.GYM_ID_V0, **config),
    "made_v1": lambda **config: gymnasium.make(sm_env.GYM_ID_V1, **config),
}


def aec_steps(env: Any, rng: np.random.Generator, steps: int) -> list[tuple[Any, ...]]:
    """``steps`` random legal steps (a game over, the next begins from a seed of ``rng``):
    what the acting agent saw and earned before each, with the game's hash after it."""
    seen: list[tuple[Any, ...]] = []
    for _ in range(steps):
        if not env.agents:
            env.reset(seed=int(rng.integers(2**31)))
        obs, reward, terminated, truncated, _ = env.last()
        agent = env.agent_selection
        done = terminated or truncated
        action = None if done else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        game = env.unwrapped.game
        seen.append(
            (
                agent,
                obs["observation"].tobytes(),
                obs["action_mask"].tobytes(),
                reward,
                done,
                game.state_hash(),
            )
        )
    return seen


def spelling(env: Any) -> bool:
    """Whether the agent to act is in the middle of a decision of several actions."""
    return env.unwrapped.spaces.spelling() is not None


def spelled_starts(env: Any) -> np.ndarray:
    """The actions that begin a decision of several (a Move's tray; in v1 the heads that a
    cell token follows), and the choice of switching that leads to Moves."""
    table = env.unwrapped.table
    starts = np.zeros(table.size, dtype=np.int8)
    for name in ("choose_switch", "move_tray", *getattr(table, "two_token_heads", ())):
        block = table.blocks[name]
        starts[block.start : block.start + block.size] = 1
    return starts


def plays_on_alike(env: Any, twin: Any, seed: int) -> None:
    assert twin.unwrapped.game is not env.unwrapped.game
    assert twin.unwrapped.game.state_hash() == env.unwrapped.game.state_hash()
    ours = aec_steps(env, np.random.default_rng(seed), 300)
    assert aec_steps(twin, np.random.default_rng(seed), 300) == ours


@pytest.mark.parametrize("how", list(COPIES))
@pytest.mark.parametrize("version", list(AEC_ENVS))
def test_aec_env_copies_play_on_as_the_original(version: str, how: str) -> None:
    env = AEC_ENVS[version](num_offices=3)
    fresh = COPIES[how](env)  # before reset
    env.reset(seed=7)
    fresh.reset(seed=7)
    plays_on_alike(env, fresh, 0)
    env.reset(seed=8)
    plays_on_alike(env, COPIES[how](env), 1)  # just after reset
    starts, rng = spelled_starts(env), np.random.default_rng(2)
    for _ in range(2000):  # on to the middle of a decision spelled in several actions
        if spelling(env):
            break
        if not env.agents:
            env.reset(seed=int(rng.integers(2**31)))
        obs, _, terminated, truncated, _ = env.last()
        offered = np.flatnonzero(obs["action_mask"] & starts)
        legal = offered if len(offered) else np.flatnonzero(obs["action_mask"])
        env.step(None if terminated or truncated else int(rng.choice(legal)))
    assert spelling(env)
    plays_on_alike(env, COPIES[how](env), 3)


def single_agent_steps(env: Any, rng: np.random.Generator, steps: int) -> list[tuple[Any, ...]]:
    seen: list[tuple[Any, ...]] = []
    for _ in range(steps):
        masks = env.unwrapped.action_masks()
        observation, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(masks))))
        seen.append((observation.tobytes(), masks.tobytes(), reward, terminated, truncated, info))
        if terminated or truncated:
            observation, info = env.reset()
            seen.append((observation.tobytes(), info))
    return seen


@pytest.mark.parametrize("how", list(COPIES))
@pytest.mark.parametrize("version", list(SINGLE_AGENT_ENVS))
def test_single_agent_env_copies_play_on_as_the_original(version: str, how: str) -> None:
    """The opponents (random, from the env's own generator) and the resets without a seed
    that follow an episode's end play the same in the copy too."""
    env = SINGLE_AGENT_ENVS[version](num_offices=2, days=1)
    fresh = COPIES[how](env)  # before reset
    first = env.reset(seed=3)
    again = fresh.reset(seed=3)
    assert first[0].tobytes() == again[0].tobytes() and first[1] == again[1]
    assert single_agent_steps(fresh, np.random.default_rng(0), 100) == single_agent_steps(
        env, np.random.default_rng(0), 100
    )
    twin = COPIES[how](env)  # in the middle of a game
    assert twin.unwrapped.aec.game is not env.unwrapped.aec.game
    ours = single_agent_steps(env, np.random.default_rng(1), 300)
    assert single_agent_steps(twin, np.random.default_rng(1), 300) == ours
    assert twin.unwrapped.aec.game.state_hash() == env.unwrapped.aec.game.state_hash()

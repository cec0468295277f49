"""``sm_env.base.ClassicWrapper``: one layer that behaves as the three PettingZoo wrappers the
classic games use (order enforcing, the bounds assertion, ending the game on a masked action).

Each test plays the same seeded games through it and through PettingZoo's own stack around
another raw env, and asks for the same answers at every step."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

import sm_env
from sm_env.base import ClassicWrapper
from sm_env.station_master_v0 import raw_env
from sm_env.station_master_v1 import raw_env as raw_env_v1


def pettingzoo_stack(raw: AECEnv, illegal_reward: float | None) -> AECEnv:
    """What ``sm_env.env`` wrapped its raw env in before ``ClassicWrapper``."""
    wrapped = raw if illegal_reward is None else wrappers.TerminateIllegalWrapper(raw, illegal_reward)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(wrapped))


def outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """What a call returned, or the kind of error it raised."""
    try:
        return "ok", call()
    except (AssertionError, AttributeError, KeyError) as error:
        return type(error).__name__, str(error)


def same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return bool(a == b)


def snapshot(env: AECEnv) -> tuple[Any, ...]:
    return (
        env.agents[:],
        env.agent_selection,
        dict(env.rewards),
        dict(env._cumulative_rewards),
        dict(env.terminations),
        dict(env.truncations),
        env.infos,
    )


@pytest.mark.parametrize("version", [raw_env, raw_env_v1])
@pytest.mark.parametrize("illegal_reward", [-1.0, None])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_plays_as_pettingzoos_stack(version: type[raw_env], illegal_reward: float | None, seed: int) -> None:
    """Random games with some masked and some out-of-space actions thrown in: the same
    observations, rewards, ends, infos and errors as PettingZoo's three wrappers, step for
    step, until every agent is gone."""
    ours = ClassicWrapper(version(num_offices=3), illegal_reward)
    theirs = pettingzoo_stack(version(num_offices=3), illegal_reward)
    rng = np.random.default_rng(seed)
    for game in range(2):
        for env in (ours, theirs):
            env.reset(seed=seed * 10 + game)
        for _ in range(400):
            a, b = outcome(ours.last), outcome(theirs.last)
            assert same(a, b)
            assert same(snapshot(ours), snapshot(theirs))
            if not ours.agents:
                break
            obs, _, terminated, truncated, _ = ours.last()
            roll = rng.random()
            if terminated or truncated:
                action: Any = None
            elif roll < 0.02:
                action = ours.action_space(ours.agent_selection).n + 3  # outside the space
            elif roll < 0.04 and illegal_reward is not None:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"] == 0)))
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            assert same(outcome(lambda: ours.step(action)), outcome(lambda: theirs.step(action)))  # noqa: B023
        assert same(snapshot(ours), snapshot(theirs))
        assert ours.unwrapped.game.state_hash() == theirs.unwrapped.game.state_hash()


BEFORE_RESET = ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "num_agents")


@pytest.mark.parametrize("wrapped", ["ours", "pettingzoo"])
def test_order_is_enforced_as_pettingzoo_does(wrapped: str, caplog: pytest.LogCaptureFixture) -> None:
    """Before reset: reading the agents or the selection is an AttributeError, stepping,
    observing and iterating an AssertionError with PettingZoo's words; a loop over
    ``agent_iter`` must step; stepping once every agent is gone warns and changes nothing."""
    raw = raw_env_v1(num_offices=2)
    env = ClassicWrapper(raw, -1.0) if wrapped == "ours" else pettingzoo_stack(raw, -1.0)
    for name in BEFORE_RESET:
        with pytest.raises(AttributeError, match="before reset"):
            getattr(env, name)
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
    with pytest.raises(AssertionError, match="reset"):
        env.observe("office_0")
    with pytest.raises(AssertionError, match="reset"):
        env.agent_iter()
    with pytest.raises(AttributeError, match="private"):
        env._seat_of  # noqa: B018 - the access is what is tested
    env.reset(seed=3)
    assert isinstance(env, wrappers.OrderEnforcingWrapper)
    assert str(env) == "station_master_v1"
    with pytest.raises(AssertionError, match="step"):
        for _agent in env.agent_iter():
            pass
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0]))  # masked: the game ends
    for _agent in env.agent_iter():
        env.step(None)
    before = raw.game.state_hash()
    env.step(0)
    assert "step() called after all agents are terminated or truncated" in caplog.text
    assert raw.game.state_hash() == before and not env.agents


def test_an_action_outside_the_space_is_refused_before_the_env_sees_it() -> None:
    """Out-of-range ints, a float, a string, None while the agent is live: AssertionError, the
    game as it was (NumPy integers and 0-d integer arrays are in the space, as
    ``Discrete.contains`` says)."""
    env = sm_env.env_v1(num_offices=3)
    env.reset(seed=5)
    raw = env.unwrapped
    before = raw.game.state_hash()
    for action in (-1, env.action_space(env.agent_selection).n, 1.5, "3", None):
        with pytest.raises(AssertionError, match="action space"):
            env.step(action)
    assert raw.game.state_hash() == before and not any(env.terminations.values())
    legal = int(np.flatnonzero(env.last()[0]["action_mask"])[0])
    env.step(np.array(legal, dtype=np.int64))
    assert raw.game.state_hash() != before or raw.speller is not None

"""The Gymnasium contract of ``gymnasium.make("StationMaster-v0")`` and the conventions RL
libraries rely on: every action of the space is accepted (a masked one is penalised and
flagged, changing nothing), Gymnasium's and Stable-Baselines3's ``check_env`` pass on the
defaults, ``action_masks()`` is found through Gymnasium's and SB3's wrappers as sb3-contrib
looks for it, MaskablePPO trains on the made env, and ``import sm_env.core`` stays free of
the RL frameworks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest

import sm_env
from sm_env import IllegalActionError
from sm_env.single_agent import StationMasterEnvV0

ROOT = Path(__file__).resolve().parent.parent

# check_env on a made env says it would rather have the unwrapped one; it checks it anyway.
WRAPPED_WARNING = "ignore:.*is different from the unwrapped version:UserWarning"
QUIET_BLOCKS = ("pass", "end_switching", "end_turn", "discard", "end_consist", "end_cargo")


def made(**kwargs: Any) -> gymnasium.Env[np.ndarray, np.int64]:
    return gymnasium.make(sm_env.GYM_ID_V0, **kwargs)


def inner(env: gymnasium.Env[np.ndarray, np.int64]) -> StationMasterEnvV0:
    unwrapped = env.unwrapped
    assert isinstance(unwrapped, StationMasterEnvV0)
    return unwrapped


def legal_step(env: gymnasium.Env[np.ndarray, np.int64], rng: np.random.Generator) -> bool:
    """One random legal step through the made env; True when the episode ended."""
    masks = env.get_wrapper_attr("action_masks")()
    _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(masks))))
    assert info["illegal_action"] is False and "illegal_reason" not in info
    return bool(terminated or truncated)


# --------------------------------------------------------------------------- every action accepted


def test_made_env_accepts_every_action_of_its_space() -> None:
    """Default ``gymnasium.make``: every masked action of the whole space, stepped one after
    another, changes nothing (game, observation, mask), costs -1.0 and is flagged in ``info``
    with its reason; then a legal action plays on."""
    env = made()
    obs, info = env.reset(seed=3)
    assert info["illegal_action"] is False
    game = inner(env).aec.game
    assert game is not None
    state_hash, masks = game.state_hash(), inner(env).action_masks()
    masked = np.flatnonzero(~masks)
    assert masked.size == env.action_space.n - masks.sum() > 6000
    for action in masked:
        again, reward, terminated, truncated, info = env.step(int(action))
        assert (reward, terminated, truncated) == (-1.0, False, False)
        assert info["illegal_action"] is True and info["revenue_events"] == []
        assert inner(env).action_to_str(int(action)) in info["illegal_reason"]
    assert "masked out" in info["illegal_reason"]
    assert np.array_equal(again, obs)
    assert game.state_hash() == state_hash
    assert np.array_equal(inner(env).action_masks(), masks)
    legal_step(env, np.random.default_rng(0))
    assert game.state_hash() != state_hash


def test_masked_actions_in_the_middle_of_a_game_and_of_a_move() -> None:
    """Masked actions at random decisions of whole episodes (with Move tokens half spelled
    too) change nothing and list no revenue events; the rewards of the legal steps still add
    up to the learner's revenue, and so do the revenue events of every info (reset's too)."""
    penalties = mid_move = 0
    for seed in range(20):
        env = made(num_offices=2, days=2, illegal_reward=-0.25)
        rng = np.random.default_rng(seed)
        _, info = env.reset(seed=seed)
        events = sum(e["amount"] for e in info["revenue_events"])
        raw = inner(env).aec
        quiet = np.zeros(env.action_space.n, dtype=bool)
        for name in QUIET_BLOCKS:
            block = raw.table.blocks[name]
            quiet[block.start : block.start + block.size] = True
        total, done = 0.0, False
        while not done:
            assert raw.game is not None
            masks = inner(env).action_masks()
            spelling = raw.spaces.builder is not None and raw.spaces.builder.started
            if spelling or rng.random() < 0.2:
                state_hash, obs = raw.game.state_hash(), raw.observe(raw.agent_selection)["observation"]
                _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(~masks))))
                assert (reward, terminated, truncated, info["illegal_action"]) == (-0.25, False, False, True)
                assert info["revenue_events"] == []
                assert raw.game.state_hash() == state_hash
                assert np.array_equal(raw.observe(raw.agent_selection)["observation"], obs)
                penalties += 1
                mid_move += spelling
            legal = np.flatnonzero(masks)
            busy = legal[~quiet[legal]]
            action = rng.choice(busy if busy.size and rng.random() < 0.9 else legal)
            _, reward, terminated, truncated, info = env.step(int(action))
            total += float(reward)
            events += sum(e["amount"] for e in info["revenue_events"])
            done = terminated or truncated
        assert total == events == info["revenue"]
        if mid_move >= 5 and penalties > 50:
            break
    assert penalties > 50 and mid_move >= 5, (penalties, mid_move)


def test_infos_share_nothing_with_the_env() -> None:
    """An info is the caller's: changing its revenue events changes neither the env nor a
    later info."""
    info: dict[str, Any] = {"revenue_events": []}
    for seed in range(20):
        env = made(num_offices=3, days=2)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        done = False
        while not (done or info["revenue_events"]):
            masks = inner(env).action_masks()
            _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(masks))))
            done = terminated or truncated
        if info["revenue_events"]:
            break
    assert info["revenue_events"], "no revenue in 20 episodes"
    raw = inner(env).aec
    kept = [dict(e) for e in info["revenue_events"]]
    info["revenue_events"][0]["amount"] = 10**6
    info["revenue_events"].append({"amount": 1})
    assert raw.infos[inner(env).learner]["revenue_events"] == kept


@pytest.mark.parametrize("mode", ["terminate", "raise"])
def test_terminate_and_raise_stay_available(mode: str) -> None:
    """``illegal_action="terminate"`` ends the episode with ``illegal_reward``, flagged;
    ``"raise"`` raises IllegalActionError. Neither changes the game."""
    env = made(illegal_action=mode, illegal_reward=-2.0)
    obs, _ = env.reset(seed=4)
    game = inner(env).aec.game
    assert game is not None
    state_hash = game.state_hash()
    masked = int(np.flatnonzero(~inner(env).action_masks())[0])
    if mode == "raise":
        with pytest.raises(IllegalActionError, match="masked out"):
            env.step(masked)
        assert inner(env).action_masks().any()
    else:
        again, reward, terminated, truncated, info = env.step(masked)
        assert (reward, terminated, truncated) == (-2.0, True, False)
        assert info["illegal_action"] is True and info["illegal_reason"]
        assert np.array_equal(again, obs)
        assert not inner(env).action_masks().any()
        with pytest.raises(RuntimeError, match="reset"):
            env.step(masked)
    assert game.state_hash() == state_hash


@pytest.mark.parametrize("action", [-1, 10**6, 1.0, "3", np.array([3]), None])
def test_actions_outside_the_space_raise(action: Any) -> None:
    """Only actions outside the space (not an integer in ``[0, n)``) raise, in every mode."""
    env = made()
    env.reset(seed=1)
    with pytest.raises(IllegalActionError, match="action must be an integer"):
        env.step(action)


def test_numpy_integer_actions_are_accepted() -> None:
    """What ``Discrete.contains`` accepts is accepted: NumPy integers and 0-d integer arrays
    (``MaskablePPO.predict`` on one observation returns one)."""
    env = made()
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for wrap in (np.int64, np.int32, np.array, lambda a: np.array(a, dtype=np.uint16)):
        action = wrap(int(rng.choice(np.flatnonzero(inner(env).action_masks()))))
        assert env.action_space.contains(action)
        _, _, _, _, info = env.step(action)
        assert info["illegal_action"] is False


# --------------------------------------------------------------------------- the checkers


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("config", [{}, {"num_offices": 1}, {"num_offices": 6, "days": 2}])
def test_gymnasium_check_env_on_the_unwrapped_env(config: dict[str, Any]) -> None:
    """Gymnasium's checker passes on ``gymnasium.make(...).unwrapped``, with every warning an
    error (it steps random actions of the whole space, renders every mode, makes and closes)."""
    from gymnasium.utils.env_checker import check_env

    check_env(made(**config).unwrapped)


@pytest.mark.filterwarnings(WRAPPED_WARNING)  # the top mark wins
@pytest.mark.filterwarnings("error")
def test_gymnasium_check_env_on_the_made_env() -> None:
    """And on the made env itself, wrappers and all (its only warning: it is wrapped)."""
    from gymnasium.utils.env_checker import check_env

    check_env(made())


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("unwrap", [False, True])
def test_sb3_check_env(unwrap: bool) -> None:
    """Stable-Baselines3's checker passes on the made env and on the unwrapped one, with every
    warning an error."""
    from stable_baselines3.common.env_checker import check_env

    env = made()
    check_env(env.unwrapped if unwrap else env, warn=True)


def test_metadata_and_spec() -> None:
    """The made env declares its render modes and fps, and its spec is the registered one."""
    env = made()
    assert env.metadata["render_modes"] == ["ansi", "human"]
    assert env.metadata["render_fps"] == 1
    assert env.spec is not None and env.spec.id == sm_env.GYM_ID_V0
    assert env.spec.entry_point == "sm_env.single_agent:StationMasterEnvV0"
    assert inner(env).illegal_action == "penalize" and inner(env).illegal_reward == -1.0


def test_seeded_reset_is_deterministic() -> None:
    """``reset(seed=s)`` gives the same observation and info every time and after any play;
    the unseeded resets that follow are the same too; another seed gives another game."""
    env = made()
    first, info = env.reset(seed=11)
    after, _ = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        legal_step(env, rng)
    again, info_again = env.reset(seed=11)
    assert np.array_equal(first, again) and info == info_again
    assert np.array_equal(env.reset()[0], after)
    other, _ = env.reset(seed=12)
    assert not np.array_equal(first, other)


def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    """Render mode "ansi" returns the board; "human" prints it once at reset and once per step
    (not after every opponent's action) and returns None; no mode renders nothing."""
    ansi = made(render_mode="ansi")
    ansi.reset(seed=2)
    text = ansi.render()
    assert isinstance(text, str) and "Division Yard" in text

    human = made(render_mode="human", num_offices=3)
    human.reset(seed=2)
    assert capsys.readouterr().out.count("Division Yard") == 1
    legal_step(human, np.random.default_rng(2))
    assert capsys.readouterr().out.count("Division Yard") == 1
    assert human.render() is None
    assert capsys.readouterr().out.count("Division Yard") == 1

    plain = made()
    plain.reset(seed=2)
    assert plain.render() is None
    assert capsys.readouterr().out == ""


# --------------------------------------------------------------------------- masks through wrappers


def test_action_masks_through_gymnasium_and_sb3_wrappers() -> None:
    """sb3-contrib's ``get_action_masks`` / ``is_masking_supported`` find ``action_masks()``
    through ``gymnasium.make``'s wrappers, more Gymnasium wrappers and SB3's Monitor, and give
    the learner's exact mask as it changes."""
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.monitor import Monitor

    base = made()
    envs = [
        base,
        gymnasium.wrappers.RecordEpisodeStatistics(gymnasium.wrappers.TimeLimit(made(), 50)),
        Monitor(made()),
    ]
    rng = np.random.default_rng(3)
    for env in envs:
        assert is_masking_supported(env)
        env.reset(seed=3)
        for _ in range(10):
            masks = get_action_masks(env)
            raw = inner(env).aec
            assert masks.dtype == bool and masks.shape == (env.action_space.n,)
            assert np.array_equal(masks, raw.action_mask().astype(bool))
            assert raw.agent_selection == inner(env).learner
            assert legal_step(env, rng) is False
    with pytest.raises(AttributeError):
        base.action_masks  # noqa: B018 - Gymnasium 1 wrappers forward no attributes


def test_action_masks_through_a_dummy_vec_env() -> None:
    """``get_action_masks`` on a ``DummyVecEnv`` of made envs stacks each env's mask."""
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([lambda: made(), lambda: made(num_offices=3)])
    assert is_masking_supported(venv)
    venv.seed(7)
    venv.reset()
    rng = np.random.default_rng(7)
    for _ in range(10):
        masks = get_action_masks(venv)
        assert masks.dtype == bool and masks.shape == (2, venv.action_space.n)
        for k, env in enumerate(venv.envs):
            assert np.array_equal(masks[k], inner(env).action_masks())
        venv.step(np.array([rng.choice(np.flatnonzero(row)) for row in masks]))


def test_maskable_ppo_learns_on_the_made_env(one_torch_thread: None) -> None:
    """A tiny MaskablePPO run (64 steps, one torch thread) on the default made env; every
    action it took was unmasked."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    class Watch(BaseCallback):
        illegal = 0

        def _on_step(self) -> bool:
            Watch.illegal += sum(info["illegal_action"] for info in self.locals["infos"])
            return True

    model = MaskablePPO("MlpPolicy", made(), n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.learn(total_timesteps=64, callback=Watch())
    assert model.num_timesteps == 64
    assert Watch.illegal == 0


# --------------------------------------------------------------------------- imports


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, timeout=120
    )


FRAMEWORKS = "('gymnasium', 'pettingzoo')"


@pytest.mark.parametrize("module", ["sm_env.core", "sm_env.core.engine", "sm_env.core.registry", "sm_env"])
def test_importing_the_package_loads_no_rl_framework(module: str) -> None:
    """``import sm_env.core`` (and its modules, and ``sm_env`` itself) loads neither Gymnasium
    nor PettingZoo: the environment is registered when Gymnasium comes in."""
    run_python(
        f"import sys, {module}\n"
        f"loaded = [m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS}]\n"
        "assert not loaded, loaded\n"
    )


@pytest.mark.parametrize(
    ("imports", "prefix"),
    [
        ("import gymnasium, sm_env", ""),
        ("import sm_env, gymnasium", ""),
        ("import sm_env.core.state, gymnasium", ""),
        ("import sm_env; from gymnasium import spaces; import gymnasium", ""),
        ("import sm_env; import pettingzoo; import gymnasium", ""),
        ("import importlib.util, sm_env; importlib.util.find_spec('gymnasium'); import gymnasium", ""),
        ("import gymnasium", "sm_env:"),  # make imports the package itself
    ],
)
def test_gymnasium_make_works_whatever_the_import_order(imports: str, prefix: str) -> None:
    """``gymnasium.make("StationMaster-v1")`` and ``-v0`` work once both are imported, in any
    order, and ``gymnasium.make("sm_env:StationMaster-v1")`` with Gymnasium alone (a fresh
    interpreter, a worker process say: Gymnasium 1 has no plugins that would import it)."""
    result = run_python(
        f"{imports}\n"
        f"for env_id in {[prefix + sm_env.GYM_ID_V1, prefix + sm_env.GYM_ID_V0]!r}:\n"
        "    env = gymnasium.make(env_id, num_offices=2)\n"
        "    obs, info = env.reset(seed=1)\n"
        "    print(type(env.unwrapped).__name__, obs.shape[0] > 0)\n"
    )
    assert result.stdout.split() == ["StationMasterEnvV1", "True", "StationMasterEnvV0", "True"]


def _station_master_2() -> gymnasium.Env[Any, Any]:
    """A made env for the vector envs (module level: SubprocVecEnv pickles its factories)."""
    import sm_env  # noqa: F401 - registers the id in a worker process

    return gymnasium.make(sm_env.GYM_ID_V0, num_offices=2, days=1)


def test_subproc_vec_env_trajectories_equal_a_serial_run() -> None:
    """The single-agent env in SubprocVecEnv workers (one process per env) gives, step for
    step, the observations, rewards, ends and masks of the same envs run serially."""
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    def trajectory(venv: Any) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        venv.seed(7)
        obs = venv.reset()
        rng = np.random.default_rng(0)
        out = []
        for _ in range(150):
            masks = get_action_masks(venv)
            actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
            obs, rewards, dones, _infos = venv.step(actions)
            out.append((obs.copy(), rewards.copy(), dones.copy(), masks.copy()))
        venv.close()
        return out

    serial = trajectory(DummyVecEnv([_station_master_2] * 2))
    parallel = trajectory(SubprocVecEnv([_station_master_2] * 2, start_method="spawn"))
    assert len(serial) == len(parallel)
    for (o1, r1, d1, m1), (o2, r2, d2, m2) in zip(serial, parallel, strict=True):
        assert np.array_equal(o1, o2) and np.array_equal(r1, r2)
        assert np.array_equal(d1, d2) and np.array_equal(m1, m2)
    assert any(d.any() for _, _, d, _ in serial)  # episodes ended and restarted alike

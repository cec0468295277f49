"""``station-master bench``: every speed figure of the project in one run on one machine.

- the rules core under random legal play: decisions/s and games/s at 1, 3 and 6 offices;
  clone time; cost per game as offices (1-6) and days (1-5) grow;
- the PettingZoo AEC env (``station_master_v0.env``) under uniform random masked actions, reset excluded
  and included, beside PettingZoo's ``connect_four_v3`` and a trivial AEC env with the same
  spaces and wrapper but no rules, with the ratios; reset time and memory per env. These envs
  are played in turn for several rounds and each figure is its fastest round, so a machine
  whose speed drifts during the run shifts them alike;
- catanatron's engine under random play beside the core (``pip install
  'station-master[bench]'``; reported as missing otherwise), the two in turn for several
  rounds like the AEC envs;
- the Gymnasium single-agent env under random masked actions;
- sb3-contrib MaskablePPO frames/s and game decisions/s (a Move spelled in several tokens is
  one decision) on one core and on all cores (``SubprocVecEnv``), beside a trivial env of the
  same spaces;
- the same for ``station_master_v1`` (``sm_env.env_v1``, ``StationMaster-v1``), whose decisions
  are spelled in tokens: its steps are tokens, and its decisions/s count the tokens that
  completed a decision.

Speed is measured here, never in timed tests; each figure comes from fixed seeds. ``--quick``
runs every figure at a tiny size (the test suite checks that it reports them all).
"""

from __future__ import annotations

import importlib.util
import os
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import sm_env
from agents import seat_seed
from sm_env.base import wrap
from sm_env.core import COMPILED, GameConfig, Rng, compiled_modules, new_game
from sm_env.single_agent import StationMasterEnvV1

OFFICE_COUNTS = (1, 3, 6)
GROWTH_OFFICES = (1, 2, 3, 4, 5, 6)
GROWTH_DAYS = (1, 2, 3, 4, 5)
ENV_OFFICES = 3  # the env figures and the peers' ratios are taken at 3 offices


@dataclass(frozen=True)
class Size:
    """How much each figure plays: games of the core and envs, frames of training."""

    core_games: int
    env_games: int
    peer_games: int
    ppo_frames: int
    ppo_steps: int  # MaskablePPO n_steps per env
    rounds: int  # rounds of the compared plays (AEC envs, core and catanatron): each figure is its fastest

    @classmethod
    def of(cls, quick: bool) -> Size:
        return cls(1, 1, 2, 64, 32, 1) if quick else cls(20, 20, 100, 2048, 512, 5)

    def rounds_note(self) -> str:
        """The note of a figure taken as the fastest of the rounds."""
        return f"fastest of {self.rounds} rounds" if self.rounds > 1 else ""


@dataclass(frozen=True)
class Figure:
    key: str
    label: str
    value: float | None  # None: not measured (``note`` says why)
    unit: str
    note: str = ""


# ---------------------------------------------------------------------------- the core


def core_play(config: GameConfig, games: int) -> tuple[int, float]:
    """(decisions, seconds) of random legal play over ``games`` games, seeds 0.."""
    decisions = 0
    seconds = 0.0
    for game in range(games):
        state = new_game(config, game)
        rng = Rng(seat_seed(game, 0))
        start = time.perf_counter()
        while not state.is_terminal():
            legal = state.legal_intents()
            state.apply(legal[rng.below(len(legal))])
            state.events.clear()
            decisions += 1
        seconds += time.perf_counter() - start
    return decisions, seconds


def clone_time(config: GameConfig, games: int) -> float:
    """Mean µs of ``GameState.clone()`` over every 10th position of random games."""
    total, samples = 0.0, 0
    for game in range(games):
        state = new_game(config, game)
        rng = Rng(seat_seed(game, 1))
        step = 0
        while not state.is_terminal():
            if step % 10 == 0:
                start = time.perf_counter()
                state.clone()
                total += time.perf_counter() - start
                samples += 1
            legal = state.legal_intents()
            state.apply(legal[rng.below(len(legal))])
            state.events.clear()
            step += 1
    return 1e6 * total / samples


def catanatron_installed() -> bool:
    return importlib.util.find_spec("catanatron") is not None


def catanatron_play(games: int) -> tuple[int, float]:
    """(decisions, seconds) of four random players in catanatron."""
    from catanatron import Color, Game, RandomPlayer

    colors = (Color.RED, Color.BLUE, Color.WHITE, Color.ORANGE)
    decisions = 0
    start = time.perf_counter()
    for game in range(games):
        match = Game([RandomPlayer(c) for c in colors], seed=game)
        match.play()
        decisions += len(match.state.actions)
    return decisions, time.perf_counter() - start


# ---------------------------------------------------------------------------- AEC envs


def aec_play_decisions(env: Any, games: int) -> tuple[int, int, float, float]:
    """(steps, decisions, seconds without resets, seconds with resets) of uniform random masked
    play; a step is a decision unless the env says otherwise (v1's ``decision_done``)."""
    rng = np.random.default_rng(0)
    raw = env.unwrapped
    spelled = hasattr(raw, "decision_done")
    steps = decisions = 0
    playing = resetting = 0.0
    for game in range(games):
        start = time.perf_counter()
        env.reset(seed=game)
        resetting += time.perf_counter() - start
        start = time.perf_counter()
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            if action is not None:
                steps += 1
                decisions += raw.decision_done if spelled else 1
        playing += time.perf_counter() - start
    return steps, decisions, playing, playing + resetting


def fastest_of_rounds(
    plays: dict[str, Callable[[], tuple[Any, ...]]], rounds: int, seconds_at: int
) -> dict[str, tuple[Any, ...]]:
    """Each play's result (its seconds at ``seconds_at``) from its fastest of ``rounds``
    rounds. A round runs every play in turn, so a machine that slows down for a while slows
    them alike, and the ratios between them hold."""
    best: dict[str, tuple[Any, ...]] = {}
    for _ in range(rounds):
        for name, play in plays.items():
            result = play()
            if name not in best or result[seconds_at] < best[name][seconds_at]:
                best[name] = result
    return best


class TrivialAEC(AECEnv):  # type: ignore[misc]
    """No rules: the spaces of ``sm_env.env`` (a Dict of a float Box and an int8 mask), a
    fixed random mask of a few actions, three agents in turn, a game of ``length`` steps. Its
    speed is the API's own ceiling for an env of those spaces."""

    metadata = {"render_modes": [], "name": "trivial_v0", "is_parallelizable": False}

    def __init__(self, observation_size: int, actions: int, length: int = 300) -> None:
        super().__init__()
        self.possible_agents = ["a0", "a1", "a2"]
        self.length = length
        self._obs = np.zeros(observation_size, dtype=np.float32)
        self._mask = np.zeros(actions, dtype=np.int8)
        self._mask[np.random.default_rng(0).choice(actions, size=min(20, actions), replace=False)] = 1
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (observation_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (actions,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(actions)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._steps = 0

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return {"observation": self._obs, "action_mask": self._mask}

    def action_mask(self) -> np.ndarray:
        return self._mask

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._steps += 1
        self._cumulative_rewards[agent] = 0.0
        if self._steps >= self.length:
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.agents[self._steps % len(self.agents)]
        self._accumulate_rewards()


def trivial_aec(observation_size: int, actions: int) -> AECEnv:
    """The trivial env behind the wrapper ``sm_env.env`` uses by default."""
    return wrap(TrivialAEC(observation_size, actions), "terminate", -1.0)


def env_memory(offices: int, version: int = 0) -> float:
    """KiB allocated by making and resetting one ``station_master_v0.env`` (v1's for version 1)."""
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    env = (sm_env.station_master_v1 if version else sm_env.station_master_v0).env(num_offices=offices)
    env.reset(seed=0)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del env
    return (after - before) / 1024


# ---------------------------------------------------------------------------- Gymnasium and PPO


class CountDecisions(gymnasium.Wrapper[Any, Any, Any, Any]):
    """Counts the learner's completed game decisions: the tokens that only spell part of one
    do not count. v0: a Move's ``move_tray`` and ``move_step`` tokens; v1: every step whose
    info has ``decision_done`` False (a masked token completes nothing either)."""

    def __init__(self, env: gymnasium.Env[Any, Any]) -> None:
        super().__init__(env)
        self.decisions = 0
        self._spelled = isinstance(env.unwrapped, StationMasterEnvV1)
        self._table = env.unwrapped.aec.table  # type: ignore[attr-defined]

    def step(self, action: Any) -> Any:
        if self._spelled:
            out = self.env.step(action)
            self.decisions += out[4]["decision_done"]
            return out
        name, _ = self._table.decode(int(action))
        self.decisions += name not in ("move_tray", "move_step")
        return self.env.step(action)

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()  # type: ignore[attr-defined,no-any-return]


class TrivialGym(gymnasium.Env[np.ndarray, np.int64]):
    """The single-agent env's spaces with no game behind them (an episode of 300 steps)."""

    def __init__(self, observation_size: int, actions: int) -> None:
        self.observation_space = spaces.Box(0.0, 1.0, (observation_size,), np.float32)
        self.action_space = spaces.Discrete(actions)
        self._obs = np.zeros(observation_size, dtype=np.float32)
        self._mask = np.zeros(actions, dtype=bool)
        self._mask[np.random.default_rng(0).choice(actions, size=min(20, actions), replace=False)] = True
        self._steps = 0
        self.decisions = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        self._steps = 0
        return self._obs, {}

    def step(self, action: Any) -> Any:
        self._steps += 1
        self.decisions += 1
        return self._obs, 0.0, self._steps >= 300, False, {}

    def action_masks(self) -> np.ndarray:
        return self._mask


def make_station_master() -> gymnasium.Env[Any, Any]:
    return CountDecisions(
        gymnasium.make("StationMaster-v0", num_offices=ENV_OFFICES, illegal_action="penalize")
    )


def make_station_master_v1() -> gymnasium.Env[Any, Any]:
    return CountDecisions(
        gymnasium.make("StationMaster-v1", num_offices=ENV_OFFICES, illegal_action="penalize")
    )


def single_agent_play(games: int, version: int = 0) -> tuple[int, float]:
    """(steps, seconds) of random masked actions in the single-agent env."""
    env = make_station_master_v1() if version else make_station_master()
    rng = np.random.default_rng(0)
    steps = 0
    start = time.perf_counter()
    for game in range(games):
        env.reset(seed=game)
        done = False
        while not done:
            mask = env.unwrapped.action_masks()  # type: ignore[attr-defined]
            _obs, _r, term, trunc, _info = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = term or trunc
            steps += 1
    return steps, time.perf_counter() - start


def ppo_rate(make: Callable[[], gymnasium.Env[Any, Any]], envs: int, size: Size) -> tuple[float, float]:
    """(frames/s, decisions/s) of MaskablePPO learning on ``envs`` envs (in subprocesses when
    more than one), one torch thread in the learner."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    torch.set_num_threads(1)
    vec = SubprocVecEnv([make] * envs) if envs > 1 else DummyVecEnv([make])
    try:
        frames = max(size.ppo_frames, size.ppo_steps * envs)
        model = MaskablePPO(
            "MlpPolicy", vec, n_steps=size.ppo_steps, batch_size=min(64, size.ppo_steps * envs), seed=0
        )
        model.set_logger(Logger(folder=None, output_formats=[]))  # SB3's own makes an empty folder in /tmp
        start = time.perf_counter()
        model.learn(total_timesteps=frames)
        seconds = time.perf_counter() - start
        decisions = sum(vec.get_attr("decisions"))
        return model.num_timesteps / seconds, decisions / seconds
    finally:
        vec.close()


# ---------------------------------------------------------------------------- the run


def run(quick: bool = False, progress: Callable[[str], None] | None = None) -> list[Figure]:
    """Every figure, in the order the table shows them."""
    size = Size.of(quick)
    say = progress or (lambda _: None)
    say("rules core")
    out = core_figures(size)
    say("catanatron")
    out += catanatron_figures(size)
    say("AEC envs")
    aec = play_aec_envs(size)
    out += aec_figures(aec, size)
    say("AEC env v1")
    out += aec_v1_figures(aec, size)
    say("single-agent env")
    out += single_agent_figures(size)
    say("MaskablePPO")
    out += maskable_ppo_figures(size, aec.raw, aec.raw_v1)
    return out + growth(size, say)


def core_figures(size: Size) -> list[Figure]:
    """The rules core's decisions/s and games/s at each office count, and its clone time."""
    out: list[Figure] = []
    for offices in OFFICE_COUNTS:
        decisions, seconds = core_play(GameConfig(offices=offices), size.core_games)
        out.append(
            Figure(
                f"core.{offices}.decisions_per_s",
                f"core, {offices} office(s): decisions/s",
                decisions / seconds,
                "/s",
            )
        )
        out.append(
            Figure(
                f"core.{offices}.games_per_s",
                f"core, {offices} office(s): 1-day games/s",
                size.core_games / seconds,
                "/s",
            )
        )
    out.append(
        Figure(
            "core.clone_us",
            f"core: clone(), {ENV_OFFICES} offices",
            clone_time(GameConfig(offices=ENV_OFFICES), size.core_games),
            "µs",
        )
    )
    return out


def catanatron_figures(size: Size) -> list[Figure]:
    """catanatron's decisions/s and the core's ratio to it at four seats, played in turn."""
    rate_label = "catanatron, 4 random players: decisions/s"
    ratio_label = "core (4 offices) / catanatron (4 players)"
    if not catanatron_installed():
        note = "not installed: pip install 'station-master[bench]'"
        return [
            Figure("catanatron.decisions_per_s", rate_label, None, "/s", note),
            Figure("ratio.core_vs_catanatron", ratio_label, None, "x", note),
        ]
    played = fastest_of_rounds(
        {
            "core": partial(core_play, GameConfig(offices=4), size.core_games),
            "catanatron": partial(catanatron_play, size.peer_games),
        },
        size.rounds,
        seconds_at=1,
    )
    rate = played["catanatron"][0] / played["catanatron"][1]
    four = played["core"][0] / played["core"][1]
    return [
        Figure("catanatron.decisions_per_s", rate_label, rate, "/s", size.rounds_note()),
        Figure("ratio.core_vs_catanatron", ratio_label, four / rate, "x"),
    ]


@dataclass(frozen=True)
class AecPlays:
    """The AEC envs played in turn: each one's fastest round (``aec_play_decisions``'s result,
    by name), and the raw envs of both versions, whose spaces the trivial envs copy."""

    played: dict[str, tuple[Any, ...]]
    raw: Any
    raw_v1: Any
    c4_note: str  # why connect_four_v3 was not played ("" when it was)

    def connect_four(self) -> tuple[float | None, float | None]:
        """connect_four_v3's steps/s, reset excluded and included (None when not played)."""
        if "connect_four" not in self.played:
            return None, None
        steps, _, playing, with_reset = self.played["connect_four"]
        return steps / playing, steps / with_reset


def play_aec_envs(size: Size) -> AecPlays:
    """Both versions of the AEC env, a trivial env with each one's spaces, and connect_four_v3
    (when installed), in turn for ``size.rounds`` rounds."""
    station = sm_env.station_master_v0.env(num_offices=ENV_OFFICES)
    raw = station.unwrapped
    station_v1 = sm_env.env_v1(num_offices=ENV_OFFICES)
    raw_v1 = station_v1.unwrapped
    envs = {
        "v0": (station, size.env_games),
        "v1": (station_v1, size.env_games),
        "trivial": (trivial_aec(raw.encoder.size, raw.table.size), size.env_games),
        "trivial_v1": (trivial_aec(raw_v1.encoder.size, raw_v1.table.size), size.env_games),
    }
    c4_note = ""
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError:  # it needs pygame
        c4_note = "not installed: pip install 'station-master[bench]'"
    else:
        envs["connect_four"] = (connect_four_v3.env(), size.peer_games)
    played = fastest_of_rounds(
        {name: partial(aec_play_decisions, env, games) for name, (env, games) in envs.items()},
        size.rounds,
        seconds_at=2,
    )
    return AecPlays(played, raw, raw_v1, c4_note)


def aec_figures(aec: AecPlays, size: Size) -> list[Figure]:
    """The AEC env (v0): steps/s without and with resets, reset time, memory; connect_four_v3
    and the trivial env beside it, the ratios, and the spaces' sizes."""
    out: list[Figure] = []
    steps, _, playing, with_reset = aec.played["v0"]
    ours = steps / playing
    out.append(
        Figure(
            "aec.steps_per_s",
            f"AEC env, {ENV_OFFICES} offices: steps/s, reset excluded",
            ours,
            "/s",
            size.rounds_note(),
        )
    )
    out.append(
        Figure(
            "aec.steps_per_s_with_reset",
            f"AEC env, {ENV_OFFICES} offices: steps/s, reset included",
            steps / with_reset,
            "/s",
        )
    )
    out.append(
        Figure(
            "aec.reset_ms",
            f"AEC env, {ENV_OFFICES} offices: reset()",
            1e3 * (with_reset - playing) / size.env_games,
            "ms",
        )
    )
    out.append(
        Figure(
            "aec.memory_kib",
            f"AEC env, {ENV_OFFICES} offices: memory per env",
            env_memory(ENV_OFFICES),
            "KiB",
        )
    )
    return out + connect_four_figures(aec) + _beside_aec(aec, ours)


def connect_four_figures(aec: AecPlays) -> list[Figure]:
    """PettingZoo's connect_four_v3: steps/s without and with resets (or why not played)."""
    c4, c4_with_reset = aec.connect_four()
    return [
        Figure("connect_four.steps_per_s", "connect_four_v3: steps/s, reset excluded", c4, "/s", aec.c4_note),
        Figure(
            "connect_four.steps_per_s_with_reset",
            "connect_four_v3: steps/s, reset included",
            c4_with_reset,
            "/s",
            aec.c4_note,
        ),
    ]


def _beside_aec(aec: AecPlays, ours: float) -> list[Figure]:
    """The AEC env (v0, ``ours`` steps/s) beside connect_four_v3 and the trivial env of its
    spaces, and the spaces' sizes."""
    c4, _ = aec.connect_four()
    steps, _, playing, _ = aec.played["trivial"]
    trivial = steps / playing
    return [
        Figure("trivial_aec.steps_per_s", "trivial AEC env, same spaces: steps/s", trivial, "/s"),
        Figure("ratio.aec_vs_connect_four", "AEC env / connect_four_v3", c4 and ours / c4, "x", aec.c4_note),
        Figure("ratio.aec_vs_trivial", "AEC env / trivial AEC env", ours / trivial, "x"),
        Figure("spaces.observation", "observation size (floats)", aec.raw.encoder.size, ""),
        Figure("spaces.actions", "actions", aec.raw.table.size, ""),
    ]


def aec_v1_figures(aec: AecPlays, size: Size) -> list[Figure]:
    """The AEC env v1: steps (tokens)/s and decisions/s, tokens per decision, memory; the
    trivial env of its spaces and connect_four_v3 beside it, and its spaces' sizes."""
    out: list[Figure] = []
    steps, decisions, playing, with_reset = aec.played["v1"]
    ours_v1 = steps / playing
    out.append(
        Figure(
            "aec_v1.steps_per_s",
            f"AEC env v1, {ENV_OFFICES} offices: steps (tokens)/s, reset excluded",
            ours_v1,
            "/s",
            size.rounds_note(),
        )
    )
    out.append(
        Figure(
            "aec_v1.decisions_per_s",
            f"AEC env v1, {ENV_OFFICES} offices: decisions/s",
            decisions / playing,
            "/s",
        )
    )
    out.append(
        Figure(
            "aec_v1.steps_per_s_with_reset",
            f"AEC env v1, {ENV_OFFICES} offices: steps/s, reset included",
            steps / with_reset,
            "/s",
        )
    )
    out.append(
        Figure(
            "aec_v1.tokens_per_decision",
            "AEC env v1: tokens per decision (random play)",
            steps / decisions,
            "tokens",
        )
    )
    out.append(
        Figure(
            "aec_v1.memory_kib",
            f"AEC env v1, {ENV_OFFICES} offices: memory per env",
            env_memory(ENV_OFFICES, 1),
            "KiB",
        )
    )
    return out + _beside_aec_v1(aec, ours_v1)


def _beside_aec_v1(aec: AecPlays, ours_v1: float) -> list[Figure]:
    """The AEC env v1 (``ours_v1`` steps/s) beside the trivial env of its spaces and
    connect_four_v3, and its spaces' sizes."""
    c4, _ = aec.connect_four()
    steps, _, playing, _ = aec.played["trivial_v1"]
    trivial_v1 = steps / playing
    return [
        Figure("trivial_aec_v1.steps_per_s", "trivial AEC env, v1 spaces: steps/s", trivial_v1, "/s"),
        Figure(
            "ratio.aec_v1_vs_connect_four",
            "AEC env v1 (steps) / connect_four_v3",
            c4 and ours_v1 / c4,
            "x",
            aec.c4_note,
        ),
        Figure(
            "ratio.aec_v1_vs_trivial", "AEC env v1 / trivial AEC env, v1 spaces", ours_v1 / trivial_v1, "x"
        ),
        Figure("spaces_v1.observation", "v1 observation size (floats)", aec.raw_v1.encoder.size, ""),
        Figure("spaces_v1.actions", "v1 actions (tokens)", aec.raw_v1.table.size, ""),
    ]


def single_agent_figures(size: Size) -> list[Figure]:
    """The Gymnasium single-agent env of each version under random masked actions."""
    out: list[Figure] = []
    for version, key, name in (
        (0, "single_agent", "single-agent env"),
        (1, "single_agent_v1", "single-agent env v1"),
    ):
        steps, seconds = single_agent_play(size.env_games, version)
        out.append(
            Figure(f"{key}.steps_per_s", f"{name}, {ENV_OFFICES} offices: steps/s", steps / seconds, "/s")
        )
    return out


def maskable_ppo_figures(size: Size, raw: Any, raw_v1: Any) -> list[Figure]:
    """MaskablePPO on both versions (``ppo_figures``), and v1's game decisions/s over v0's on
    one core; one "not installed" figure without sb3-contrib."""
    if importlib.util.find_spec("sb3_contrib") is None:
        note = "not installed: pip install torch==2.13.0, then 'station-master[rl]'"
        return [Figure("ppo", "MaskablePPO", None, "", note)]
    cores = os.cpu_count() or 1
    v0 = ppo_figures("ppo", "MaskablePPO", "frames/s", "", make_station_master, raw, cores, size)
    v1 = ppo_figures(
        "ppo_v1",
        "MaskablePPO v1",
        "frames (tokens)/s",
        ", v1 spaces",
        make_station_master_v1,
        raw_v1,
        cores,
        size,
    )
    v0_decisions, v1_decisions = v0[1].value, v1[1].value
    assert v0_decisions is not None and v1_decisions is not None
    ratio = Figure(
        "ratio.ppo_v1_vs_v0",
        "MaskablePPO, 1 core: v1 / v0 game decisions/s",
        v1_decisions / v0_decisions,
        "x",
    )
    return v0 + v1[:2] + [ratio] + v1[2:]


def ppo_figures(
    key: str,
    name: str,
    frames_unit: str,
    spaces_note: str,
    make: Callable[[], gymnasium.Env[Any, Any]],
    raw: Any,
    cores: int,
    size: Size,
) -> list[Figure]:
    """MaskablePPO on one env version, on 1 core and on all cores, each beside the trivial env
    with that version's spaces: frames/s, game decisions/s, and the trivial env's frames/s."""
    observation_size, actions = raw.encoder.size, raw.table.size
    trivial_key = "ppo_trivial" + key[len("ppo") :]

    def make_trivial() -> gymnasium.Env[Any, Any]:
        return TrivialGym(observation_size, actions)

    out = []
    for envs, where in ((1, "1 core"), (cores, f"{cores} cores, SubprocVecEnv")):
        frames, decided = ppo_rate(make, envs, size)
        out.append(Figure(f"{key}.{envs}.frames_per_s", f"{name}, {where}: {frames_unit}", frames, "/s"))
        out.append(
            Figure(f"{key}.{envs}.decisions_per_s", f"{name}, {where}: game decisions/s", decided, "/s")
        )
        frames, _ = ppo_rate(make_trivial, envs, size)
        label = f"MaskablePPO on the trivial env{spaces_note}, {where}: frames/s"
        out.append(Figure(f"{trivial_key}.{envs}.frames_per_s", label, frames, "/s"))
    return out


def growth(size: Size, say: Callable[[str], None]) -> list[Figure]:
    """How the cost of a game grows with offices (1-6) and with days (1-5)."""
    out: list[Figure] = []
    say("growth")
    for offices in GROWTH_OFFICES:
        decisions, seconds = core_play(GameConfig(offices=offices), size.core_games)
        out.append(
            Figure(
                f"growth.offices.{offices}",
                f"core, {offices} office(s), 1 day: ms per game",
                1e3 * seconds / size.core_games,
                "ms",
                f"{decisions / size.core_games:.0f} decisions",
            )
        )
    for days in GROWTH_DAYS:
        decisions, seconds = core_play(GameConfig(offices=ENV_OFFICES, days=days), size.core_games)
        out.append(
            Figure(
                f"growth.days.{days}",
                f"core, {ENV_OFFICES} offices, {days} day(s): ms per game",
                1e3 * seconds / size.core_games,
                "ms",
                f"{decisions / size.core_games:.0f} decisions",
            )
        )
    return out


FIGURE_KEYS = (
    *(f"core.{o}.{k}" for o in OFFICE_COUNTS for k in ("decisions_per_s", "games_per_s")),
    "core.clone_us",
    "catanatron.decisions_per_s",
    "ratio.core_vs_catanatron",
    "aec.steps_per_s",
    "aec.steps_per_s_with_reset",
    "aec.reset_ms",
    "aec.memory_kib",
    "connect_four.steps_per_s",
    "connect_four.steps_per_s_with_reset",
    "trivial_aec.steps_per_s",
    "ratio.aec_vs_connect_four",
    "ratio.aec_vs_trivial",
    "spaces.observation",
    "spaces.actions",
    "aec_v1.steps_per_s",
    "aec_v1.decisions_per_s",
    "aec_v1.steps_per_s_with_reset",
    "aec_v1.tokens_per_decision",
    "aec_v1.memory_kib",
    "trivial_aec_v1.steps_per_s",
    "ratio.aec_v1_vs_connect_four",
    "ratio.aec_v1_vs_trivial",
    "spaces_v1.observation",
    "spaces_v1.actions",
    "single_agent.steps_per_s",
    "single_agent_v1.steps_per_s",
    "ratio.ppo_v1_vs_v0",
)
"""The figures every run reports whatever the machine (the PPO keys depend on its cores)."""


def build() -> str:
    """Which build the run measured: pure Python, or the modules mypyc compiled (setup.py)."""
    core, env = compiled_modules(), sm_env.compiled_modules()
    if not core and not env:
        return "pure Python"
    return (
        f"compiled (mypyc): {len(core)} of {len(COMPILED)} core modules, "
        f"{len(env)} of {len(sm_env.COMPILED)} env modules"
    )


def document(figures: list[Figure], quick: bool) -> dict[str, Any]:
    """The run as JSON: the machine, the build, the size, every figure by key."""
    import platform

    return {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "build": build(),
        "quick": quick,
        "figures": {
            f.key: {"label": f.label, "value": f.value, "unit": f.unit, "note": f.note} for f in figures
        },
    }


def table(figures: list[Figure]) -> Any:
    """The run as a rich table, a row per figure."""
    from rich.markup import escape
    from rich.table import Table

    out = Table(title=f"station-master bench ({build()})")
    out.add_column("figure")
    out.add_column("value", justify="right")
    out.add_column("", justify="left")
    for f in figures:
        if f.value is None:
            value = "—"
        elif f.unit == "x":
            value = f"{f.value:.2f}x"
        elif f.unit in ("/s", ""):
            value = f"{f.value:,.0f}{f.unit}"
        else:
            value = f"{f.value:,.2f} {f.unit}"
        out.add_row(escape(f.label), value, escape(f.note))  # notes hold "[bench]"
    return out

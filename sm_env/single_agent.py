"""A single-agent Gymnasium view of the game, for Stable-Baselines3 and sb3-contrib.

``gymnasium.make("StationMaster-v1", opponents=..., learner="office_0", **config)`` (or
``"StationMaster-v0"``, the same view of the v0 spaces; ``StationMasterEnv`` is the newest,
``StationMasterEnvV1``): the learner plays one seat; the other seats are played inside
``step()`` by the given opponents until the learner must decide again or the game ends. The
observation is the learner's observation vector without the mask; ``action_masks()`` gives the
mask, as sb3-contrib's MaskablePPO expects. The reward is the change of the learner's own
revenue since its previous decision (in co-op, of the team's total, as in the AEC
environment), including changes caused while the opponents played (a collision it is charged
for, say), and never an opponent's reward.
A Gymnasium environment accepts every action of its space, so by default
(``illegal_action="penalize"``) a masked action changes nothing, costs ``illegal_reward``
(-1.0), and is flagged in the step's info: ``info["illegal_action"]`` is True (False after
every other step and reset) and ``info["illegal_reason"]`` names the action. With
``"terminate"`` it ends the episode too (``terminated=True``); with ``"raise"``
``IllegalActionError`` is raised instead. An action outside the space (not an integer in
``[0, n)``) always raises ``IllegalActionError``.

Render modes: ``"ansi"`` (``render()`` returns the board as text) and ``"human"`` (printed at
every ``reset()`` and ``step()``, not after each opponent's action).

Opponents, one for every other seat, or a dict from agent name to opponent:
- ``None`` (default): uniformly random legal actions, from the generator seeded by ``reset``;
- an object with ``choose(view) -> Intent``: a bot deciding on its seat's view (``agents``);
- an object with ``predict(obs, action_masks=...)``: a trained SB3 / sb3-contrib model;
- a callable ``policy(observation, action_mask) -> action``.
``set_seats(learner, opponents, learner_guard)`` can also give the learner a guard, an object
with ``decide(view) -> Intent | None`` that takes the decisions it returns an intent for (a
station guard the learner plays beside, ``agents.policy.StationGuard``).

Signals to learn from (docs/signals.md), all off by default and none changing the game:
``shaping`` names a potential of ``sm_env.shaping`` (``"prospects"``, ``"exposure"``); the
reward is then the revenue change plus ``shaping_scale * (shaping_gamma * Φ(s') - Φ(s))``
between the learner's successive steps, ``Φ = 0`` once terminated. ``info["revenue_reward"]``
is always the unshaped revenue change (0 after a masked action, whose reward is
``illegal_reward``) and ``info["shaping"]`` the shaping term. ``scenario`` names one or several
starting scenarios of ``sm_env.core.scenarios`` applied, in order, to the learner's seat at
reset, in a ``scenario_prob`` share of the episodes (drawn from the env's ``np_random``;
``info["scenario"]`` at reset says whether it was). ``signal_options()`` gives these settings
for a run's metadata.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces

from sm_env import station_master_v0, station_master_v1
from sm_env.base import RENDER_MODES, StationMasterBase
from sm_env.core import ConfigError, GameState, scenario_names
from sm_env.layout import IllegalActionError
from sm_env.shaping import Shaper

Opponent = Any  # see the module docstring for the accepted kinds
ILLEGAL_ACTIONS = ("penalize", "terminate", "raise")


class SingleAgentEnv(gymnasium.Env[np.ndarray, np.int64]):
    """The single-agent view of one version's raw AEC environment, ``aec_class``."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}
    aec_class: type[StationMasterBase]

    def __init__(
        self,
        opponents: Opponent | Mapping[str, Opponent] = None,
        learner: str = "office_0",
        illegal_action: str = "penalize",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        shaping: str | None = None,
        shaping_gamma: float = 1.0,
        shaping_scale: float = 1.0,
        scenario: str | tuple[str, ...] | None = None,
        scenario_prob: float = 1.0,
        **config: Any,
    ) -> None:
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ConfigError(
                f"illegal_action must be 'penalize', 'terminate' or 'raise', got {illegal_action!r}"
            )
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ConfigError(
                f"render_mode must be one of {', '.join(RENDER_MODES)} or None, got {render_mode!r}"
            )
        self.shaper = None if shaping is None else Shaper(shaping, shaping_gamma, shaping_scale)
        self.shaping_gamma = float(shaping_gamma)
        self.shaping_scale = float(shaping_scale)
        self.scenario = scenario_names(scenario)
        if not 0.0 <= scenario_prob <= 1.0:
            raise ConfigError(f"scenario_prob must be in [0, 1], got {scenario_prob!r}")
        self.scenario_prob = float(scenario_prob)
        self._scenario_applied = False
        # The board comes as text from the AEC env; "human" prints it here, once a step.
        self.aec = self.aec_class(render_mode=None if render_mode is None else "ansi", **config)
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self._ended_by_illegal_action = False
        self._carried = 0.0
        self.set_seats(learner, opponents)
        inner = self.aec.observation_space(learner)
        assert isinstance(inner, spaces.Dict)
        self.observation_space = inner["observation"]
        self.action_space = self.aec.action_space(learner)

    # ------------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self._ended_by_illegal_action = False
        game_seed = int(self.np_random.integers(2**32)) if seed is None else seed
        # prob 1 draws nothing, so the opponents' random stream is as without a scenario
        self._scenario_applied = bool(self.scenario) and (
            self.scenario_prob >= 1.0 or float(self.np_random.random()) < self.scenario_prob
        )
        scenario = (
            {"scenario": self.scenario, "scenario_agent": self.learner} if self._scenario_applied else None
        )
        self.aec.reset(seed=game_seed, options=scenario)
        self._carried = 0.0
        self._play_opponents()
        # Anything the learner earned before its first decision comes with its first reward.
        self._carried += float(self.aec._cumulative_rewards[self.learner])
        if self.shaper is not None:
            self.shaper.reset(self._board(), self._seat())
        self._render_human()
        info = self._info()
        info["scenario"] = self._scenario_applied
        return self._observation(), info

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        aec = self.aec
        if self._over():
            raise RuntimeError("the episode is over: call reset()")
        if not self.action_space.contains(action):
            raise IllegalActionError(
                f"{self.learner}: action must be an integer in [0, {aec.table.size}), got {action!r}"
            )
        action = int(action)
        if not aec.action_mask()[action]:
            return self._illegal_step(action)
        aec.step(action)
        self._play_opponents()
        reward = float(aec._cumulative_rewards[self.learner]) + self._carried
        self._carried = 0.0
        terminated = aec.terminations[self.learner]
        shaping = self._shaping(terminated)
        self._render_human()
        info = self._info()
        info["revenue_reward"] = reward
        info["shaping"] = shaping
        return self._observation(), reward + shaping, terminated, aec.truncations[self.learner], info

    def _shaping(self, terminated: bool) -> float:
        """The shaping term from the learner's previous step to now (0.0 without shaping)."""
        if self.shaper is None:
            return 0.0
        return self.shaper.step(self._board(), self._seat(), terminated)

    def _board(self) -> GameState:
        game = self.aec.game
        assert game is not None
        return game

    def _seat(self) -> int:
        return self.aec.seat_of(self.learner)

    def signal_options(self) -> dict[str, Any]:
        """The learning-signal settings, for a run's metadata (docs/signals.md)."""
        return {
            "shaping": None if self.shaper is None else self.shaper.name,
            "shaping_gamma": self.shaping_gamma,
            "shaping_scale": self.shaping_scale,
            "scenario": list(self.scenario) or None,
            "scenario_prob": self.scenario_prob,
        }

    def _illegal_step(self, action: int) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        """A masked action: nothing happens in the game; it costs ``illegal_reward``."""
        reason = f"{self.learner}: {self.action_to_str(action)} is masked out now"
        if self.illegal_action == "raise":
            raise IllegalActionError(reason)
        self._ended_by_illegal_action = self.illegal_action == "terminate"
        info = self._info(revenue_events=False)
        info["illegal_action"] = True
        info["illegal_reason"] = reason
        shaping = self._shaping(self._ended_by_illegal_action)
        info["revenue_reward"] = 0.0
        info["shaping"] = shaping
        self._render_human()
        reward = self.illegal_reward + shaping
        return self._observation(), reward, self._ended_by_illegal_action, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's mask, as a bool array (sb3-contrib's MaskablePPO calls this)."""
        if self._over():
            return np.zeros(self.aec.table.size, dtype=bool)
        return self.aec.action_mask().astype(bool)

    def render(self) -> str | None:
        """The board as text ("ansi"); printed, returning None ("human"); None without a mode."""
        if self.render_mode is None:
            return None
        text = self.aec.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _render_human(self) -> None:
        if self.render_mode == "human":
            self.render()

    def action_to_str(self, action: int) -> str:
        return self.aec.action_to_str(self.learner, action)

    # ------------------------------------------------------------------ the other seats

    def set_seats(
        self, learner: str, opponents: Opponent | Mapping[str, Opponent] = None, learner_guard: Any = None
    ) -> None:
        """Seat the learner and its opponents (as for the constructor); call it before
        ``reset()``, which starts the game with them: a training run moves the learner around
        the table and changes its opponents between episodes. ``learner_guard``, an object
        with ``decide(view) -> Intent | None``, is asked at the start of each of the learner's
        decisions and plays those it returns an intent for inside ``step()``, as an opponent's
        are (a station guard the learner plays beside at the table); their revenue comes with
        the learner's next reward."""
        if learner not in self.aec.possible_agents:
            raise ConfigError(f"learner must be one of {self.aec.possible_agents}, got {learner!r}")
        others = [a for a in self.aec.possible_agents if a != learner]
        if isinstance(opponents, Mapping):
            missing = sorted(set(others) - set(opponents))
            if missing:
                raise ConfigError(f"no opponent given for {', '.join(missing)}")
            chosen = {a: opponents[a] for a in others}
        else:
            chosen = dict.fromkeys(others, opponents)
        self.learner = learner
        self.opponents = chosen
        self.learner_guard = learner_guard

    def _play_opponents(self) -> None:
        aec = self.aec
        while not self._over():
            agent = aec.agent_selection
            if agent == self.learner:
                if not self._guard_plays():
                    return
                continue
            opponent = self.opponents[agent]
            if hasattr(opponent, "choose"):
                assert aec.game is not None
                aec.step_intent(opponent.choose(aec.game.view(aec.seat_of(agent))))
                continue
            mask = aec.action_mask()
            if opponent is None:
                action = int(self.np_random.choice(np.flatnonzero(mask)))
            else:
                observation = aec.observe(agent)["observation"]
                action = _opponent_action(opponent, observation, mask)
            aec.step(action)

    def _guard_plays(self) -> bool:
        """Let the learner's guard take the decision the learner has not begun spelling."""
        guard, aec = self.learner_guard, self.aec
        if guard is None or aec.spaces.spelling() is not None:
            return False
        game = self._board()
        intent = guard.decide(game.view(self._seat()))
        if intent is None:
            return False
        # stepping the learner zeroes its gathered reward: carry it to its next step
        self._carried += float(aec._cumulative_rewards[self.learner])
        aec.step_intent(intent)
        return True

    def _over(self) -> bool:
        aec = self.aec
        return (
            self._ended_by_illegal_action or aec.terminations[self.learner] or aec.truncations[self.learner]
        )

    def _observation(self) -> np.ndarray:
        return self.aec.observe(self.learner)["observation"]

    def _info(self, revenue_events: bool = True) -> dict[str, Any]:
        """A new dict each time (nothing shared with the env or an earlier info): the ledger
        entries since the learner's previous action (none after a masked action, which changes
        nothing), its revenue, and whether the action was masked."""
        game = self.aec.game
        assert game is not None
        info = dict(self.aec.infos[self.learner])
        events = info["revenue_events"] if revenue_events else ()
        info["revenue_events"] = [dict(entry) for entry in events]
        info["revenue"] = game.revenue_by_seat[self.aec.seat_of(self.learner)]
        info["illegal_action"] = False
        return info


def _opponent_action(opponent: Opponent, observation: np.ndarray, mask: np.ndarray) -> int:
    if hasattr(opponent, "predict"):
        action, _ = opponent.predict(observation, action_masks=mask.astype(bool), deterministic=True)
        return int(action)
    policy: Callable[[np.ndarray, np.ndarray], Any] = opponent
    return int(policy(observation, mask))


class StationMasterEnvV0(SingleAgentEnv):
    """``StationMaster-v0``: the single-agent view of ``station_master_v0`` (the v0 spaces)."""

    aec_class = station_master_v0.raw_env


class StationMasterEnvV1(SingleAgentEnv):
    """``StationMaster-v1``: the single-agent view of ``station_master_v1`` (the v1 spaces: a
    decision spelled in tokens, each a ``step()``; the opponents play between the learner's
    decisions, never in the middle of one). ``info["decision_done"]`` tells whether the step
    completed one of the learner's decisions."""

    aec_class = station_master_v1.raw_env

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        out = super().step(action)
        out[4]["decision_done"] = self.aec.decision_done and not out[4]["illegal_action"]
        return out


StationMasterEnv = StationMasterEnvV1  # the newest version


__all__ = ["SingleAgentEnv", "StationMasterEnv", "StationMasterEnvV0", "StationMasterEnvV1"]

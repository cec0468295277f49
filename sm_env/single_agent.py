"""A single-agent Gymnasium view of the game, for Stable-Baselines3 and sb3-contrib.

``gymnasium.make("StationMaster-v0", opponents=..., learner="office_0", **config)``: the learner
plays one seat; the other seats are played inside ``step()`` by the given opponents until the
learner must decide again or the game ends. The observation is the learner's observation
vector without the mask; ``action_masks()`` gives the mask, as sb3-contrib's MaskablePPO
expects. The reward is the change of the learner's own revenue since its previous decision
(in co-op, of the team's total, as in the AEC environment), including changes caused while
the opponents played (a collision it is charged for, say), and never an opponent's reward.
With ``illegal_action="terminate"`` a masked action ends the episode with ``illegal_reward``;
with ``"penalize"`` it costs ``illegal_reward`` and changes nothing (Gymnasium's and SB3's
``check_env`` try unmasked random actions); ``"raise"`` (default) raises ``IllegalActionError``.

Opponents, one for every other seat, or a dict from agent name to opponent:
- ``None`` (default): uniformly random legal actions, from the generator seeded by ``reset``;
- an object with ``choose(view) -> Intent``: a bot deciding on its seat's view (``agents``);
- an object with ``predict(obs, action_masks=...)``: a trained SB3 / sb3-contrib model;
- a callable ``policy(observation, action_mask) -> action``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces

from sm_env.actions import IllegalActionError
from sm_env.aec import raw_env
from sm_env.core.errors import ConfigError

Opponent = Any  # see the module docstring for the accepted kinds


class StationMasterEnv(gymnasium.Env[np.ndarray, np.int64]):
    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(
        self,
        opponents: Opponent | Mapping[str, Opponent] = None,
        learner: str = "office_0",
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **config: Any,
    ) -> None:
        if illegal_action not in ("raise", "penalize", "terminate"):
            raise ConfigError(
                f"illegal_action must be 'raise', 'penalize' or 'terminate', got {illegal_action!r}"
            )
        self.aec = raw_env(render_mode=render_mode, **config)
        if learner not in self.aec.possible_agents:
            raise ConfigError(f"learner must be one of {self.aec.possible_agents}, got {learner!r}")
        self.learner = learner
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self._ended_by_illegal_action = False
        self._carried = 0.0
        others = [a for a in self.aec.possible_agents if a != learner]
        if isinstance(opponents, Mapping):
            missing = sorted(set(others) - set(opponents))
            if missing:
                raise ConfigError(f"no opponent given for {', '.join(missing)}")
            self.opponents = {a: opponents[a] for a in others}
        else:
            self.opponents = dict.fromkeys(others, opponents)
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
        self.aec.reset(seed=game_seed)
        self._play_opponents()
        # Anything the learner earned before its first decision comes with its first reward.
        self._carried = float(self.aec._cumulative_rewards[self.learner])
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        aec = self.aec
        if self._over():
            raise RuntimeError("the episode is over: call reset()")
        try:
            aec.step(action)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._ended_by_illegal_action = self.illegal_action == "terminate"
            return (
                self._observation(),
                self.illegal_reward,
                self._ended_by_illegal_action,
                False,
                self._info(),
            )
        self._play_opponents()
        reward = float(aec._cumulative_rewards[self.learner]) + self._carried
        self._carried = 0.0
        return (
            self._observation(),
            reward,
            aec.terminations[self.learner],
            aec.truncations[self.learner],
            self._info(),
        )

    def action_masks(self) -> np.ndarray:
        """The learner's mask, as a bool array (sb3-contrib's MaskablePPO calls this)."""
        if self._over():
            return np.zeros(self.aec.table.size, dtype=bool)
        return self.aec.action_mask().astype(bool)

    def render(self) -> str | None:
        return self.aec.render()

    def action_to_str(self, action: int) -> str:
        return self.aec.action_to_str(self.learner, action)

    # ------------------------------------------------------------------ the other seats

    def _play_opponents(self) -> None:
        aec = self.aec
        while not self._over() and aec.agent_selection != self.learner:
            agent = aec.agent_selection
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

    def _over(self) -> bool:
        aec = self.aec
        return (
            self._ended_by_illegal_action or aec.terminations[self.learner] or aec.truncations[self.learner]
        )

    def _observation(self) -> np.ndarray:
        return self.aec.observe(self.learner)["observation"]

    def _info(self) -> dict[str, Any]:
        game = self.aec.game
        assert game is not None
        info = dict(self.aec.infos[self.learner])
        info["revenue"] = game.revenue_by_seat[self.aec.seat_of(self.learner)]
        return info


def _opponent_action(opponent: Opponent, observation: np.ndarray, mask: np.ndarray) -> int:
    if hasattr(opponent, "predict"):
        action, _ = opponent.predict(observation, action_masks=mask.astype(bool), deterministic=True)
        return int(action)
    policy: Callable[[np.ndarray, np.ndarray], Any] = opponent
    return int(policy(observation, mask))

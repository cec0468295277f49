"""``station_master_v1``: the PettingZoo AEC environment with the v1 spaces.

``sm_env.env_v1(**config)`` is the raw environment wrapped as ``sm_env.env`` is (an illegal
token ends the game, bounds checking, order enforcing); ``sm_env.raw_env_v1(**config)`` is the
bare one. The game, agents, rewards, infos, truncation and rendering are v0's
(``sm_env.aec``); the spaces are v1's:

- actions: one small ``Discrete(N)`` of tokens (``sm_env.actions_v1``, docs/actions.md); a
  decision is spelled in one or a few tokens and completes as soon as they name one legal
  intent. While it is being spelled the same agent stays selected and the game does not move;
  ``env.decision_done`` tells whether the last step completed a decision.
- observation: the compact vector of ``sm_env.observations_v1`` (docs/observations.md) and the
  token mask, exact at every token.

Hot paths: the mask lives in one preallocated array, updated at each token from the tokens it
offered before; the observation is encoded in place into a preallocated array (between the
tokens of one decision only its ``prefix`` section is rewritten); ``observe`` hands out copies.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from sm_env.actions import IllegalActionError
from sm_env.actions_v1 import Speller, token_table
from sm_env.aec import raw_env, wrap
from sm_env.core import Intent, describe
from sm_env.observations_v1 import ObservationEncoderV1

NAME = "station_master_v1"


def env_v1(illegal_action: str = "terminate", illegal_reward: float = -1.0, **config: Any) -> AECEnv:
    """The wrapped v1 environment, as ``sm_env.env`` wraps v0: a masked token ends the game by
    default (``"terminate"``, the offender rewarded ``illegal_reward``); ``"raise"`` raises
    ``IllegalActionError`` and changes nothing."""
    return wrap(raw_env_v1(**config), illegal_action, illegal_reward)


class raw_env_v1(raw_env):  # noqa: N801 - PettingZoo's naming
    metadata = {**raw_env.metadata, "name": NAME}

    def _build_spaces(self) -> None:
        self.table = token_table(self.config, self.catalogue)  # type: ignore[assignment]
        self.encoder = ObservationEncoderV1(self.config, self.catalogue, self.table)  # type: ignore[arg-type,assignment]
        size = self.table.size
        self.action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        obs_box = spaces.Box(low=-1.0, high=1.0, shape=(self.encoder.size,), dtype=np.float32)
        mask_box = spaces.Box(low=0, high=1, shape=(size,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs_box, "action_mask": mask_box}) for a in self.possible_agents
        }
        self._speller: Speller | None = None
        self._mask_buf = np.zeros(size, dtype=np.int8)
        self._no_mask = np.zeros(size, dtype=np.int8)
        self._obs_buf = np.zeros(self.encoder.size, dtype=np.float32)
        self._obs_key: tuple[int, int, int] | None = None  # (seat, position, tokens) encoded
        self._position = 0  # counts the applied intents: the game's position
        self.decision_done = False

    @property
    def speller(self) -> Speller | None:
        """The decision being spelled (its tokens so far), or None before the mask is asked."""
        return self._speller

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._speller = None
        self._obs_key = None
        self._position += 1
        self.decision_done = False
        super().reset(seed=seed, options=options)

    # ------------------------------------------------------------------ decisions

    def action_mask(self) -> np.ndarray:
        """The mask of the agent to act now (int8, 1 = legal): the env's own array, changed in
        place at the next step (copy it to keep it)."""
        if self._speller is None:
            game = self._game()
            if game.is_terminal():
                self._set_mask(())
                return self._mask_buf
            self._speller = Speller(self.table.spell_all(game.legal_intents()))  # type: ignore[attr-defined]
            self._set_mask(self._speller.options())
        return self._mask_buf

    def _set_mask(self, tokens: Iterable[int]) -> None:
        buf = self._mask_buf
        buf.fill(0)
        # Setting a few items one by one is several times cheaper than NumPy's fancy indexing;
        # a decision offers a few tokens at a time, seldom more than 20.
        for token in tokens:
            buf[token] = 1

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        mask = self.action_mask()
        if type(action) is not int:
            if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
                action = action.item()
            if not isinstance(action, int | np.integer) or isinstance(action, bool):
                raise IllegalActionError(
                    f"{agent}: action must be an int in [0, {self.table.size}), got {action!r}"
                )
            action = int(action)
        if not 0 <= action < self.table.size:
            raise IllegalActionError(
                f"{agent}: action must be an int in [0, {self.table.size}), got {action!r}"
            )
        if not mask[action]:
            raise IllegalActionError(f"{agent}: {self.action_to_str(agent, action)} is masked out now")
        speller = self._speller
        assert speller is not None
        intent = speller.advance(action)
        if intent is None:
            self.decision_done = False
            self._set_mask(speller.options())
        else:
            self._apply(intent)
        self._after_step(agent)

    def _spelling(self) -> str | None:
        return "a decision" if self._speller is not None and self._speller.started else None

    def _apply(self, intent: Intent) -> None:
        self._game().apply(intent)
        self._speller = None
        self._position += 1
        self.decision_done = True

    # ------------------------------------------------------------------ observations

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self._game()
        seat = self._seat_of[agent]
        acting = not game.is_terminal() and agent == self.agent_selection
        if acting:
            mask = self.action_mask()
            speller = self._speller
            depth = speller.depth if speller is not None else 0
        else:
            mask, speller, depth = self._no_mask, None, 0
        key = (seat, self._position, depth)
        out = self._obs_buf
        cached = self._obs_key
        if cached != key:
            if cached is not None and cached[:2] == key[:2]:
                self.encoder.refresh_prefix(game, speller, out)  # type: ignore[attr-defined]
            else:
                self.encoder.encode(game, seat, speller, out)  # type: ignore[arg-type]
            self._obs_key = key
        return {"observation": out.copy(), "action_mask": mask.copy()}

    # ------------------------------------------------------------------ reading tokens

    def action_to_str(self, agent: str, action: int) -> str:
        """A readable token: the table entry, then the core's wording of the intent it
        completes now, if it completes one."""
        text = self.table.describe(int(action))
        if self.game is None or self.game.is_terminal() or agent != self.agent_selection:
            return text
        self.action_mask()
        speller = self._speller
        assert speller is not None
        fitting = speller.groups.get(int(action))
        if fitting is None or len(fitting) != 1:
            return text
        return f"{text}: {describe(self.game, fitting[0][1])}"

    def spell(self, intent: Intent) -> list[int]:
        """The tokens that make ``intent`` from the decision's tokens so far (for bots and
        tests); ValueError when it is not legal now or does not continue them."""
        self.action_mask()
        assert self._speller is not None
        return self._speller.path_to(intent, self.table)  # type: ignore[arg-type]

    def spell_move(self, move: Any) -> list[int]:
        return self.spell(move)


__all__ = ["NAME", "env_v1", "raw_env_v1"]

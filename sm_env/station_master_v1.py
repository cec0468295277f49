"""``station_master_v1``: Station Master as a PettingZoo AEC environment, the v1 spaces (the
newest version: ``sm_env.env`` and ``sm_env.raw_env`` are this module's).

``env(**config)`` is the raw environment wrapped as PettingZoo's classic games are (a masked
token ends the game, bounds checking, order enforcing: ``sm_env.base.wrap``); ``raw_env(**config)``
is the bare one, which raises ``IllegalActionError`` on a masked token and changes nothing.
The game, agents, rewards, infos, truncation and rendering are every version's
(``sm_env.base``); the spaces are v1's:

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
from pettingzoo import AECEnv

from sm_env.actions_v1 import Speller, TokenTable, token_table
from sm_env.base import StationMasterBase, version_metadata, wrap
from sm_env.core import Catalogue, GameConfig, GameState, Intent
from sm_env.observations_v1 import ObservationEncoderV1


def env(illegal_action: str = "terminate", illegal_reward: float = -1.0, **config: Any) -> AECEnv:
    """The wrapped environment: a masked token ends the game by default (``"terminate"``,
    the offender rewarded ``illegal_reward``); ``"raise"`` raises ``IllegalActionError`` and
    changes nothing (``sm_env.base.wrap``)."""
    return wrap(raw_env(**config), illegal_action, illegal_reward)


class SpacesV1:
    """The v1 spaces of one environment: the token table, the speller of the decision, the
    token mask and the compact encoder, with their preallocated arrays."""

    def __init__(self, config: GameConfig, catalogue: Catalogue) -> None:
        self.table: TokenTable = token_table(config, catalogue)
        self.encoder = ObservationEncoderV1(config, catalogue, self.table)
        self.game: GameState | None = None
        self.speller: Speller | None = None  # the decision being spelled; None until the mask is asked
        self._mask = np.zeros(self.table.size, dtype=np.int8)
        self._no_mask = np.zeros(self.table.size, dtype=np.int8)
        self._obs = np.zeros(self.encoder.size, dtype=np.float32)
        self._obs_key: tuple[int, int, int] | None = None  # (seat, position, tokens) encoded
        self._position = 0  # counts the games begun and the intents applied: the game's position

    def new_game(self, game: GameState) -> None:
        self.game = game
        self.speller = None
        self._obs_key = None
        self._position += 1
        self.encoder.reset_cache()

    def mask(self) -> np.ndarray:
        """The env's own array, changed in place at the next step (copy it to keep it)."""
        if self.speller is None:
            game = self.game
            if game is None:
                raise RuntimeError("call reset() before using the environment")
            if game.is_terminal():
                self._set_mask(())
                return self._mask
            self.speller = Speller(self.table.spell_all(game.legal_intents()))
            self._set_mask(self.speller.groups)
        return self._mask

    def _set_mask(self, tokens: Iterable[int]) -> None:
        mask = self._mask
        mask.fill(0)
        # Setting a few items one by one is several times cheaper than NumPy's fancy indexing;
        # a decision offers a few tokens at a time, seldom more than 20.
        for token in tokens:
            mask[token] = 1

    def take(self, action: int) -> Intent | None:
        speller = self.speller
        if speller is None:
            self.mask()
            speller = self.speller
            assert speller is not None
        intent = speller.advance(action)  # KeyError, changing nothing, on a token not offered
        if intent is None:
            self._set_mask(speller.groups)
        return intent

    def applied(self) -> None:
        self.speller = None
        self._position += 1

    def observe(self, seat: int, acting: bool) -> dict[str, np.ndarray]:
        game = self.game
        assert game is not None
        if acting:
            if self.speller is None:
                self.mask()
            mask, speller = self._mask, self.speller
            depth = speller.depth if speller is not None else 0
        else:
            mask, speller, depth = self._no_mask, None, 0
        key = (seat, self._position, depth)
        out = self._obs
        cached = self._obs_key
        if cached != key:
            if cached is not None and cached[:2] == key[:2]:
                self.encoder.refresh_prefix(game, speller, out)
            else:
                self.encoder.encode(game, seat, speller, out)
            self._obs_key = key
        return {"observation": out.copy(), "action_mask": mask.copy()}

    def spelling(self) -> str | None:
        return "a decision" if self.speller is not None and self.speller.started else None

    def completes(self, seat: int, action: int, acting: bool) -> Intent | None:
        """Only the agent to act has a decision the token may complete."""
        if not acting:
            return None
        self.mask()
        assert self.speller is not None
        fitting = self.speller.groups.get(action)
        return fitting[0][1] if fitting is not None and len(fitting) == 1 else None

    def spell(self, intent: Intent) -> list[int]:
        """ValueError when ``intent`` is not legal now or does not continue the tokens so far."""
        self.mask()
        assert self.speller is not None
        return self.speller.path_to(intent, self.table)


class raw_env(StationMasterBase):  # noqa: N801 - PettingZoo's naming
    metadata = version_metadata("station_master_v1")
    spaces_class = SpacesV1
    spaces: SpacesV1
    table: TokenTable
    encoder: ObservationEncoderV1

    @property
    def speller(self) -> Speller | None:
        """The decision being spelled (its tokens so far), or None before the mask is asked."""
        return self.spaces.speller


__all__ = ["env", "raw_env"]

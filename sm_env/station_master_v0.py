"""``station_master_v0``: Station Master as a PettingZoo AEC environment, the v0 spaces: every
decision one action of a flat ``Discrete(N)`` (6,488 at 3 offices), but a switching Move, built
from a few tokens. It stays live beside v1 (docs/actions.md says why); ``sm_env.env`` is v1's.

``env(**config)`` is the raw environment wrapped as PettingZoo's classic games are (a masked
action ends the game, bounds checking, order enforcing: ``sm_env.base.wrap``);
``raw_env(**config)`` is the bare one, which raises ``IllegalActionError`` on a masked action
and changes nothing. The game, agents, rewards, infos, truncation and rendering are every
version's (``sm_env.base``); the spaces are v0's:

- actions: one ``Discrete(N)`` per configuration (``sm_env.actions``, docs/actions.md); a Move
  is spelled ``move_tray``, ``move_step``..., ``move_stop`` (``sm_env.moves``);
- observation: the vector of ``sm_env.observations`` (docs/observations.md, "v0").
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from sm_env.actions import ActionTable
from sm_env.base import StationMasterBase, version_metadata, wrap
from sm_env.core import Catalogue, GameConfig, GameState, Intent, MoveTray, Phase
from sm_env.moves import MoveBuilder, spell
from sm_env.observations import ObservationEncoder


def env(illegal_action: str = "terminate", illegal_reward: float = -1.0, **config: Any) -> AECEnv:
    """The wrapped environment: a masked action ends the game by default (``"terminate"``,
    the offender rewarded ``illegal_reward``); ``"raise"`` raises ``IllegalActionError`` and
    changes nothing (``sm_env.base.wrap``)."""
    return wrap(raw_env(**config), illegal_action, illegal_reward)


class SpacesV0:
    """The v0 spaces of one environment: the flat action table, the Move being built, the
    mask and the encoder."""

    def __init__(self, config: GameConfig, catalogue: Catalogue) -> None:
        self.table = ActionTable(config, catalogue)
        self.encoder = ObservationEncoder(config, catalogue, self.table)
        self.game: GameState | None = None
        self.builder: MoveBuilder | None = None  # the Moves' prefix tree, made in the Switching phase
        self._mask: np.ndarray | None = None

    def new_game(self, game: GameState) -> None:
        self.game = game
        self.builder = None
        self._mask = None
        self.encoder.reset_cache()

    def mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self._build_mask()
        return self._mask

    def _build_mask(self) -> np.ndarray:
        mask = np.zeros(self.table.size, dtype=np.int8)
        game = self._game()
        if game.is_terminal():
            return mask
        if game.phase is Phase.SWITCHING:
            builder = self._move_builder()
            mask[builder.options()] = 1
            if not builder.started:
                mask[self.table.blocks["end_switching"].start] = 1
            return mask
        action_of = self.table.action_of
        mask[[action_of[intent] for intent in game.legal_intents()]] = 1
        return mask

    def _move_builder(self) -> MoveBuilder:
        if self.builder is None:
            game = self._game()
            moves = [i for i in game.legal_intents() if isinstance(i, MoveTray)]
            cells = {i: t.cell for i, t in enumerate(game.trays) if t.cell is not None}
            self.builder = MoveBuilder(self.table, moves, cells)
        return self.builder

    def take(self, action: int) -> Intent | None:
        if not self.mask()[action]:
            raise KeyError(action)
        intent = self.table.intent(self._game().current_player(), action)
        if intent is not None:
            return intent
        move = self._move_builder().advance(action)  # a move_* token
        if move is None:
            self._mask = None  # the next token's
        return move

    def applied(self) -> None:
        self.builder = None
        self._mask = None

    def observe(self, seat: int, acting: bool) -> dict[str, np.ndarray]:
        out = np.empty(self.encoder.size, dtype=np.float32)
        self.encoder.encode(self._game(), seat, self.builder if acting else None, out)
        mask = self.mask().copy() if acting else np.zeros(self.table.size, dtype=np.int8)
        return {"observation": out, "action_mask": mask}

    def spelling(self) -> str | None:
        return "a Move" if self.builder is not None and self.builder.started else None

    def completes(self, seat: int, action: int, acting: bool) -> Intent | None:
        """Every action but the Move tokens is one whole intent, whoever is to act."""
        return self.table.intent(seat, action)

    def spell(self, intent: Intent) -> list[int]:
        """A Move's whole token spelling, wherever the Move's spelling stands; else one action."""
        if isinstance(intent, MoveTray):
            return spell(self.table, intent)
        return [self.table.index(intent)]

    def _game(self) -> GameState:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game


class raw_env(StationMasterBase):  # noqa: N801 - PettingZoo's naming
    metadata = version_metadata("station_master_v0")
    spaces_class = SpacesV0
    spaces: SpacesV0
    table: ActionTable
    encoder: ObservationEncoder


__all__ = ["env", "raw_env"]

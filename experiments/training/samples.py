"""Training samples for the search's network: games played and recorded decision by decision.

A sample is one decision of a recorded seat that had more than one legal intent (all of them,
or a share drawn at random: a game's positions share one outcome, so many games with a few
positions each teach the value heads more than a few games with all of theirs):

- the seat's ``StationMaster-v1`` observation of the board (as ``NetEvaluator`` reads it);
- the spelling (v1 tokens) of every legal intent and the policy target over them: the search's
  root visit shares for an ``mcts`` seat, else the intent the bot chose;
- the game's outcome in the observation's relative seat order (the seat deciding first):
  each seat's share of the win and its margin over ``MARGIN_SCALE`` (``agents.net``).

``Samples`` keeps them as flat arrays (the intents and tokens are ragged, so offsets mark where
each sample's intents and each intent's tokens begin) and is written as one ``.npz``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents import make_bot, seat_seed
from agents.mcts import MCTSBot
from agents.net import MARGIN_SCALE, seat_margins, win_shares
from sm_env.actions_v1 import TokenTable, token_table
from sm_env.core import GameConfig, GameState, Intent, new_game
from sm_env.observations_v1 import ObservationEncoderV1

FIELDS = ("obs", "intent_start", "token_start", "tokens", "target", "win", "margin", "game")


@dataclass(frozen=True)
class Samples:
    """Samples as flat arrays. Sample ``i`` owns intents ``intent_start[i]:intent_start[i+1]``;
    intent ``j`` owns ``tokens[token_start[j]:token_start[j+1]]`` and ``target[j]``."""

    obs: np.ndarray  # (samples, observation) float32
    intent_start: np.ndarray  # (samples + 1,) int64
    token_start: np.ndarray  # (intents + 1,) int64
    tokens: np.ndarray  # (token entries,) int16
    target: np.ndarray  # (intents,) float32: sums to 1 over each sample's intents
    win: np.ndarray  # (samples, seats) float32, relative order
    margin: np.ndarray  # (samples, seats) float32, relative order, over MARGIN_SCALE
    game: np.ndarray  # (samples,) int64: the game each came from (validation splits by game)

    def __len__(self) -> int:
        return int(self.obs.shape[0])

    @classmethod
    def concat(cls, parts: list[Samples]) -> Samples:
        parts = [p for p in parts if len(p)]
        if not parts:
            raise ValueError("no samples to join")
        intent_starts, token_starts = [np.zeros(1, np.int64)], [np.zeros(1, np.int64)]
        intents = tokens = 0
        for p in parts:
            intent_starts.append(p.intent_start[1:] + intents)
            token_starts.append(p.token_start[1:] + tokens)
            intents += int(p.intent_start[-1])
            tokens += int(p.token_start[-1])
        return cls(
            obs=np.concatenate([p.obs for p in parts]),
            intent_start=np.concatenate(intent_starts),
            token_start=np.concatenate(token_starts),
            tokens=np.concatenate([p.tokens for p in parts]),
            target=np.concatenate([p.target for p in parts]),
            win=np.concatenate([p.win for p in parts]),
            margin=np.concatenate([p.margin for p in parts]),
            game=np.concatenate([p.game for p in parts]),
        )

    def save(self, path: Path) -> None:
        """Write atomically: a file at ``path`` is always a whole one."""
        partial = path.with_name(path.name + ".partial")
        with open(partial, "wb") as out:
            np.savez_compressed(out, **{name: getattr(self, name) for name in FIELDS})
        partial.replace(path)

    @staticmethod
    def count(path: Path) -> int:
        """The samples in a file, read without its observations."""
        with np.load(path, allow_pickle=False) as data:
            return len(data["game"])

    @classmethod
    def load(cls, path: Path) -> Samples:
        with np.load(path, allow_pickle=False) as data:
            return cls(**{name: data[name] for name in FIELDS})


# One game to record: config, game index, deal seed, a bot spec per seat, which seats to record,
# and the share of their decisions recorded (drawn from the deal's seed).
GameTask = tuple[GameConfig, int, int, tuple[str, ...], tuple[bool, ...], float]

_SPACES: dict[GameConfig, tuple[TokenTable, ObservationEncoderV1]] = {}


def _spaces(state: GameState) -> tuple[TokenTable, ObservationEncoderV1]:
    """The token table and observation encoder of a game's configuration, made once per process."""
    if state.config not in _SPACES:
        table = token_table(state.config, state.catalogue)
        _SPACES[state.config] = (table, ObservationEncoderV1(state.config, state.catalogue, table))
    return _SPACES[state.config]


def record_game(task: GameTask) -> tuple[int, Samples, tuple[int, ...]]:
    """Play one game; (game index, its samples, final revenue per seat). A pool worker: top
    level, so spawn can pickle it."""
    config, index, seed, players, recorded, share = task
    draw = np.random.default_rng(seed)
    state = new_game(config, seed)
    table, encoder = _spaces(state)
    bots = [make_bot(spec, seat_seed(seed, s)) for s, spec in enumerate(players)]
    obs: list[np.ndarray] = []
    seats: list[int] = []
    spellings: list[list[tuple[int, ...]]] = []
    targets: list[list[float]] = []
    scratch = np.zeros(encoder.size, np.float32)
    while not state.is_terminal():
        seat = state.current_player()
        view = state.view(seat)
        legal = view.legal_intents()
        bot = bots[seat]
        intent = bot.choose(view)
        if recorded[seat] and len(legal) > 1 and (share >= 1.0 or draw.random() < share):
            obs.append(encoder.encode(view.board, seat, None, scratch).copy())
            seats.append(seat)
            spellings.append([sp for sp, _ in table.spell_all(legal)])
            targets.append(_policy_target(bot, legal, intent))
        state.apply(intent)
    revenue = [float(r) for r in state.revenue_by_seat]
    wins, margins = win_shares(state), seat_margins(state, revenue)
    samples = _pack(index, obs, seats, spellings, targets, wins, margins, state.n)
    return index, samples, tuple(state.revenue_by_seat)


def _policy_target(bot: Any, legal: list[Intent], chosen: Intent) -> list[float]:
    """The search's visit shares when it searched, else all on the intent chosen."""
    if isinstance(bot, MCTSBot) and bot.last_visits and sum(bot.last_visits.values()):
        total = sum(bot.last_visits.values())
        return [bot.last_visits.get(i, 0) / total for i in legal]
    return [1.0 if i == chosen else 0.0 for i in legal]


def _pack(
    index: int,
    obs: list[np.ndarray],
    seats: list[int],
    spellings: list[list[tuple[int, ...]]],
    targets: list[list[float]],
    wins: list[float],
    margins: list[float],
    n: int,
) -> Samples:
    flat = [sp for per in spellings for sp in per]
    rel = np.array([[(seat + r) % n for r in range(n)] for seat in seats], dtype=np.int64).reshape(-1, n)
    return Samples(
        obs=np.array(obs, dtype=np.float32).reshape(len(obs), -1),
        intent_start=np.concatenate([[0], np.cumsum([len(p) for p in spellings], dtype=np.int64)]),
        token_start=np.concatenate([[0], np.cumsum([len(sp) for sp in flat], dtype=np.int64)]),
        tokens=np.array([t for sp in flat for t in sp], dtype=np.int16),
        target=np.array([t for per in targets for t in per], dtype=np.float32),
        win=np.array(wins, dtype=np.float32)[rel],
        margin=(np.array(margins, dtype=np.float32) / MARGIN_SCALE)[rel],
        game=np.full(len(obs), index, dtype=np.int64),
    )


__all__ = ["GameTask", "Samples", "record_game"]

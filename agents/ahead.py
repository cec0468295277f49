"""Who is ahead: each seat's chance to win, estimated from what a seat can see.

Without a network the estimate is Monte Carlo: ``samples`` times, deal what the seat cannot
see afresh (``view.determinize``: other hands, the Home Office, the dice), let the passenger
bot play every seat to the end, and count who won (a shared top shares the win; co-op: the
team wins or nobody). With a search network (``net``, ``agents.net``) it is the network's
win head. Every position uses the same sample seeds, so a chart over a game moves with the
game and not with the sampling. Deterministic for a seed.

``for_seat`` is one seat's belief (its view only: what a bot or a person's table may show);
``for_table`` is a spectator's (a replay, a finished game): the mean of every seat's own
estimate, so no seat's hidden cards weigh more than another's; exact once the game is over.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from agents.net import Net, NetEvaluator, table_win_chances, win_chances, win_shares
from agents.search import play_passengers
from sm_env.core import GameState, Replay, Rng, SeatView, new_game

_MASK = 0xFFFFFFFF
_TO_THE_END = 1 << 30


class ChancePoint(NamedTuple):
    """One point of a game's chart: after ``decisions`` decisions and ``stages`` Stages."""

    decisions: int
    stages: int
    revenue: tuple[int, ...]
    chances: tuple[float, ...]


class WinEstimator:
    """Each seat's chance to win, by rollouts (``samples`` per seat's estimate) or by a
    search network's win head (``net``: a file of ``agents.net``)."""

    def __init__(self, samples: int = 32, seed: int = 0, net: str = "") -> None:
        if samples < 1:
            raise ValueError(f"samples must be at least 1, got {samples}")
        self.samples = samples
        self.seed = seed & _MASK
        self.evaluator = NetEvaluator(Net.load(net)) if net else None
        self._memo: dict[tuple[object, ...], Any] = {}  # the rollout bots' shared cache

    def for_seat(self, view: SeatView) -> tuple[float, ...]:
        """Each seat's chance to win as ``view``'s seat can judge it (its own view only)."""
        if self.evaluator is not None:
            return win_chances(view, self.evaluator)
        board = view.board
        if board.is_terminal():
            return tuple(win_shares(board))
        total = [0.0] * board.n
        rng = Rng(self.seed ^ (view.seat * 0x9E3779B9 & _MASK))
        for _ in range(self.samples):
            deal = view.determinize(Rng(rng.next_u32()))
            play_passengers(deal, _TO_THE_END, rng.next_u32(), self._memo)
            for seat, share in enumerate(win_shares(deal)):
                total[seat] += share
        return tuple(t / self.samples for t in total)

    def for_table(self, state: GameState) -> tuple[float, ...]:
        """Each seat's chance to win for someone watching the whole table: the mean of every
        seat's own estimate. Exact once the game is over."""
        if self.evaluator is not None:
            return table_win_chances(state, self.evaluator)
        if state.is_terminal():
            return tuple(win_shares(state))
        total = [0.0] * state.n
        for seat in range(state.n):
            for s, chance in enumerate(self.for_seat(state.view(seat))):
                total[s] += chance
        return tuple(t / state.n for t in total)

    def over_replay(self, replay: Replay) -> list[ChancePoint]:
        """A chart's points: at the start of the game, after every Stage and at the end of the
        replay, each seat's revenue and chance to win."""
        state = new_game(replay.config, replay.seed)
        points = [self._point(state, 0)]
        for done, decision in enumerate(replay.decisions, 1):
            stages = state.stages_played
            state.apply(decision)
            if state.stages_played != stages or done == len(replay.decisions):
                points.append(self._point(state, done))
        return points

    def _point(self, state: GameState, decisions: int) -> ChancePoint:
        return ChancePoint(decisions, state.stages_played, state.revenue(), self.for_table(state))


__all__ = ["ChancePoint", "WinEstimator"]

"""The safe dispatcher: a passenger operator that never causes a collision it can avoid.

The strategy and its parameters are documented on the class.
"""

from __future__ import annotations

from typing import ClassVar

from agents.common import Param, following_gap, losses_since, office_of, rollout
from agents.passenger import PassengerBot
from sm_env.core import (
    CardKind,
    Clearance,
    GameState,
    Intent,
    PlaceCard,
    SeatView,
    place,
)


class DispatcherBot(PassengerBot):
    """Safe dispatcher: careful clearances, a clear Running Track and A/D tracks, RED FLAGs
    for real danger, and otherwise a passenger game.

    Strategy (on top of ``PassengerBot``'s passenger game):

    1. Clearances (R8.1.4): as Superintendent it clears a following train only when the train
       ahead on the Mainline card it would depart onto is at least ``safety_distance`` regions
       away, and a passive rollout of the next ``rollout_stages`` Stages (every seat passing,
       no flags) charges it no more collisions than holding the train would.
    2. Its station: the passenger bot's guard (``StationSafety``), but it rolls the Stage out
       passively every Local Operations turn a train stands in its station, not only when
       ``station_exposed`` says something could be struck there: a collision charged to it
       elsewhere (a train it cleared) makes it take a RED FLAG showing on a Department.
    3. RED FLAGs: it keeps them (high card value, takes one from a Department when it has none)
       and always plays one to avert a collision it would pay for.
    4. It values the Station and Terminal highly (more A/D tracks: an arrival finds room) and
       lays track that gives its station a siding to park trains on.

    Parameters (keywords; the passenger, guard and shared ones are in ``PassengerBot``,
    ``StationSafety``, ``HeuristicBot``):

    - ``safety_distance`` (2): regions of headway for a following train.
    - ``rollout_stages`` (3): Stages simulated to judge a clearance.
    - ``w_red_flag`` (3.0): value of a RED FLAG in hand.
    - ``w_siding`` (2.5): value of a first reachable siding; ``up_step`` (2.5): per office tier.
    """

    name: str = "dispatcher"
    # 2: the guard's rollouts count what the switching sets off, and not switching competes;
    # 3: a first train of any make-up (as passenger@3); 4: a plain (wheel-less) turnout the Office
    # reaches counts as the start of a siding
    version: str = "4"
    DEFAULTS: ClassVar[dict[str, Param]] = {
        **PassengerBot.DEFAULTS,
        "safety_distance": 2,
        "rollout_stages": 3,
        "w_red_flag": 3.0,
        "w_siding": 2.5,
        "up_step": 2.5,
    }

    # ------------------------------------------------------------------ clearances

    def clear_following(self, view: SeatView, board: GameState) -> bool:
        gap = following_gap(board)
        if gap is not None and gap < self.p("safety_distance"):
            return False
        clear, hold = self.clearance_loss(view, True), self.clearance_loss(view, False)
        stages = int(self.p("rollout_stages"))
        self.reason = f"over the next {stages} Stages it would lose {clear} clearing, {hold} holding"
        if self.p("milk") and self.worth_holding(board, view.seat) and hold <= clear:
            self.reason += "; held for its own Porters' work"
            return False
        return clear <= hold

    def clearance_loss(self, view: SeatView, clear: bool) -> int:
        state = view.determinize(self.rng)
        start, stages = len(state.ledger), state.stages_played
        state.apply(Clearance(view.seat, clear))
        horizon = stages + int(self.p("rollout_stages"))
        rollout(state, lambda s: s.stages_played >= horizon)
        return losses_since(state, view.seat, start)

    # ------------------------------------------------------------------ the station

    def station_exposed(self, board: GameState, seat: int) -> bool:
        return True  # it rolls out every turn: the rollout also sees a collision charged to it elsewhere

    # ------------------------------------------------------------------ cards

    def card_value_key(self, board: GameState, seat: int) -> tuple[object, ...] | None:
        return None  # its track values read the station's sidings too

    def card_value(self, board: GameState, seat: int, card: int) -> float:
        value = super().card_value(board, seat, card)
        spec = board.catalogue.cards[card] if card >= 0 else None
        if spec is not None and spec.kind is CardKind.TRACK:
            station = board.stations[office_of(board, seat)]
            if not self.sidings(board, station):
                value = max(value, 0.4)
        return value

    def play_value(self, view: SeatView, board: GameState, intent: Intent) -> float:
        if isinstance(intent, PlaceCard):
            if board.catalogue.cards[intent.card].kind is not CardKind.TRACK:
                return -1.0
            office = office_of(board, view.seat)
            before = self.siding_value(board, board.stations[office], self.p("w_siding"))
            trial = view.determinize(self.rng)
            place(trial, intent.card, intent.cell, intent.rotated, office)
            gain = self.siding_value(board, trial.stations[office], self.p("w_siding")) - before
            return gain if gain > 0.05 else -1.0
        return super().play_value(view, board, intent)


__all__ = ["DispatcherBot"]

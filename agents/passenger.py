"""The passenger operator: a bot that lives off coaches at its Office (R9.2).

The strategy and its parameters are documented on the class.
"""

from __future__ import annotations

from typing import ClassVar

from agents.common import Param, card_timing_facts, coaches, expected_visits, game_left, office_of
from agents.safety import StationSafety
from sm_env.core import (
    CABOOSE,
    COACH,
    EMPTY_COACH,
    LOADED_COACH,
    OFFICE_CELL,
    CardKind,
    GameState,
    Intent,
    PlaceModifier,
    PlayCard,
    SeatView,
    ad_tracks,
    box_room,
    car_type,
    eta,
    office_tier,
    porters,
    trays_at,
)


class PassengerBot(StationSafety):
    """Passenger operator: upgrades its Office, stocks coaches, boards and detrains, plays
    coach trains.

    Strategy, in order of what it wants:

    1. Upgrade the Office (Depot, Station, Terminal are ``PlayCard`` office upgrades, D-play.3):
       Porters, boxes and A/D tracks; the highest tier it holds is played at once, and a
       Department top that upgrades the Office is taken before a blind Home Office draw.
    2. Keep the boxes ready for the trains it sees coming (``eta`` within ``lookahead`` Mainline
       Phases): the Freight Agent stocks loaded coaches on the green box up to the coaches due
       (one ahead when none is due) and clears a red box that would leave no room to detrain.
    3. In the Cargo Phase, search its Porters' actions (board, detrain, in any order) for the
       most Revenue.
    4. Play timetabled trains and Extras that carry coaches (the value grows with the coaches the
       card allows and with how often the train will still reach its Office before the game
       ends: the slot roll and the run from the Division Point, ``expected_visits``); trains
       without coaches are discarded (they only add traffic, and collisions) unless the
       timetable is empty (``first_train_value``: the railroad needs a train); passenger
       Modifiers go next to the Office.
    5. As Superintendent, it holds a following train at its own Office for another Cargo
       Phase while there are coaches to work and an A/D track stays free (``milk``).
    6. On a new train add a loaded coach (detrain, then board the empty), else an empty coach;
       its own Extras it fills with coaches and sends from the end that reaches its Office in
       time with the fewest Porters before it.
    7. It guards its station (``StationSafety``): when a train due would strike a train on its
       full Office or cars on its Running Track, it switches the standing train out of the way
       (to a siding where there is one); it switches at no other time.

    Parameters (keywords, defaults in ``DEFAULTS``; the shared ones are in ``HeuristicBot``,
    the station guard's in ``StationSafety``):

    - ``up_base`` (6.0): value of a first upgrade from the Whistle Post; ``up_step`` (1.5): per
      tier gained.
    - ``w_train`` (2.0): value of a coach train card per expected visit to the Office before the
      game ends (``expected_visits``); ``w_extra`` (3.0): a coach Extra that will reach it.
    - ``w_other_train`` (-0.5): a train without coaches (it only adds traffic and risk), while
      another train is on the timetable.
    - ``w_stock`` (2.0) / ``w_clear`` (1.8): value of stocking a coach / clearing the red box when
      a train needs it; ``prestock`` (0.4): fraction of it when no train is due.
    - ``w_draw`` (1.0): weight of a card's value when drawing; ``w_red_flag`` (0.8).
    - ``milk`` (1): as Superintendent, hold a following train at its own Office while its
      Porters have coaches to work on it and an A/D track stays free (0: never).
    """

    name: str = "passenger"
    version: str = "3"  # 2: it guards its station; 3: a first train of any make-up
    DEFAULTS: ClassVar[dict[str, Param]] = {
        "up_base": 6.0,
        "up_step": 1.5,
        "w_train": 2.0,
        "w_extra": 3.0,
        "w_other_train": -0.5,
        "w_red_flag": 0.8,
        "milk": 1,
        **StationSafety.DEFAULTS,
    }

    # ------------------------------------------------------------------ cards

    def card_value(self, board: GameState, seat: int, card: int) -> float:
        if card < 0:
            return 0.0
        spec = board.catalogue.cards[card]
        kind = spec.kind
        if kind is CardKind.OFFICE and spec.office is not None:
            return self.upgrade_value(board, seat, spec.office.tier)
        if kind is CardKind.TRAIN and spec.train is not None:
            coach_max = dict(spec.train.consist.allowed).get(COACH, 0)
            if not coach_max:
                return max(self.p("w_other_train"), self.first_train_value(board, seat, card))
            visits = expected_visits(board, office_of(board, seat), card)
            return self.p("w_train") * (0.5 + coach_max / 4) * visits
        if kind is CardKind.EXTRA_TRAIN and spec.train is not None:
            coach_max = dict(spec.train.consist.allowed).get(COACH, 0)
            if not coach_max:
                return self.p("w_other_train")
            return self.p("w_extra") * expected_visits(board, office_of(board, seat), card)
        if kind is CardKind.MODIFIER and spec.modifier is not None:
            if spec.modifier.applies_to != "passenger":
                return 0.0
            ready = 1.0 if office_tier(board, office_of(board, seat)) else 0.6
            return ready * (2.0 * spec.modifier.porters + 1.0 * spec.modifier.capacity)
        if kind is CardKind.RED_FLAG:
            return self.p("w_red_flag")
        return 0.0

    def card_value_key(self, board: GameState, seat: int) -> tuple[object, ...] | None:
        return ("card values", *card_timing_facts(board, office_of(board, seat)))

    def upgrade_value(self, board: GameState, seat: int, tier: int) -> float:
        current = office_tier(board, office_of(board, seat))
        if tier <= current:
            return 0.0
        value = (self.p("up_base") if current == 0 else 0.0) + self.p("up_step") * (tier - current)
        return value * min(1.0, game_left(board) + 0.2)

    def play_value(self, view: SeatView, board: GameState, intent: Intent) -> float:
        if isinstance(intent, PlayCard):
            return self.card_value(board, view.seat, intent.card)
        if isinstance(intent, PlaceModifier):
            return self.card_value(board, view.seat, intent.card)
        return -1.0

    # ------------------------------------------------------------------ Local Operations

    def local_options(
        self, view: SeatView, board: GameState, legal: list[Intent]
    ) -> list[tuple[float, Intent]]:
        options = super().local_options(view, board, legal) + self.passenger_agent_options(view, board, legal)
        return self.guard_station(view, board, legal, options)

    # ------------------------------------------------------------------ trains

    def clear_following(self, view: SeatView, board: GameState) -> bool:
        if self.p("milk") and self.worth_holding(board, view.seat):
            self.reason = "the train stands at its own Office: held one more Cargo Phase for its Porters"
            return False
        return super().clear_following(view, board)

    def worth_holding(self, board: GameState, seat: int) -> bool:
        """As Superintendent, hold a following train standing at its own Office for one more
        Cargo Phase when its Porters still have coaches to work on it and an A/D track stays
        free for any train arriving meanwhile."""
        tray = board.trays[board.mainline_queue[0]]
        office = office_of(board, seat)
        if tray.office != office or tray.cell != OFFICE_CELL:
            return False
        if not porters(board, office):
            return False
        loaded, _, empty = coaches(tray.consist)
        boxes = board.stations[office].boxes[OFFICE_CELL]
        green = boxes.outbound.count(LOADED_COACH)
        detrain = min(loaded, box_room(board, office, OFFICE_CELL, False))
        board_up = min(empty + detrain, green + 1)  # one more stocked before the next Cargo
        if detrain + board_up <= 0:
            return False
        arriving = sum(1 for i in range(len(board.trays)) if eta(board, i, office) == 1)
        return ad_tracks(board, office) - len(trays_at(board, office)) - arriving >= 1

    def car_value(self, board: GameState, seat: int, code: int, own_extra: bool) -> float:
        kind = car_type(code)
        ready = porters(board, office_of(board, seat)) > 0
        if code == LOADED_COACH:
            return 3.0 if ready else 2.0
        if code == EMPTY_COACH:
            return 2.0 if ready else 1.5
        if kind == CABOOSE:
            return 0.1
        return 0.2 if code & 1 == 0 else 0.15  # a car for nobody in particular


__all__ = ["PassengerBot"]

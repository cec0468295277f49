"""The safe dispatcher: a passenger operator that never causes a collision it can avoid.

The strategy and its parameters are documented on the class.
"""

from __future__ import annotations

from typing import ClassVar

from agents.common import Param, following_gap, losses_since, office_of, rollout
from agents.passenger import PassengerBot
from agents.planning import (
    FAR,
    Plan,
    StationScorer,
    distances_from,
    distances_to,
    open_diagonals,
    plan_candidates,
    station_key,
)
from sm_env.core import (
    OFFICE_CELL,
    CardKind,
    ChooseSwitch,
    Clearance,
    DrawDepartment,
    EndSwitching,
    GameState,
    Intent,
    Phase,
    PlaceCard,
    SeatView,
    Station,
    move_graph,
    moves_for_switch,
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
    2. Its station: each Local Operations turn it rolls the Stage out passively to the Cargo
       Phase (New Train and Mainline, arrivals and departures included, its own RED FLAGs
       played when offered). If that charges it a collision or a flag (a train arriving at a
       full Office or into standing cars, R8.2.3; a train leaving into them, R8.2.4), it plans
       switching that clears the Running Track and, where a siding exists, parks the train
       holding the A/D track there; the candidate plans are checked by rollouts over
       ``plan_stages`` Stages and the safest is taken. A parked train comes back to the A/D
       track once a rollout says it is safe.
    3. RED FLAGs: it keeps them (high card value, takes one from a Department when it has none)
       and always plays one to avert a collision it would pay for.
    4. It values the Station and Terminal highly (more A/D tracks: an arrival finds room) and
       lays track that gives its station a siding to park trains on.

    Parameters (keywords; the passenger and shared ones are in ``PassengerBot``, ``HeuristicBot``):

    - ``safety_distance`` (2): regions of headway for a following train.
    - ``rollout_stages`` (3): Stages simulated to judge a clearance.
    - ``w_red_flag`` (3.0): value of a RED FLAG in hand.
    - ``w_siding`` (2.5): value of a first reachable siding; ``up_step`` (2.5): per office tier.
    - ``office_cost`` (3.0): cost of a train on the A/D tracks when planning to clear them.
    - ``danger_plans`` (4): candidate plans checked by rollout in a dangerous Stage;
      ``plan_stages`` (2): Stages those rollouts cover (a train parked on the Running Track
      is hit when the next train leaves).
    - ``flag_cost`` (2.0): what playing a RED FLAG costs in those rollouts (parking a train
      safely is better than spending a flag).
    - ``w_parked_running`` (6.0): cost of leaving a train on the Running Track off the Office
      (the next train out would hit it, R8.2.4).
    """

    name: str = "dispatcher"
    version: str = "1"
    DEFAULTS: ClassVar[dict[str, Param]] = {
        **PassengerBot.DEFAULTS,
        "safety_distance": 2,
        "rollout_stages": 3,
        "w_red_flag": 3.0,
        "w_siding": 2.5,
        "up_step": 2.5,
        "office_cost": 3.0,
        "danger_plans": 4,
        "flag_cost": 2.0,
        "plan_stages": 2,
        "w_parked_running": 6.0,
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

    def stage_loss(self, state: GameState, seat: int, ahead: int = 0) -> float:
        """Revenue lost to collisions by ``seat``, plus ``flag_cost`` per RED FLAG it has to
        play, if everyone passes from here through this Stage's Mainline Phase (``ahead``
        Stages more; the seat's own flags played when offered)."""
        start, stages = len(state.ledger), state.stages_played
        flags = state.hands[seat].count(state.red_flag_card)
        rollout(
            state,
            lambda s: (
                s.stages_played > stages + ahead
                or (s.stages_played >= stages + ahead and s.phase is Phase.CARGO)
            ),
            flag_seat=seat if self.p("flag_cost") < 5 else -1,
        )
        used = flags - state.hands[seat].count(state.red_flag_card)
        return losses_since(state, seat, start) + self.p("flag_cost") * used

    def sidings(self, board: GameState, station: Station) -> frozenset[tuple[int, int]]:
        """Secondary wheel cards a train can reach from the Office and come back from."""

        def find() -> frozenset[tuple[int, int]]:
            graph = move_graph(board.catalogue, station)
            there = distances_from(graph, OFFICE_CELL)
            back = distances_to(graph, OFFICE_CELL)
            return frozenset(c for c in graph if c[0] != 0 and there.get(c, FAR) + back.get(c, FAR) <= 6)

        found: frozenset[tuple[int, int]] = self.memo(("sidings", tuple(sorted(station.grid.items()))), find)
        return found

    def danger_scorer(self, board: GameState, seat: int) -> StationScorer:
        station = board.stations[office_of(board, seat)]
        return StationScorer(
            board,
            seat,
            park=self.sidings(board, station),
            office_cost=self.p("office_cost"),
            w_home=self.p("w_parked_running"),
        )

    def safest_plan(self, view: SeatView, board: GameState, moves: int, plans: list[Plan]) -> Plan | None:
        """The candidate plan whose Stage rollout charges the fewest collisions (then the best
        score); None if the empty plan is as safe."""
        best: tuple[float, float, int] | None = None
        chosen: Plan | None = None
        for index, plan in enumerate(plans):
            state = view.determinize(self.rng)
            if board.phase is Phase.LOCAL_OPS:
                state.apply(ChooseSwitch(view.seat))
            for move in plan.moves:
                state.apply(move)
            if state.phase is Phase.SWITCHING and state.current_player() == view.seat:
                state.apply(EndSwitching(view.seat))
            loss = self.stage_loss(state, view.seat, int(self.p("plan_stages")) - 1)
            rank = (loss, -plan.score, index)
            if best is None or rank < best:
                best, chosen = rank, plan
        if chosen is None or not chosen.moves:
            return None
        return chosen

    def local_options(
        self, view: SeatView, board: GameState, legal: list[Intent]
    ) -> list[tuple[float, Intent]]:
        options = super().local_options(view, board, legal)
        choose = ChooseSwitch(view.seat)
        if choose not in legal:
            return options
        seat = view.seat
        danger = self.stage_loss(view.determinize(self.rng), seat)
        moves = moves_for_switch(board)
        state = view.determinize(self.rng)
        if danger:
            plans = plan_candidates(
                state,
                seat,
                moves,
                self.danger_scorer(board, seat),
                beam=int(self.p("beam")),
                branch=int(self.p("branch")),
                keep=int(self.p("danger_plans")),
            )
            plan = self.safest_plan(view, board, moves, plans)
            if plan is not None:
                self.remember(plan)
                options.append((10.0 + danger, choose))
            elif board.red_flag_card not in board.hands[seat]:
                for d, dept in enumerate(board.departments):  # no way out: take a flag if one shows
                    if dept and dept[-1] == board.red_flag_card and DrawDepartment(seat, d) in legal:
                        options.append((10.0, DrawDepartment(seat, d)))
            return options
        office = office_of(board, seat)
        if any(t.office == office and t.cell != OFFICE_CELL for t in board.trays) or any(
            cell[0] == 0 for cell in board.stations[office].cars
        ):
            plans = plan_candidates(
                state, seat, moves, self.scorer(view, board), int(self.p("beam")), int(self.p("branch")), 3
            )
            plan = self.safest_plan(view, board, moves, plans)
            if plan is not None and plan.score - plan.start_score >= self.p("switch_gain"):
                self.remember(plan)
                options.append((plan.score - plan.start_score, choose))
        return options

    def switching(self, view: SeatView, board: GameState, legal: list[Intent]) -> Intent:
        key = self._plan[0][0] if self._plan else None
        if key is not None and key == station_key(board, view.seat) and self._plan[0][1] in legal:
            self.reason = "the next Move of the plan it chose this turn"
            return self._plan.pop(0)[1]
        self._plan = []
        self.reason = "its plan is done"
        return EndSwitching(view.seat)

    # ------------------------------------------------------------------ cards

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
            before = self.siding_value(board, board.stations[office])
            trial = view.determinize(self.rng)
            place(trial, intent.card, intent.cell, intent.rotated, office)
            gain = self.siding_value(board, trial.stations[office]) - before
            return gain if gain > 0.05 else -1.0
        return super().play_value(view, board, intent)

    def siding_value(self, board: GameState, station: Station) -> float:
        """A reachable siding is worth ``w_siding``; an open diagonal end from the Running
        Track (where a connector would make one) a third of it."""
        if self.sidings(board, station):
            return self.p("w_siding")
        graph = move_graph(board.catalogue, station)
        reach = set(distances_from(graph, OFFICE_CELL)) & set(distances_to(graph, OFFICE_CELL))
        return self.p("w_siding") / 3 if open_diagonals(board.catalogue, station, reach) else 0.0


__all__ = ["DispatcherBot"]

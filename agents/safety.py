"""Station safety, shared by the heuristic bots: foresee the collisions a seat would pay for at
its own station and switch out of their way.

A train arriving at an Office whose A/D tracks are all taken strikes one of the trains there,
and a train arriving or leaving strikes cars or a train left on the Running Track (R8.2.3,
R8.2.4); the office's seat pays. All of it is public (trains and their ETAs), so in its Local
Operations turn a seat can see it coming and switch: park the train holding the A/D track on a
siding, clear the Running Track. The strategy and its parameters are documented on the class.
"""

from __future__ import annotations

from typing import ClassVar

from agents.common import KEEP_PLANS, HeuristicBot, Param, losses_since, office_of, rollout
from agents.planning import FAR, Plan, StationScorer, distances_from, distances_to, open_diagonals
from sm_env.core import (
    OFFICE_CELL,
    ChooseSwitch,
    DrawDepartment,
    EndSwitching,
    GameState,
    Intent,
    MoveTray,
    Phase,
    SeatView,
    Station,
    ad_tracks,
    eta,
    move_graph,
    moves_for_switch,
    reachable_cells,
)


class StationSafety(HeuristicBot):
    """The guard of a bot's own station, added to its Local Operations options
    (``guard_station``).

    1. Danger: when a train stands in its station and something could be struck there in this
       Stage's Mainline Phase (``station_exposed``: an arrival due at an Office with no free
       A/D track for it, or cars or a train on the Running Track), it rolls the Stage out
       passively to the Cargo Phase (every seat passing, its own RED FLAGs played when
       offered). If that charges it a collision or a flag, it plans switching that clears the
       Running Track and, where a siding exists, parks the train holding the A/D track there
       (``danger_scorer``); ``danger_plans`` candidate plans are checked by rollouts over
       ``plan_stages`` Stages and the safest is taken. With no way out it takes a RED FLAG
       showing on a Department.
    2. Clean-up: with a train off the A/D track (parked) or cars on the Running Track and no
       danger now, it plans switching with its own goals (``scorer``) and takes the safest of
       the candidates (the bot's own plan among them, ``own_plans``) if it gains
       ``switch_gain``: a parked train comes back once a rollout says it is safe.
    3. Otherwise the bot's own options stand untouched. A plan of the guard is followed Move
       by Move and ends the switching turn; the bot does not replan after it.

    A RED FLAG it is offered is always played (``HeuristicBot.play_red_flag``: one is offered
    only for a collision the seat would pay for).

    Parameters (keywords; the shared ones are in ``HeuristicBot``):

    - ``office_cost`` (3.0): cost of a train on the A/D tracks when planning to clear them.
    - ``danger_plans`` (4): candidate plans checked by rollout in a dangerous Stage;
      ``plan_stages`` (2): Stages those rollouts cover (a train parked on the Running Track
      is hit when the next train leaves).
    - ``flag_cost`` (2.0): what playing a RED FLAG costs in those rollouts (parking a train
      safely is better than spending a flag).
    - ``w_parked_running`` (6.0): cost of leaving a train on the Running Track off the Office
      (the next train out would hit it, R8.2.4).
    """

    DEFAULTS: ClassVar[dict[str, Param]] = {
        "office_cost": 3.0,
        "danger_plans": 4,
        "flag_cost": 2.0,
        "plan_stages": 2,
        "w_parked_running": 6.0,
    }

    def station_exposed(self, board: GameState, seat: int) -> bool:
        """Could a train strike something in the seat's station in this Stage's Mainline
        Phase: cars or a train on the Running Track, or more trains due (ETA 1) than the
        Office has A/D tracks free? Public facts only; a cheap test before any rollout."""
        office = office_of(board, seat)
        if any(cell[0] == 0 and cell != OFFICE_CELL for cell in board.stations[office].cars):
            return True
        standing = due = 0
        for i, tray in enumerate(board.trays):
            if tray.office == office and tray.cell is not None:
                if tray.cell == OFFICE_CELL:
                    standing += 1
                elif tray.cell[0] == 0:
                    return True
            elif eta(board, i, office) == 1:
                due += 1
        return due > 0 and standing + due > ad_tracks(board, office)

    def stage_loss(
        self, state: GameState, seat: int, ahead: int = 0, moves: list[MoveTray] | None = None
    ) -> float:
        """Revenue lost to collisions by ``seat``, plus ``flag_cost`` per RED FLAG it has to
        play, if it switches ``moves`` now (when given, from its Local Operations choice) and
        then everyone passes through this Stage's Mainline Phase (``ahead`` Stages more; the
        seat's own flags played when offered). The ledger is read from before the switching:
        when the seat is the last to decide, the Mainline Phase runs inside ``apply``. A Move
        the station does not allow (a plan the bot remembered from an earlier turn) makes the
        loss infinite."""
        start, stages = len(state.ledger), state.stages_played
        flags = state.hands[seat].count(state.red_flag_card)
        if moves is not None:
            if state.phase is Phase.LOCAL_OPS:
                state.apply(ChooseSwitch(seat))
            for move in moves:
                if move not in state.legal_intents():
                    return float("inf")
                state.apply(move, validate=False)
            if state.phase is Phase.SWITCHING and state.current_player() == seat:
                state.apply(EndSwitching(seat))
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

    def siding_value(self, board: GameState, station: Station, weight: float) -> float:
        """A reachable siding (a place to park a train off the A/D track) is worth ``weight``;
        an open diagonal end of track a train reaches from the Office (where a connector
        would make one) a third of it."""
        if not weight:
            return 0.0
        if self.sidings(board, station):
            return weight
        reach = reachable_cells(board.catalogue, station)
        return weight / 3 if open_diagonals(board.catalogue, station, reach) else 0.0

    def danger_scorer(self, board: GameState, seat: int) -> StationScorer:
        station = board.stations[office_of(board, seat)]
        return StationScorer(
            board,
            seat,
            park=self.sidings(board, station),
            office_cost=self.p("office_cost"),
            w_home=self.p("w_parked_running"),
        )

    def safest_plan(self, view: SeatView, board: GameState, plans: list[Plan]) -> Plan | None:
        """The candidate plan whose Stage rollout charges the fewest collisions (then the best
        score); None if not switching is as safe. Not switching always competes: the beam
        keeps the best-scored plans, and a station in trouble may score best with none."""
        if plans and all(plan.moves for plan in plans):
            plans = [Plan([], [], plans[0].start_score, plans[0].start_score), *plans]
        # each plan's deal is drawn in list order, so the draws are the same whichever are rolled out
        deals = [view.determinize(self.rng) for _ in plans]
        # passive play draws no card, so no loss is below 0 (flag_cost >= 0): tried best score
        # first, the first plan that loses nothing is the safest
        zero_is_least = self.p("flag_cost") >= 0
        best: tuple[float, float, int] | None = None
        chosen: Plan | None = None
        for index in sorted(range(len(plans)), key=lambda i: (-plans[i].score, i)):
            plan = plans[index]
            loss = self.stage_loss(deals[index], view.seat, int(self.p("plan_stages")) - 1, plan.moves)
            rank = (loss, -plan.score, index)
            if best is None or rank < best:
                best, chosen = rank, plan
            if loss == 0 and zero_is_least:
                break
        if chosen is None or not chosen.moves:
            return None
        return chosen

    def own_plans(self, view: SeatView, board: GameState, moves: int) -> list[Plan]:
        """The bot's own switching plan for this turn, if it would make one: a clean-up
        candidate, so that where it is safe the bot plays as it would anyway."""
        return []

    def guard_station(
        self, view: SeatView, board: GameState, legal: list[Intent], options: list[tuple[float, Intent]]
    ) -> list[tuple[float, Intent]]:
        """The bot's Local Operations ``options``, with its own switching replaced by the
        guard's verdict when its station is in danger or has something to clear."""
        choose = ChooseSwitch(view.seat)
        if choose not in legal:
            return options
        seat = view.seat
        office = office_of(board, seat)
        danger = self.stage_loss(view.determinize(self.rng), seat) if self.station_exposed(board, seat) else 0
        cleanup = any(t.office == office and t.cell != OFFICE_CELL for t in board.trays) or any(
            cell[0] == 0 for cell in board.stations[office].cars
        )
        if not danger and not cleanup:
            return options
        moves = moves_for_switch(board)
        if danger:
            plans = self.candidate_plans(
                view, board, self.danger_scorer(board, seat), moves, int(self.p("danger_plans"))
            )
            gain = float("-inf")
        else:  # the same goals as the bot's own plan, so the scores compare
            plans = self.candidate_plans(view, board, self.scorer(view, board), moves, KEEP_PLANS)
            plans += [plan for plan in self.own_plans(view, board, moves) if plan not in plans]
            gain = self.p("switch_gain")
        plan = self.safest_plan(view, board, plans)
        options = [(v, i) for v, i in options if i != choose]  # the guard decides the switching
        if plan is not None and plan.score - plan.start_score >= gain:
            self.remember(board, seat, plan, final=True)
            options.append((10.0 + danger if danger else plan.score - plan.start_score, choose))
        elif danger and board.red_flag_card not in board.hands[seat]:
            for d, dept in enumerate(board.departments):  # no way out: take a flag if one shows
                if dept and dept[-1] == board.red_flag_card and DrawDepartment(seat, d) in legal:
                    options.append((10.0, DrawDepartment(seat, d)))
        return options


__all__ = ["StationSafety"]

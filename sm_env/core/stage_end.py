"""The end of a Stage (R5.0.2, R5.1.5): the Superintendent's Shift Change, the clock, the end
of a day with Employee Rotation (RB.3), and the end of the game (R3.2, R3.3, D-end)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sm_env.core.phases import Due, Next, Phase, Step
from sm_env.core.pieces import EMPTY
from sm_env.core.state import STAGES_PER_DAY
from sm_env.core.yards import return_overnight

if TYPE_CHECKING:
    from sm_env.core.state import GameState

SHIFT_CHANGE_STAGES = frozenset({2, 5, 8, 11})  # RC.2: fedora rows 4am, 10am, 4pm, 10pm
GAME_OVER = Due(Phase.GAME_OVER, EMPTY)


def end_stage(state: GameState) -> Next:
    """After the Cargo Phase: Shift Change, then the next Stage, day or the game's end."""
    state.workers_used = {}
    for station in state.stations:  # R9.0.3: a Modifier serves one facility per Stage
        station.modifiers_used.clear()
    if state.stage in SHIFT_CHANGE_STAGES:  # R5.1.5
        old = state.fedora
        state.fedora = (old + 1) % state.n
        state.log("fedora", state.fedora, old=old)
    state.stages_played += 1
    if state.config.target_revenue is not None and state.target_reached():
        return _game_over(state, "target")
    if state.stage < STAGES_PER_DAY - 1:
        state.stage += 1
        return _next_stage(state)
    state.log("day-end", -1, revenue=list(state.revenue_by_seat))
    if state.day + 1 >= state.config.days:  # the clock stays on the last Stage played
        return _game_over(state, "days")
    state.day += 1
    state.stage = 0
    if state.config.house_rules.overnight_yard:
        return_overnight(state)
    if state.config.house_rules.employee_rotation:
        _rotate_employees(state)
    return _next_stage(state)


def _next_stage(state: GameState) -> Next:
    state.turn = 0
    return Step.LOCAL_TURN


def _rotate_employees(state: GameState) -> None:
    """RB.3: every player moves one chair left, taking over the station of the seat there:
    the next station west (the westernmost's holder goes to the easternmost)."""
    n = state.n
    old = state.office_of_seat[:]
    state.office_of_seat = [old[(s + 1) % n] for s in range(n)]
    for seat, office in enumerate(state.office_of_seat):
        state.seat_of_office[office] = seat
    state.log("rotation", -1, offices=list(state.office_of_seat))


def _game_over(state: GameState, why: str) -> Next:
    state.log("game-over", -1, why=why, revenue=list(state.revenue_by_seat))
    return GAME_OVER

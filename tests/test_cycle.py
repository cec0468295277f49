"""The Stage cycle: 12 Stages a day (R5.0.2), turn order from the Superintendent leftward
(R5.0.1), the Fedora passing after Stages 3, 6, 9, 12 (R5.1.5), Employee Rotation (RB.3) and
the end of the game (D-end.1, D-end.2, D-end.3)."""

from __future__ import annotations

import pytest
from conftest import assert_invariants, expect_illegal, finish_stage, new_state, play_random, set_revenue

from sm_env.core.intents import DrawHomeOffice, Pass
from sm_env.core.phases import Phase
from sm_env.core.revenue import earn
from sm_env.core.state import CLOCK
from sm_env.core.text import event_text


def turn_orders(state_offices: int, seed: int, days: int = 1) -> list[tuple[int, int, int, list[int]]]:
    """(day, stage, fedora, seats in the order they decided) for every Stage, all passing."""
    state = new_state(state_offices, seed, days=days)
    out = []
    while not state.is_terminal():
        day, stage, fedora = state.day, state.stage, state.fedora
        order = []
        while not state.is_terminal() and (state.day, state.stage) == (day, stage):
            order.append(state.current_player())
            state.apply(Pass(state.current_player()))
        out.append((day, stage, fedora, order))
    return out


@pytest.mark.parametrize("offices", [1, 2, 3, 4, 6])
def test_r5_0_1_turns_start_at_the_superintendent_and_go_left(offices: int) -> None:
    """R5.0.1: each seat once per Stage, from the Fedora holder to his left (seat + 1)."""
    for _day, _stage, fedora, order in turn_orders(offices, 3):
        assert order == [(fedora + i) % offices for i in range(offices)]


@pytest.mark.parametrize("offices", [1, 2, 3, 5])
def test_r5_1_5_fedora_passes_left_after_stages_3_6_9_12(offices: int) -> None:
    """R5.1.5 / C-fedora.3: Shift Change after Stages 3, 6, 9 and 12 only (4am, 10am, 4pm,
    10pm): the Fedora goes from seat s to seat s+1."""
    stages = turn_orders(offices, 4, days=2)
    start = stages[0][2]
    for day, stage, fedora, _ in stages:
        changes = day * 4 + stage // 3  # shift changes before this Stage
        assert fedora == (start + changes) % offices, (day, stage)


def test_r5_1_5_shift_change_is_logged_at_the_fedora_clock_times() -> None:
    """R5.1.5 / RC.2"""
    state = new_state(3, 5)
    play_random(state, 5)
    fedora_events = [e for e in state.events if e.kind == "fedora"]
    assert [CLOCK[e.stage] for e in fedora_events] == ["4:00 AM", "10:00 AM", "4:00 PM", "10:00 PM"]


@pytest.mark.parametrize("days", [1, 2, 3])
def test_r5_0_2_twelve_stages_a_day_and_game_end_by_days(days: int) -> None:
    """R5.0.2 / D-end.1 / D-end.3: a day is 12 Stages; the game ends after ``days`` days."""
    state = new_state(2, 6, days=days)
    for stage in range(12 * days):
        assert not state.is_terminal()
        assert state.stages_played == stage
        assert (state.day, state.stage) == divmod(stage, 12)
        finish_stage(state)
    assert state.is_terminal()
    assert state.phase is Phase.GAME_OVER
    assert state.stages_played == 12 * days
    assert [e.kind for e in state.events].count("day-end") == days
    assert state.current_player() == -1
    assert state.legal_intents() == []
    assert state.events[-1].kind == "game-over"


def test_d_end_3_no_decision_after_the_game_ends() -> None:
    """D-end.3: once over, any intent raises IllegalIntent and changes nothing."""
    state = new_state(2, 7)
    play_random(state, 7)
    assert state.is_terminal()
    for seat in (0, 1):
        expect_illegal(state, Pass(seat), "D-end.3")
        expect_illegal(state, DrawHomeOffice(seat), "D-end.3")


@pytest.mark.parametrize("offices", [2, 3, 6])
def test_rb_3_employee_rotation_moves_everyone_one_station_west(offices: int) -> None:
    """RB.3: after each day that does not end the game, seat s takes the office seat s+1 held,
    which under D-seat.1 is the next station west (the westernmost's holder goes to the
    easternmost); revenue, hand and the Fedora stay with the seat; stations stay with the office."""
    state = new_state(offices, 8, days=3, employee_rotation=True)
    for day in range(2):
        while state.day == day:
            if state.stage == 11 and state.turn == offices - 1:
                set_revenue(state, list(range(offices)))
                before = {
                    "offices": state.office_of_seat[:],
                    "hands": [h[:] for h in state.hands],
                    "grids": [st.grid.copy() for st in state.stations],
                }
                fedora = (state.fedora + 1) % offices  # the Shift Change after Stage 12
            state.apply(Pass(state.current_player()))
        old = before["offices"]
        assert state.office_of_seat == [old[(s + 1) % offices] for s in range(offices)]
        assert state.office_of_seat == [(o - 1) % offices for o in old]  # next station west
        for seat, office in enumerate(state.office_of_seat):
            assert state.seat_of_office[office] == seat
        assert state.revenue_by_seat == list(range(offices))
        assert state.hands == before["hands"]
        assert state.fedora == fedora
        assert [st.grid for st in state.stations] == before["grids"]
        assert any(e.kind == "rotation" for e in state.events)
        assert_invariants(state)


def test_rb_3_no_rotation_without_the_house_rule() -> None:
    """RB.3"""
    state = new_state(3, 9, days=2)
    offices = state.office_of_seat[:]
    while state.day == 0:
        finish_stage(state)
    assert state.office_of_seat == offices


def test_rb_3_no_rotation_after_the_last_day() -> None:
    """RB.3 / D-end.3: the game ends before a rotation."""
    state = new_state(3, 10, days=1, employee_rotation=True)
    offices = state.office_of_seat[:]
    play_random(state, 10)
    assert state.office_of_seat == offices
    assert not any(e.kind == "rotation" for e in state.events)


def test_d_seat_3_rotation_with_one_office_has_no_effect() -> None:
    """D-seat.3 / RB.3"""
    state = new_state(1, 11, days=2, employee_rotation=True)
    while state.day == 0:
        finish_stage(state)
    assert state.office_of_seat == [0] and state.fedora == 0


def test_d_end_1_target_reached_ends_the_game_at_the_end_of_the_stage() -> None:
    """D-end.1: competitive: the game ends at the end of the first Stage in which some seat's
    revenue reaches the target; that seat wins."""
    state = new_state(3, 12, days=5, target=10)
    finish_stage(state)
    first = state.current_player()
    earn(state, (first + 1) % 3, 10, "R2.4.7", "set by hand")
    state.apply(Pass(first))
    assert not state.is_terminal()  # the Stage is not over yet
    state.apply(Pass(state.current_player()))
    state.apply(Pass(state.current_player()))
    assert state.is_terminal()
    assert state.stages_played == 2
    assert state.winners() == ((first + 1) % 3,)
    assert "target" in event_text(state.events[-1], state)


def test_d_end_1_below_target_plays_on() -> None:
    """D-end.1"""
    state = new_state(2, 13, days=1, target=10)
    set_revenue(state, [9, 9])
    play_random(state, 13)
    assert state.stages_played == 12
    assert state.winners() == (0, 1)


@pytest.mark.parametrize(
    ("revenue", "winners"),
    [([3, 3, 1], (0, 1)), ([0, 0, 0], (0, 1, 2)), ([1, 5, 2], (1,)), ([-2, -5, -2], (0, 2))],
)
def test_d_end_1_highest_revenue_wins_ties_share(revenue: list[int], winners: tuple[int, ...]) -> None:
    """D-end.1 / D-end.4: the highest revenue wins, ties share; revenue may be negative."""
    state = new_state(3, 14)
    set_revenue(state, revenue)
    assert state.winners() == ()  # nothing while the game runs
    play_random(state, 14)
    assert state.revenue() == tuple(revenue)
    assert state.winners() == winners


def test_d_end_2_coop_team_reaches_the_target_everyone_wins() -> None:
    """D-end.2: co-op: the team total reaching the target ends the game; all seats win."""
    state = new_state(3, 15, days=2, target=9, mode="coop")
    set_revenue(state, [3, 3, 3])
    finish_stage(state)
    assert state.is_terminal()
    assert state.stages_played == 1
    assert state.winners() == (0, 1, 2)


def test_d_end_2_coop_team_short_of_the_target_nobody_wins() -> None:
    """D-end.2: after ``days`` days without the target the team loses: no winners."""
    state = new_state(3, 16, days=1, target=10, mode="coop")
    set_revenue(state, [3, 3, 3])
    play_random(state, 16)
    assert state.is_terminal()
    assert state.stages_played == 12
    assert state.winners() == ()


def test_d_end_2_coop_single_seat_over_target_is_the_team_total() -> None:
    """D-end.2: the co-op check is the sum, not one seat."""
    state = new_state(2, 17, days=1, target=10, mode="coop")
    set_revenue(state, [12, -3])
    finish_stage(state)
    assert not state.is_terminal()
    set_revenue(state, [12, -2])
    finish_stage(state)
    assert state.is_terminal() and state.winners() == (0, 1)


@pytest.mark.parametrize("offices", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize(
    "rules", [{}, {"employee_rotation": True, "sister_trains": True}, {"emergency_toolbox": True}]
)
def test_random_games_keep_invariants_and_end_after_the_days(offices: int, rules: dict[str, bool]) -> None:
    """C-stock.1, R6.2.4, D-end.1: random bots; every car and card in exactly one place and
    hands within the limit after every decision; the game ends after 12 * days Stages."""
    days = 2 if offices <= 3 else 1
    seed = 1000 + offices
    state = new_state(offices, seed, days=days, **rules)
    decisions = play_random(state, seed, check=True)
    assert state.is_terminal()
    assert state.stages_played == 12 * days
    assert len(decisions) >= 12 * days * offices

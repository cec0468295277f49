"""The Mainline Phase (R8): departures from offices and Division Points, the highball
conditions, movement region by region, arrivals, and completed runs (D-run)."""

from __future__ import annotations

import pytest
from conftest import (
    EMPTY,
    ENGINE,
    OFFICE_CELL,
    assert_invariants,
    cid,
    expect_illegal,
    finish_stage,
    lay_by_hand,
    mainline_regions,
    new_state,
    pass_local_ops,
    put_train_at_dp,
    put_train_at_office,
    put_train_on_line,
    put_tray_in_station,
    schedule_by_hand,
    set_consist,
    set_mainline_regions,
    set_office,
)

from sm_env.core import trains
from sm_env.core.cars import BOXCAR, CABOOSE_CODE, COACH, HOPPER, car_code
from sm_env.core.intents import Clearance, EndCargo, Pass
from sm_env.core.mainline import bound_for, first_control_point, next_subdivision, no_room_ahead
from sm_env.core.phases import Phase
from sm_env.core.pieces import Tray
from sm_env.core.queries import makeup_problem, start_line
from sm_env.core.state import STAGES_PER_DAY, GameState
from sm_env.core.text import event_text

COACH_L = car_code(COACH, True)
BOXCAR_E = car_code(BOXCAR, False)
HOPPER_L = car_code(HOPPER, True)


def seat_of(state: GameState, office: int) -> int:
    return state.seat_of_office[office]


def upgrade(state: GameState, office: int, card_id: str = "depot") -> None:
    set_office(state, seat_of(state, office), card_id)


def phase(state: GameState) -> Phase:
    """The current step, read afresh (lets type checkers see it change)."""
    return state.phase


def hold_events(state: GameState) -> list[str]:
    return [event_text(e, state) for e in state.events if e.kind == "hold"]


# ----------------------------------------------------------------------------- movement


@pytest.mark.parametrize("train_id", ["train-2", "train-1"])
def test_r8_2_1_a_train_at_its_dp_departs_onto_the_start_region(train_id: str) -> None:
    state = new_state(3, 4)
    tray = put_train_at_dp(state, train_id)
    pass_local_ops(state)
    if tray.direction > 0:
        assert (tray.line, tray.region) == (0, 0)  # eastbound: westernmost region of Mainline 0
    else:
        assert (tray.line, tray.region) == (3, mainline_regions(state, 3) - 1)
    assert not tray.at_dp and tray.cleared_by == state.fedora
    assert_invariants(state)


def test_r8_2_1_one_region_per_stage_then_straight_to_the_office() -> None:
    """D-mainline.1 / R8.2.2: k regions take k Mainline Phases, the next one arrives."""
    state = new_state(3, 4)
    tray = put_train_on_line(state, 1, 0, "train-2")  # eastbound on Mainline 1, Start region
    for region in range(1, mainline_regions(state, 1)):
        pass_local_ops(state)
        assert (tray.line, tray.region) == (1, region)
    pass_local_ops(state)
    assert (tray.office, tray.cell, tray.line) == (1, OFFICE_CELL, EMPTY)
    assert any(e.kind == "arrive" and "office 1" in event_text(e, state) for e in state.events)
    assert_invariants(state)


def test_r8_2_2_an_arrived_train_is_tested_from_the_next_phase_on() -> None:
    state = new_state(3, 4)
    tray = put_train_on_line(state, 1, mainline_regions(state, 1) - 1, "train-2")
    pass_local_ops(state)
    assert tray.office == 1 and tray.cell == OFFICE_CELL
    pass_local_ops(state)  # the next Stage it highballs onto Mainline 2
    assert (tray.line, tray.region) == (2, 0)


def test_r8_2_2_westbound_trains_run_east_to_west() -> None:
    state = new_state(3, 4)
    tray = put_train_on_line(state, 2, 0, "train-1")  # westbound, last region of its way
    pass_local_ops(state)
    assert (tray.office, tray.cell) == (1, OFFICE_CELL)
    pass_local_ops(state)
    assert (tray.line, tray.region) == (1, mainline_regions(state, 1) - 1)


# ----------------------------------------------------------------------------- order


@pytest.mark.parametrize(
    ("follower_id", "leader_id", "collides"), [("train-2", "train-4", True), ("train-4", "train-2", False)]
)
def test_r8_0_1_lower_numbers_move_first(follower_id: str, leader_id: str, collides: bool) -> None:
    """R8.0.1: a senior follower one region behind moves first, into its leader (D-mainline.3);
    a junior one moves after the leader has gone on."""
    state = new_state(3, 4)
    set_mainline_regions(state, 1, 2)  # the deal gives Mainline 1 one region
    follower = put_train_on_line(state, 1, 0, follower_id)
    leader = put_train_on_line(state, 1, 1, leader_id)
    pass_local_ops(state)
    assert (follower.train == EMPTY and leader.train == EMPTY) is collides
    if not collides:
        assert follower.region == 1


def test_r8_0_1_a_timetabled_train_outranks_the_extra_of_its_number() -> None:
    state = new_state(3, 4)
    set_mainline_regions(state, 1, 2)  # the deal gives Mainline 1 one region
    last = mainline_regions(state, 1) - 1
    extra = put_train_on_line(state, 1, last, "extra-3", direction=-1)  # follower, westbound
    no3 = put_train_on_line(state, 1, last - 1, "train-3")  # leader, one region west
    assert trains.seniority(state.catalogue, no3) < trains.seniority(state.catalogue, extra)
    pass_local_ops(state)
    assert no3.train != EMPTY and extra.train != EMPTY  # No. 3 moved first: no collision
    assert extra.region == last - 1


def test_d_mainline_2_each_train_acts_once_per_phase() -> None:
    state = new_state(3, 4)
    set_mainline_regions(state, 1, 2)  # the deal gives Mainline 1 one region
    tray = put_train_on_line(state, 1, 0, "train-2")
    pass_local_ops(state)
    assert tray.region == 1  # moved exactly one region, not more


# ----------------------------------------------------------------------------- highball


def test_r8_1_1_only_trains_on_the_office_card_or_at_the_dp_depart() -> None:
    state = new_state(3, 4)
    on_limits = put_tray_in_station(state, seat_of(state, 1), (0, 1), train_id="train-2")
    lay_by_hand(state, 1, (1, 0), "straight")
    siding = put_tray_in_station(state, seat_of(state, 1), (1, 0), train_id="train-4")
    pass_local_ops(state)
    assert (on_limits.office, on_limits.cell) == (1, (0, 1))  # on the Limits: never departs
    assert (siding.office, siding.cell) == (1, (1, 0))
    assert_invariants(state)


def test_r8_1_2_a_train_made_up_out_of_order_holds() -> None:
    state = new_state(3, 4)
    tray = put_train_at_office(state, 1, "train-6")  # coach 2, boxcar 1, reefer 1, caboose required
    set_consist(state, tray, (COACH_L, ENGINE, BOXCAR_E))
    assert_invariants(state)
    assert makeup_problem(state, tray) == "its engine is not at an outer end"
    pass_local_ops(state)
    assert tray.office == 1 and any("R8.1.2" in text for text in hold_events(state))
    assert_invariants(state)


@pytest.mark.parametrize(
    ("train_id", "cars", "engine_first", "problem"),
    [
        ("train-6", [CABOOSE_CODE, COACH_L], True, "its caboose is not at the end opposite the engine"),
        ("train-1", [COACH_L, CABOOSE_CODE], True, "its card forbids a caboose"),
        ("train-9", [HOPPER_L, HOPPER_L, HOPPER_L, HOPPER_L], True, "its card allows 3 hopper(s)"),
        ("train-1", [BOXCAR_E], False, "its card allows 0 boxcar(s)"),
    ],
)
def test_r8_1_2_c_trays_5_make_up_checks_refuse_departure(
    train_id: str, cars: list[int], engine_first: bool, problem: str
) -> None:
    state = new_state(3, 4)
    tray = put_train_at_office(state, 1, train_id)
    set_consist(state, tray, (ENGINE, *cars) if engine_first else (*cars, ENGINE))
    assert_invariants(state)
    assert makeup_problem(state, tray) == problem
    pass_local_ops(state)
    assert tray.office == 1 and tray.cell == OFFICE_CELL
    assert_invariants(state)


def test_c_trays_5_more_cars_than_the_card_allows_refuse_departure() -> None:
    """C-trays.5: never over the card, even when every type is within its own maximum."""
    state = new_state(3, 4)
    tray = put_train_at_office(state, 1, "train-11")  # 3 each of four types, 4 cars at most
    set_consist(state, tray, (ENGINE, *[HOPPER_L, HOPPER_L, BOXCAR_E, BOXCAR_E, COACH_L][:4]))
    assert_invariants(state)
    assert makeup_problem(state, tray) is None
    # A fifth car, by hand: more than RA.4.5 lets a tray hold, so no assert_invariants after it.
    set_consist(state, tray, (*tray.consist, car_code(4, True)))
    assert makeup_problem(state, tray) == "it has 5 cars; its card allows 4"


def test_r8_1_2_short_trains_and_pushing_engines_depart() -> None:
    """R8.1.2: fewer cars than listed is fine; C-trays.4: the engine may be at either end."""
    state = new_state(3, 4)
    tray = put_train_at_office(state, 1, "train-6")
    set_consist(state, tray, (COACH_L, ENGINE))  # eastbound, engine leading
    assert makeup_problem(state, tray) is None
    set_consist(state, tray, (ENGINE, *tray.consist[:-1]))  # engine at the rear, pushing
    assert_invariants(state)
    assert makeup_problem(state, tray) is None
    pass_local_ops(state)
    assert (tray.line, tray.region) == (2, 0)


def test_r8_1_3_an_opposing_train_in_the_next_subdivision_blocks() -> None:
    state = new_state(3, 4)
    east = put_train_at_office(state, 0, "train-2")
    west = put_train_on_line(state, 2, 0, "train-1")  # beyond office 1, a Whistle Post
    assert west.direction == -1 and next_subdivision(state, east) == [state.trays.index(west)]
    pass_local_ops(state)
    assert east.office == 0
    assert any("R8.1.3" in text for text in hold_events(state))


def test_r8_0_2_a_control_point_splits_the_subdivision() -> None:
    state = new_state(3, 4)
    east = put_train_at_office(state, 0, "train-2")
    put_train_on_line(state, 2, 0, "train-1")
    upgrade(state, 1)  # office 1 becomes a Depot, a Control Point: the subdivision ends there
    assert next_subdivision(state, east) == []
    pass_local_ops(state)
    assert (east.line, east.region) == (1, 0)


def test_d_mainline_4_whistle_post_running_track_counts() -> None:
    state = new_state(3, 4)
    east = put_train_at_office(state, 0, "train-2")
    waiting = put_train_at_office(state, 1, "train-1")  # westbound, on office 1's Running Track
    assert state.trays.index(waiting) in next_subdivision(state, east)
    pass_local_ops(state)
    assert east.office == 0 and waiting.office == 1  # each blocks the other


def test_r8_1_5_a_train_on_a_whistle_post_siding_does_not_block() -> None:
    state = new_state(3, 4)
    lay_by_hand(state, 1, (1, 0), "straight")
    east = put_train_at_office(state, 0, "train-2")
    siding = put_tray_in_station(state, seat_of(state, 1), (1, 0), train_id="train-1")
    assert next_subdivision(state, east) == []
    pass_local_ops(state)
    assert (east.line, east.region) == (1, 0)
    assert state.phase is Phase.LOCAL_OPS  # no clearance was asked
    assert siding.cell == (1, 0)


def test_r8_1_4_a_following_train_waits_for_the_superintendent() -> None:
    state = new_state(3, 4)
    put_train_on_line(state, 1, 0, "train-4")
    follower = put_train_at_office(state, 0, "train-2")
    pass_local_ops(state)
    assert state.phase is Phase.CLEARANCE
    assert state.current_player() == state.fedora
    assert state.legal_intents() == [Clearance(state.fedora, True), Clearance(state.fedora, False)]
    expect_illegal(state, Pass(state.fedora), "R5.0.1")
    other = (state.fedora + 1) % 3
    expect_illegal(state, Clearance(other, True), "R5.0.1")
    assert state.mainline_queue[0] == state.trays.index(follower)


def test_r8_1_4_cleared_follower_departs_and_held_one_stays() -> None:
    for clear in (True, False):
        state = new_state(3, 4)
        set_mainline_regions(state, 1, 2)  # the deal gives Mainline 1 one region
        leader = put_train_on_line(state, 1, 1, "train-2")  # No. 2 acts first, then No. 4
        follower = put_train_at_office(state, 0, "train-4")
        pass_local_ops(state)
        assert leader.region == 2 or leader.office == 1
        state.apply(Clearance(state.fedora, clear))
        if clear:
            assert (follower.line, follower.region) == (1, 0)
            assert follower.cleared_by == state.fedora
        else:
            assert follower.office == 0
        assert state.phase is Phase.LOCAL_OPS
        assert_invariants(state)


def test_r8_1_4_a_held_follower_is_asked_again_next_stage() -> None:
    state = new_state(3, 4)
    set_mainline_regions(state, 1, 2)  # the deal gives Mainline 1 one region
    put_train_on_line(state, 1, 0, "train-2")
    follower = put_train_at_office(state, 0, "train-4")
    pass_local_ops(state)
    state.apply(Clearance(state.fedora, False))
    assert follower.office == 0 and state.phase is Phase.LOCAL_OPS
    pass_local_ops(state)  # the leader is still ahead (on Mainline 1 or at office 1)
    assert state.phase is Phase.CLEARANCE
    assert state.mainline_queue[0] == state.trays.index(follower)


# ----------------------------------------------------------------------------- completed runs


def test_d_run_2_arriving_at_the_far_dp_completes_the_run() -> None:
    state = new_state(2, 4)
    tray = put_train_on_line(state, 2, mainline_regions(state, 2) - 1, "train-6")
    set_consist(state, tray, (CABOOSE_CODE, BOXCAR_E, ENGINE))
    assert_invariants(state)
    classification, division, revenue = state.classification[:], state.division[:], state.revenue()
    pass_local_ops(state)
    assert tray.train == EMPTY and tray.line == EMPTY  # the tray is free again
    assert state.classification[BOXCAR_E] == classification[BOXCAR_E] + 1
    assert state.division[CABOOSE_CODE] == division[CABOOSE_CODE] + 1
    assert cid("train-6") in state.timetable  # it runs again at its slot tomorrow
    assert state.revenue() == revenue  # no revenue for a completed run
    assert any(e.kind == "run-complete" for e in state.events)
    assert_invariants(state)


def test_d_run_2_an_extra_goes_to_the_salvage_yard_after_its_run() -> None:
    state = new_state(2, 4)
    tray = put_train_on_line(state, 0, 0, "extra-6", direction=-1)
    pass_local_ops(state)
    assert tray.train == EMPTY and state.salvage[-1] == cid("extra-6")
    assert_invariants(state)


def test_d_run_3_a_timetabled_train_reruns_the_next_day() -> None:
    state = new_state(1, 4, days=2)
    card = cid("train-2")
    schedule_by_hand(state, card, 0)  # due at Stage 1
    finish_stage(state)
    assert any(e.kind == "new-train" and "No. 2" in event_text(e, state) for e in state.events)
    # run the day out: No. 2 completes its run at the East DP
    while state.day == 0:
        finish_stage(state)
    assert all(t.train != card for t in state.trays)
    state.events.clear()
    finish_stage(state)  # Stage 1 of day 2: built again
    assert any(e.kind == "new-train" and "No. 2" in event_text(e, state) for e in state.events)


# ----------------------------------------------------------------------------- D-mainline.1: card lengths


@pytest.mark.parametrize("regions", [1, 2])
def test_d_mainline_1_a_card_of_k_regions_takes_k_mainline_phases(regions: int) -> None:
    """D-mainline.1: a train put on the Start region of a k-region card (k = 1 or 2) arrives
    at the next office in the k-th Mainline Phase after."""
    state = new_state(3, 4)
    set_mainline_regions(state, 1, regions)
    tray = put_train_on_line(state, 1, 0, "train-2")
    for region in range(1, regions):
        pass_local_ops(state)
        assert (tray.line, tray.region) == (1, region)
    pass_local_ops(state)
    assert (tray.office, tray.line) == (1, EMPTY)


@pytest.mark.parametrize("lengths", [(1, 1, 1), (2, 1, 2), (2, 2, 2)])
def test_d_mainline_1_trip_time_from_division_point_to_division_point(lengths: tuple[int, ...]) -> None:
    """D-mainline.1 / R8.2.2 / D-run.1: an unhindered train takes one Mainline Phase per region
    and one per office stop, plus its departure from the Division Point: sum + n + 1."""
    state = new_state(2, 1)
    for line, regions in enumerate(lengths):
        set_mainline_regions(state, line, regions)
    tray = put_train_at_dp(state, "train-2")
    index = state.trays.index(tray)
    phases = 0
    while tray.train != EMPTY:
        pass_local_ops(state)
        phases += 1
        assert phases <= 10
    assert phases == sum(lengths) + state.n + 1
    assert [e.fields["tray"] for e in state.events if e.kind == "run-complete"] == [index]


# ----------------------------------------------------------------------------- R2.1.11: A/D tracks


@pytest.mark.parametrize(("standing", "enters"), [(1, True), (2, False)])
def test_r2_1_11_a_depot_has_two_a_d_tracks(standing: int, enters: bool) -> None:
    """R2.1.11: a Depot takes two trains on its Office card: with one there an arrival takes
    the second track; with two it strikes one of them (R8.2.3, the office's seat pays)."""
    state = new_state(3, 4)
    set_mainline_regions(state, 1, 1)
    upgrade(state, 1)
    for train_id in ("train-6", "train-8")[:standing]:
        holding = put_train_at_office(state, 1, train_id)
        set_consist(state, holding, (COACH_L, ENGINE, COACH_L))  # R8.1.2: it stays
    tray = put_train_on_line(state, 1, 0, "train-2")
    run_stage(state)
    if enters:
        assert (tray.office, tray.cell) == (1, OFFICE_CELL)
        assert sum(t.office == 1 and t.cell == OFFICE_CELL for t in state.trays) == 2
        assert state.revenue() == (0, 0, 0)
    else:
        assert tray.train == EMPTY
        assert [e.fields["cause"] for e in state.events if e.kind == "collision"] == ["full-office"]
        assert state.revenue()[state.seat_of_office[1]] == -5
    assert_invariants(state)


# ----------------------------------------------------------------------------- D-mainline.5: §8.1's list


def test_d_mainline_5_a_full_control_point_ahead_does_not_hold_the_departure() -> None:
    """D-mainline.5: §8.1's five conditions are the whole list. The Depot ahead already holds
    an eastbound train and the Subdivision between is empty: No. 2 highballs, with no hold
    and no clearance asked."""
    state = new_state(3, 4)
    upgrade(state, 1)
    fill_office(state, 1, ("train-6",))
    tray = put_train_at_office(state, 0, "train-2")
    line = start_line(state, tray)
    run_stage(state)
    assert (tray.line, tray.region) == (line, 0)
    assert not any(e.kind == "hold" and e.fields["tray"] == state.trays.index(tray) for e in state.events)
    assert not any(e.kind == "clearance" for e in state.events)
    assert_invariants(state)


def test_d_mainline_5_the_superintendent_decides_on_a_follower_bound_for_a_full_control_point() -> None:
    """D-mainline.5 / R8.1.4: No. 4 ahead is bound for the Depot at office 2, which already
    holds an eastbound train. The dispatcher does not hold No. 2 for it: the Superintendent
    is asked whether it is safe to follow."""
    state = new_state(4, 4)
    upgrade(state, 2)
    fill_office(state, 2, ("train-6",))
    set_mainline_regions(state, 2, 2)
    put_train_on_line(state, 2, 0, "train-4")
    tray = put_train_at_office(state, 0, "train-2")
    pass_local_ops(state)
    assert phase(state) is Phase.CLEARANCE and state.current_player() == state.fedora
    assert state.mainline_queue[0] == state.trays.index(tray)
    assert not any(e.kind == "hold" and e.fields["tray"] == state.trays.index(tray) for e in state.events)
    assert_invariants(state)


# ----------------------------------------------------------------------------- V-signals.1: room ahead
# With ``home_signals`` (edition 2's D-mainline.5 and R8.2.3, a variant beyond the seeds) the
# dispatcher keeps an A/D track at the next Control Point for each train he sends.


def fill_office(state: GameState, office: int, train_ids: tuple[str, ...]) -> list[Tray]:
    """Trains on ``office``'s Office card that may not leave (made up out of order, R8.1.2)."""
    out = []
    for train_id in train_ids:
        holding = put_train_at_office(state, office, train_id)
        out.append(set_consist(state, holding, (COACH_L, ENGINE, COACH_L)))
    return out


def run_stage(state: GameState) -> None:
    """Through this Stage's Mainline Phase to the next Stage: Local Operations passed, then any
    Cargo turn (a Depot's seat has one) ended at once."""
    pass_local_ops(state)
    while phase(state) is Phase.CARGO:
        state.apply(EndCargo(state.current_player()))


def signal_holds(state: GameState) -> list[int]:
    """The trays held by V-signals.1 (edition 2's D-mainline.5) in the events."""
    return [
        int(e.fields["tray"]) for e in state.events if e.kind == "hold" and e.fields["rule"] == "V-signals.1"
    ]


@pytest.mark.parametrize("origin", ["office", "division point"])
def test_v_signals_1_a_full_control_point_ahead_holds_the_departure(origin: str) -> None:
    """V-signals.1: the Depot ahead (two A/D tracks) already holds an eastbound train, and
    its other track is kept for a train from the other side: No. 2, at office 0 or at the
    West Division Point, holds with no collision and no clearance asked; once No. 6 has left
    it departs."""
    state = new_state(3, 4, home_signals=True)
    upgrade(state, 0 if origin == "division point" else 1)
    target = 0 if origin == "division point" else 1
    (six,) = fill_office(state, target, ("train-6",))
    tray = (
        put_train_at_dp(state, "train-2")
        if origin == "division point"
        else put_train_at_office(state, 0, "train-2")
    )
    index = state.trays.index(tray)
    assert no_room_ahead(state, index) == target
    run_stage(state)
    assert signal_holds(state) == [index]
    assert tray.line == EMPTY and (tray.at_dp if origin == "division point" else tray.office == 0)
    assert phase(state) is not Phase.CLEARANCE and state.revenue() == (0, 0, 0)
    assert not any(e.kind in ("collision", "clearance") for e in state.events)
    (event,) = [e for e in state.events if e.kind == "hold" and e.fields["rule"] == "V-signals.1"]
    assert f"no A/D track left at the next Control Point, office {target}" in event_text(event, state)
    line = start_line(state, tray)
    set_consist(state, six, (ENGINE, COACH_L))  # No. 6 may leave now
    assert no_room_ahead(state, index) == target  # but it still stands there
    state.events.clear()
    run_stage(state)  # No. 2 acts first and still holds; No. 6 leaves
    assert signal_holds(state) == [index]
    assert no_room_ahead(state, index) == EMPTY
    state.events.clear()
    run_stage(state)
    assert (tray.line, tray.region) == (line, 0)
    assert signal_holds(state) == []
    assert_invariants(state)


@pytest.mark.parametrize("side", ["west", "whistle post"])
def test_v_signals_1_dispatched_trains_bound_for_the_control_point_count(side: str) -> None:
    """V-signals.1: the Depot at office 2 is empty, but an eastbound train already sent
    toward it takes the one track eastbound trains may have there - No. 4 ahead of No. 2 on a
    Mainline card, or No. 4 on the Running Track of the Whistle Post at office 1. No. 2 at
    office 0 holds before any clearance is asked."""
    state = new_state(4, 4, home_signals=True)
    upgrade(state, 2)
    tray = put_train_at_office(state, 0, "train-2")
    if side == "west":
        set_mainline_regions(state, 2, 2)
        bound = put_train_on_line(state, 2, 0, "train-4")
    else:
        bound = put_train_at_office(state, 1, "train-4")
    index = state.trays.index(tray)
    assert bound_for(state, bound) == 2
    assert no_room_ahead(state, index) == 2
    run_stage(state)
    assert signal_holds(state)[0] == index
    assert tray.office == 0
    assert not any(e.kind == "clearance" for e in state.events)
    assert_invariants(state)


def test_v_signals_1_the_last_track_is_kept_for_the_other_side() -> None:
    """V-signals.1: a westbound train on the Depot's Office card and another bound for it
    from the east take the westbound share; eastbound No. 2 still finds its track and
    departs, and a second westbound train sent toward the Depot would not."""
    state = new_state(4, 4, home_signals=True)
    upgrade(state, 2)
    fill_office(state, 2, ("train-5",))
    set_mainline_regions(state, 3, 2)
    put_train_on_line(state, 3, 1, "train-3")  # westbound, bound for office 2 from the east
    tray = put_train_at_office(state, 0, "train-2")
    assert no_room_ahead(state, state.trays.index(tray)) == EMPTY
    late = put_train_at_office(state, 3, "train-7")  # westbound at a Whistle Post, toward office 2
    assert no_room_ahead(state, state.trays.index(late)) == 2
    run_stage(state)
    assert (tray.line, tray.region) == (1, 0)
    assert_invariants(state)


def test_v_signals_1_departs_while_a_track_is_left() -> None:
    """V-signals.1: a westbound train on the Depot's Office card and trains elsewhere that are
    not bound for it (eastbound beyond it, westbound on the far side of the next Control
    Point): eastbound No. 2 departs."""
    state = new_state(4, 4, home_signals=True)
    upgrade(state, 1)
    upgrade(state, 2)
    fill_office(state, 1, ("train-9",))
    tray = put_train_at_office(state, 0, "train-2")
    beyond = put_train_on_line(state, 2, 0, "train-10")  # eastbound, past office 1
    far = put_train_on_line(state, 4, 0, "train-5")  # westbound, bound for office 2
    assert bound_for(state, beyond) == bound_for(state, far) == 2
    assert no_room_ahead(state, state.trays.index(tray)) == EMPTY
    run_stage(state)
    assert (tray.line, tray.region) == (1, 0)
    assert signal_holds(state) == []
    assert_invariants(state)


def test_v_signals_1_a_division_point_never_fills() -> None:
    """V-signals.1 / D-mainline.3: no Control Point office ahead means the far Division
    Point, which holds any number of trains: a train never holds for it (a following train
    ahead only asks the Superintendent, R8.1.4)."""
    state = new_state(2, 4, home_signals=True)
    set_mainline_regions(state, 2, 2)
    put_train_on_line(state, 2, 0, "train-4")
    put_train_on_line(state, 2, 1, "train-6")
    tray = put_train_at_office(state, 1, "train-2")
    index = state.trays.index(tray)
    assert first_control_point(state, 2, 1) == EMPTY
    assert no_room_ahead(state, index) == EMPTY
    run_stage(state)
    assert signal_holds(state) == []
    assert phase(state) is Phase.CLEARANCE and state.mainline_queue[0] == index


def test_v_signals_1_opposing_trains_meet_at_a_two_track_depot() -> None:
    """V-signals.1 / R2.1.11: No. 2 from the West and No. 1 from the East Division Point both
    run for the Depot at office 1 (two A/D tracks, one claimed by each): they meet there and
    both go on to complete their runs, with no collision and no deadlock."""
    state = new_state(3, 4, home_signals=True)
    upgrade(state, 1)
    east = put_train_at_dp(state, "train-2")
    west = put_train_at_dp(state, "train-1")
    indices = {state.trays.index(east), state.trays.index(west)}
    met = False
    for _stage in range(12):
        run_stage(state)
        met = met or (east.office == west.office == 1)
        if east.train == west.train == EMPTY:
            break
    assert met
    assert {int(e.fields["tray"]) for e in state.events if e.kind == "run-complete"} == indices
    assert not any(e.kind == "collision" for e in state.events)
    assert state.revenue() == (0, 0, 0)
    assert_invariants(state)


def _play_stages(state: GameState, stages: int) -> None:
    """Pass, end every Cargo turn and take the first choice otherwise, for ``stages`` Stages."""
    end = state.day * STAGES_PER_DAY + state.stage + stages
    while state.day * STAGES_PER_DAY + state.stage < end and not state.is_terminal():
        seat = state.current_player()
        if phase(state) is Phase.LOCAL_OPS:
            state.apply(Pass(seat))
        elif phase(state) is Phase.CARGO:
            state.apply(EndCargo(seat))
        else:
            state.apply(state.legal_intents()[0])


def test_v_signals_1_two_depots_facing_each_other_never_fill_one_way() -> None:
    """V-signals.1: neighbouring Depots at offices 1 and 2 each hold a train that cannot
    leave yet (No. 2 eastbound, No. 1 westbound, out of order), and No. 4 (eastbound) and
    No. 3 (westbound) wait at the Division Points. Neither is sent, since its direction
    already has its track at the Depot ahead; so when the first two can leave, all four run
    on. (Counting both directions together sent them, filled each Depot with two trains
    bound for the other, and none of the four moved again.)"""
    state = new_state(4, 4, days=3, home_signals=True)
    for line in range(5):
        set_mainline_regions(state, line, 2)
    upgrade(state, 1)
    upgrade(state, 2)
    (east,) = fill_office(state, 1, ("train-2",))
    (west,) = fill_office(state, 2, ("train-1",))
    later_east, later_west = put_train_at_dp(state, "train-4"), put_train_at_dp(state, "train-3")
    _play_stages(state, 6)
    assert later_east.at_dp and later_west.at_dp
    assert sum(1 for t in state.trays if t.office in (1, 2) and t.cell == OFFICE_CELL) == 2
    cards = {tray.train for tray in (east, west, later_east, later_west)}
    set_consist(state, east, (ENGINE,))
    set_consist(state, west, (ENGINE,))
    state.events.clear()
    _play_stages(state, 2 * STAGES_PER_DAY)
    completed = {e.fields["train"] for e in state.events if e.kind == "run-complete"}
    assert cards <= completed
    assert state.revenue() == (0, 0, 0, 0)
    assert_invariants(state)

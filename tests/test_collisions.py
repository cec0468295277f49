"""Collisions (R10, R8.2.3, R8.2.4, D-mainline.3, D-collision) and the RED FLAG (D-redflag.1):
what is struck, what leaves play, and who loses the 5 Revenue."""

from __future__ import annotations

import pytest
from conftest import (
    CAT,
    EMPTY,
    ENGINE,
    OFFICE_CELL,
    assert_invariants,
    cid,
    expect_illegal,
    finish_stage,
    give_red_flag,
    mainline_regions,
    move_card,
    new_state,
    pass_local_ops,
    put_train_at_office,
    put_train_on_line,
    put_tray_in_station,
    schedule_by_hand,
    set_consist,
    set_mainline_regions,
    set_office,
    stand_cars,
)

from sm_env.core import grid
from sm_env.core.cars import BOXCAR, CABOOSE_CODE, COACH, car_code
from sm_env.core.intents import Clearance, Pass, RedFlag
from sm_env.core.phases import Phase
from sm_env.core.pieces import Tray
from sm_env.core.state import GameState
from sm_env.core.text import event_text

COACH_L = car_code(COACH, True)
BOXCAR_E = car_code(BOXCAR, False)
PENALTY = 5  # R10.1, R10.2


def arriving(state: GameState, office: int, train_id: str, direction: int = 1) -> Tray:
    """A train on the last region before ``office`` in its direction: it arrives this phase.
    ``direction`` is for an Extra; a timetabled train runs its card's way."""
    spec = CAT.card(train_id).train
    assert spec is not None
    if not spec.extra:
        direction = 1 if spec.direction == "east" else -1
    line = office if direction > 0 else office + 1
    region = mainline_regions(state, line) - 1 if direction > 0 else 0
    return put_train_on_line(state, line, region, train_id, direction)


def charged(state: GameState, before: tuple[int, ...]) -> dict[int, int]:
    """Revenue changes by seat since ``before``."""
    return {s: r - b for s, (r, b) in enumerate(zip(state.revenue(), before, strict=True)) if r != b}


def revenue_rules(state: GameState) -> list[str]:
    return [event_text(e, state).rsplit("[", 1)[1].split(":")[0] for e in state.events if e.kind == "revenue"]


# ----------------------------------------------------------------------------- arrivals (R8.2.3)


@pytest.mark.parametrize(("train_id", "limits"), [("train-2", (0, -1)), ("train-1", (0, 1))])
def test_r8_2_3_cars_inside_the_limits_wreck_an_arriving_train(
    train_id: str, limits: tuple[int, int]
) -> None:
    state = new_state(3, 4)
    tray = arriving(state, 1, train_id)
    stand_cars(state, 1, limits, [COACH_L, CABOOSE_CODE])
    assert_invariants(state)
    classification, division, before = state.classification[:], state.division[:], state.revenue()
    pass_local_ops(state)
    assert tray.train == EMPTY  # D-collision.2: the train is removed, its tray freed
    assert limits not in state.stations[1].cars  # and so are the cars it struck
    assert state.classification[COACH_L] == classification[COACH_L] + 1
    assert state.division[CABOOSE_CODE] == division[CABOOSE_CODE] + 1  # C-yards.3
    assert charged(state, before) == {state.seat_of_office[1]: -PENALTY}  # R10.2
    assert revenue_rules(state) == ["R8.2.3"]
    assert_invariants(state)


def test_r8_2_3_cars_behind_the_office_do_not_matter() -> None:
    state = new_state(3, 4)
    tray = arriving(state, 1, "train-2")  # eastbound: enters by the west Limits
    stand_cars(state, 1, (0, 1), [COACH_L])
    assert_invariants(state)
    before = state.revenue()
    pass_local_ops(state)
    assert tray.office == 1 and state.revenue() == before


def test_r8_2_3_a_train_on_the_running_track_is_struck() -> None:
    state = new_state(3, 4)
    standing = put_tray_in_station(state, state.seat_of_office[1], (0, -1), train_id="train-6")
    tray = arriving(state, 1, "train-2")
    before = state.revenue()
    pass_local_ops(state)
    assert tray.train == EMPTY and standing.train == EMPTY
    assert charged(state, before) == {state.seat_of_office[1]: -PENALTY}
    assert cid("train-6") in state.timetable and cid("train-2") in state.timetable  # R10.3
    assert_invariants(state)


def hold_rules(state: GameState) -> list[str]:
    """The rule of every ``hold`` event, in order."""
    return [str(e.fields["rule"]) for e in state.events if e.kind == "hold"]


def test_r8_2_3_d_collision_1_a_train_arriving_at_a_full_office_strikes_the_train_there() -> None:
    """A Whistle Post has one A/D track: the arrival runs off its card into the Office (§8.2:
    it must move every turn, then moves at once to the Office) and, finding the track held,
    strikes the train there (cause ``full-office``); both leave play and the office's seat,
    whose Limits it is, loses 5 (R10.2)."""
    state = new_state(3, 4)
    set_mainline_regions(state, 1, 2)
    holding = put_train_at_office(state, 1, "train-4")
    set_consist(state, holding, (COACH_L, ENGINE, COACH_L))  # two engines' ends: R8.1.2 holds it
    tray = arriving(state, 1, "train-2")
    mover, struck = state.trays.index(tray), state.trays.index(holding)
    before = state.revenue()
    pass_local_ops(state)
    assert tray.train == EMPTY and holding.train == EMPTY
    assert charged(state, before) == {state.seat_of_office[1]: -PENALTY}
    collisions = [e for e in state.events if e.kind == "collision"]
    assert [(e.seat, e.fields["cause"], e.fields["rule"], e.fields["office"]) for e in collisions] == [
        (state.seat_of_office[1], "full-office", "R8.2.3", 1)
    ]
    assert (collisions[0].fields["tray"], collisions[0].fields["struck"]) == (mover, struck)
    assert "R8.2.3" not in hold_rules(state)
    assert_invariants(state)


def test_r8_2_3_d_collision_2_at_a_full_station_the_senior_train_is_struck() -> None:
    """Both A/D tracks of a Station taken (the trains there hold for the opposing train in
    their Subdivision, R8.1.3): the arrival strikes the senior of them, No. 6; No. 10 stays
    in play, and with the opposing train gone it highballs in the same Mainline Phase."""
    state = new_state(3, 4)
    set_office(state, state.seat_of_office[1], "station")  # two A/D tracks
    senior = put_train_at_office(state, 1, "train-6")
    junior = put_train_at_office(state, 1, "train-10")
    tray = arriving(state, 1, "train-1")  # No. 1 acts first: nothing has left the office yet
    before = state.revenue()
    pass_local_ops(state)
    assert tray.train == EMPTY and senior.train == EMPTY
    assert junior.train == cid("train-10") and junior.line != EMPTY
    assert charged(state, before) == {state.seat_of_office[1]: -PENALTY}
    assert_invariants(state)


def test_d_redflag_1_a_red_flag_stops_a_train_short_of_a_full_office() -> None:
    """The office's seat holding a RED FLAG may avert the meet: the arrival stays on the last
    region of its card this Stage, the train on the A/D track stays, nobody pays."""
    state = new_state(3, 4)
    set_mainline_regions(state, 1, 2)
    seat = state.seat_of_office[1]
    give_red_flag(state, seat)
    holding = put_train_at_office(state, 1, "train-4")
    set_consist(state, holding, (COACH_L, ENGINE, COACH_L))
    tray = arriving(state, 1, "train-2")
    where = (tray.line, tray.region)
    before = state.revenue()
    pass_local_ops(state)
    assert state.phase is Phase.RED_FLAG and state.current_player() == seat
    state.apply(RedFlag(seat, True))
    assert (tray.line, tray.region) == where and holding.office == 1
    assert state.revenue() == before
    assert_invariants(state)


def test_v_signals_1_a_full_office_holds_the_arrival_at_the_limits() -> None:
    """With ``home_signals`` (edition 2's rule, a variant beyond the seeds) the arrival does not
    strike the train holding at a Whistle Post: it waits at the Limits on the last region of
    its card, logs a hold, costs nobody anything, and enters in the first later Mainline Phase
    that finds a track free."""
    state = new_state(3, 4, home_signals=True)
    set_mainline_regions(state, 1, 2)
    holding = put_train_at_office(state, 1, "train-4")
    set_consist(state, holding, (COACH_L, ENGINE, COACH_L))  # two engines' ends: R8.1.2 holds it
    tray = arriving(state, 1, "train-2")
    where = (tray.line, tray.region)
    before = state.revenue()
    for _stage in range(2):  # it waits as long as the track is taken
        pass_local_ops(state)  # through this Stage's Mainline Phase
        assert (tray.line, tray.region) == where and tray.office == EMPTY
        assert holding.office == 1 and holding.train == cid("train-4")
        assert hold_rules(state) == ["V-signals.1", "R8.1.2"]
        assert [e.fields["tray"] for e in state.events if e.kind == "hold"][0] == state.trays.index(tray)
        assert not any(e.kind == "collision" for e in state.events)
        assert state.revenue() == before
        assert_invariants(state)
        state.events.clear()
    set_consist(state, holding, (ENGINE, COACH_L))  # made up again: No. 4 may leave
    pass_local_ops(state)
    assert holding.line == 2  # No. 2 acted first and still waited; No. 4 then left
    assert (tray.line, tray.region) == where and hold_rules(state) == ["V-signals.1"]
    state.events.clear()
    pass_local_ops(state)
    assert tray.office == 1 and tray.cell == OFFICE_CELL and tray.line == EMPTY
    assert [e.fields["tray"] for e in state.events if e.kind == "arrive"][0] == state.trays.index(tray)
    assert state.revenue() == before
    assert_invariants(state)


def test_v_signals_1_at_a_full_station_nobody_is_struck() -> None:
    """With ``home_signals``, both A/D tracks of a Station taken: the arrival waits at the
    Limits; the trains there stay and all three are still in play, with no penalty."""
    state = new_state(3, 4, home_signals=True)
    set_office(state, state.seat_of_office[1], "station")  # two A/D tracks
    senior = put_train_at_office(state, 1, "train-6")
    junior = put_train_at_office(state, 1, "train-10")
    tray = arriving(state, 1, "train-1")
    where = (tray.line, tray.region)
    before = state.revenue()
    pass_local_ops(state)
    assert (tray.line, tray.region) == where
    assert (senior.train, junior.train) == (cid("train-6"), cid("train-10"))
    assert senior.office == junior.office == 1
    assert hold_rules(state) == ["V-signals.1", "R8.1.3", "R8.1.3"]
    assert state.revenue() == before
    assert_invariants(state)


def test_r8_2_3_cars_inside_the_limits_still_wreck_a_train_arriving_at_a_full_office() -> None:
    """The Running Track is checked before the A/D tracks: cars there are struck even when
    the Office is full (the arrival does not wait at the Limits)."""
    state = new_state(3, 4)
    set_mainline_regions(state, 1, 2)
    holding = put_train_at_office(state, 1, "train-4")
    set_consist(state, holding, (COACH_L, ENGINE, COACH_L))
    tray = arriving(state, 1, "train-2")
    stand_cars(state, 1, (0, -1), [BOXCAR_E])
    before = state.revenue()
    pass_local_ops(state)
    assert tray.train == EMPTY and holding.train == cid("train-4")
    assert charged(state, before) == {state.seat_of_office[1]: -PENALTY}
    collisions = [e for e in state.events if e.kind == "collision"]
    assert [(e.fields["cause"], e.fields["rule"], e.fields["office"]) for e in collisions] == [
        ("arrival-track", "R8.2.3", 1)
    ]
    assert_invariants(state)


def test_v_signals_1_r10_1_a_following_train_runs_into_a_train_waiting_at_the_limits() -> None:
    """With ``home_signals``, No. 2 waits at the Limits of a full Whistle Post on the last
    region of its card; No. 4, following on the region behind it, moves into it: a Mainline
    collision (R10.1) charged to the Superintendent who cleared No. 4, not to the office's seat."""
    state = new_state(3, 4, home_signals=True)
    set_mainline_regions(state, 1, 2)
    holding = put_train_at_office(state, 1, "train-6")
    set_consist(state, holding, (COACH_L, ENGINE, COACH_L))  # it may not leave (R8.1.2)
    waiting = arriving(state, 1, "train-2")
    cleared_by = (state.fedora + 1) % 3
    follower = put_train_on_line(state, 1, 0, "train-4", cleared_by=cleared_by)
    before = state.revenue()
    pass_local_ops(state)
    assert waiting.train == EMPTY and follower.train == EMPTY
    assert holding.train == cid("train-6")
    assert charged(state, before) == {cleared_by: -PENALTY}
    assert revenue_rules(state) == ["R10.1"]
    collisions = [e for e in state.events if e.kind == "collision"]
    assert [(e.seat, e.fields["cause"], e.fields["rule"]) for e in collisions] == [
        (cleared_by, "mainline", "R10.1")
    ]
    assert hold_rules(state)[0] == "V-signals.1"
    assert_invariants(state)


def test_r2_1_11_a_meet_at_a_station_with_two_a_d_tracks() -> None:
    """No. 2 holds at a Station while opposing No. 1 is on the Mainline card ahead (R8.1.3);
    No. 1 arrives on the second A/D track; both go their ways with no collision."""
    state = new_state(3, 4)
    set_mainline_regions(state, 1, 2)
    set_office(state, state.seat_of_office[0], "station")
    east = put_train_at_office(state, 0, "train-2")
    west = put_train_on_line(state, 1, mainline_regions(state, 1) - 1, "train-1")
    before = state.revenue()
    pass_local_ops(state)
    assert east.office == 0 and west.line == 1
    assert any("R8.1.3" in event_text(e, state) for e in state.events if e.kind == "hold")
    while west.office != 0:
        assert east.office == 0
        pass_local_ops(state)
    assert east.line == 1  # No. 1 is in, so No. 2 highballs in the same phase
    pass_local_ops(state)
    assert west.line == 0
    assert state.revenue() == before
    assert_invariants(state)


# ----------------------------------------------------------------------------- departures (R8.2.4)


def test_r8_2_4_cars_between_the_office_and_the_limits_wreck_a_departing_train() -> None:
    state = new_state(3, 4)
    tray = put_train_at_office(state, 1, "train-2")
    stand_cars(state, 1, (0, 1), [BOXCAR_E, BOXCAR_E])
    stand_cars(state, 1, (0, -1), [COACH_L])  # behind it: no matter
    assert_invariants(state)
    before = state.revenue()
    pass_local_ops(state)
    assert tray.train == EMPTY and (0, 1) not in state.stations[1].cars
    assert state.stations[1].cars[(0, -1)] == (COACH_L,)
    assert charged(state, before) == {state.seat_of_office[1]: -PENALTY}
    assert revenue_rules(state) == ["R8.2.4"]
    assert_invariants(state)


def test_d_collision_2_only_the_group_met_first_is_struck() -> None:
    """A train standing on the Limits with cars east of it: an eastbound departure meets the
    train itself; with cars west of it, it meets those cars and the standing train stays."""
    for split, struck_train in ((0, True), (1, False)):
        state = new_state(3, 4)
        move_card(state, cid("straight"))
        grid.place(state, cid("straight"), (0, 1), False, 1)  # the Limits move out (D-grid.7)
        standing = put_tray_in_station(state, state.seat_of_office[1], (0, 1), train_id="train-8")
        stand_cars(state, 1, (0, 1), [COACH_L])
        set_consist(state, standing, (ENGINE,), split=split)
        tray = put_train_at_office(state, 1, "train-2")
        assert_invariants(state)
        pass_local_ops(state)
        assert tray.train == EMPTY
        assert (standing.train == EMPTY) is struck_train
        assert ((0, 1) in state.stations[1].cars) is struck_train
        assert_invariants(state)


# ----------------------------------------------------------------------------- Mainline (R10.1)


def test_r10_1_opposing_trains_meeting_on_a_mainline_card() -> None:
    """The Superintendent who cleared the moving train pays, even after the Fedora moved."""
    state = new_state(3, 4)
    set_mainline_regions(state, 1, 2)
    cleared_by = (state.fedora + 1) % 3
    # No. 2 moves first, into No. 3's region
    east = put_train_on_line(state, 1, 0, "train-2", cleared_by=cleared_by)
    west = put_train_on_line(state, 1, 1, "train-3")
    assert_invariants(state)
    before = state.revenue()
    pass_local_ops(state)
    assert east.train == EMPTY and west.train == EMPTY
    assert charged(state, before) == {cleared_by: -PENALTY}
    assert revenue_rules(state) == ["R10.1"]
    assert_invariants(state)


@pytest.mark.parametrize("clear", [True, False])
def test_r10_1_clearing_a_follower_onto_an_occupied_start_region(clear: bool) -> None:
    state = new_state(3, 4)
    set_mainline_regions(state, 1, 2)
    leader = put_train_on_line(state, 1, 0, "train-8")  # junior: it has not moved yet
    follower = put_train_at_office(state, 0, "train-2")
    before = state.revenue()
    pass_local_ops(state)
    assert state.phase is Phase.CLEARANCE
    superintendent = state.fedora
    state.apply(Clearance(superintendent, clear))
    if clear:
        assert follower.train == EMPTY and leader.train == EMPTY
        assert charged(state, before) == {superintendent: -PENALTY}
    else:
        assert follower.office == 0 and leader.region == 1
        assert state.revenue() == before
    assert_invariants(state)


def test_d_mainline_3_a_division_point_holds_any_number_of_trains() -> None:
    state = new_state(1, 4)
    first = put_train_on_line(state, 1, mainline_regions(state, 1) - 1, "train-2")
    pass_local_ops(state)
    assert first.train == EMPTY  # completed at the East DP, no collision there
    assert state.revenue() == (0,)


# ----------------------------------------------------------------------------- removal (D-collision.2)


def test_d_collision_2_what_leaves_play() -> None:
    state = new_state(3, 4)
    extra = set_consist(state, arriving(state, 1, "extra-9", direction=1), (CABOOSE_CODE, BOXCAR_E, ENGINE))
    holding = put_tray_in_station(state, state.seat_of_office[1], (0, -1), train_id="train-10")
    set_consist(state, holding, (COACH_L, ENGINE))  # on the Running Track X9 enters by
    assert_invariants(state)
    classification, division = state.classification[:], state.division[:]
    pass_local_ops(state)
    assert extra.train == EMPTY and holding.train == EMPTY
    assert state.salvage[-1] == cid("extra-9")  # the Extra's card to the Salvage Yard
    assert cid("train-10") in state.timetable  # the timetabled card stays on the chart (R10.3)
    assert state.division[CABOOSE_CODE] == division[CABOOSE_CODE] + 1
    assert state.classification[BOXCAR_E] == classification[BOXCAR_E] + 1
    assert state.classification[COACH_L] == classification[COACH_L] + 1
    assert_invariants(state)


def test_r10_3_a_wrecked_timetabled_train_runs_again_the_next_day() -> None:
    state = new_state(1, 4, days=2)
    schedule_by_hand(state, cid("train-2"), 0)
    stand_cars(state, 0, (0, -1), [COACH_L])  # a trap inside the Limits
    assert_invariants(state)
    while state.day == 0:
        finish_stage(state)
    assert any("COLLISION" in event_text(e, state) for e in state.events)
    assert all(t.train != cid("train-2") for t in state.trays)
    state.events.clear()
    finish_stage(state)
    assert any(e.kind == "new-train" and "No. 2" in event_text(e, state) for e in state.events)


# ----------------------------------------------------------------------------- RED FLAG


def test_d_redflag_1_the_seat_to_pay_is_asked() -> None:
    state = new_state(3, 4)
    seat = state.seat_of_office[1]
    give_red_flag(state, seat)
    arriving(state, 1, "train-2")
    stand_cars(state, 1, (0, -1), [COACH_L])
    assert_invariants(state)
    pass_local_ops(state)
    assert state.phase is Phase.RED_FLAG and state.current_player() == seat
    assert state.legal_intents() == [RedFlag(seat, True), RedFlag(seat, False)]
    expect_illegal(state, Pass(seat), "R5.0.1")
    expect_illegal(state, RedFlag((seat + 1) % 3, True), "R5.0.1")


def test_d_redflag_1_playing_it_stops_the_train_short() -> None:
    state = new_state(3, 4)
    seat = state.seat_of_office[1]
    give_red_flag(state, seat)
    tray = arriving(state, 1, "train-2")
    where = (tray.line, tray.region)
    stand_cars(state, 1, (0, -1), [COACH_L])
    assert_invariants(state)
    before = state.revenue()
    pass_local_ops(state)
    state.apply(RedFlag(seat, True))
    assert (tray.line, tray.region) == where  # it did not make the move
    assert state.stations[1].cars[(0, -1)] == (COACH_L,)
    assert state.revenue() == before
    assert cid("red-flag") not in state.hands[seat] and state.salvage[-1] == cid("red-flag")
    assert state.phase is Phase.LOCAL_OPS
    assert_invariants(state)


def test_d_redflag_1_declining_it_lets_the_collision_happen() -> None:
    state = new_state(3, 4)
    seat = state.seat_of_office[1]
    give_red_flag(state, seat)
    tray = arriving(state, 1, "train-2")
    stand_cars(state, 1, (0, -1), [COACH_L])
    assert_invariants(state)
    before = state.revenue()
    pass_local_ops(state)
    state.apply(RedFlag(seat, False))
    assert tray.train == EMPTY
    assert charged(state, before) == {seat: -PENALTY}
    assert cid("red-flag") in state.hands[seat]
    assert_invariants(state)


def test_d_redflag_1_the_superintendent_may_flag_a_mainline_collision() -> None:
    state = new_state(3, 4)
    set_mainline_regions(state, 1, 2)
    east = put_train_on_line(state, 1, 0, "train-2")
    west = put_train_on_line(state, 1, 1, "train-3")
    give_red_flag(state, east.cleared_by)
    pass_local_ops(state)
    assert state.phase is Phase.RED_FLAG and state.current_player() == east.cleared_by
    state.apply(RedFlag(east.cleared_by, True))
    assert (east.region, west.region) == (0, 1)  # both trains stop for this Stage
    assert state.revenue() == (0, 0, 0)


def test_d_redflag_1_no_flag_in_hand_no_question() -> None:
    state = new_state(3, 4)
    arriving(state, 1, "train-2")
    stand_cars(state, 1, (0, -1), [COACH_L])
    assert_invariants(state)
    pass_local_ops(state)
    assert state.phase is Phase.LOCAL_OPS  # the collision was resolved at once

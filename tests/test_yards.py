"""The two yards (C-yards): the Division Yard is the only supply (C-yards.1), refills from the
Classification Yard when emptied (C-yards.2), and used cars go back by type (C-yards.3)."""

from __future__ import annotations

from conftest import (
    EMPTY,
    assert_invariants,
    expect_illegal,
    finish_stage,
    move_division_to_classification,
    new_state,
    pass_to_stage,
    place_facility,
    set_office,
)

from sm_env.core.cars import BOXCAR, CABOOSE, COACH, N_CAR_CODES, car_code
from sm_env.core.config import HouseRules
from sm_env.core.intents import Area, ClearInbound, StockOutbound, Unjam
from sm_env.core.state import GameState
from sm_env.core.text import event_text

LOADED_COACH = car_code(COACH, True)
EMPTY_COACH = car_code(COACH, False)
LOADED_BOXCAR = car_code(BOXCAR, True)
CABOOSE_CAR = car_code(CABOOSE, True)
OFFICE = (0, 0)


def empty_division_but(state: GameState, code: int, keep: int) -> None:
    for other in range(N_CAR_CODES):
        move_division_to_classification(state, other, keep if other == code else 0)


def test_c_stock_1_division_yard_holds_the_full_supply() -> None:
    """C-stock.1: per code, the Division Yard holds the catalogue's supply at setup."""
    state = new_state(2, 1)
    assert state.division == list(state.catalogue.car_supply())
    assert state.division_total == sum(state.catalogue.car_supply())


def test_c_yards_2_last_division_car_brings_back_the_classification_yard() -> None:
    """C-yards.2: taking the last Division Yard car moves every Classification car back at once."""
    state = new_state(2, 2)
    seat = state.current_player()
    set_office(state, seat, "depot")
    empty_division_but(state, LOADED_COACH, 1)
    assert state.division_total == 1
    waiting = state.classification[:]
    state.apply(StockOutbound(seat, OFFICE, LOADED_COACH))
    assert state.division == waiting
    assert state.classification == [0] * N_CAR_CODES
    assert state.division_total == sum(waiting)
    assert any(e.kind == "yard-refill" for e in state.events)
    assert_invariants(state)


def test_c_yards_2_no_refill_while_cars_remain() -> None:
    """C-yards.2: only an entirely empty Division Yard is refilled."""
    state = new_state(2, 3)
    seat = state.current_player()
    set_office(state, seat, "depot")
    empty_division_but(state, LOADED_COACH, 2)
    waiting = state.classification[:]
    state.apply(StockOutbound(seat, OFFICE, LOADED_COACH))
    assert state.division_total == 1
    assert state.classification == waiting
    assert not any(e.kind == "yard-refill" for e in state.events)
    assert_invariants(state)


def test_c_yards_4_classification_yard_is_not_a_source() -> None:
    """C-yards.4 / C-yards.1: cars waiting in the Classification Yard cannot be stocked."""
    state = new_state(2, 4)
    seat = state.current_player()
    set_office(state, seat, "depot")
    move_division_to_classification(state, LOADED_COACH)
    assert state.classification[LOADED_COACH] > 0
    assert not any(isinstance(i, StockOutbound) for i in state.legal_intents())
    expect_illegal(state, StockOutbound(seat, OFFICE, LOADED_COACH), "C-yards.1")


def test_c_yards_3_cleared_car_goes_to_the_classification_yard() -> None:
    """C-yards.3: a car cleared from a red box goes to the Classification Yard."""
    state = new_state(2, 5)
    seat = state.current_player()
    set_office(state, seat, "depot", inbound=[EMPTY_COACH])
    division = state.division[:]
    state.apply(ClearInbound(seat, OFFICE, EMPTY_COACH))
    assert state.classification[EMPTY_COACH] == 1
    assert state.division == division
    assert_invariants(state)


def test_c_yards_3_unjammed_caboose_goes_to_the_division_yard() -> None:
    """C-yards.3: a caboose leaving play goes straight back to the Division Yard; other cars
    to the Classification Yard."""
    state = new_state(2, 6)
    seat = state.current_player()
    full = [LOADED_BOXCAR] * 3  # the red box is full: the caboose on MEN is jammed (R6.3.3)
    place_facility(
        state, seat, (1, 0), "freight-house", inbound=full, work=[CABOOSE_CAR, LOADED_BOXCAR, EMPTY]
    )
    cabooses = state.division[CABOOSE_CAR]
    total = state.division_total
    state.apply(Unjam(seat, (1, 0), Area.MEN, CABOOSE_CAR))
    assert state.division[CABOOSE_CAR] == cabooses + 1
    assert state.division_total == total + 1
    assert state.classification[CABOOSE_CAR] == 0
    assert_invariants(state)
    seat = state.current_player()
    # no empty boxcar on the industry track for the load on WORK: jammed (R6.3.3)
    place_facility(state, seat, (1, 0), "freight-house", work=[EMPTY, EMPTY, LOADED_BOXCAR])
    state.apply(Unjam(seat, (1, 0), Area.WORK, LOADED_BOXCAR))
    assert state.classification[LOADED_BOXCAR] == 1
    assert_invariants(state)


def test_c_yards_2_refill_then_retire_keeps_every_car() -> None:
    """C-yards.2 / C-yards.3: after a refill, used cars flow back; the total never changes."""
    state = new_state(1, 7)
    set_office(state, 0, "terminal")
    empty_division_but(state, LOADED_COACH, 1)
    state.apply(StockOutbound(0, OFFICE, LOADED_COACH))  # refill
    state.apply(StockOutbound(0, OFFICE, LOADED_COACH))
    state.apply(Unjam(0, OFFICE, Area.OUTBOUND, LOADED_COACH))
    assert state.classification[LOADED_COACH] == 1
    assert_invariants(state)


# --------------------------------------------------------------------------- V-yards.1: overnight_yard


def stock_classification(state: GameState) -> list[int]:
    """Some empty coaches and loaded boxcars in the Classification Yard; returns it."""
    move_division_to_classification(state, EMPTY_COACH, keep=state.division[EMPTY_COACH] - 3)
    move_division_to_classification(state, LOADED_BOXCAR, keep=state.division[LOADED_BOXCAR] - 2)
    return state.classification[:]


def end_day(state: GameState) -> None:
    """Everyone passes to the end of the current day (no train runs: the timetable is empty)."""
    day = state.day
    while state.day == day and not state.is_terminal():
        finish_stage(state)


def test_v_yards_1_off_by_default_nothing_returns_overnight() -> None:
    """V-yards.1 is a variant, off by default: the Classification Yard stays as it is when a
    day ends; cars come back only when the Division Yard runs dry (C-yards.2)."""
    assert HouseRules().overnight_yard is False
    state = new_state(2, 1, days=2)
    classification = stock_classification(state)
    division = state.division[:]
    end_day(state)
    assert state.day == 1
    assert state.classification == classification and state.division == division
    assert not any(e.kind == "yard-refill" for e in state.events)
    assert_invariants(state)


def test_v_yards_1_the_classification_yard_returns_after_stage_12() -> None:
    """V-yards.1 on: after Stage 12 of a day that does not end the game, every Classification
    car goes back to the Division Yard, logged as an overnight refill."""
    state = new_state(2, 1, days=2, overnight_yard=True)
    classification = stock_classification(state)
    division, total = state.division[:], state.division_total
    pass_to_stage(state, 11)
    finish_stage(state)  # Stage 12 ends the day
    assert (state.day, state.stage) == (1, 0)
    assert state.classification == [0] * N_CAR_CODES
    assert state.division == [a + b for a, b in zip(division, classification, strict=True)]
    assert state.division_total == total + 5
    (refill,) = [e for e in state.events if e.kind == "yard-refill"]
    assert refill.fields == {"cars": 5, "overnight": True}
    assert (refill.day, refill.stage) == (1, 0)  # logged as the new day begins
    assert event_text(refill, state) == "overnight, 5 cars return from the Classification Yard (V-yards.1)"
    assert_invariants(state)


def test_v_yards_1_not_after_the_final_day_nor_during_the_day() -> None:
    """V-yards.1 on: nothing returns before Stage 12 ends, and nothing after the last day (the
    game is over); an empty Classification Yard logs nothing."""
    state = new_state(2, 1, days=1, overnight_yard=True)
    classification = stock_classification(state)
    pass_to_stage(state, 11)
    assert state.classification == classification
    end_day(state)
    assert state.is_terminal()
    assert state.classification == classification
    assert not any(e.kind == "yard-refill" for e in state.events)

    quiet = new_state(2, 1, days=2, overnight_yard=True)
    end_day(quiet)
    assert quiet.day == 1 and not any(e.kind == "yard-refill" for e in quiet.events)


def test_v_yards_2_a_freight_agent_stocking_brings_the_classification_yard_back() -> None:
    """V-yards.2 (``yard_on_demand``): the Division Yard holds no loaded coach, the
    Classification Yard does: stocking the Depot's green box is offered, and doing it returns
    every Classification car first. Off by default it is not offered (C-yards.4)."""
    for on in (False, True):
        state = new_state(2, 4, yard_on_demand=on)
        seat = state.current_player()
        set_office(state, seat, "depot")
        move_division_to_classification(state, LOADED_COACH)
        stock = StockOutbound(seat, OFFICE, LOADED_COACH)
        assert (stock in state.legal_intents()) is on
        if not on:
            expect_illegal(state, stock, "C-yards.1")
            continue
        waiting, total = sum(state.classification), state.division_total
        state.apply(stock)
        assert state.classification == [0] * N_CAR_CODES
        assert state.division_total == total + waiting - 1
        assert [e.fields for e in state.events if e.kind == "yard-refill"] == [
            {"cars": waiting, "on_demand": True}
        ]
        assert_invariants(state)

"""Setup (R4): every car and card in exactly one place, hands, Departments, trays, the chain of
offices, the seating and Superintendent roll-offs replayed from a fresh stream (C-rng.3)."""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import (
    CAT,
    HOUSE_RULES,
    assert_invariants,
    car_counts,
    card_counts,
    cid,
    expected_card_counts,
    new_state,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from sm_env.core.catalogue import CardKind, Deck
from sm_env.core.engine import new_game
from sm_env.core.intents import DrawDepartment, DrawHomeOffice, Pass
from sm_env.core.phases import Phase
from sm_env.core.rng import Rng
from sm_env.core.text import event_text

OFFICES = [1, 2, 3, 4, 5, 6]
RULE_SETS: list[dict[str, bool]] = (
    [{}] + [{name: True} for name in HOUSE_RULES] + [{name: True for name in HOUSE_RULES}]
)
RULE_IDS = ["plain"] + list(HOUSE_RULES) + ["all"]
EVEN_TRAINS = {cid(f"train-{k}") for k in range(2, 13, 2)}
RED_FLAG = cid("red-flag")


def replay_setup(n: int, seed: int, sister_trains: bool = False) -> dict[str, object]:
    """Setup recomputed from a fresh Rng(seed) in the documented order (C-rng.3): shuffle the
    Mainline deck and draw n+1; seating rolls; Superintendent rolls (both only if n > 1);
    shuffle the Home Office deck; deal three each from the Superintendent leftward; one card
    to each Department."""
    rng = Rng(seed)
    mainline_deck = CAT.deck(Deck.MAINLINE)
    rng.shuffle(mainline_deck)
    mainline = tuple(mainline_deck.pop() for _ in range(n + 1))
    seating = [rng.d12() for _ in range(n)] if n > 1 else [0]
    superintendent = [rng.d12() for _ in range(n)] if n > 1 else [0]
    east = seating.index(max(seating))
    fedora = superintendent.index(max(superintendent))
    deck = [card for card in CAT.deck(Deck.HOME_OFFICE) if not (sister_trains and card in EVEN_TRAINS)]
    rng.shuffle(deck)
    hands: list[list[int]] = [[] for _ in range(n)]
    for i in range(n):
        hands[(fedora + i) % n] = sorted(deck.pop() for _ in range(3))
    departments = [[deck.pop()] for _ in range(3)]
    return {
        "mainline": mainline,
        "seating": seating,
        "superintendent": superintendent,
        "east": east,
        "fedora": fedora,
        "hands": hands,
        "departments": departments,
        "home_office": deck,
        "rng": rng.state,
    }


@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
@pytest.mark.parametrize("offices", OFFICES)
def test_r4_setup_conserves_cars_and_cards(offices: int, rules: dict[str, bool]) -> None:
    """R4.8 / C-stock.1: the full supply (car_supply, per code) in the Division Yard; every
    card of the catalogue in exactly one place."""
    state = new_state(offices, 17 + offices, **rules)
    assert state.division == list(CAT.car_supply())
    assert car_counts(state) == list(CAT.car_supply())
    assert sum(state.division) == sum(CAT.stock_loaded) + sum(CAT.stock_empty)
    assert state.classification == [0] * len(state.classification)
    assert card_counts(state) == expected_card_counts()
    assert_invariants(state)


@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
@pytest.mark.parametrize("offices", OFFICES)
def test_r4_6_hands_departments_and_home_office(offices: int, rules: dict[str, bool]) -> None:
    """R4.6: three cards each (RB.4: plus a RED FLAG), one card on each of three Departments;
    R4.5: the rest is the Home Office (RB.2: without the even trains)."""
    state = new_state(offices, 100 + offices, **rules)
    toolbox = rules.get("emergency_toolbox", False)
    sisters = rules.get("sister_trains", False)
    for hand in state.hands:
        assert len(hand) == (4 if toolbox else 3)
        assert hand.count(RED_FLAG) == (1 if toolbox else 0)
    assert [len(dept) for dept in state.departments] == [1, 1, 1]
    deck_size = len(CAT.deck(Deck.HOME_OFFICE)) - (len(EVEN_TRAINS) if sisters else 0)
    assert len(state.home_office) == deck_size - 3 * offices - 3
    assert state.salvage == []
    red_flags_aside = Counter(state.set_aside)[RED_FLAG]
    assert red_flags_aside == CAT.card("red-flag").count - (offices if toolbox else 0)


@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
@pytest.mark.parametrize("offices", OFFICES)
def test_r4_1_r4_2_r4_8_table_layout(offices: int, rules: dict[str, bool]) -> None:
    """R4.1 Limits-Whistle Post-Limits at (0,-1),(0,0),(0,1); R4.2 n+1 Mainline cards;
    R4.8 / C-trays.1 n+3 free trays; clock at Stage 1 of day 1; empty timetable."""
    state = new_state(offices, 5, **rules)
    whistle_post, limits = cid("whistle-post"), cid("limits")
    assert len(state.stations) == offices
    for station in state.stations:
        assert station.grid == {
            (0, -1): (limits, False),
            (0, 0): (whistle_post, False),
            (0, 1): (limits, False),
        }
        assert station.boxes == {} and station.cars == {}
    assert len(state.mainline) == offices + 1
    assert all(CAT.cards[card].kind is CardKind.MAINLINE for card in state.mainline)
    aside = Counter(state.set_aside)
    assert aside[whistle_post] == CAT.card("whistle-post").count - offices
    assert aside[limits] == CAT.card("limits").count - 2 * offices
    assert sum(aside[c] for c in CAT.of_kind(CardKind.MAINLINE)) == len(CAT.deck(Deck.MAINLINE)) - offices - 1
    assert aside[cid("division-point-east")] == 1 and aside[cid("division-point-west")] == 1
    assert len(state.trays) == offices + 3
    assert all(tray.office == -1 and tray.consist == () for tray in state.trays)
    assert (state.day, state.stage, state.stages_played, state.turn) == (0, 0, 0, 0)
    assert state.clock() == "Midnight"
    assert state.phase is Phase.LOCAL_OPS
    assert state.current_player() == state.fedora == state.superintendent()
    assert state.timetable == [-1] * 12
    assert state.pending_extras == []
    assert state.revenue() == (0,) * offices
    assert state.moves_left == 0


@pytest.mark.parametrize("offices", OFFICES)
def test_d_seat_1_seat_office_maps_are_inverse_permutations(offices: int) -> None:
    """D-seat.1: office k is held by seat (E+n-1-k) mod n, E holding the easternmost office."""
    for seed in range(10):
        state = new_state(offices, seed)
        assert sorted(state.seat_of_office) == list(range(offices))
        for seat in range(offices):
            assert state.seat_of_office[state.office_of_seat[seat]] == seat
        east = state.seat_of_office[offices - 1]
        assert state.seat_of_office == [(east + offices - 1 - k) % offices for k in range(offices)]


@pytest.mark.parametrize("offices", [2, 3, 4, 5, 6])
def test_d_seat_1_the_seat_to_the_highest_rollers_right_holds_the_westernmost_office(offices: int) -> None:
    """D-seat.1 (R4.3 literally): the highest seating roll E holds the easternmost office and
    the seat to his right (E-1; the seat to the left is E+1, as in R7.4) the westernmost; going
    west along the chain goes leftward round the table, so chain neighbours are table
    neighbours and only the two chain ends meet across E's right-hand side."""
    for seed in range(10):
        expected = replay_setup(offices, seed)
        east = expected["east"]
        assert isinstance(east, int)
        state = new_state(offices, seed)
        assert state.seat_of_office[offices - 1] == east
        assert state.seat_of_office[0] == (east - 1) % offices
        assert state.office_of_seat[east] == offices - 1
        for k in range(offices - 1):  # the next office west is the next seat left
            assert state.seat_of_office[k] == (state.seat_of_office[k + 1] + 1) % offices


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), offices=st.integers(1, 6), sisters=st.booleans())
def test_c_rng_3_setup_replays_from_a_fresh_stream(seed: int, offices: int, sisters: bool) -> None:
    """C-rng.3 / R4.2-R4.6: Mainline cards, seating roll (R4.3, D-seat.1), Superintendent roll
    (R4.4, C-fedora.2: first seat tied for highest) and the deal, from Rng(seed) in order."""
    state = new_state(offices, seed, sister_trains=sisters)
    expected = replay_setup(offices, seed, sisters)
    assert state.mainline == expected["mainline"]
    if offices > 1:
        assert state.seat_of_office[offices - 1] == expected["east"]
        assert state.fedora == expected["fedora"]
    else:
        assert state.fedora == 0 and state.office_of_seat == [0]  # D-seat.3
    assert state.hands == expected["hands"]
    assert state.departments == expected["departments"]
    assert state.home_office == expected["home_office"]
    assert state.rng.state == expected["rng"]


def _find_seed_with_tie(offices: int, which: str) -> tuple[int, dict[str, object]]:
    for seed in range(5000):
        expected = replay_setup(offices, seed)
        rolls = expected[which]
        assert isinstance(rolls, list)
        top = max(rolls)
        if rolls.count(top) > 1:
            return seed, expected
    raise AssertionError("no seed with a tie")


@pytest.mark.parametrize("offices", [2, 3, 6])
def test_c_fedora_2_superintendent_tie_goes_to_first_tied_seat(offices: int) -> None:
    """C-fedora.2 / D-seat.2: the first seat tied for the highest Superintendent roll."""
    seed, expected = _find_seed_with_tie(offices, "superintendent")
    rolls = expected["superintendent"]
    assert isinstance(rolls, list)
    state = new_state(offices, seed)
    assert state.fedora == rolls.index(max(rolls))
    assert state.events[1].kind == "superintendent" and str(rolls) in event_text(state.events[1], state)


@pytest.mark.parametrize("offices", [2, 4, 5])
def test_d_seat_2_seating_tie_goes_to_first_tied_seat(offices: int) -> None:
    """R4.3 / D-seat.2: the first seat tied for the highest seating roll holds the east end."""
    seed, expected = _find_seed_with_tie(offices, "seating")
    rolls = expected["seating"]
    assert isinstance(rolls, list)
    state = new_state(offices, seed)
    assert state.seat_of_office[offices - 1] == rolls.index(max(rolls))
    assert state.events[0].kind == "seating" and str(rolls) in event_text(state.events[0], state)


def test_d_seat_3_one_office_draws_no_rolls() -> None:
    """D-seat.3: one office: no seating or Superintendent roll; seat 0 holds everything."""
    state = new_state(1, 9)
    assert state.fedora == 0 and state.office_of_seat == [0] and state.seat_of_office == [0]
    assert not any(e.kind in ("seating", "superintendent") for e in state.events)


@pytest.mark.parametrize("offices", [1, 3, 6])
def test_r4_6_deal_starts_at_the_superintendent(offices: int) -> None:
    """R4.6: the Superintendent takes the top three cards, then each seat to the left."""
    for seed in range(8):
        state = new_state(offices, seed)
        expected = replay_setup(offices, seed)
        assert state.hands == expected["hands"]


@pytest.mark.parametrize("offices", OFFICES)
def test_rb_2_sister_trains_keep_even_trains_out_of_the_home_office(offices: int) -> None:
    """RB.2: the even timetabled trains are set aside, the odd ones and Extras stay in."""
    state = new_state(offices, 3, sister_trains=True)
    in_play = (
        state.home_office
        + [c for hand in state.hands for c in hand]
        + [c for dept in state.departments for c in dept]
    )
    assert not EVEN_TRAINS & set(in_play)
    assert set(state.set_aside) >= EVEN_TRAINS
    for card in CAT.of_kind(CardKind.TRAIN):
        if card not in EVEN_TRAINS:
            assert card in in_play
    for card in CAT.of_kind(CardKind.EXTRA_TRAIN):
        assert card in in_play


def test_rb_2_without_sister_trains_no_train_is_set_aside() -> None:
    """RB.2"""
    state = new_state(3, 3)
    assert not {CAT.cards[c].kind for c in state.set_aside} & {CardKind.TRAIN, CardKind.EXTRA_TRAIN}


@pytest.mark.parametrize("offices", OFFICES)
def test_r6_0_1_first_decision_is_the_superintendents_local_operations(offices: int) -> None:
    """R6.0.1 / R5.0.1: the game waits for the Superintendent's Local Operations choice."""
    state = new_state(offices, 12)
    seat = state.fedora
    assert state.current_player() == seat
    assert state.legal_intents() == [
        Pass(seat),
        DrawHomeOffice(seat),
        DrawDepartment(seat, 0),
        DrawDepartment(seat, 1),
        DrawDepartment(seat, 2),
    ]


def test_setup_is_logged() -> None:
    """R4.3: the chain of offices between the two Division Points is logged at setup."""
    state = new_state(3, 8)
    kinds = [event.kind for event in state.events]
    assert kinds[:3] == ["seating", "superintendent", "setup"]
    assert "West Division Point" in event_text(
        state.events[2], state
    ) and "East Division Point" in event_text(state.events[2], state)


def test_setup_uses_a_given_catalogue() -> None:
    state = new_game(new_state().config, 4, CAT)
    assert state.catalogue is CAT

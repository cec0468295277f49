"""Deck cycling: Department refill (R6.2.6), Home Office reshuffle (R6.2.5), small pools
(D-deck.2) and the reshuffle at the start of a turn (D-deck.3). Situations are built by editing
the state's card lists; every expected reshuffle is predicted with a copy of the stream."""

from __future__ import annotations

from conftest import assert_invariants, expect_illegal, new_state

from sm_env.core.intents import Discard, DrawDepartment, DrawHomeOffice, EndTurn, Pass
from sm_env.core.phases import Phase
from sm_env.core.state import GameState


def predict_reshuffle(state: GameState, pool: list[int]) -> tuple[list[list[int]], list[int]]:
    """R6.2.5: shuffle the pool (Salvage Yard, then Departments 0-2 bottom to top), one card
    from its top onto Department 0, 1, 2 (as far as it goes), the rest is the Home Office."""
    deck = pool[:]
    state.rng.copy().shuffle(deck)
    departments: list[list[int]] = [[], [], []]
    for d in range(3):
        if deck:
            departments[d].append(deck.pop())
    return departments, deck


def leave_in_home_office(state: GameState, keep: int) -> None:
    """Move all but the top ``keep`` Home Office cards to the Salvage Yard."""
    cut = len(state.home_office) - keep
    state.salvage.extend(state.home_office[:cut])
    del state.home_office[:cut]


def park(state: GameState, cards: list[int]) -> None:
    """Take cards out of circulation (to the set-aside pile) to make a small pool."""
    state.set_aside.extend(cards)
    state.set_aside.sort()


def test_r6_2_6_department_refilled_when_a_take_empties_it() -> None:
    """R6.2.6: the top Home Office card goes onto the emptied Department at once."""
    state = new_state(2, 3)
    seat = state.current_player()
    taken = state.departments[1][-1]
    top = state.home_office[-1]
    size = len(state.home_office)
    state.apply(DrawDepartment(seat, 1))
    assert taken in state.hands[seat]
    assert state.departments[1] == [top]
    assert len(state.home_office) == size - 1
    assert any(e.kind == "department-refill" for e in state.events)
    assert_invariants(state)


def test_r6_2_6_no_refill_while_the_department_has_cards() -> None:
    """R6.2.6"""
    state = new_state(2, 3)
    seat = state.current_player()
    state.departments[0].append(state.home_office.pop(0))
    bottom = state.departments[0][0]
    size = len(state.home_office)
    state.apply(DrawDepartment(seat, 0))
    assert state.departments[0] == [bottom]
    assert len(state.home_office) == size


def test_r6_2_5_reshuffle_when_a_draw_empties_the_home_office() -> None:
    """R6.2.5: the last Home Office card drawn: Salvage Yard and Departments are collected,
    shuffled, one card dealt to each Department and the rest is the new Home Office."""
    state = new_state(3, 4)
    seat = state.current_player()
    leave_in_home_office(state, 1)
    state.departments[2].append(state.salvage.pop())  # a Department with two cards
    last = state.home_office[-1]
    pool = state.salvage + [card for dept in state.departments for card in dept]
    departments, home_office = predict_reshuffle(state, pool)
    state.apply(DrawHomeOffice(seat))
    assert last in state.hands[seat]
    assert state.departments == departments
    assert state.home_office == home_office
    assert state.salvage == []
    assert len(home_office) == len(pool) - 3
    assert state.phase is Phase.CARD_PLAY
    assert any(e.kind == "reshuffle" for e in state.events)
    assert_invariants(state)


def test_r6_2_5_reshuffle_when_a_department_refill_empties_the_home_office() -> None:
    """R6.2.5 / R6.2.6: a refill that takes the last Home Office card also reshuffles (the
    refilled card is part of the pool)."""
    state = new_state(2, 5)
    seat = state.current_player()
    leave_in_home_office(state, 1)
    refill = state.home_office[-1]
    taken = state.departments[0][-1]
    pool = state.salvage + [refill] + state.departments[1] + state.departments[2]
    departments, home_office = predict_reshuffle(state, pool)
    state.apply(DrawDepartment(seat, 0))
    assert taken in state.hands[seat]
    assert state.departments == departments
    assert state.home_office == home_office
    assert state.salvage == []
    assert_invariants(state)


def test_d_deck_2_small_pool_fills_departments_first() -> None:
    """D-deck.2: a pool of one card goes to Department 0; Departments 1, 2 and the Home
    Office stay empty, and drawing from the Home Office is then illegal."""
    state = new_state(2, 6)
    seat = state.current_player()
    park(state, state.home_office[:-1])
    del state.home_office[:-1]
    park(state, state.departments[1] + state.departments[2])
    state.departments[1].clear()
    state.departments[2].clear()
    only = state.departments[0][0]
    state.apply(DrawHomeOffice(seat))
    assert state.departments == [[only], [], []]
    assert state.home_office == []
    state.apply(Discard(seat, state.hands[seat][0], 2))
    state.apply(EndTurn(seat))
    nxt = state.current_player()
    legal = state.legal_intents()
    assert DrawHomeOffice(nxt) not in legal
    assert legal == [Pass(nxt), DrawDepartment(nxt, 0), DrawDepartment(nxt, 2)]
    expect_illegal(state, DrawHomeOffice(nxt), "R6.2.1")
    assert_invariants(state)


def test_d_deck_2_pool_of_two() -> None:
    """D-deck.2: two cards: Departments 0 and 1 get one each, Department 2 stays empty."""
    state = new_state(2, 7)
    seat = state.current_player()
    park(state, state.home_office[:-1])
    del state.home_office[:-1]
    park(state, state.departments[2])
    state.departments[2].clear()
    pool = state.departments[0] + state.departments[1]
    departments, home_office = predict_reshuffle(state, pool)
    state.apply(DrawHomeOffice(seat))
    assert state.departments == departments
    assert [len(d) for d in state.departments] == [1, 1, 0]
    assert state.home_office == home_office == []


def test_d_deck_2_empty_department_stays_empty_without_home_office() -> None:
    """R6.2.6 / D-deck.2: with the Home Office empty a taken-out Department is not refilled."""
    state = new_state(2, 8)
    seat = state.current_player()
    park(state, state.home_office)
    state.home_office.clear()
    state.apply(DrawDepartment(seat, 1))
    assert state.departments[1] == []
    assert state.home_office == []
    assert_invariants(state)


def test_d_deck_3_reshuffle_at_the_start_of_a_turn() -> None:
    """D-deck.3: the Home Office empty and the Salvage Yard not: the reshuffle happens when the
    next seat's Local Operations turn starts."""
    state = new_state(3, 9)
    seat = state.current_player()
    leave_in_home_office(state, 0)
    assert state.home_office == [] and state.salvage
    pool = state.salvage + [card for dept in state.departments for card in dept]
    departments, home_office = predict_reshuffle(state, pool)
    state.apply(Pass(seat))
    assert state.current_player() == (seat + 1) % 3
    assert state.departments == departments
    assert state.home_office == home_office
    assert state.salvage == []
    assert DrawHomeOffice(state.current_player()) in state.legal_intents()
    assert_invariants(state)


def test_d_deck_3_reshuffle_at_the_start_of_the_next_stage() -> None:
    """D-deck.3: also for the first turn of a Stage (one seat: every turn starts a Stage)."""
    state = new_state(1, 10)
    leave_in_home_office(state, 0)
    pool = state.salvage + [card for dept in state.departments for card in dept]
    departments, home_office = predict_reshuffle(state, pool)
    state.apply(Pass(0))
    assert state.stage == 1
    assert (state.departments, state.home_office) == (departments, home_office)


def test_d_deck_3_no_reshuffle_with_an_empty_salvage_yard() -> None:
    """D-deck.3: nothing to collect from the Salvage Yard: no reshuffle, the Departments stay."""
    state = new_state(3, 11)
    seat = state.current_player()
    park(state, state.home_office)
    state.home_office.clear()
    departments = [d[:] for d in state.departments]
    rng = state.rng.state
    state.apply(Pass(seat))
    assert state.departments == departments
    assert state.home_office == []
    assert state.rng.state == rng
    assert not any(e.kind == "reshuffle" for e in state.events)


def test_r6_2_5_long_games_keep_cycling_the_decks() -> None:
    """R6.2.5 / D-deck.3: over several days of random play the decks keep cycling and every
    card stays in exactly one place."""
    from conftest import play_random

    state = new_state(4, 12, days=3)
    play_random(state, 12, check=True)
    assert state.is_terminal()

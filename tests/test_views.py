"""Seat views (D-view.1): a bot sees only what its seat may know — its own hand, the sizes of
the other hands and of the Home Office, everything face up — and search deals the rest."""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import (
    CAT,
    HOUSE_RULES,
    assert_invariants,
    bots,
    card_counts,
    expected_card_counts,
    hide_differently,
    new_state,
    play_random,
)

from agents import RandomAgent, play_game, seat_seed
from sm_env.core.rng import Rng
from sm_env.core.state import HIDDEN, GameState, SeatView


def _mid_game(offices: int, seed: int, steps: int, **rules: bool) -> GameState:
    state = new_state(offices, seed, days=3, **rules)
    play_random(state, seed, steps=steps)
    assert not state.is_terminal()
    return state


CASES = [(offices, seed, steps) for offices in (2, 3, 5) for seed in (1, 2) for steps in (5, 40, 110)]


@pytest.mark.parametrize(("offices", "seed", "steps"), CASES)
def test_d_view_1_a_view_holds_no_hidden_card(offices: int, seed: int, steps: int) -> None:
    state = _mid_game(offices, seed, steps)
    for seat in range(offices):
        view = state.view(seat)
        board = view.board
        assert view.hand == state.hands[seat]
        for s in range(offices):
            assert len(board.hands[s]) == len(state.hands[s])
            if s != seat:
                assert set(board.hands[s]) <= {HIDDEN}
        assert board.home_office == [HIDDEN] * len(state.home_office)
        assert board.rng.state == 0 and board.events == []
        assert board.departments == state.departments and board.stations[0].grid == state.stations[0].grid
        assert view.legal_intents() == (state.legal_intents() if state.current_player() == seat else [])


@pytest.mark.parametrize(("offices", "seed", "steps"), CASES)
def test_d_view_1_states_differing_only_in_hidden_cards_give_equal_views(
    offices: int, seed: int, steps: int
) -> None:
    """Two states that differ only in what a seat cannot see give that seat equal views, and a
    bot's choice is the same for both."""
    state = _mid_game(offices, seed, steps, emergency_toolbox=True)
    seat = state.current_player()
    other = hide_differently(state, seat, Rng(seed))
    assert other.state_hash() != state.state_hash()
    assert other.view(seat) == state.view(seat)
    for bot_seed in range(5):
        a, b = RandomAgent(bot_seed), RandomAgent(bot_seed)
        assert a.choose(state.view(seat)) == b.choose(other.view(seat))


@pytest.mark.parametrize(("offices", "seed", "steps"), CASES)
def test_d_view_1_a_view_of_a_simulation_is_the_view_and_shares_the_board(
    offices: int, seed: int, steps: int
) -> None:
    """``SeatView.of_simulation`` (a search's rollouts): equal to the copied view, every
    hidden card as hidden, the board's containers the state's own, and building it leaves
    the state as it was."""
    state = _mid_game(offices, seed, steps)
    before = state.state_hash()
    for seat in range(offices):
        shared = SeatView.of_simulation(state, seat)
        assert shared == state.view(seat)
        assert shared.board.stations is state.stations and shared.board.ledger is state.ledger
        assert shared.hand == state.hands[seat] and shared.hand is not state.hands[seat]
        assert shared.board.home_office == [HIDDEN] * len(state.home_office)
        assert shared.board.rng.state == 0 and shared.board.events == []
        with pytest.raises(TypeError, match="cannot be played"):
            shared.board.legal_intents()
    assert state.state_hash() == before and state.rules is not shared.board.rules


@pytest.mark.parametrize(("offices", "seed", "steps"), CASES)
def test_d_view_1_skip_determinize_moves_the_stream_as_a_deal_does(
    offices: int, seed: int, steps: int
) -> None:
    state = _mid_game(offices, seed, steps)
    for seat in range(offices):
        view = state.view(seat)
        dealt, skipped = Rng(seed * 7 + seat), Rng(seed * 7 + seat)
        view.determinize(dealt)
        view.skip_determinize(skipped)
        assert skipped.state == dealt.state


def test_d_view_1_a_view_board_cannot_be_played() -> None:
    view = new_state(3, 4).view(0)
    with pytest.raises(TypeError, match="determinize"):
        view.board.apply(view.legal_intents()[0] if view.legal_intents() else None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="cannot be played"):
        view.board.legal_intents()
    with pytest.raises(ValueError, match="not a seat"):
        new_state(3, 4).view(3)


@pytest.mark.parametrize(("offices", "seed", "steps"), CASES)
def test_d_view_1_determinize_deals_the_unseen_cards(offices: int, seed: int, steps: int) -> None:
    rules = {HOUSE_RULES[seed % 4]: True}
    state = _mid_game(offices, seed, steps, **rules)
    seat = state.current_player()
    view = state.view(seat)
    full = view.determinize(Rng(99))
    assert_invariants(full)
    assert card_counts(full) == expected_card_counts(CAT)
    assert full.hands[seat] == state.hands[seat]
    assert [len(h) for h in full.hands] == [len(h) for h in state.hands]
    assert len(full.home_office) == len(state.home_office)
    unseen = Counter(view.unseen_cards())
    truth = Counter(c for s, h in enumerate(state.hands) if s != seat for c in h) + Counter(state.home_office)
    assert unseen == truth
    hidden = {("home_office", None)} | {("hands", s) for s in range(offices) if s != seat}
    seen = Counter(c for c, area, key in state.card_places() if (area, key) not in hidden)
    assert view.board.visible_cards(seat) == state.visible_cards(seat) == seen
    assert full.legal_intents() == state.legal_intents()
    assert full.view(seat) == view  # what the seat knows is kept
    assert view.determinize(Rng(99)).state_hash() == full.state_hash()  # reproducible from its seed
    play_random(full, seed)  # and it plays on to the end
    assert full.is_terminal()


def test_d_view_1_play_game_hands_bots_views() -> None:
    seen: list[type] = []

    class Spy:
        name = "spy"

        def __init__(self, seed: int) -> None:
            self.inner = RandomAgent(seed)

        def choose(self, view: SeatView) -> object:
            seen.append(type(view))
            assert set(view.board.home_office) <= {HIDDEN}
            return self.inner.choose(view)

    state = new_state(3, 8)
    spies = [Spy(seat_seed(8, s)) for s in range(3)]
    reference = new_state(3, 8)
    play_game(state, spies)  # type: ignore[arg-type]
    play_game(reference, bots(8, 3))
    assert seen and set(seen) == {SeatView}
    assert state.state_hash() == reference.state_hash()

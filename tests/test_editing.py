"""The one way to edit a position by hand (``sm_env.core.edit``): the caches are dropped on the
way out, the position is checked, and a broken edit is refused with a message naming the
broken invariant and leaves the state as it was."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import CAT, frozen, new_state

from sm_env.core import PositionError, check_conservation, check_invariants, edit, load_snapshot
from sm_env.core.errors import ConfigError, StationMasterError
from sm_env.core.phases import Phase
from sm_env.core.scenarios import apply_scenarios
from sm_env.core.state import GameState


def swap_first_cards(state: GameState) -> None:
    """Seat 0's first card for the top card of the Home Office: another hand, still valid."""
    hand, deck = state.hands[0], state.home_office
    hand[0], deck[-1] = deck[-1], hand[0]
    hand.sort()


def whole(state: GameState) -> tuple[Any, ...]:
    """The state as it is, the legal intents' cache and the events too."""
    return (*frozen(state), state.legal_cache, list(state.events))


def test_an_edit_drops_the_listed_intents_and_lists_them_afresh(state: GameState) -> None:
    """The cache would hold the old hand's choices; after the edit they are the new hand's."""
    state.legal_intents()
    assert state.legal_cache is not None
    with edit(state) as edited:
        assert edited is state
        swap_first_cards(state)
    assert state.legal_cache is None
    fresh = new_state()
    fresh.legal_cache = None
    swap_first_cards(fresh)
    assert state.legal_intents() == fresh.legal_intents()


def test_a_valid_edit_is_kept(state: GameState) -> None:
    with edit(state):
        swap_first_cards(state)
    assert check_invariants(state, choices=True) == []
    assert state.hands[0] != new_state().hands[0]


def test_a_broken_edit_is_refused_naming_the_invariant_and_rolled_back(state: GameState) -> None:
    state.legal_intents()
    state.log("marker", -1)
    before = whole(state)
    with (
        pytest.raises(
            PositionError, match=r"^edit refused, the state is as it was: revenue\[0\]: .*\(R2\.4\.7\)$"
        ),
        edit(state),
    ):
        state.revenue_by_seat[0] += 5
    assert whole(state) == before


def test_the_error_lists_every_problem(state: GameState) -> None:
    with pytest.raises(PositionError) as info, edit(state):
        state.revenue_by_seat[0] += 5
        state.salvage.append(state.salvage[0] if state.salvage else state.set_aside[0])
    assert isinstance(info.value, StationMasterError)
    assert len(info.value.problems) == 2
    assert any("R2.4.7" in problem for problem in info.value.problems)
    assert any(problem.startswith("cards: ") for problem in info.value.problems)
    assert str(info.value).endswith("(and 1 more)")


def test_an_exception_in_the_block_rolls_back_and_is_raised_again(state: GameState) -> None:
    before = whole(state)
    with pytest.raises(KeyError, match="boom"), edit(state):
        swap_first_cards(state)
        state.events.append(state.events[0])
        raise KeyError("boom")
    assert whole(state) == before


def test_the_events_list_is_kept_through_a_rollback(state: GameState) -> None:
    """Readers that hold ``state.events`` still see the state's events."""
    log = state.events
    expected = list(log)
    with pytest.raises(PositionError), edit(state):
        state.log("edited", 0)
        state.division_total += 1
    assert state.events is log and log == expected


def test_a_position_that_cannot_be_checked_is_refused(state: GameState) -> None:
    """A field of the wrong shape makes the checker fail: that is a refusal too."""
    before = whole(state)
    with pytest.raises(PositionError, match="the position cannot be checked: IndexError"), edit(state):
        state.trays[0].train = len(CAT.cards) + 5
    assert whole(state) == before


def test_an_inner_edit_is_part_of_the_outer_one(state: GameState) -> None:
    """Only the outermost edit checks: halfway through, the position may be broken."""
    before = frozen(state)
    with edit(state):
        card = state.home_office.pop()
        with edit(state):
            pass  # a card is in no place here: the inner edit does not check
        state.home_office.append(card)
    assert frozen(state) == before
    with pytest.raises(PositionError, match="cards: "), edit(state), edit(state):
        state.home_office.pop()
    assert frozen(state) == before


def test_the_conservation_check_allows_layouts_outside_the_rules(state: GameState) -> None:
    """A station without its Limits keeps every card in one place: conservation passes, the
    full check does not."""

    def drop_limits() -> None:
        station = state.stations[0]
        for cell in [(0, -1), (0, 1)]:
            card, _ = station.grid.pop(cell)
            state.set_aside.append(card)
        state.set_aside.sort()

    broken = r"stations\[0\]\.grid: the Running Track needs .*\(R4\.1\)"
    with pytest.raises(PositionError, match=broken), edit(state):
        drop_limits()
    with edit(state, check=check_conservation):
        drop_limits()
    assert check_conservation(state) == []
    with pytest.raises(PositionError, match="cards: "), edit(state, check=check_conservation):
        state.set_aside.pop()


def test_without_a_check_only_the_caches_are_dropped(state: GameState) -> None:
    state.legal_intents()
    with edit(state, check=None):
        state.division_total += 1  # a benchmark fixture may leave the rules on purpose
    assert state.legal_cache is None
    assert check_conservation(state)


def test_a_failing_scenario_leaves_the_state_as_it_was() -> None:
    """``apply_scenarios`` is one edit: a scenario that cannot be set up changes nothing."""
    state = new_state(2, 4)
    before = whole(state)
    with pytest.raises(ConfigError, match="upgraded_office"):
        apply_scenarios(state, ["upgraded_office"] * 10, 0)
    assert whole(state) == before
    apply_scenarios(state, ["upgraded_office", "early_trains"], 0)
    assert check_invariants(state, choices=True) == []
    assert state.phase is Phase.LOCAL_OPS


def test_an_edited_position_snapshots_and_loads(state: GameState) -> None:
    with edit(state):
        swap_first_cards(state)
    rebuilt = load_snapshot(json.loads(json.dumps(state.snapshot())), state.config)
    assert rebuilt.state_hash() == state.state_hash()

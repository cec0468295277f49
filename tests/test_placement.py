"""Laying station cards (D-grid.6, D-grid.7, D-grid.9, R9.0.3, D-play.4)."""

from __future__ import annotations

import pytest
from conftest import (
    OFFICE_CELL,
    assert_invariants,
    brute_force_placements,
    draw_card,
    fill_boxes,
    give_card,
    set_hand,
)

from sm_env.core.cars import COACH, car_code
from sm_env.core.config import GameConfig
from sm_env.core.engine import new_game
from sm_env.core.errors import IllegalIntent
from sm_env.core.grid import COL_LIMIT, ROW_LIMIT, placement_problem, placements_by_card
from sm_env.core.intents import EndTurn, PlaceCard, PlaceModifier, PlayCard, StockOutbound
from sm_env.core.phases import Phase
from sm_env.core.state import GameState


def card_play_state(*card_ids: str) -> GameState:
    """Seat 0 of a one-office game in the card-play step, holding exactly these cards (or,
    with none, only the train card it drew)."""
    state = new_game(GameConfig(offices=1, days=1), seed=11)
    cards = [state.catalogue.by_id[card_id] for card_id in card_ids] or [state.catalogue.by_id["train-1"]]
    set_hand(state, 0, cards[:-1])
    draw_card(state, cards[-1])
    return state


def lay(state: GameState, card_id: str, cell: tuple[int, int], rotated: bool = False) -> None:
    card = state.catalogue.by_id[card_id]
    give_card(state, 0, card)
    state.apply(PlaceCard(0, card, cell, rotated))


def ids_on_row(state: GameState, row: int) -> dict[int, str]:
    cat = state.catalogue
    return {c: cat.cards[card].id for (r, c), (card, _) in state.stations[0].grid.items() if r == row}


def test_D_grid_7_track_laid_into_the_running_track_pushes_the_limits_out() -> None:
    state = card_play_state("straight")
    state.apply(PlaceCard(0, state.catalogue.by_id["straight"], (0, 1)))
    assert ids_on_row(state, 0) == {-1: "limits", 0: "whistle-post", 1: "straight", 2: "limits"}
    lay(state, "turnout-right", (0, -1))
    assert ids_on_row(state, 0) == {
        -2: "limits",
        -1: "turnout-right",
        0: "whistle-post",
        1: "straight",
        2: "limits",
    }
    assert state.hands[0] == []


def test_D_grid_7_only_cards_with_both_w_and_e_ends_go_into_the_running_track() -> None:
    state = card_play_state("freight-house", "straight")
    facility = state.catalogue.by_id["freight-house"]
    before = state.state_hash()
    with pytest.raises(IllegalIntent) as err:
        state.apply(PlaceCard(0, facility, (0, 1)))
    assert err.value.rule_id == "D-grid.7" and "W and an E end" in err.value.message
    with pytest.raises(IllegalIntent) as err:
        state.apply(PlaceCard(0, state.catalogue.by_id["straight"], (0, 0)))
    assert err.value.rule_id == "D-grid.7" and "Limits" in err.value.message
    assert state.state_hash() == before


def test_D_grid_9_the_limits_stay_within_the_window() -> None:
    state = card_play_state()
    for col in range(1, COL_LIMIT):
        lay(state, "straight", (0, col))
    assert max(ids_on_row(state, 0)) == COL_LIMIT
    straight = state.catalogue.by_id["straight"]
    give_card(state, 0, straight)
    assert placement_problem(state, 0, straight, (0, COL_LIMIT), False) == (
        "D-grid.9",
        f"the Limits cannot move beyond column {COL_LIMIT}",
    )
    assert all(cell != (0, COL_LIMIT) for cell, _ in placements_by_card(state, 0, (straight,))[straight])


def test_D_grid_6_secondary_track_must_meet_laid_track_between_the_limits() -> None:
    state = card_play_state()
    lay(state, "turnout-right", (0, 1))  # W-E-NE at column 1, Limits now at 2
    lay(state, "straight", (0, 2))  # Limits now at 3
    straight = state.catalogue.by_id["straight"]
    give_card(state, 0, straight)
    # The turnout's NE end leads to (1, 2); a straight there meets it only through a SW end.
    assert placement_problem(state, 0, straight, (1, 2), False) is not None
    junction = state.catalogue.by_id["junction"]  # W-SW-E-SE
    give_card(state, 0, junction)
    assert placement_problem(state, 0, junction, (1, 2), False) is None
    assert placement_problem(state, 0, junction, (1, 3), False) == (
        "D-grid.6",
        "secondary track goes between the Limits, in columns 0..2",
    )
    assert placement_problem(state, 0, junction, (ROW_LIMIT + 1, 1), False)[0] == "D-grid.9"  # type: ignore[index]
    state.apply(PlaceCard(0, junction, (1, 2)))
    with pytest.raises(IllegalIntent) as err:
        state.apply(PlaceCard(0, straight, (1, 2)))
    assert err.value.rule_id == "D-grid.6" and "already holds" in err.value.message


def test_D_grid_6_legal_placements_are_exactly_the_cells_that_pass_the_rules() -> None:
    state = card_play_state()
    lay(state, "turnout-right", (0, 1))
    lay(state, "turnout-left", (0, -1))
    lay(state, "straight", (0, 2))
    for card_id in ("straight", "junction", "turnout-left", "turnout-right-plain", "freight-house"):
        card = state.catalogue.by_id[card_id]
        give_card(state, 0, card)
        brute = brute_force_placements(state, 0, card)
        assert set(placements_by_card(state, 0, (card,))[card]) == brute
        listed = {
            (i.cell, i.rotated) for i in state.legal_intents() if isinstance(i, PlaceCard) and i.card == card
        }
        assert listed == brute


def test_D_play_4_station_cards_are_laid_not_played() -> None:
    state = card_play_state("straight")
    with pytest.raises(IllegalIntent) as err:
        state.apply(PlayCard(0, state.catalogue.by_id["straight"]))
    assert err.value.rule_id == "D-play.4"


def test_R9_0_3_a_modifier_serves_a_neighbouring_facility_of_its_category() -> None:
    state = card_play_state()
    depot = state.catalogue.by_id["depot"]
    give_card(state, 0, depot)
    state.apply(PlayCard(0, depot))
    waiting_room = state.catalogue.by_id["waiting-room"]  # passenger, +1 capacity
    loading_dock = state.catalogue.by_id["loading-dock"]  # freight
    give_card(state, 0, waiting_room)
    give_card(state, 0, loading_dock)
    listed = {(i.card, i.cell, i.facility) for i in state.legal_intents() if isinstance(i, PlaceModifier)}
    assert listed == {(waiting_room, (r, 0), (0, 0)) for r in (1, -1)}  # only column 0 is between the Limits
    with pytest.raises(IllegalIntent) as err:
        state.apply(PlaceModifier(0, loading_dock, (1, 0), (0, 0)))
    assert err.value.rule_id == "R9.0.3" and "freight Modifier" in err.value.message
    state.apply(PlaceModifier(0, waiting_room, (1, 0), (0, 0)))
    assert state.stations[0].modifiers == {(1, 0): (0, 0)}

    # The Depot's shared capacity 2 grows to 3: the Freight Agent may stock a third coach.
    state.apply(EndTurn(0))
    assert state.phase is Phase.LOCAL_OPS
    loaded_coach = car_code(COACH, True)
    fill_boxes(state, 0, OFFICE_CELL, outbound=[loaded_coach, loaded_coach])
    assert_invariants(state)
    stock = StockOutbound(state.current_player(), (0, 0), loaded_coach)
    assert stock in state.legal_intents()


def test_a_placed_facility_starts_with_empty_boxes_and_shows_in_the_freight_agent_choices() -> None:
    state = card_play_state()
    lay(state, "turnout-right", (0, 1))
    lay(state, "straight", (0, 2))
    lay(state, "straight", (0, 3))
    lay(state, "junction", (1, 2))  # its SW end meets the turnout's NE end
    lay(state, "freight-house", (1, 3))  # its W end meets the junction's E end
    boxes = state.stations[0].boxes[(1, 3)]
    assert boxes.outbound == boxes.inbound == []
    assert sorted(state.stations[state.office_of_seat[0]].boxes) == [(1, 3)]

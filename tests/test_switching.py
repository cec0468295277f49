"""Local switching (Appendix A) on the six-card grid of A.5, and the A.4 special rules.

Grid (D-grid.1; row 1 is north):   A B C   =  straight, junction, freight-house
                                   D E F   =  turnout-right, depot, turnout-left (turned 180°)
"""

from __future__ import annotations

import pytest
from conftest import (
    assert_conserved,
    build_station,
    draw_card,
    new_state,
    put_tray_in_station,
    set_consist,
    stand_cars,
)

from sm_env.core.cars import BOXCAR, CABOOSE, COACH, ENGINE, HOPPER, TANK, car_code
from sm_env.core.config import GameConfig
from sm_env.core.engine import new_game
from sm_env.core.errors import IllegalIntent
from sm_env.core.intents import ChooseSwitch, EndSwitching, Labor, MoveTray, Spot
from sm_env.core.phases import Phase
from sm_env.core.state import GameState
from sm_env.core.switching import list_moves
from sm_env.core.text import render_station

Cell = tuple[int, int]
A, B, C = (1, -1), (1, 0), (1, 1)
D, E, F = (0, -1), (0, 0), (0, 1)
# The colours of the seeds' pieces, as cars of the catalogue.
YELLOW = car_code(TANK, True)
BROWN = car_code(BOXCAR, True)
BLUE = car_code(COACH, True)
RED = car_code(CABOOSE, True)
EMPTY_HOPPER = car_code(HOPPER, False)
A5_GRID: dict[Cell, tuple[str, bool]] = {
    A: ("straight", False),
    B: ("junction", False),
    C: ("freight-house", False),
    D: ("turnout-right", False),
    E: ("depot", False),
    F: ("turnout-left", True),
}


def a5_state(
    office_card: str = "depot", changes: dict[Cell, tuple[str, bool]] | None = None, **rules: bool
) -> GameState:
    """A one-office game (house rules by keyword) whose station is exactly the A.5 grid
    (RA.5.1), with ``changes`` to it, in the first Local Operations turn.

    The A.5 grid has no Limits (R4.1): Limits beside D and F would be cards to move to, so the
    worked example would no longer be the book's. ``assert_invariants`` therefore cannot hold
    here; the tests check ``assert_conserved`` instead (every card and car in one place)."""
    state = new_state(1, 5, **rules)
    build_station(state, 0, {**A5_GRID, E: (office_card, False), **(changes or {})})
    return state


def put_tray(state: GameState, index: int, cell: Cell, consist: tuple[int, ...], facing: int) -> None:
    """Crew Tray ``index`` as a train on ``cell`` with ``consist`` (cars from the Division Yard),
    its engine facing ``facing``."""
    tray = put_tray_in_station(state, 0, cell, index=index)
    set_consist(state, tray, consist, facing=facing)


def switching(state: GameState) -> GameState:
    state.apply(ChooseSwitch(0))
    assert state.phase is Phase.SWITCHING
    return state


def plain_destinations(state: GameState, tray: int = 0) -> set[tuple[int, int]]:
    return {m.path[-1] for m in list_moves(state, 0, tray) if not any(m.drops) and not m.push}


def play(state: GameState, moves: list[MoveTray]) -> None:
    for move in moves:
        assert move in state.legal_intents(), f"{move} should be legal\n{render_station(state, 0)}"
        state.apply(move)


def test_RA_2_1_four_cards_reachable_from_the_lower_right_card() -> None:
    state = a5_state()
    put_tray(state, 0, F, (ENGINE, YELLOW), -1)
    assert_conserved(state)
    assert plain_destinations(state) == {A, B, D, E}
    assert C not in {m.path[-1] for m in list_moves(state, 0, 0)}


def test_RA_2_1_reaching_the_upper_right_card_needs_a_change_of_direction() -> None:
    state = a5_state()
    put_tray(state, 0, F, (ENGINE, YELLOW), -1)
    assert_conserved(state)
    switching(state)
    before = state.state_hash()
    with pytest.raises(IllegalIntent) as err:
        state.apply(MoveTray(0, 0, (F, B, C), (0, 0, 0)))
    assert err.value.rule_id == "RA.0.2" and "changes direction" in err.value.message
    assert state.state_hash() == before


def test_RA_5_1_trailing_point_spots_the_brown_car_in_four_moves() -> None:
    state = a5_state()
    put_tray(state, 0, F, (ENGINE, YELLOW, BROWN, BLUE, RED), -1)  # engine west, cars behind it
    assert_conserved(state)
    switching(state)
    play(
        state,
        [
            MoveTray(0, 0, (F, B), (2, 0)),  # drop blue and red on F, run to B
            MoveTray(0, 0, (B, C), (0, 0), push=1),  # reverse into C, leave the brown car
            MoveTray(0, 0, (C, B), (0, 0)),  # forward to B
            MoveTray(0, 0, (B, F), (0, 0)),  # back to F, collecting blue and red
        ],
    )
    station = state.stations[0]
    assert station.cars == {C: (BROWN,)}
    assert state.trays[0].cell == F
    assert state.trays[0].consist == (ENGINE, YELLOW, BLUE, RED)  # the train is whole again
    assert state.moves_left == 2


def test_RA_5_2_facing_point_uses_the_run_around_in_six_moves() -> None:
    state = a5_state()
    put_tray(state, 0, D, (RED, BLUE, BROWN, YELLOW, ENGINE), 1)  # engine east, at the front
    assert_conserved(state)
    switching(state)
    play(
        state,
        [
            MoveTray(0, 0, (D, B, F), (0, 3, 0)),  # leave red, blue, brown on B; on to F
            MoveTray(0, 0, (F, E, D), (0, 0, 0)),  # back up via E to D
            MoveTray(0, 0, (D, B, C), (0, 0, 0), push=1),  # collect them on the nose, push brown into C
            MoveTray(0, 0, (C, B, D), (0, 2, 0)),  # back up, leave red and blue on B, on to D
            MoveTray(0, 0, (D, E, F), (0, 0, 0)),  # pull forward via E to F
        ],
    )
    assert state.stations[0].cars == {B: (RED, BLUE), C: (BROWN,)}
    state.apply(MoveTray(0, 0, (F, B), (0, 0)))  # back up to B: rebuild red, blue, yellow
    assert state.trays[0].consist == (RED, BLUE, YELLOW, ENGINE)
    assert state.trays[0].cell == B
    assert state.stations[0].cars == {C: (BROWN,)}
    # R6.1.2: with the sixth Move the seat's Local Operations are over; with one seat the
    # Cargo Phase follows, where the Freight House's Laborers may unload the brown car (R9.3.2).
    assert state.phase is Phase.CARGO
    assert state.legal_intents()[0] == Labor(0, C, Spot.TRACK, BROWN)


def test_RA_3_1_cars_come_off_in_the_order_they_sit() -> None:
    """A.3: yellow, brown, blue, red: red dropped at the start, blue and brown on the way."""
    state = a5_state()
    put_tray(state, 0, F, (ENGINE, YELLOW, BROWN, BLUE, RED), -1)
    assert_conserved(state)
    switching(state)
    state.apply(MoveTray(0, 0, (F, B, A), (1, 2, 0)))
    assert state.stations[0].cars == {F: (RED,), B: (BROWN, BLUE)}
    assert state.trays[0].consist == (ENGINE, YELLOW)
    assert state.trays[0].cell == A


def test_RA_3_2_cars_picked_up_on_the_nose_are_pushed_in_order() -> None:
    """A.3: yellow + engine moving east collect brown, blue: yellow, engine, brown, blue."""
    state = a5_state()
    put_tray(state, 0, D, (YELLOW, ENGINE), 1)
    stand_cars(state, 0, B, [BROWN, BLUE])
    assert_conserved(state)
    switching(state)
    state.apply(MoveTray(0, 0, (D, B, C), (0, 0, 0)))
    assert state.trays[0].consist == (YELLOW, ENGINE, BROWN, BLUE)
    assert state.trays[0].cell == C and state.stations[0].cars == {}


def test_RA_4_1_no_cars_may_be_left_on_the_office_track() -> None:
    state = a5_state()
    put_tray(state, 0, F, (ENGINE, YELLOW), -1)
    assert_conserved(state)
    switching(state)
    assert all(m.drops[1] == 0 for m in list_moves(state, 0, 0) if len(m.path) > 1 and m.path[1] == E)
    before = state.state_hash()
    with pytest.raises(IllegalIntent) as err:
        state.apply(MoveTray(0, 0, (F, E), (0, 1)))
    assert err.value.rule_id == "RA.4.1" and "(0, 0)" in err.value.message
    assert state.state_hash() == before


def test_RA_4_2_trays_do_not_share_cards_or_pass_each_other() -> None:
    state = a5_state()
    put_tray(state, 0, F, (ENGINE, YELLOW), -1)
    put_tray(state, 1, B, (ENGINE,), -1)
    assert_conserved(state)
    switching(state)
    assert plain_destinations(state) == {D, E}  # B is held, so A cannot be reached either
    before = state.state_hash()
    for path in ((F, B), (F, B, A)):
        with pytest.raises(IllegalIntent) as err:
            state.apply(MoveTray(0, 0, path, (0,) * len(path)))
        assert err.value.rule_id == "RA.4.2" and "another Crew Tray" in err.value.message
    assert state.state_hash() == before


def test_RA_4_3_the_office_takes_as_many_trays_as_it_has_ad_tracks() -> None:
    state = a5_state("whistle-post")  # one A/D track
    put_tray(state, 0, F, (ENGINE,), -1)
    put_tray(state, 1, E, (ENGINE,), 1)  # a train holding at the office
    assert_conserved(state)
    switching(state)
    assert plain_destinations(state) == {A, B, D}  # D only via B now
    with pytest.raises(IllegalIntent) as err:
        state.apply(MoveTray(0, 0, (F, E, D), (0, 0, 0)))
    assert err.value.rule_id == "RA.4.3" and "A/D" in err.value.message

    roomy = a5_state("depot")  # two A/D tracks (R2.1.11, edition 2): one is still free
    put_tray(roomy, 0, F, (ENGINE,), -1)
    put_tray(roomy, 1, E, (ENGINE,), 1)
    assert_conserved(roomy)
    switching(roomy)
    assert plain_destinations(roomy) == {A, B, D, E}
    roomy.apply(MoveTray(0, 0, (F, E), (0, 0)))
    assert [t.cell for t in roomy.trays[:2]] == [E, E]


def test_RA_4_4_a_tray_must_pick_up_the_cars_it_meets() -> None:
    state = a5_state()
    put_tray(state, 0, F, (ENGINE,), -1)
    stand_cars(state, 0, B, [BROWN, BLUE])
    assert_conserved(state)
    switching(state)
    through_b = [m for m in list_moves(state, 0, 0) if B in m.path]
    assert through_b
    for move in through_b:  # no route passes B and leaves its cars standing there
        trial = state.clone()
        trial.apply(move)
        at_b = move.path.index(B)
        if not move.drops[at_b] and not (move.path[-1] == B and move.push):
            assert B not in trial.stations[0].cars
    state.apply(MoveTray(0, 0, (F, B, A), (0, 0, 0)))
    assert state.trays[0].consist == (BROWN, BLUE, ENGINE)
    assert B not in state.stations[0].cars


def test_RA_4_5_no_more_than_four_cars_and_no_move_into_cars_it_cannot_take() -> None:
    state = a5_state()
    put_tray(state, 0, F, (ENGINE, YELLOW, BROWN, BLUE), -1)
    stand_cars(state, 0, B, [RED, EMPTY_HOPPER])
    assert_conserved(state)
    switching(state)
    # Through B only if it first leaves at least one car on F.
    assert all(m.drops[0] >= 1 for m in list_moves(state, 0, 0) if m.path[1] == B)
    before = state.state_hash()
    with pytest.raises(IllegalIntent) as err:
        state.apply(MoveTray(0, 0, (F, B), (0, 0)))
    assert err.value.rule_id == "RA.4.5" and "more than 4" in err.value.message
    assert state.state_hash() == before
    state.apply(MoveTray(0, 0, (F, B), (1, 0)))
    assert state.trays[0].consist == (RED, EMPTY_HOPPER, ENGINE, YELLOW, BROWN)


def test_RA_1_2_a_move_cannot_end_on_a_card_without_the_wheel_icon() -> None:
    state = a5_state(changes={D: ("turnout-right-plain", False)})
    put_tray(state, 0, F, (ENGINE, YELLOW), -1)
    assert_conserved(state)
    switching(state)
    assert plain_destinations(state) == {A, B, E}
    with pytest.raises(IllegalIntent) as err:
        state.apply(MoveTray(0, 0, (F, E, D), (0, 0, 0)))
    assert err.value.rule_id == "RA.1.2" and "wheel" in err.value.message


def test_RA_1_1_a_turnout_entered_from_b_or_c_leads_only_to_a() -> None:
    """From E heading west into D (its C end) the only way on is A (W); NE is the B end on
    the same side as C, so a tray from E never reaches B through D."""
    state = a5_state()
    put_tray(state, 0, E, (ENGINE,), -1)
    assert_conserved(state)
    switching(state)
    west = {m.path for m in list_moves(state, 0, 0) if m.path[1][1] < m.path[0][1]}
    assert west == {(E, D)}


def test_R6_1_2_moves_cost_one_each_and_end_switching_keeps_the_rest_unused() -> None:
    state = a5_state()
    put_tray(state, 0, F, (ENGINE,), -1)
    assert_conserved(state)
    switching(state)
    assert state.moves_left == 6
    state.apply(MoveTray(0, 0, (F, B), (0, 0)))
    assert state.moves_left == 5
    state.apply(EndSwitching(0))
    assert state.phase is Phase.LOCAL_OPS and state.stage == 1 and state.moves_left == 0


def test_RB_1_five_moves_at_night_with_reduced_visibility() -> None:
    state = a5_state(reduced_visibility=True)
    put_tray(state, 0, F, (ENGINE,), -1)
    assert_conserved(state)
    switching(state)  # stage 1, midnight
    assert state.moves_left == 5


def test_D_grid_11_cars_left_beside_the_tray_stay_on_their_side() -> None:
    state = a5_state()
    put_tray(state, 0, D, (BROWN, ENGINE, BLUE), 1)
    assert_conserved(state)
    switching(state)
    state.apply(MoveTray(0, 0, (D, B), (0, 1), push=1))  # brown west of the tray, blue east
    assert state.stations[0].cars[B] == (BROWN, BLUE) and state.trays[0].split == 1
    state.apply(MoveTray(0, 0, (B, A), (0, 0)))  # heading west couples brown only
    assert state.trays[0].consist == (BROWN, ENGINE)
    assert state.stations[0].cars[B] == (BLUE,)


def test_D_grid_10_every_listed_move_is_legal_and_keys_are_unique() -> None:
    state = a5_state()
    put_tray(state, 0, F, (ENGINE, YELLOW, BROWN, BLUE, RED), -1)
    put_tray(state, 1, A, (BLUE, ENGINE), 1)
    stand_cars(state, 0, D, [EMPTY_HOPPER])
    assert_conserved(state)
    switching(state)
    moves = [m for m in state.legal_intents() if isinstance(m, MoveTray)]
    assert len(moves) == len(set(moves))  # no Move listed twice
    for move in moves:
        trial = state.clone()
        trial.apply(move)


def test_an_illegal_move_message_shows_the_station() -> None:
    state = a5_state()
    put_tray(state, 0, F, (ENGINE,), -1)
    assert_conserved(state)
    switching(state)
    with pytest.raises(IllegalIntent) as err:
        state.apply(MoveTray(0, 0, (F, (0, 2)), (0, 0)))
    assert "not joined by track" in err.value.message
    assert "freight-house" in err.value.message and "T0[<E]" in err.value.message


def test_moving_a_clone_leaves_the_original_untouched() -> None:
    state = a5_state()
    put_tray(state, 0, F, (ENGINE, YELLOW, BROWN), -1)
    assert_conserved(state)
    switching(state)
    before = state.snapshot()
    trial = state.clone()
    trial.apply(MoveTray(0, 0, (F, B), (1, 0)))
    assert state.snapshot() == before
    assert trial.stations[0].cars == {F: (BROWN,)}


def test_render_shows_cards_cars_trays_and_ad_tracks() -> None:
    state = a5_state()
    put_tray(state, 0, F, (ENGINE, YELLOW, BROWN), -1)
    stand_cars(state, 0, C, [EMPTY_HOPPER])
    assert_conserved(state)
    text = render_station(state, 0)
    for expected in ("junction o", "freight-house o", "W-E-NW", "T0[<E TK BX]", "ho", "A/D 0/2", "row  1"):
        assert expected in text


def test_R2_1_5_an_office_upgrade_makes_a_control_point_with_more_ad_tracks() -> None:
    from sm_env.core.grid import geometry_for
    from sm_env.core.intents import PlayCard

    state = new_game(GameConfig(offices=2, days=1), seed=2)
    seat = state.current_player()
    office = state.office_of_seat[seat]
    assert not state.is_control_point(office)
    station_card = state.catalogue.by_id["station"]
    draw_card(state, station_card)
    state.apply(PlayCard(seat, station_card))
    assert state.is_control_point(office) and not state.is_control_point(1 - office)
    assert geometry_for(state.catalogue).ad_tracks[state.stations[office].grid[E][0]] == 2


def test_D_grid_10_station_intents_round_trip_through_json() -> None:
    from sm_env.core.intents import PlaceCard, PlaceModifier, intent_from_json, intent_to_json

    cat = a5_state().catalogue
    for intent in (
        MoveTray(0, 2, (F, B, A), (1, 2, 0), 0),
        MoveTray(1, 0, (D, B, C), (0, 0, 0), 1),
        PlaceCard(0, cat.by_id["junction"], (1, 2), True),
        PlaceModifier(0, cat.by_id["waiting-room"], (1, 0), (0, 0)),
    ):
        data = intent_to_json(intent, cat)
        assert intent_from_json(data, cat) == intent
    with pytest.raises(ValueError, match="path"):
        intent_from_json(
            {"kind": "move_tray", "seat": 0, "tray": 0, "path": [[0, 1]], "drops": [0], "push": 0}, cat
        )


def test_d_grid_2_the_survey_joins_cards_as_neighbour_does() -> None:
    """The track a Move follows comes from the station's survey (``grid.Survey.joined``),
    worked out once per grid: for every card of every station of a few games, each way out
    and each way on must be what ``grid.neighbour`` and the ends of the card give: a Move
    heading east goes on by the card's east-side ends, heading west by its west-side ends."""
    from sm_env.core.grid import (
        EAST_SIDE_MASK,
        WEST_SIDE_MASK,
        cell_ends,
        geometry_for,
        neighbour,
        survey_of,
    )
    from sm_env.core.rng import Rng

    checked = 0
    for seed in range(6):
        state = new_state(3, seed, days=2)
        rng = Rng(seed)
        geo = geometry_for(state.catalogue)
        while not state.is_terminal():
            for station in state.stations:
                survey = survey_of(geo, station)
                for cell in station.grid:
                    ends = cell_ends(geo, station, cell)
                    links = [(end, n) for end in range(6) if (n := neighbour(geo, station, cell, end))]
                    assert all(ends >> end & 1 for end, _ in links)
                    west = [n for end, n in links if (WEST_SIDE_MASK >> end) & 1]
                    east = [n for end, n in links if (EAST_SIDE_MASK >> end) & 1]
                    assert survey.joined(cell) == (tuple(links), tuple(west), tuple(east))
                    checked += 1
            legal = state.legal_intents()
            placing = [intent for intent in legal if isinstance(intent, MoveTray)] or legal
            state.apply(placing[rng.below(len(placing))])
    assert checked > 1000

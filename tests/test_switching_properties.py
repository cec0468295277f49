"""Move generation is complete and exact on random stations (D-grid.10, RA).

Stations are grown through the real card-play intents; trays and standing cars are then put
on random Operational Rail. Every listed Move must apply; every other candidate Move (all
short paths over the six neighbour directions, with small drop and push counts) must be
refused with IllegalIntent, leaving the state unchanged.
"""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from conftest import brute_force_placements
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments.bench.stations import TRACK_IDS, random_station
from sm_env.core.cars import ENGINE, N_CAR_CODES
from sm_env.core.catalogue import CardKind, Catalogue, parse_catalogue
from sm_env.core.errors import IllegalIntent
from sm_env.core.grid import END_OFFSET, end_direction, geometry_for, neighbour, placements_by_card
from sm_env.core.intents import MoveTray
from sm_env.core.phases import Phase
from sm_env.core.rng import Rng
from sm_env.core.state import GameState
from sm_env.core.switching import after_move, apply_move, list_moves, station_moves

CATALOGUE_FILE = Path(__file__).resolve().parent.parent / "sm_env" / "core" / "data" / "cards.json"


def candidate_paths(
    state: GameState, start: tuple[int, int], length: int
) -> list[tuple[tuple[int, int], ...]]:
    grid = state.stations[0].grid
    paths: list[tuple[tuple[int, int], ...]] = [(start,)]
    out = []
    for _ in range(length - 1):
        paths = [p + ((p[-1][0] + dr, p[-1][1] + dc),) for p in paths for dr, dc in END_OFFSET]
        paths = [p for p in paths if p[-1] in grid]
        out.extend(paths)
    return out


def assert_moves_listed_exactly(state: GameState, trays: int) -> None:
    """Every listed Move applies, none is listed twice, and every other candidate Move is
    refused, leaving the state as it was."""
    listed = [i for i in state.legal_intents() if isinstance(i, MoveTray)]
    assert len(set(listed)) == len(listed)  # no Move listed twice
    for move in listed:
        trial = state.clone()
        trial.apply(move)
    listed_set = set(listed)
    before = state.state_hash()
    for index in range(trays):
        start = state.trays[index].cell
        assert start is not None
        for path in candidate_paths(state, start, 3):
            for drops in product(range(3), repeat=len(path)):
                for push in range(3):
                    move = MoveTray(0, index, path, drops, push)
                    if move in listed_set:
                        continue
                    try:
                        state.apply(move)
                    except IllegalIntent:
                        pass
                    else:
                        raise AssertionError(f"{move} was accepted but not listed")
        assert state.state_hash() == before


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), placements=st.integers(2, 14), trays=st.integers(1, 3))
def test_D_grid_10_listed_moves_are_exactly_the_legal_ones(seed: int, placements: int, trays: int) -> None:
    assert_moves_listed_exactly(random_station(seed, placements, trays), trays)


WEST_SIDE, EAST_SIDE = ("W", "NW", "SW"), ("E", "NE", "SE")


@st.composite
def generated_track_card(draw: st.DrawFn, index: int) -> dict[str, Any]:
    """A track card the catalogue validator accepts: a straight (one end each side, any of
    the three), a junction (two each side) or a turnout (A on one side, B and C on the other),
    its ends in any order, with or without a wheel icon."""
    shape = draw(st.sampled_from(("straight", "junction", "turnout")))
    card: dict[str, Any] = {
        "id": f"generated-{index}",
        "name": f"Generated Track {index}",
        "kind": "track",
        "deck": "home_office",
        "count": 1,
        "text": "A track card of a generated catalogue.",
        "shape": shape,
    }
    if shape == "straight":
        ends = [draw(st.sampled_from(WEST_SIDE)), draw(st.sampled_from(EAST_SIDE))]
    elif shape == "junction":
        pair = st.lists(st.sampled_from(WEST_SIDE), min_size=2, max_size=2, unique=True)
        ends = draw(pair) + draw(st.lists(st.sampled_from(EAST_SIDE), min_size=2, max_size=2, unique=True))
    else:
        a_side, bc_side = (WEST_SIDE, EAST_SIDE) if draw(st.booleans()) else (EAST_SIDE, WEST_SIDE)
        a = draw(st.sampled_from(a_side))
        b, c = draw(st.lists(st.sampled_from(bc_side), min_size=2, max_size=2, unique=True))
        ends = [a, b, c]
        card["points"] = {"a": a, "b": b, "c": c}
    card["track"] = {"ends": draw(st.permutations(ends)), "wheel": draw(st.booleans())}
    return card


@st.composite
def generated_catalogue(draw: st.DrawFn) -> tuple[Catalogue, tuple[str, ...]]:
    """The packaged catalogue with one to four generated track cards added; the ids to grow
    stations from: the generated cards, three times as often as each packaged track card."""
    data = json.loads(CATALOGUE_FILE.read_text(encoding="utf-8"))
    cards = [draw(generated_track_card(i)) for i in range(draw(st.integers(1, 4)))]
    data["cards"] += cards
    ids = tuple(card["id"] for card in cards)
    return parse_catalogue(data, "generated"), (*ids, *ids, *ids, *TRACK_IDS)


@settings(max_examples=60, deadline=None)
@given(
    generated=generated_catalogue(),
    seed=st.integers(0, 2**32 - 1),
    placements=st.integers(8, 20),
    trays=st.integers(1, 3),
)
def test_D_grid_10_moves_are_listed_exactly_for_any_catalogue_the_validator_accepts(
    generated: tuple[Catalogue, tuple[str, ...]], seed: int, placements: int, trays: int
) -> None:
    """A straight from SW to NE, say, has no W end either way up: the Moves over it are
    listed as every other card's are (the test of a way on once also asked for a W end)."""
    catalogue, track_ids = generated
    state = random_station(seed, placements, trays, catalogue=catalogue, track_ids=track_ids)
    assert_moves_listed_exactly(state, trays)
    listed = {i for i in state.legal_intents() if isinstance(i, MoveTray)}
    before = state.state_hash()
    for index in range(trays):
        for path in routes(state, index, 6):
            move = MoveTray(0, index, path, (0,) * len(path), 0)
            if move not in listed:
                with pytest.raises(IllegalIntent):
                    state.apply(move)
    assert state.state_hash() == before


def routes(state: GameState, tray: int, longest: int) -> list[tuple[tuple[int, int], ...]]:
    """Every path of 2 to ``longest`` cards from the tray's card that follows track one way,
    east or west (RA.0.2), found from the cards' ends alone, as the seeds draw them."""
    geo = geometry_for(state.catalogue)
    station = state.stations[0]
    start = state.trays[tray].cell
    assert start is not None
    out = []
    todo = [((start,), direction) for direction in (-1, 1)]
    while todo:
        path, direction = todo.pop()
        if len(path) > 1:
            out.append(path)
        if len(path) == longest:
            continue
        for end in range(6):
            if end_direction(end) == direction:
                nxt = neighbour(geo, station, path[-1], end)
                if nxt is not None and nxt not in path:
                    todo.append((path + (nxt,), direction))
    return out


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_RA_3_3_moves_conserve_cars_and_keep_every_tray_legal(seed: int) -> None:
    state = random_station(seed, 12, 2)
    rng = Rng(seed ^ 0x5A5A5A5A)

    def census(s: GameState) -> list[int]:
        counts = [0] * N_CAR_CODES
        for cars in s.stations[0].cars.values():
            for c in cars:
                counts[c] += 1
        for tray in s.trays:
            for c in tray.consist:
                if c != ENGINE:
                    counts[c] += 1
        return counts

    start = census(state)
    while state.phase is Phase.SWITCHING:
        legal = state.legal_intents()
        state.apply(legal[rng.below(len(legal))])
        assert census(state) == start
        for tray in state.trays[:2]:
            assert tray.consist.count(ENGINE) == 1 and len(tray.consist) - 1 <= 4
        for cell, cars in state.stations[0].cars.items():
            kind = state.catalogue.cards[state.stations[0].grid[cell][0]].kind
            assert 0 < len(cars) <= 4 and cell != (0, 0) and kind is not CardKind.OFFICE
        cells = [t.cell for t in state.trays[:2] if t.cell != (0, 0)]
        assert len(cells) == len(set(cells))


def test_list_moves_is_empty_for_a_tray_elsewhere() -> None:
    state = random_station(3, 6, 1)
    assert list_moves(state, 0, 3) == []  # a free tray, not in the station


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), placements=st.integers(0, 20), trays=st.integers(1, 3))
def test_D_grid_6_listed_placements_are_exactly_the_legal(seed: int, placements: int, trays: int) -> None:
    state = random_station(seed, placements, trays)
    for card in (c.index for c in state.catalogue.cards if c.kind in (CardKind.TRACK, CardKind.FACILITY)):
        assert set(placements_by_card(state, 0, (card,))[card]) == brute_force_placements(state, 0, card)


def test_D_grid_10_a_straight_from_sw_to_ne_is_passed_through_both_ways() -> None:
    """The issue's card: a straight with ends SW and NE, which has no W end either way up.
    Moves pass over it both ways and are listed (before the fix, the listing stopped on it
    while ``apply`` accepted the Moves beyond it)."""
    data = json.loads(CATALOGUE_FILE.read_text(encoding="utf-8"))
    data["cards"].append(
        {
            "id": "diagonal",
            "name": "Diagonal Track",
            "kind": "track",
            "deck": "home_office",
            "count": 1,
            "text": "Straight track from the south-west to the north-east end.",
            "shape": "straight",
            "track": {"ends": ["SW", "NE"], "wheel": True},
        }
    )
    catalogue = parse_catalogue(data, "diagonal")
    diagonal = catalogue.by_id["diagonal"]
    passed_over = 0
    track_ids = ("diagonal", "diagonal", "straight", "turnout-right", "turnout-left", "junction")
    for seed in range(30):
        state = random_station(seed, 16, 2, catalogue=catalogue, track_ids=track_ids)
        grid = state.stations[0].grid
        listed = {i for i in state.legal_intents() if isinstance(i, MoveTray)}
        passed_over += sum(any(grid[cell][0] == diagonal for cell in move.path[1:-1]) for move in listed)
        for tray in range(2):
            for path in routes(state, tray, 6):
                move = MoveTray(0, tray, path, (0,) * len(path), 0)
                if move not in listed:
                    with pytest.raises(IllegalIntent):
                        state.clone().apply(move)
    assert passed_over > 0


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), placements=st.integers(2, 14), trays=st.integers(1, 3))
def test_RA_3_after_move_is_the_move_on_a_copy_and_leaves_the_state_alone(
    seed: int, placements: int, trays: int
) -> None:
    """``after_move`` (the planners' light copy) gives the position ``clone`` + ``apply_move``
    gives, two Moves deep, and changes neither the state it starts from nor the one between."""
    state = random_station(seed, placements, trays)
    before = state.state_hash()
    for move in station_moves(state, 0):
        child = after_move(state, move)
        played = state.clone()
        apply_move(played, move)
        assert child.state_hash() == played.state_hash()
        middle = child.state_hash()
        for second in station_moves(child, 0)[:5]:
            grandchild = after_move(child, second)
            apply_move(expected := played.clone(), second)
            assert grandchild.state_hash() == expected.state_hash()
        assert child.state_hash() == middle
    assert state.state_hash() == before


def test_RA_0_2_after_move_refuses_an_illegal_move_and_changes_nothing() -> None:
    state = random_station(3, 6, 1)
    before = state.state_hash()
    with pytest.raises(IllegalIntent, match="no Crew Tray 9"):
        after_move(state, MoveTray(0, 9, ((0, 0),), (0,), 0))
    with pytest.raises(IllegalIntent, match="not in seat 0's station"):
        after_move(state, MoveTray(0, 3, ((0, 0),), (0,), 0))
    assert state.state_hash() == before

"""Move generation is complete and exact on random stations (D-grid.10, RA).

Stations are grown through the real card-play intents; trays and standing cars are then put
on random Operational Rail. Every listed Move must apply; every other candidate Move (all
short paths over the six neighbour directions, with small drop and push counts) must be
refused with IllegalIntent, leaving the state unchanged.
"""

from __future__ import annotations

from itertools import product

from conftest import brute_force_placements
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments.bench.stations import random_station
from sm_env.core.cars import ENGINE, N_CAR_CODES
from sm_env.core.catalogue import CardKind
from sm_env.core.errors import IllegalIntent
from sm_env.core.grid import END_OFFSET, placements_by_card
from sm_env.core.intents import MoveTray
from sm_env.core.phases import Phase
from sm_env.core.rng import Rng
from sm_env.core.state import GameState
from sm_env.core.switching import list_moves


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


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), placements=st.integers(2, 14), trays=st.integers(1, 3))
def test_D_grid_10_listed_moves_are_exactly_the_legal_ones(seed: int, placements: int, trays: int) -> None:
    state = random_station(seed, placements, trays)
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

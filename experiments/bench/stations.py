"""Random stations for benchmarks and property tests.

A station is grown through the real card-play intents (random legal ``PlaceCard``s), then
Crew Trays and standing cars are put on random Operational Rail by hand: busier stations than
trains bring in ordinary play, at once. The trays are bare engines with no train card, which
only the switching code may see, and the cars come from no yard: the hand edits leave the
rules on purpose, so they are position edits that drop the caches but check nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from sm_env.core import (
    ENGINE,
    N_CAR_CODES,
    Catalogue,
    ChooseSwitch,
    GameConfig,
    GameState,
    Phase,
    PlaceCard,
    Rng,
    edit,
    geometry_for,
    new_game,
)

TRACK_IDS = ("straight", "straight-plain", "turnout-right", "turnout-left", "junction", "turnout-left-plain")


def random_station(
    seed: int,
    placements: int,
    trays: int,
    cars_per_tray: int | None = None,
    catalogue: Catalogue | None = None,
    track_ids: Sequence[str] = TRACK_IDS,
) -> GameState:
    """A one-office game in the switching step. One placement in five tries a Freight House,
    the others one of ``track_ids`` (cards of ``catalogue``, the packaged one by default);
    each tray gets ``cars_per_tray`` cars (random 0-4 when None) around its engine; a third
    of the other wheel cards get 1-3 standing cars."""
    rng = Rng(seed)
    state = new_game(GameConfig(offices=1, days=1), seed=seed, catalogue=catalogue)
    cat = state.catalogue
    with edit(state, check=None):
        state.phase = Phase.CARD_PLAY
    for _ in range(placements):
        card = cat.by_id[track_ids[rng.below(len(track_ids))]] if rng.below(5) else cat.by_id["freight-house"]
        with edit(state, check=None):
            state.hands[0] = [card]
        options = [i for i in state.legal_intents() if isinstance(i, PlaceCard)]
        if options:
            state.apply(options[rng.below(len(options))])
    with edit(state, check=None):
        state.hands[0] = []
        geo = geometry_for(cat)
        station = state.stations[0]
        wheel_cells = sorted(cell for cell, (card, _) in station.grid.items() if geo.wheel[card])
        rng.shuffle(wheel_cells)
        codes = [c for c in range(N_CAR_CODES) if cat.car_supply()[c]]
        for index in range(min(trays, len(wheel_cells))):
            count = rng.below(5) if cars_per_tray is None else cars_per_tray
            cars = [codes[rng.below(len(codes))] for _ in range(count)]
            cars.insert(rng.below(len(cars) + 1), ENGINE)
            tray = state.trays[index]
            tray.office, tray.cell, tray.consist, tray.facing = (
                0,
                wheel_cells.pop(),
                tuple(cars),
                1 - 2 * rng.below(2),
            )
        for cell in wheel_cells:
            if cell != (0, 0) and rng.below(3) == 0:
                station.cars[cell] = tuple(codes[rng.below(len(codes))] for _ in range(1 + rng.below(3)))
        state.phase = Phase.LOCAL_OPS
    state.apply(ChooseSwitch(0))
    return state

"""Observations: a fixed-size float32 vector of what one seat may see (docs/observations.md).

Everything on the table is public except the other seats' hands (only their sizes are shown)
and the order of the Home Office deck (only its size). Seats are listed relative to the viewer
(the viewer first, then leftward), so one policy can play any seat. Values lie in [-1, 1]:
counts are divided by a fixed scale and clipped.

``ObservationEncoder.sections`` names every slice; the station part is ``n`` stations, each
its owner and control point (``n + 1`` values) and then its 55 cells (``CELLS``: 5 rows of 11,
row-major from the south-west corner) of ``cell_features`` channels each, so a station's cells
reshape to ``(5, 11, cell_features)`` for a convolutional network.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sm_env.actions import ActionTable
from sm_env.core import (
    CARGO_TYPES,
    CELLS,
    DEPARTMENTS,
    EMPTY,
    ENGINE,
    FLIPPED,
    MAX_TRAY_CARS,
    N_CAR_CODES,
    OFFICE_CELL,
    STAGES_PER_DAY,
    WORK_SLOTS,
    CardKind,
    Catalogue,
    GameConfig,
    GameState,
    Phase,
    Station,
    capacity_bonus,
    car_type,
    geometry_for,
    is_locked,
    workers,
)
from sm_env.layout import CELL_INDEX, lay_out

if TYPE_CHECKING:
    from sm_env.moves import MoveBuilder

TRAIN_NUMBERS = 12
MAX_REGIONS = 4
CONSIST_SLOTS = MAX_TRAY_CARS + 1  # the cars and the engine
CONSIST_VALUES = N_CAR_CODES + 2  # empty slot, engine, each car code
GRID_KINDS = (CardKind.OFFICE, CardKind.LIMITS, CardKind.TRACK, CardKind.FACILITY, CardKind.MODIFIER)
REVENUE_SCALE = 50.0


class ObservationEncoder:
    """Lays out and fills the observation vector of one configuration."""

    def __init__(self, config: GameConfig, catalogue: Catalogue, table: ActionTable) -> None:
        self.config = config
        self.catalogue = catalogue
        self.geo = geometry_for(catalogue)
        self.n = n = config.offices
        self.trays = table.trays
        cards = len(catalogue.cards)
        self.grid_cards = [c.index for c in catalogue.cards if c.kind in GRID_KINDS]
        self.grid_class = {card: i for i, card in enumerate(self.grid_cards)}
        self.extras = catalogue.of_kind(CardKind.EXTRA_TRAIN)
        self.train_numbers = {c.index: c.train.number for c in catalogue.cards if c.train is not None}
        self.phases = list(Phase)
        g = len(self.grid_cards)
        # per-cell channels: card class, rotated, ends (6), wheel, standing cars per code,
        # flipped standing cars, trays here, green box per type, red box per type, MEN|AT|WORK
        # (type one-hot + unloading per slot), workers, workers used, locked, capacity bonus
        self.cell_layout = {
            "card": (0, g),
            "rotated": (g, 1),
            "ends": (g + 1, 6),
            "wheel": (g + 7, 1),
            "cars": (g + 8, N_CAR_CODES),
            "flipped": (g + 8 + N_CAR_CODES, 1),
            "trays": (g + 9 + N_CAR_CODES, 1),
            "green": (g + 10 + N_CAR_CODES, len(CARGO_TYPES)),
            "red": (g + 10 + N_CAR_CODES + len(CARGO_TYPES), len(CARGO_TYPES)),
            "work": (g + 10 + N_CAR_CODES + 2 * len(CARGO_TYPES), WORK_SLOTS * (len(CARGO_TYPES) + 1)),
        }
        tail = g + 10 + N_CAR_CODES + 2 * len(CARGO_TYPES) + WORK_SLOTS * (len(CARGO_TYPES) + 1)
        self.cell_layout |= {
            "workers": (tail, 1),
            "used": (tail + 1, 1),
            "locked": (tail + 2, 1),
            "bonus": (tail + 3, 1),
        }
        self.cell_features = tail + 4
        self._planes: dict[int, tuple[tuple[int, int], np.ndarray]] = {}
        # The static channels of each card, as printed and turned: class, rotated, ends, wheel.
        self.card_rows = np.zeros((len(catalogue.cards), 2, g + 8), dtype=np.float32)
        for card in self.grid_cards:
            for rotated in (0, 1):
                row = self.card_rows[card, rotated]
                row[self.grid_class[card]] = 1.0
                row[g] = rotated
                ends = self.geo.ends[card][rotated]
                for end in range(6):
                    row[g + 1 + end] = ends >> end & 1
                row[g + 7] = self.geo.wheel[card]
        tray_features = (
            1 + TRAIN_NUMBERS + 1 + 2 + 1 + (n + 1) + MAX_REGIONS + n + len(CELLS) + 1
            + CONSIST_SLOTS * (CONSIST_VALUES + 1)
        )  # fmt: skip
        sizes = [
            ("clock", 2 + STAGES_PER_DAY),
            ("phase", len(self.phases)),
            ("seats", n * (4 + n)),
            ("hand", cards),
            ("departments", DEPARTMENTS * (cards + 1)),
            ("decks", 1 + cards),
            ("timetable", STAGES_PER_DAY * TRAIN_NUMBERS),
            ("held", TRAIN_NUMBERS),
            ("extras", len(self.extras) * (1 + n)),
            ("yards", 2 * N_CAR_CODES),
            ("trays", self.trays * tray_features),
            ("stations", n * (n + 1 + len(CELLS) * self.cell_features)),
            ("move", 2 + self.trays + len(CELLS)),
            ("decision", 2 + 4 * self.trays),
        ]
        self.sections, self.size = lay_out(sizes)
        self.tray_features = tray_features

    # ------------------------------------------------------------------ encoding

    def encode(self, state: GameState, seat: int, builder: MoveBuilder | None, out: np.ndarray) -> np.ndarray:
        """Fill ``out`` (length ``size``) with what ``seat`` sees.

        The values are gathered in a dict (index -> value; counts add up), clipped to [-1, 1]
        and written with one fancy assignment: far fewer numpy calls than one by one. The
        cards' own channels come from a cached plane per station.
        """
        v: dict[int, float] = {}
        n = self.n
        sec = self.sections
        rel = [(seat + r) % n for r in range(n)]  # seats from the viewer leftward
        rel_of = {s: r for r, s in enumerate(rel)}

        o = sec["clock"].start
        v[o] = state.day / max(1, self.config.days)
        v[o + 1] = state.stages_played / (STAGES_PER_DAY * self.config.days)
        v[o + 2 + state.stage] = 1.0
        v[sec["phase"].start + self.phases.index(state.phase)] = 1.0

        o = sec["seats"].start
        current = state.current_player()
        for r, s in enumerate(rel):
            base = o + r * (4 + n)
            v[base] = float(s == state.fedora)
            v[base + 1] = float(s == current)
            v[base + 2] = state.revenue_by_seat[s] / REVENUE_SCALE
            v[base + 3] = len(state.hands[s]) / 5
            v[base + 4 + state.office_of_seat[s]] = 1.0

        o = sec["hand"].start
        for card in state.hands[seat]:
            v[o + card] = v.get(o + card, 0.0) + 0.25
        o = sec["departments"].start
        cards = len(self.catalogue.cards)
        for d, dept in enumerate(state.departments):
            base = o + d * (cards + 1)
            if dept:
                v[base + dept[-1]] = 1.0
            v[base + cards] = len(dept) / 10
        o = sec["decks"].start
        v[o] = len(state.home_office) / 72
        for card in state.salvage:
            v[o + 1 + card] = v.get(o + 1 + card, 0.0) + 1 / 3

        numbers = self.train_numbers
        o = sec["timetable"].start
        for slot, card in enumerate(state.timetable):
            if card != EMPTY:
                v[o + slot * TRAIN_NUMBERS + numbers[card] - 1] = 1.0
        o = sec["held"].start
        for card in state.held:
            v[o + numbers[card] - 1] = 1.0
        o = sec["extras"].start
        for card, owner in state.pending_extras:
            base = o + self.extras.index(card) * (1 + n)
            v[base] = 1.0
            v[base + 1 + rel_of[owner]] = 1.0

        o = sec["yards"].start
        for code, count in enumerate(state.division):
            if count:
                v[o + code] = count / 8
        for code, count in enumerate(state.classification):
            if count:
                v[o + N_CAR_CODES + code] = count / 8

        self._encode_trays(state, v)

        o = sec["move"].start
        if builder is not None and builder.started:
            v[o] = 1.0
            v[o + 1] = (len(builder.tokens) - 1) / 10
            v[o + 2 + builder.tray] = 1.0
            if builder.cell is not None and builder.cell in CELL_INDEX:
                v[o + 2 + self.trays + CELL_INDEX[builder.cell]] = 1.0

        o = sec["decision"].start
        v[o] = state.moves_left / 6
        v[o + 1] = float(state.build_owner == seat)
        t = self.trays
        if state.building != EMPTY:
            v[o + 2 + state.building] = 1.0
        if state.phase is Phase.CLEARANCE and state.mainline_queue:
            v[o + 2 + t + state.mainline_queue[0]] = 1.0
        if state.collision is not None:
            v[o + 2 + 2 * t + state.collision.mover] = 1.0
            if state.collision.struck != EMPTY:
                v[o + 2 + 3 * t + state.collision.struck] = 1.0

        out.fill(0.0)
        self._encode_stations(state, rel_of, v, out)  # writes the static card rows directly
        values = np.fromiter(v.values(), dtype=np.float32, count=len(v))
        out[np.fromiter(v.keys(), dtype=np.intp, count=len(v))] = np.clip(values, -1.0, 1.0, out=values)
        return out

    def _card_plane(self, office: int, station: Station) -> np.ndarray:
        """The static channels of a station's cells, cached: cards are only ever added to a
        grid or the office replaced, so the grid's size and office card tell its state."""
        key = (len(station.grid), station.grid[OFFICE_CELL][0])
        cached = self._planes.get(office)
        if cached is not None and cached[0] == key:
            return cached[1]
        plane = np.zeros((len(CELLS), self.card_rows.shape[2]), dtype=np.float32)
        for cell, (card, rotated) in station.grid.items():
            plane[CELL_INDEX[cell]] = self.card_rows[card, int(rotated)]
        self._planes[office] = (key, plane)
        return plane

    def reset_cache(self) -> None:
        """Forget the cached card planes (a new game begins)."""
        self._planes.clear()

    def _encode_trays(self, state: GameState, v: dict[int, float]) -> None:
        n = self.n
        numbers = self.train_numbers
        for i, tray in enumerate(state.trays):
            if tray.train == EMPTY:
                continue
            base = self.sections["trays"].start + i * self.tray_features
            v[base] = 1.0
            v[base + numbers[tray.train]] = 1.0  # numbers 1..12 at offsets 1..12
            b = base + 1 + TRAIN_NUMBERS
            v[b] = float(tray.train in self.extras)
            v[b + 1] = float(tray.direction > 0)
            v[b + 2] = float(tray.direction < 0)
            v[b + 3] = float(tray.at_dp)
            b += 4
            if tray.line != EMPTY:
                v[b + tray.line] = 1.0
                v[b + n + 1 + tray.region] = 1.0
            b += n + 1 + MAX_REGIONS
            if tray.office != EMPTY and tray.cell is not None:
                v[b + tray.office] = 1.0
                v[b + n + CELL_INDEX[tray.cell]] = 1.0
            b += n + len(CELLS)
            v[b] = tray.split / 4
            b += 1
            for k, code in enumerate(tray.consist[:CONSIST_SLOTS]):
                slot = b + k * (CONSIST_VALUES + 1)
                if code == ENGINE:
                    v[slot + 1] = 1.0
                else:
                    v[slot + 2 + (code & ~FLIPPED)] = 1.0
                    if code & FLIPPED:
                        v[slot + CONSIST_VALUES] = 1.0

    def _encode_stations(
        self, state: GameState, rel_of: dict[int, int], v: dict[int, float], out: np.ndarray
    ) -> None:
        n = self.n
        layout = self.cell_layout
        cf = self.cell_features
        per_station = n + 1 + len(CELLS) * cf
        start = self.sections["stations"].start
        width = self.card_rows.shape[2]
        cars_at, flipped_at, trays_at = layout["cars"][0], layout["flipped"][0], layout["trays"][0]
        # The office whose Cargo turn it is: its workers' use this Stage shows.
        working_office = state.office_of_seat[state.current_player()] if state.phase is Phase.CARGO else EMPTY
        for office, station in enumerate(state.stations):
            base = start + office * per_station
            v[base + rel_of[state.seat_of_office[office]]] = 1.0
            v[base + n] = float(state.is_control_point(office))
            cells = base + n + 1
            out[cells : cells + len(CELLS) * cf].reshape(len(CELLS), cf)[:, :width] = self._card_plane(
                office, station
            )
            for cell, cars in station.cars.items():
                c = cells + CELL_INDEX[cell] * cf
                for code in cars:
                    i = c + cars_at + (code & ~FLIPPED)
                    v[i] = v.get(i, 0.0) + 0.25
                    if code & FLIPPED:
                        v[c + flipped_at] = v.get(c + flipped_at, 0.0) + 0.25
            for cell, boxes in station.boxes.items():
                c = cells + CELL_INDEX[cell] * cf
                for code in boxes.outbound:
                    i = c + layout["green"][0] + car_type(code)
                    v[i] = v.get(i, 0.0) + 1 / 3
                for code in boxes.inbound:
                    i = c + layout["red"][0] + car_type(code)
                    v[i] = v.get(i, 0.0) + 1 / 3
                w = c + layout["work"][0]
                for slot, code in enumerate(boxes.work):
                    if code != EMPTY:
                        v[w + slot * (len(CARGO_TYPES) + 1) + car_type(code)] = 1.0
                        v[w + slot * (len(CARGO_TYPES) + 1) + len(CARGO_TYPES)] = float(boxes.unloading[slot])
                if is_locked(station, cell):
                    v[c + layout["locked"][0]] = 1.0
                v[c + layout["workers"][0]] = workers(state, station, cell) / 4
                v[c + layout["bonus"][0]] = capacity_bonus(state, station, cell) / 2
                if office == working_office:
                    v[c + layout["used"][0]] = state.workers_used.get(cell, 0) / 4
            for tray in state.trays:
                if tray.office == office and tray.cell is not None:
                    i = cells + CELL_INDEX[tray.cell] * cf + trays_at
                    v[i] = v.get(i, 0.0) + 1 / 3


__all__ = ["ObservationEncoder"]

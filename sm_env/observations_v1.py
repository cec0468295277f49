"""The v1 observation: a compact float32 vector of everything one seat may see
(docs/observations.md, "v1").

v0 gave every station 55 cells of 76 channels, almost all zeros. v1 lists only what is there:
the cards laid on the station grids, the groups of cars standing on them and the facilities'
boxes, each as a slot of a fixed budget (``ObservationEncoderV1.budgets``), beside the Division,
the timetable, the yards, the trays, the hand, revenue, the clock and the tokens of the decision
being spelled. Seats are relative to the viewer (the viewer first, then leftward); offices are
west to east. Values lie in [-1, 1]. Counts are divided by a scale no count can pass (the number
of cars, of cards, ...), so nothing is clipped, and a station cell is its row / 2 and column / 5.

``encode`` writes into a caller's array: it fills the vector with zeros and sets the few
non-zero values with one scatter; the card slots, which change only when a card is laid, an
office upgraded or a Modifier used, come from a cache.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sm_env.actions_v1 import TokenTable
from sm_env.core.cargo import capacity_bonus, workers
from sm_env.core.cars import ENGINE, FLIPPED, N_CAR_CODES
from sm_env.core.catalogue import CardKind, Catalogue
from sm_env.core.config import GameConfig
from sm_env.core.grid import COL_LIMIT, END_OFFSET, ROW_LIMIT, geometry_for, is_locked, limits_cols
from sm_env.core.phases import Phase
from sm_env.core.pieces import EMPTY, OFFICE_CELL, WORK_SLOTS
from sm_env.core.registry import CARGO_TYPES
from sm_env.core.state import DEPARTMENTS, STAGES_PER_DAY, GameState
from sm_env.core.switching import MAX_TRAY_CARS
from sm_env.observations import lay_out

if TYPE_CHECKING:
    from sm_env.actions_v1 import Speller

TRAIN_NUMBERS = 12
MAX_REGIONS = 4
CONSIST_SLOTS = MAX_TRAY_CARS + 1  # four cars and the engine
CAR_KINDS = N_CAR_CODES // 2  # coach, boxcar, hopper, reefer, tank, caboose
CAR_FEATURES = 3 + CAR_KINDS  # present, type one-hot, loaded, flipped
STANDING = 4  # D-grid.8: cars standing on one card
REVENUE_SCALE = 100.0
CARS_SCALE = 80.0  # C-stock.2: the cars of the game
CARDS_SCALE = 128.0  # more than the card copies of the game
PATH_COLS = 2 * COL_LIMIT + 1


def budgets(offices: int, layable: int) -> tuple[int, int, int]:
    """(card slots, car-group slots, box slots) for ``offices`` offices and ``layable`` copies
    of track, facility and Modifier cards in the game. Cards: 10 + 8 per office, at most every
    copy there is (so never short from 5 offices on); car groups: 3 + 2 per office; boxes: 3 per
    office. More than twice what random games of three days reach (docs/observations.md)."""
    return min(layable, 10 + 8 * offices), 3 + 2 * offices, 3 * offices


class ObservationEncoderV1:
    """Lays out and fills the v1 observation vector of one configuration."""

    def __init__(self, config: GameConfig, catalogue: Catalogue, table: TokenTable) -> None:
        self.config = config
        self.catalogue = catalogue
        self.table = table
        self.geo = geometry_for(catalogue)
        self.n = n = config.offices
        self.trays = t = table.trays
        cards = len(catalogue.cards)
        self.cards_n = cards
        self.layable = [
            c.index
            for c in catalogue.cards
            if c.kind in (CardKind.TRACK, CardKind.FACILITY, CardKind.MODIFIER)
        ]
        self.layable_class = {card: i for i, card in enumerate(self.layable)}
        self.offices = catalogue.of_kind(CardKind.OFFICE)
        self.mainline_kinds = {card: i for i, card in enumerate(catalogue.of_kind(CardKind.MAINLINE))}
        self.office_class = {card: i for i, card in enumerate(self.offices)}
        self.extras = list(catalogue.of_kind(CardKind.EXTRA_TRAIN))
        self.extra_index = {card: i for i, card in enumerate(self.extras)}
        self.train_numbers = {c.index: c.train.number for c in catalogue.cards if c.train is not None}
        self.phase_index = {phase: i for i, phase in enumerate(Phase)}
        copies = sum(catalogue.cards[c].count for c in self.layable)
        self.budgets = self.card_slots, self.car_slots, self.box_slots = budgets(n, copies)
        self.heads = [
            name for name in self.table.blocks if name in table.two_token_heads or name == "move_tray"
        ]
        self.head_offset: dict[str, int] = {}
        heads = 0
        for name in self.heads:
            self.head_offset[name] = heads
            heads += self.table.blocks[name].size
        self.tray_features = (
            1 + TRAIN_NUMBERS + 1 + 2 + 1 + (n + 1) + MAX_REGIONS + n + 2 + 1 + 1 + n
            + CONSIST_SLOTS * (CAR_FEATURES + 1)
        )  # fmt: skip
        self.card_features = n + 2 + len(self.layable) + 1 + 3
        self.car_features = n + 2 + STANDING * CAR_FEATURES
        self.box_features = n + 2 + 2 * len(CARGO_TYPES) + WORK_SLOTS * (len(CARGO_TYPES) + 2) + 4
        self.station_features = n + 1 + len(self.offices) + 2
        sizes = [
            ("clock", 2 + STAGES_PER_DAY),
            ("phase", len(Phase)),
            ("seats", n * (4 + n)),
            ("hand", cards),
            ("departments", DEPARTMENTS * (2 * cards + 1)),
            ("decks", 1 + cards),
            ("set_aside", cards),
            ("mainline", (n + 1) * len(self.mainline_kinds)),
            ("timetable", STAGES_PER_DAY * TRAIN_NUMBERS),
            ("held", TRAIN_NUMBERS),
            ("extras", len(self.extras) * (2 + n)),
            ("yards", 2 * N_CAR_CODES),
            ("trays", t * self.tray_features),
            ("stations", n * self.station_features),
            ("cards", self.card_slots * self.card_features),
            ("cars", self.car_slots * self.car_features),
            ("boxes", self.box_slots * self.box_features),
            ("overflow", 3),
            ("decision", 2 + n + 4 * t + 2 * n + 2),
            ("prefix", 2 + heads + 3 * PATH_COLS + 2),
        ]
        self.sections, self.size = lay_out(sizes)
        self._o = {name: s.start for name, s in self.sections.items()}
        self._card_cache: tuple[object, np.ndarray, np.ndarray, int] | None = None
        self._table_cache: dict[int, tuple[object, np.ndarray, np.ndarray]] = {}
        self._deck_cache: tuple[object, np.ndarray, np.ndarray] | None = None
        self._workers: dict[tuple[int, tuple[int, int]], tuple[float, float]] = {}

    def reset_cache(self) -> None:
        """Forget the cached parts (a new game begins)."""
        self._card_cache = None
        self._table_cache.clear()
        self._deck_cache = None
        self._workers.clear()

    # ------------------------------------------------------------------ encoding

    def encode(self, state: GameState, seat: int, speller: Speller | None, out: np.ndarray) -> np.ndarray:
        """Fill ``out`` (float32, length ``size``) with what ``seat`` sees; ``speller`` is the
        decision being spelled when ``seat`` is spelling one, else None."""
        idx: list[int] = []
        val: list[float] = []
        put_i, put_v = idx.append, val.append
        o = self._o
        n = self.n
        rel = [(seat + r) % n for r in range(n)]
        rel_of = [0] * n
        for r, s in enumerate(rel):
            rel_of[s] = r
        days = self.config.days

        # clock, phase
        c = o["clock"]
        idx += (c, c + 1, c + 2 + state.stage, o["phase"] + self.phase_index[state.phase])
        val += (state.day / max(1, days), state.stages_played / (STAGES_PER_DAY * days), 1.0, 1.0)

        # seats, the viewer first
        c = o["seats"]
        current = state.current_player()
        width = 4 + n
        for r, s in enumerate(rel):
            base = c + r * width
            if s == state.fedora:
                put_i(base)
                put_v(1.0)
            if s == current:
                put_i(base + 1)
                put_v(1.0)
            revenue = state.revenue_by_seat[s]
            if revenue:
                put_i(base + 2)
                put_v(max(-1.0, min(1.0, revenue / REVENUE_SCALE)))
            if state.hands[s]:
                put_i(base + 3)
                put_v(len(state.hands[s]) / 10)
            put_i(base + 4 + state.office_of_seat[s])
            put_v(1.0)

        # the hand, Departments, decks, timetable, Extras, yards: cached while they stay
        c = o["hand"]
        hand: dict[int, float] = {}
        for card in state.hands[seat]:
            hand[c + card] = hand.get(c + card, 0.0) + 0.125
        idx += hand.keys()
        val += hand.values()
        key_a = (
            tuple(map(tuple, state.departments)),
            tuple(state.salvage),
            len(state.home_office),
            tuple(state.set_aside),
        )
        part = self._deck_cache
        if part is None or part[0] != key_a:
            part = self._deck_cache = (key_a, *_arrays(*self._deck_parts(state)))
        fixed = [part[1:]]
        key_b = (tuple(state.timetable), tuple(state.held), tuple(state.pending_extras))
        part = self._table_cache.get(seat)
        if part is None or part[0] != key_b:
            part = self._table_cache[seat] = (key_b, *_arrays(*self._schedule_parts(state, rel_of)))
        fixed.append(part[1:])
        c = o["yards"]
        for code, count in enumerate(state.division):
            if count:
                put_i(c + code)
                put_v(count / CARS_SCALE)
        c += N_CAR_CODES
        for code, count in enumerate(state.classification):
            if count:
                put_i(c + code)
                put_v(count / CARS_SCALE)

        self._trays(state, rel_of, idx, val)
        fixed.append(self._stations(state, rel_of, idx, val))
        self._decision(state, seat, rel_of, speller, idx, val)

        out.fill(0.0)
        out[idx] = val
        for where, what in fixed:
            out[where] = what
        return out

    def _deck_parts(self, state: GameState) -> tuple[list[int], list[float]]:
        """The Departments, the Home Office and Salvage Yard, the set-aside cards, the Mainline."""
        idx: list[int] = []
        val: list[float] = []
        put_i, put_v = idx.append, val.append
        o = self._o
        cards = self.cards_n
        counts: dict[int, float] = {}
        c = o["departments"]
        for d, dept in enumerate(state.departments):
            base = c + d * (2 * cards + 1)
            if dept:
                put_i(base + dept[-1])
                put_v(1.0)
                for card in dept[:-1]:
                    k = base + cards + card
                    counts[k] = counts.get(k, 0.0) + 1 / 16
                put_i(base + 2 * cards)
                put_v(len(dept) / CARDS_SCALE)
        c = o["decks"]
        if state.home_office:
            put_i(c)
            put_v(len(state.home_office) / CARDS_SCALE)
        for card in state.salvage:
            counts[c + 1 + card] = counts.get(c + 1 + card, 0.0) + 1 / 16
        c = o["set_aside"]
        for card in state.set_aside:
            counts[c + card] = counts.get(c + card, 0.0) + 1 / 16
        idx += counts.keys()
        val += counts.values()
        c = o["mainline"]
        kinds = len(self.mainline_kinds)
        for line, card in enumerate(state.mainline):
            put_i(c + line * kinds + self.mainline_kinds[card])
            put_v(1.0)

        return idx, val

    def _schedule_parts(self, state: GameState, rel_of: list[int]) -> tuple[list[int], list[float]]:
        """The timetable, the held trains, the Extras waiting (owners relative to the viewer)."""
        idx: list[int] = []
        val: list[float] = []
        put_i, put_v = idx.append, val.append
        o = self._o
        n = self.n
        numbers = self.train_numbers
        c = o["timetable"]
        for slot, card in enumerate(state.timetable):
            if card != EMPTY:
                put_i(c + slot * TRAIN_NUMBERS + numbers[card] - 1)
                put_v(1.0)
        c = o["held"]
        for card in state.held:
            put_i(c + numbers[card] - 1)
            put_v(1.0)
        c = o["extras"]
        for position, (card, owner) in enumerate(state.pending_extras):
            base = c + self.extra_index[card] * (2 + n)
            idx += (base, base + 1, base + 2 + rel_of[owner])
            val += (1.0, (position + 1) / len(self.extras), 1.0)
        return idx, val

    def _trays(self, state: GameState, rel_of: list[int], idx: list[int], val: list[float]) -> None:
        n = self.n
        put_i, put_v = idx.append, val.append
        numbers = self.train_numbers
        extras = self.extra_index
        start = self._o["trays"]
        width = self.tray_features
        for i, tray in enumerate(state.trays):
            if tray.train == EMPTY:
                continue
            base = start + i * width
            idx += (base, base + numbers[tray.train])
            val += (1.0, 1.0)
            b = base + 1 + TRAIN_NUMBERS
            if tray.train in extras:
                put_i(b)
                put_v(1.0)
            if tray.direction:
                put_i(b + (1 if tray.direction > 0 else 2))
                put_v(1.0)
            if tray.at_dp:
                put_i(b + 3)
                put_v(1.0)
            b += 4
            if tray.line != EMPTY:
                idx += (b + tray.line, b + n + 1 + tray.region)
                val += (1.0, 1.0)
            b += n + 1 + MAX_REGIONS
            if tray.office != EMPTY and tray.cell is not None:
                idx += (b + tray.office, b + n, b + n + 1)
                val += (1.0, tray.cell[0] / ROW_LIMIT, tray.cell[1] / COL_LIMIT)
            b += n + 2
            if tray.split:
                put_i(b)
                put_v(tray.split / STANDING)
            put_i(b + 1)
            put_v(float(tray.facing))
            if tray.cleared_by != EMPTY:
                put_i(b + 2 + rel_of[tray.cleared_by])
                put_v(1.0)
            b += 2 + n
            for k, code in enumerate(tray.consist[:CONSIST_SLOTS]):
                slot = b + k * (CAR_FEATURES + 1)
                if code == ENGINE:
                    put_i(slot + CAR_FEATURES)
                    put_v(1.0)
                else:
                    _car(code, slot, idx, val)

    def _stations(
        self, state: GameState, rel_of: list[int], idx: list[int], val: list[float]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The stations' dynamic values into ``idx``/``val``; returns the cached card slots."""
        n = self.n
        put_i, put_v = idx.append, val.append
        o = self._o
        width = self.station_features
        for office in range(n):
            put_i(o["stations"] + office * width + rel_of[state.seat_of_office[office]])
            put_v(1.0)

        # the offices, their Limits and the cards laid (cached: they change only when a card is
        # laid, an office upgraded or a Modifier used)
        key = tuple(
            (len(st.grid), st.grid[OFFICE_CELL][0], tuple(st.modifiers.values()), tuple(st.modifiers_used))
            for st in state.stations
        )
        cache = self._card_cache
        if cache is None or cache[0] != key:
            cards_idx, cards_val, short = self._cards(state)
            cache = self._card_cache = (key, *_arrays(cards_idx, cards_val), short)
            self._workers.clear()
        workers_of = self._workers
        overflow = [cache[3], 0, 0]

        # cars standing, west to east in each office
        slot, budget, width = 0, self.car_slots, self.car_features
        start = o["cars"]
        for office, station in enumerate(state.stations):
            if not station.cars:
                continue
            for cell in sorted(station.cars):
                cars = station.cars[cell]
                if not cars:
                    continue
                if slot == budget:
                    overflow[1] += 1
                    continue
                b = start + slot * width
                slot += 1
                idx += (b + office, b + n, b + n + 1)
                val += (1.0, cell[0] / ROW_LIMIT, cell[1] / COL_LIMIT)
                for k, code in enumerate(cars[:STANDING]):
                    _car(code, b + n + 2 + k * CAR_FEATURES, idx, val)

        # facility boxes
        slot, budget, width = 0, self.box_slots, self.box_features
        start = o["boxes"]
        types = len(CARGO_TYPES)
        working = state.office_of_seat[state.current_player()] if state.phase is Phase.CARGO else EMPTY
        for office, station in enumerate(state.stations):
            if not station.boxes:
                continue
            for cell in sorted(station.boxes):
                if slot == budget:
                    overflow[2] += 1
                    continue
                boxes = station.boxes[cell]
                b = start + slot * width
                slot += 1
                idx += (b + office, b + n, b + n + 1)
                val += (1.0, cell[0] / ROW_LIMIT, cell[1] / COL_LIMIT)
                counts: dict[int, float] = {}
                g = b + n + 2
                for code in boxes.outbound:
                    k = g + ((code & ~FLIPPED) >> 1)
                    counts[k] = counts.get(k, 0.0) + 0.125
                for code in boxes.inbound:
                    k = g + types + ((code & ~FLIPPED) >> 1)
                    counts[k] = counts.get(k, 0.0) + 0.125
                idx += counts.keys()
                val += counts.values()
                w = g + 2 * types
                for k, code in enumerate(boxes.work):
                    if code != EMPTY:
                        s = w + k * (types + 2)
                        idx += (s, s + 1 + ((code & ~FLIPPED) >> 1))
                        val += (1.0, 1.0)
                        if boxes.unloading[k]:
                            put_i(s + 1 + types)
                            put_v(1.0)
                t = w + WORK_SLOTS * (types + 2)
                idx += (t, t + 1)
                known = workers_of.get((office, cell))
                if known is None:
                    known = workers_of[office, cell] = (
                        workers(state, station, cell) / 8,
                        capacity_bonus(state, station, cell) / 8,
                    )
                val += known
                if is_locked(station, cell):
                    put_i(t + 2)
                    put_v(1.0)
                if office == working and state.workers_used.get(cell):
                    put_i(t + 3)
                    put_v(state.workers_used[cell] / 8)
        c = o["overflow"]
        for k, count in enumerate(overflow):
            if count:
                put_i(c + k)
                put_v(min(1.0, count / 8))
        return cache[1], cache[2]

    def _cards(self, state: GameState) -> tuple[list[int], list[float], int]:
        """Each station's office card and Limits, and the card slots: every laid card but the
        offices and the Limits, by office then cell."""
        n = self.n
        idx: list[int] = []
        val: list[float] = []
        width = self.station_features
        for office, station in enumerate(state.stations):
            base = self._o["stations"] + office * width
            idx.append(base + n + 1 + self.office_class[station.grid[OFFICE_CELL][0]])
            val.append(1.0)
            if state.is_control_point(office):
                idx.append(base + n)
                val.append(1.0)
            west, east = limits_cols(self.geo, station)
            b = base + n + 1 + len(self.offices)
            idx += (b, b + 1)
            val += (west / COL_LIMIT, east / COL_LIMIT)
        start = self._o["cards"]
        width = self.card_features
        classes = self.layable_class
        slot, overflow = 0, 0
        for office, station in enumerate(state.stations):
            for cell in sorted(station.grid):
                card, rotated = station.grid[cell]
                k = classes.get(card)
                if k is None:
                    continue  # the office and the Limits: in the station's own part
                if slot == self.card_slots:
                    overflow += 1
                    continue
                b = start + slot * width
                slot += 1
                idx += (b + office, b + n, b + n + 1, b + n + 2 + k)
                val += (1.0, cell[0] / ROW_LIMIT, cell[1] / COL_LIMIT, 1.0)
                m = b + n + 2 + len(self.layable)
                if rotated:
                    idx.append(m)
                    val.append(1.0)
                served = station.modifiers.get(cell)
                if served is not None:
                    idx += (m + 1, m + 2)
                    val += (float(served[0] - cell[0]), float(served[1] - cell[1]))
                    if cell in station.modifiers_used:
                        idx.append(m + 3)
                        val.append(1.0)
        return idx, val, overflow

    def _decision(
        self,
        state: GameState,
        seat: int,
        rel_of: list[int],
        speller: Speller | None,
        idx: list[int],
        val: list[float],
    ) -> None:
        n, t = self.n, self.trays
        put_i, put_v = idx.append, val.append
        c = self._o["decision"]
        if state.moves_left:
            put_i(c)
            put_v(state.moves_left / 6)
        if state.build_turn:
            put_i(c + 1)
            put_v(state.build_turn / 8)
        if state.build_owner != EMPTY:
            put_i(c + 2 + rel_of[state.build_owner])
            put_v(1.0)
        c += n
        if state.building != EMPTY:
            put_i(c + 2 + state.building)
            put_v(1.0)
        b = c + 2 + t
        collision = state.collision
        if collision is not None:
            put_i(b + collision.mover)
            put_v(1.0)
            if collision.struck != EMPTY:
                put_i(b + t + collision.struck)
                put_v(1.0)
            b2 = b + 2 * t
            if collision.office != EMPTY:
                put_i(b2 + collision.office)
                put_v(1.0)
            if collision.cell is not None:
                idx += (b2 + n, b2 + n + 1)
                val += (collision.cell[0] / ROW_LIMIT, collision.cell[1] / COL_LIMIT)
            if collision.seat != EMPTY:
                put_i(b2 + n + 2 + rel_of[collision.seat])
                put_v(1.0)
        q = b + 2 * t + 2 * n + 2
        for position, tray in enumerate(state.mainline_queue):
            put_i(q + tray)
            put_v((position + 1) / (t + 1))

        if speller is not None and speller.tokens:
            self._prefix(state, speller, idx, val)

    def refresh_prefix(self, state: GameState, speller: Speller | None, out: np.ndarray) -> None:
        """Rewrite only the ``prefix`` section of an encoding of this position (the tokens of
        the decision being spelled are all that changed)."""
        out[self.sections["prefix"]] = 0.0
        if speller is not None and speller.tokens:
            idx: list[int] = []
            val: list[float] = []
            self._prefix(state, speller, idx, val)
            out[idx] = val

    def _prefix(self, state: GameState, speller: Speller, idx: list[int], val: list[float]) -> None:
        p = self._o["prefix"]
        table = self.table
        tokens = speller.tokens
        head = tokens[0]
        name = table.block_name(head)
        idx += (p, p + 1, p + 2 + self.head_offset[name] + head - table.blocks[name].start)
        val += (1.0, len(tokens) / 12, 1.0)
        if name != "move_tray":
            return
        # A Move so far: the cards it has left behind, with the cars dropped on each.
        path = p + 2 + sum(table.blocks[h].size for h in self.heads)
        cell = state.trays[head - table.blocks["move_tray"].start].cell
        assert cell is not None
        step = table.blocks["move_step"]
        row, col = cell
        for token in tokens[1:]:
            drops, end = step.params(token)
            k = path + 3 * (col + COL_LIMIT)
            idx += (k, k + 1, k + 2)
            val += (1.0, row / ROW_LIMIT, drops / STANDING)
            dr, dc = END_OFFSET[end]
            row, col = row + dr, col + dc
        k = path + 3 * PATH_COLS
        idx += (k, k + 1)
        val += (row / ROW_LIMIT, col / COL_LIMIT)


def _arrays(idx: list[int], val: list[float]) -> tuple[np.ndarray, np.ndarray]:
    return np.array(idx, dtype=np.intp), np.array(val, dtype=np.float32)


def _car(code: int, slot: int, idx: list[int], val: list[float]) -> None:
    """One car at ``slot``: present, its type one-hot, loaded, flipped (R9.3.4)."""
    plain = code & ~FLIPPED
    idx += (slot, slot + 1 + (plain >> 1))
    val += (1.0, 1.0)
    if plain & 1:
        idx.append(slot + 1 + CAR_KINDS)
        val.append(1.0)
    if code & FLIPPED:
        idx.append(slot + 2 + CAR_KINDS)
        val.append(1.0)


__all__ = ["ObservationEncoderV1", "budgets"]

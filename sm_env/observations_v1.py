"""The v1 observation: a compact float32 vector of everything one seat may see
(docs/observations.md, "v1").

v0 gave every station 55 cells of 76 channels, almost all zeros. v1 lists only what is there:
the cards laid on the station grids, the groups of cars standing on them and the facilities'
boxes, each as a slot of a fixed budget (``ObservationEncoderV1.budgets``), beside the Division,
the timetable, the yards, the trays, the hand, revenue, the clock and the tokens of the decision
being spelled. Seats are relative to the viewer (the viewer first, then leftward); offices are
west to east. Values lie in [-1, 1]. Counts are divided by a scale no count can pass (the number
of cars, of cards, ...), so nothing is clipped, and a station cell is its row / 2 and column / 5.

``encode`` writes into a caller's array, in place. The encoder remembers the array it wrote
last and, for each part of it (each Department, the timetable, each tray, the card slots, each
box slot, ...), copies of the state that part was written from. Called again with that array, it
compares the state with them and rewrites only the parts that differ (a seat-relative part also
when the viewer changed); the clock, the seats and the hand, which change at almost every
decision, are rewritten each time. Any other array is zeroed and written whole, and is the one
remembered from then on. So between two calls the array last written must change only through
``refresh_prefix``; to give ``encode`` one changed otherwise, call ``reset_cache`` first. A call
that raises forgets the array. Single values are written through a memoryview (a third of the
cost of a numpy item assignment).

Each station's card slots and office values, which change only when a card is laid there, its
office is upgraded or a Modifier serves another facility or is used, are cached apart from any
array (as are its facilities' workers), keyed by a copy of its grid and Modifiers: comparing
those few small dicts costs less than building a shorter key, and a board of another game
cannot pass for the last one.
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING, cast

import numpy as np

from sm_env.actions_v1 import TokenTable
from sm_env.core import (
    CARGO_TYPES,
    COL_LIMIT,
    DEPARTMENTS,
    EMPTY,
    END_OFFSET,
    ENGINE,
    FLIPPED,
    MAX_TRAY_CARS,
    N_CAR_CODES,
    OFFICE_CELL,
    ROW_LIMIT,
    STAGES_PER_DAY,
    WORK_SLOTS,
    CardKind,
    Catalogue,
    Cell,
    GameConfig,
    GameState,
    Phase,
    Station,
    Tray,
    capacity_bonus,
    geometry_for,
    is_locked,
    limits_cols,
    workers,
)
from sm_env.layout import lay_out

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
        self._days, self._stages = max(1, config.days), STAGES_PER_DAY * config.days  # the clock's scales
        self._head_end = self.sections["hand"].stop  # clock, phase, seats and hand lead the vector
        self._seat_bases = [self._o["seats"] + r * (4 + n) for r in range(n)]
        self._department_bases = [self._o["departments"] + d * (2 * cards + 1) for d in range(DEPARTMENTS)]
        self._station_bases = [self._o["stations"] + office * self.station_features for office in range(n)]
        self._cleared_at = 1 + TRAIN_NUMBERS + 4 + n + 1 + MAX_REGIONS + n + 2 + 2  # in a tray's values
        self._rel = [[(seat + r) % n for r in range(n)] for seat in range(n)]  # relative -> seat
        self._rel_of = [[(s - seat) % n for s in range(n)] for seat in range(n)]  # seat -> relative
        self._station_cards: list[_StationCards | None] = [None] * n
        self._station_keys: list[object] = [None] * n  # what each of them was made for
        self._owners_layout: list[int] = []  # the seat of each office the next list is for
        self._owner_cells_of: list[list[int]] = []  # per viewer, where the stations' owners' ones go
        self._cards_made = 0  # counts the station cards made: the box slots' workers may change
        self._zeros = np.zeros(self.size, dtype=np.float32).data
        self._adopt(None)

    def __reduce__(
        self,
    ) -> tuple[type[ObservationEncoderV1], tuple[GameConfig, Catalogue, TokenTable]]:
        """A copy is a new encoder, whose caches start empty: its first call writes the whole
        array (pickles and copies, the compiled class too)."""
        return (ObservationEncoderV1, (self.config, self.catalogue, self.table))

    def reset_cache(self) -> None:
        """Forget the cached parts and what the last array holds (a new game begins)."""
        self._station_cards = [None] * self.n
        self._station_keys = [None] * self.n
        self._adopt(None)

    def __getstate__(self) -> dict[str, object]:
        """A copy or a pickle keeps the cached parts but not the array last written (a view of
        it cannot be copied): its first call writes the whole vector."""
        state = self.__dict__.copy()
        for name in ("_out", "_mv", "_zeros"):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._zeros = np.zeros(self.size, dtype=np.float32).data
        self._adopt(None)

    def _adopt(self, out: np.ndarray | None) -> None:
        """Make ``out`` the array the next calls update in place: zero it, every part unwritten."""
        self._out = out
        if out is not None:
            out.fill(0.0)
            self._mv = cast("memoryview[float]", out.data)  # writes one value in a third of numpy's time
            if self._zeros.format != self._mv.format:
                self._zeros = np.zeros(self.size, dtype=out.dtype).data
        # What ``out`` holds of each part: the state it was written from (None: nothing yet).
        self._departments_seen: list[list[int] | None] = [None] * DEPARTMENTS
        self._salvage_seen: list[int] | None = None
        self._set_aside_seen: list[int] | None = None
        self._mainline_seen: tuple[int, ...] | None = None
        self._schedule_seen: tuple[list[int], list[int], list[tuple[int, int]], int] | None = None
        self._division_seen: list[int] | None = None
        self._classification_seen: list[int] | None = None
        self._trays_seen: list[tuple[object, ...] | int] | None = None
        self._trays_seat = 0  # the viewer the trays' clearing seats are relative to
        self._trays_cleared: list[tuple[int, int]] = []  # per train cleared: (its one-hot, seat)
        self._owners_seen: tuple[int, list[int]] | None = None
        self._owner_cells: list[int] = []  # where the owners' ones are
        self._cards_written: list[tuple[_StationCards, int, int] | None] = [None] * self.n  # slot, count
        self._cards_end = 0  # the card slots written
        self._cards_shown = -1  # the value of _cards_made they show
        self._cars_seen: list[dict[Cell, tuple[int, ...]]] | None = None
        self._boxes_seen: tuple[object, ...] | None = None
        self._box_written: list[tuple[object, ...]] = []  # per box slot, what it shows
        self._decision_seen: tuple[object, ...] | None = None
        self._prefix_written = False

    # ------------------------------------------------------------------ encoding

    def encode(self, state: GameState, seat: int, speller: Speller | None, out: np.ndarray) -> np.ndarray:
        """Fill ``out`` (float32, length ``size``) with what ``seat`` sees; ``speller`` is the
        decision being spelled when ``seat`` is spelling one, else None."""
        if out is not self._out:
            self._adopt(out)
        try:
            self._update(state, seat, speller, out)
        except BaseException:
            self._out = None  # what it holds is unknown now: the next call writes it whole
            raise
        return out

    def _update(self, state: GameState, seat: int, speller: Speller | None, out: np.ndarray) -> None:
        """Rewrite in ``out``, the array last written, the parts that differ from ``state``."""
        mv = self._mv
        o = self._o
        rel_of = self._rel_of[seat]
        current = state.current_player()
        stations = state.stations

        # clock, phase, seats and hand change at almost every decision: rewritten each time
        head = self._head_end
        mv[:head] = self._zeros[:head]
        mv[0] = state.day / self._days
        mv[1] = state.stages_played / self._stages
        mv[2 + state.stage] = 1.0
        mv[o["phase"] + self.phase_index[state.phase]] = 1.0
        bases = self._seat_bases
        mv[bases[rel_of[state.fedora]]] = 1.0
        if current != -1:
            mv[bases[rel_of[current]] + 1] = 1.0
        revenue, hands, office_of_seat = state.revenue_by_seat, state.hands, state.office_of_seat
        for s, c in zip(self._rel[seat], bases, strict=True):
            if revenue[s]:
                mv[c + 2] = max(-1.0, min(1.0, revenue[s] / REVENUE_SCALE))
            if hands[s]:
                mv[c + 3] = len(hands[s]) / 10
            mv[c + 4 + office_of_seat[s]] = 1.0
        c = o["hand"]
        for card in hands[seat]:
            mv[c + card] += 0.125
        mv[o["decks"]] = len(state.home_office) / CARDS_SCALE

        # every other part is rewritten only when what it shows differs from what ``out`` holds
        if state.departments != self._departments_seen:
            self._put_departments(state.departments)
        if state.salvage != self._salvage_seen:
            self._put_salvage(state.salvage)
        if state.set_aside != self._set_aside_seen:
            self._put_set_aside(state.set_aside)
        if state.mainline != self._mainline_seen:
            self._put_mainline(state.mainline)
        extras = state.pending_extras
        schedule = (state.timetable, state.held, extras, seat if extras else EMPTY)
        if schedule != self._schedule_seen:
            self._put_schedule(schedule, rel_of)
        if state.division != self._division_seen:
            self._division_seen = self._put_yard(state.division, o["yards"])
        if state.classification != self._classification_seen:
            self._classification_seen = self._put_yard(state.classification, o["yards"] + N_CAR_CODES)
        trays = [
            _TRAY_FIELDS(t) if t.train != EMPTY else EMPTY for t in state.trays
        ]  # a free one shows nothing
        if trays != self._trays_seen:
            self._put_trays(state, trays, seat)
        elif seat != self._trays_seat:
            self._put_cleared(seat)
        owners = (seat, state.seat_of_office)
        if owners != self._owners_seen:
            self._put_owners(owners)
        keys = [(st.grid, st.modifiers, st.modifiers_used) for st in stations]
        if keys != self._station_keys:
            self._make_station_cards(state, keys)
        if self._cards_shown != self._cards_made:
            self._put_cards()
        if [st.cars for st in stations] != self._cars_seen:
            self._put_cars(stations)
        working = office_of_seat[current] if state.phase is Phase.CARGO else EMPTY
        # A facility's boxes come with its card, its workers with the station's cards.
        boxes = (
            [_BOX_FIELDS(b) for st in stations for b in st.boxes.values()],
            self._cards_made,
            working,
            state.workers_used if working != EMPTY else None,
        )
        if boxes != self._boxes_seen:
            self._put_boxes(state, working)
        owner, collision = state.build_owner, state.collision
        decision = (
            state.moves_left,
            state.build_turn,
            owner if owner == EMPTY else rel_of[owner],
            state.building,
            collision,
            seat if collision is not None else EMPTY,
            state.mainline_queue,
        )
        if decision != self._decision_seen:
            self._put_decision(state, rel_of, decision)
        if self._prefix_written or (speller is not None and speller.tokens):
            self.refresh_prefix(state, speller, out)

    def _zero(self, start: int, stop: int) -> None:
        self._mv[start:stop] = self._zeros[start:stop]

    def _put_departments(self, departments: list[list[int]]) -> None:
        """Each Department that changed: its top card, the counts of the cards under it, its
        size. A card laid on top or taken off moves one count (counts of 1/16 add exactly)."""
        mv = self._mv
        cards = self.cards_n
        seen = self._departments_seen
        for d, dept in enumerate(departments):
            was = seen[d]
            if dept == was:
                continue
            top = self._department_bases[d]
            if was and dept[:-1] == was:
                mv[top + was[-1]] = 0.0
                mv[top + cards + was[-1]] += 1 / 16
            elif was and dept and was[:-1] == dept:
                mv[top + was[-1]] = 0.0
                mv[top + cards + dept[-1]] -= 1 / 16
            else:
                self._zero(top, top + 2 * cards + 1)
                for card in dept[:-1]:
                    mv[top + cards + card] += 1 / 16
            if dept:
                mv[top + dept[-1]] = 1.0
            mv[top + 2 * cards] = len(dept) / CARDS_SCALE
            seen[d] = dept[:]

    def _put_salvage(self, salvage: list[int]) -> None:
        c = self._o["decks"] + 1
        self._zero(c, c + self.cards_n)
        self._put_counts(salvage, c)
        self._salvage_seen = salvage[:]

    def _put_set_aside(self, set_aside: list[int]) -> None:
        c = self._o["set_aside"]
        self._zero(c, c + self.cards_n)
        self._put_counts(set_aside, c)
        self._set_aside_seen = set_aside[:]

    def _put_counts(self, cards: list[int], start: int) -> None:
        mv = self._mv
        for card in cards:
            mv[start + card] += 1 / 16

    def _put_mainline(self, mainline: tuple[int, ...]) -> None:
        where = self.sections["mainline"]
        self._zero(where.start, where.stop)
        kinds = len(self.mainline_kinds)
        for line, card in enumerate(mainline):
            self._mv[where.start + line * kinds + self.mainline_kinds[card]] = 1.0
        self._mainline_seen = mainline

    def _put_schedule(
        self, schedule: tuple[list[int], list[int], list[tuple[int, int]], int], rel_of: list[int]
    ) -> None:
        """The timetable, the held trains, the Extras waiting (owners relative to the viewer)."""
        timetable, held, extras, seat = schedule
        mv = self._mv
        o = self._o
        self._zero(o["timetable"], self.sections["extras"].stop)
        numbers = self.train_numbers
        c = o["timetable"]
        for slot, card in enumerate(timetable):
            if card != EMPTY:
                mv[c + slot * TRAIN_NUMBERS + numbers[card] - 1] = 1.0
        c = o["held"]
        for card in held:
            mv[c + numbers[card] - 1] = 1.0
        c = o["extras"]
        for position, (card, owner) in enumerate(extras):
            base = c + self.extra_index[card] * (2 + self.n)
            mv[base] = 1.0
            mv[base + 1] = (position + 1) / len(self.extras)
            mv[base + 2 + rel_of[owner]] = 1.0
        self._schedule_seen = (timetable[:], held[:], extras[:], seat)

    def _put_yard(self, counts: list[int], start: int) -> list[int]:
        mv = self._mv
        for code, count in enumerate(counts):
            mv[start + code] = count / CARS_SCALE
        return counts[:]

    def _put_trays(self, state: GameState, trays: list[tuple[object, ...] | int], seat: int) -> None:
        """The trays whose fields changed; and the others' clearing seat, if the viewer changed."""
        mv = self._mv
        seen = self._trays_seen
        rel_of = self._rel_of[seat]
        was_of = self._rel_of[self._trays_seat]
        width = self.tray_features
        base = self._o["trays"]
        cleared = []
        for i, tray in enumerate(state.trays):
            shown = tray.train != EMPTY and tray.cleared_by != EMPTY
            if seen is None or trays[i] != seen[i]:
                self._zero(base, base + width)
                if tray.train != EMPTY:
                    self._put_tray(tray, base, rel_of)
            elif shown and seat != self._trays_seat:
                mv[base + self._cleared_at + was_of[tray.cleared_by]] = 0.0
                mv[base + self._cleared_at + rel_of[tray.cleared_by]] = 1.0
            if shown:
                cleared.append((base + self._cleared_at, tray.cleared_by))
            base += width
        self._trays_seen = trays
        self._trays_seat = seat
        self._trays_cleared = cleared

    def _put_cleared(self, seat: int) -> None:
        """Only the viewer changed: who cleared each train, relative to the new one."""
        mv = self._mv
        rel_of = self._rel_of[seat]
        was_of = self._rel_of[self._trays_seat]
        for c, cleared_by in self._trays_cleared:
            mv[c + was_of[cleared_by]] = 0.0
            mv[c + rel_of[cleared_by]] = 1.0
        self._trays_seat = seat

    def _put_tray(self, tray: Tray, base: int, rel_of: list[int]) -> None:
        mv = self._mv
        n = self.n
        mv[base] = 1.0
        mv[base + self.train_numbers[tray.train]] = 1.0
        b = base + 1 + TRAIN_NUMBERS
        if tray.train in self.extra_index:
            mv[b] = 1.0
        if tray.direction:
            mv[b + (1 if tray.direction > 0 else 2)] = 1.0
        if tray.at_dp:
            mv[b + 3] = 1.0
        b += 4
        if tray.line != EMPTY:
            mv[b + tray.line] = 1.0
            mv[b + n + 1 + tray.region] = 1.0
        b += n + 1 + MAX_REGIONS
        if tray.office != EMPTY and tray.cell is not None:
            mv[b + tray.office] = 1.0
            mv[b + n] = tray.cell[0] / ROW_LIMIT
            mv[b + n + 1] = tray.cell[1] / COL_LIMIT
        b += n + 2
        if tray.split:
            mv[b] = tray.split / STANDING
        mv[b + 1] = float(tray.facing)
        if tray.cleared_by != EMPTY:
            mv[b + 2 + rel_of[tray.cleared_by]] = 1.0
        b += 2 + n
        for code in tray.consist[:CONSIST_SLOTS]:
            for k in _ENGINE_CELLS if code == ENGINE else _car_cells(code):
                mv[b + k] = 1.0
            b += CAR_FEATURES + 1

    def _put_owners(self, owners: tuple[int, list[int]]) -> None:
        """Each station's owner, relative to the viewer."""
        seat, seat_of_office = owners
        if seat_of_office != self._owners_layout:  # seats changed offices (RB.3): other cells
            self._owners_layout = seat_of_office[:]
            self._owner_cells_of = [
                [c + rel_of[s] for c, s in zip(self._station_bases, seat_of_office, strict=True)]
                for rel_of in self._rel_of
            ]
        mv = self._mv
        for k in self._owner_cells:
            mv[k] = 0.0
        self._owner_cells = cells = self._owner_cells_of[seat]
        for k in cells:
            mv[k] = 1.0
        self._owners_seen = (seat, self._owners_layout)

    def _put_cards(self) -> None:
        """The stations' offices and Limits, and the card slots from the first that changed."""
        mv, out = self._mv, self._out
        assert out is not None
        written = self._cards_written
        width = self.card_features
        start = self._o["cards"]
        slot, short = 0, 0
        for office, own in enumerate(self._station_cards):
            assert own is not None
            was = written[office]
            if was is None or was[0] is not own:
                for k, _ in was[0].station_cells if was is not None else ():
                    mv[k] = 0.0
                for k, value in own.station_cells:
                    mv[k] = value
            count = min(len(own.block) // width, self.card_slots - slot)
            short += len(own.block) // width - count
            if was is None or was[0] is not own or was[1:] != (slot, count):
                b = start + slot * width
                out[b : b + count * width] = own.block[: count * width]
                written[office] = (own, slot, count)
            slot += count
        if slot < self._cards_end:
            self._zero(start + slot * width, start + self._cards_end * width)
        self._cards_end = slot
        self._put_overflow(0, short)
        self._cards_shown = self._cards_made

    def _put_overflow(self, k: int, count: int) -> None:
        self._mv[self._o["overflow"] + k] = min(1.0, count / 8)

    def _make_station_cards(
        self, state: GameState, keys: list[tuple[dict[Cell, tuple[int, bool]], dict[Cell, Cell], set[Cell]]]
    ) -> None:
        """Remake the cards of the stations whose key changed."""
        for office, key in enumerate(keys):
            if key != self._station_keys[office]:
                self._station_cards[office] = self._station_cards_of(state, office)
                self._station_keys[office] = (key[0].copy(), key[1].copy(), key[2].copy())
                self._cards_made += 1

    def _station_cards_of(self, state: GameState, office: int) -> _StationCards:
        """One station's office card, control point and Limits (as (index, value) pairs), and
        its laid cards but the offices and the Limits, in cell order, as card slots."""
        n = self.n
        station = state.stations[office]
        base = self._o["stations"] + office * self.station_features
        cells = [(base + n + 1 + self.office_class[station.grid[OFFICE_CELL][0]], 1.0)]
        if state.is_control_point(office):
            cells.append((base + n, 1.0))
        west, east = limits_cols(self.geo, station)
        b = base + n + 1 + len(self.offices)
        cells += ((b, west / COL_LIMIT), (b + 1, east / COL_LIMIT))
        classes = self.layable_class
        laid = [
            (cell, *station.grid[cell]) for cell in sorted(station.grid) if station.grid[cell][0] in classes
        ]
        width = self.card_features
        block = np.zeros(len(laid) * width, dtype=np.float32)
        put = cast("memoryview[float]", block.data)
        b = 0
        for cell, card, rotated in laid:
            put[b + office] = 1.0
            put[b + n] = cell[0] / ROW_LIMIT
            put[b + n + 1] = cell[1] / COL_LIMIT
            put[b + n + 2 + classes[card]] = 1.0
            m = b + n + 2 + len(self.layable)
            if rotated:
                put[m] = 1.0
            served = station.modifiers.get(cell)
            if served is not None:
                put[m + 1] = float(served[0] - cell[0])
                put[m + 2] = float(served[1] - cell[1])
                if cell in station.modifiers_used:
                    put[m + 3] = 1.0
            b += width
        return _StationCards(cells, block)

    def _put_cars(self, stations: list[Station]) -> None:
        """The groups of cars standing, west to east in each office."""
        where = self.sections["cars"]
        self._zero(where.start, where.stop)
        n = self.n
        mv = self._mv
        slot, budget, width = 0, self.car_slots, self.car_features
        overflow = 0
        for office, station in enumerate(stations):
            if not station.cars:
                continue
            for cell in sorted(station.cars):
                cars = station.cars[cell]
                if not cars:
                    continue
                if slot == budget:
                    overflow += 1
                    continue
                b = where.start + slot * width
                slot += 1
                mv[b + office] = 1.0
                mv[b + n] = cell[0] / ROW_LIMIT
                mv[b + n + 1] = cell[1] / COL_LIMIT
                b += n + 2
                for code in cars[:STANDING]:
                    for k in _car_cells(code):
                        mv[b + k] = 1.0
                    b += CAR_FEATURES
        self._put_overflow(1, overflow)
        self._cars_seen = [station.cars.copy() for station in stations]

    def _put_boxes(self, state: GameState, working: int) -> None:
        """The box slots whose facility shows something else: its cell, loads, the MEN|AT|WORK
        track, workers, lock, the workers it used this Cargo turn."""
        written = self._box_written
        slot, width = 0, self.box_features
        start = self._o["boxes"]
        overflow = 0
        for office, station in enumerate(state.stations):
            if not station.boxes:
                continue
            own = self._station_cards[office]
            assert own is not None
            for cell in sorted(station.boxes):
                if slot == self.box_slots:
                    overflow += 1
                    continue
                boxes = station.boxes[cell]
                known = own.workers.get(cell)
                if known is None:
                    known = own.workers[cell] = (
                        workers(state, station, cell) / 8,
                        capacity_bonus(state, station, cell) / 8,
                    )
                used = state.workers_used.get(cell) if office == working else None
                shown = (office, cell, *_BOX_FIELDS(boxes), known, used)
                if slot == len(written):
                    written.append(())
                if written[slot] != shown:
                    b = start + slot * width
                    self._zero(b, b + width)
                    self._put_box(station, office, cell, b, known, used)
                    written[slot] = (
                        office, cell, boxes.outbound[:], boxes.inbound[:], boxes.work[:], boxes.unloading[:],
                        known, used,
                    )  # fmt: skip
                slot += 1
        if slot < len(written):
            self._zero(start + slot * width, start + len(written) * width)
            del written[slot:]
        self._put_overflow(2, overflow)
        self._boxes_seen = (
            [
                (b.outbound[:], b.inbound[:], b.work[:], b.unloading[:])
                for st in state.stations
                for b in st.boxes.values()
            ],
            self._cards_made,
            working,
            state.workers_used.copy() if working != EMPTY else None,
        )

    def _put_box(
        self, station: Station, office: int, cell: Cell, b: int, known: tuple[float, float], used: int | None
    ) -> None:
        mv = self._mv
        n = self.n
        types = len(CARGO_TYPES)
        boxes = station.boxes[cell]
        mv[b + office] = 1.0
        mv[b + n] = cell[0] / ROW_LIMIT
        mv[b + n + 1] = cell[1] / COL_LIMIT
        g = b + n + 2
        for code in boxes.outbound:
            mv[g + ((code & ~FLIPPED) >> 1)] += 0.125
        for code in boxes.inbound:
            mv[g + types + ((code & ~FLIPPED) >> 1)] += 0.125
        w = g + 2 * types
        for k, code in enumerate(boxes.work):
            if code != EMPTY:
                s = w + k * (types + 2)
                mv[s] = 1.0
                mv[s + 1 + ((code & ~FLIPPED) >> 1)] = 1.0
                if boxes.unloading[k]:
                    mv[s + 1 + types] = 1.0
        t = w + WORK_SLOTS * (types + 2)
        mv[t], mv[t + 1] = known
        if is_locked(station, cell):
            mv[t + 2] = 1.0
        if used:
            mv[t + 3] = used / 8

    def _put_decision(self, state: GameState, rel_of: list[int], decision: tuple[object, ...]) -> None:
        """Moves left, the train being made up, the collision waiting, the Mainline queue."""
        where = self.sections["decision"]
        self._zero(where.start, where.stop)
        mv = self._mv
        n, t = self.n, self.trays
        c = where.start
        if state.moves_left:
            mv[c] = state.moves_left / 6
        if state.build_turn:
            mv[c + 1] = state.build_turn / 8
        if state.build_owner != EMPTY:
            mv[c + 2 + rel_of[state.build_owner]] = 1.0
        c += n
        if state.building != EMPTY:
            mv[c + 2 + state.building] = 1.0
        b = c + 2 + t
        collision = state.collision
        if collision is not None:
            mv[b + collision.mover] = 1.0
            if collision.struck != EMPTY:
                mv[b + t + collision.struck] = 1.0
            b2 = b + 2 * t
            if collision.office != EMPTY:
                mv[b2 + collision.office] = 1.0
            if collision.cell is not None:
                mv[b2 + n] = collision.cell[0] / ROW_LIMIT
                mv[b2 + n + 1] = collision.cell[1] / COL_LIMIT
            if collision.seat != EMPTY:
                mv[b2 + n + 2 + rel_of[collision.seat]] = 1.0
        q = b + 2 * t + 2 * n + 2
        for position, tray in enumerate(state.mainline_queue):
            mv[q + tray] = (position + 1) / (t + 1)
        self._decision_seen = (*decision[:-1], state.mainline_queue[:])

    def refresh_prefix(self, state: GameState, speller: Speller | None, out: np.ndarray) -> None:
        """Rewrite only the ``prefix`` section of an encoding of this position (the tokens of
        the decision being spelled are all that changed)."""
        out[self.sections["prefix"]] = 0.0
        spelled = speller is not None and bool(speller.tokens)
        if speller is not None and spelled:
            idx: list[int] = []
            val: list[float] = []
            self._prefix(state, speller, idx, val)
            out[idx] = val
        if out is self._out:
            self._prefix_written = spelled

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


class _StationCards:
    """One station's share of the observation while its cards stay as they are."""

    __slots__ = ("station_cells", "block", "workers")

    def __init__(self, station_cells: list[tuple[int, float]], block: np.ndarray) -> None:
        self.station_cells = station_cells  # (index, value): its office card, control point, Limits
        self.block = block  # the card slots of its laid cards, one after another
        # each facility's workers and capacity bonus (R9.0.3), worked out when its box is shown
        self.workers: dict[Cell, tuple[float, float]] = {}


def _car_cells(code: int) -> tuple[int, ...]:
    """Where a car's ones go in its slot: present, its type one-hot, loaded, flipped (R9.3.4)."""
    cells = _CAR_CELLS.get(code)
    if cells is None:
        plain = code & ~FLIPPED
        cells = (0, 1 + (plain >> 1))
        if plain & 1:
            cells += (1 + CAR_KINDS,)
        if code & FLIPPED:
            cells += (2 + CAR_KINDS,)
        _CAR_CELLS[code] = cells
    return cells


_CAR_CELLS: dict[int, tuple[int, ...]] = {}
_ENGINE_CELLS = (CAR_FEATURES,)  # an engine in a consist: its own flag past the car features
_TRAY_FIELDS = attrgetter(
    "train", "direction", "at_dp", "line", "region", "office", "cell", "split", "facing", "cleared_by",
    "consist",
)  # fmt: skip
_BOX_FIELDS = attrgetter("outbound", "inbound", "work", "unloading")


__all__ = ["ObservationEncoderV1", "budgets"]

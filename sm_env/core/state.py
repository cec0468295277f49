"""The game state: the mutable parts of one game of Station Master, as plain data.

A ``GameState`` holds one game; it knows no rules. ``sm_env.core.engine`` makes states
(``new_game``, ``load_snapshot``), lists their legal intents and applies intents; the state's
own ``legal_intents()`` and ``apply()`` hand over to the engine it was made by (``rules``).
Reading a state is free: ``current_player()``, ``is_terminal()``, ``revenue()``, ``winners()``
and the fields below. ``clone()`` copies only what mutates; static card data is shared.
``view(seat)`` is what one seat may know (``SeatView``). Rule ids refer to docs/rules.md.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any, NamedTuple, Protocol

from sm_env.core.catalogue import CardKind, Catalogue
from sm_env.core.config import RULES_EDITION, GameConfig, Mode
from sm_env.core.intents import Cell, Intent
from sm_env.core.phases import SEAT_TURN_PHASES, Phase
from sm_env.core.pieces import EMPTY, OFFICE_CELL, Station, Tray
from sm_env.core.rng import Chance, Rng

STAGES_PER_DAY = 12
CLOCK = (
    "Midnight", "2:00 AM", "4:00 AM", "6:00 AM", "8:00 AM", "10:00 AM",
    "Noon", "2:00 PM", "4:00 PM", "6:00 PM", "8:00 PM", "10:00 PM",
)  # fmt: skip
DEPARTMENTS = 3
EXTRA_TRAYS = 3  # C-trays.1: players + 3 Crew Trays
HIDDEN = -2  # a card a seat view may not see: another seat's hand, the Home Office deck


class Event(NamedTuple):
    """Something that happened, as a record: ``kind`` plus its ``fields`` (cards as catalogue
    indices, cars as codes). ``sm_env.core.text.event_text`` renders it. ``seat`` is -1 for
    table events."""

    day: int
    stage: int
    kind: str
    seat: int
    fields: dict[str, Any]


_new_event = tuple.__new__  # Event(...) without the Python-level __new__ of a NamedTuple


class LedgerEntry(NamedTuple):
    """One change of a seat's Revenue (R2.4.7): a seat's revenue is the sum of its entries.
    ``text`` is the ledger's own line, part of the game record the state hash covers."""

    day: int
    stage: int
    seat: int
    amount: int
    rule: str
    text: str


class Collision(NamedTuple):
    """A collision about to be charged (D-collision.2): ``mover`` ran into tray ``struck`` or,
    when ``struck`` is EMPTY, into the cars standing on ``cell`` of station ``office`` on the
    side ``mover`` came from. ``seat`` pays (R10.1, R10.2) unless it plays a RED FLAG."""

    mover: int
    struck: int
    office: int
    cell: Cell | None
    seat: int
    rule: str
    where: str


class Rules(Protocol):
    """The engine a state is played by (``sm_env.core.engine.ENGINE``)."""

    def legal_intents(self, state: GameState) -> list[Intent]: ...

    def apply(self, state: GameState, intent: Intent, validate: bool = True) -> None: ...


class GameState:
    """One game. Every field is plain data; the comments say what each holds. The fields are
    declared in ``sm_env.core.fields`` (type, how a clone copies it, its snapshot key), in this
    order; tests/test_state_fields.py holds ``__slots__``, ``clone`` and ``snapshot`` to it."""

    __slots__ = (
        "config",
        "catalogue",
        "rules",
        "n",
        "rng",
        "day",
        "stage",
        "stages_played",
        "phase",
        "turn",
        "fedora",
        "office_of_seat",
        "seat_of_office",
        "mainline",
        "hands",
        "home_office",
        "departments",
        "salvage",
        "set_aside",
        "stations",
        "timetable",
        "pending_extras",
        "trays",
        "division",
        "division_total",
        "classification",
        "revenue_by_seat",
        "moves_left",
        "events",
        "held",
        "actor",
        "building",
        "build_owner",
        "build_turn",
        "mainline_queue",
        "workers_used",
        "ledger",
        "collision",
        "red_flag_card",
        "legal_cache",
    )

    config: GameConfig  # the game's settings and house rules (immutable)
    catalogue: Catalogue  # static card data, shared by every state of the game
    rules: Rules  # the engine that plays this state, shared by its clones
    n: int  # seats = offices
    rng: Chance  # the one random stream (C-rng.1); ``sm_env.core.chance`` draws from it
    day: int  # completed days, from 0
    stage: int  # 0..11 within the day
    stages_played: int  # Stages completed in the whole game
    phase: Phase  # what the game waits for
    turn: int  # seat position from the Superintendent in the seat-by-seat phases
    fedora: int  # the Superintendent's seat (C-fedora)
    office_of_seat: list[int]  # seat -> office (D-seat.1, RB.3)
    seat_of_office: list[int]  # office -> seat
    mainline: tuple[int, ...]  # Mainline cards west to east: card k lies west of office k
    hands: list[list[int]]  # per seat, sorted card indices
    home_office: list[int]  # the Home Office deck, top of the deck at the end of the list
    departments: list[list[int]]  # three face-up piles, top at the end
    salvage: list[int]  # the Salvage Yard, face up
    set_aside: list[int]  # cards out of the game (sorted)
    stations: list[Station]  # indexed by office, 0 = westernmost
    timetable: list[int]  # stage slot -> timetabled train card, or EMPTY
    pending_extras: list[tuple[int, int]]  # (extra train card, seat that played it)
    trays: list[Tray]  # players + 3 Crew Trays (C-trays.1)
    division: list[int]  # cars per code in the Division Yard
    division_total: int  # sum of ``division``, kept in step (C-yards.2)
    classification: list[int]  # cars per code in the Classification Yard
    revenue_by_seat: list[int]  # per seat, the sum of its ledger entries
    moves_left: int  # Moves left in the current switching turn (R6.1.2)
    events: list[Event]  # what happened since the list was last cleared (not part of the hash)
    held: list[int]  # timetabled trains due but without a Crew Tray, by number (R7.1)
    actor: int  # the deciding seat outside the seat-by-seat phases
    building: int  # the tray of the train being made up, or EMPTY
    build_owner: int  # the seat choosing an Extra's consist, or EMPTY for a timetabled train
    build_turn: int  # timetabled: next seat position from the Fedora; Extra: 1 once done
    mainline_queue: list[int]  # trays still to act this Mainline Phase; the first is acting
    workers_used: dict[Cell, int]  # this Cargo turn: workers each facility has used (R9.1.6)
    ledger: list[LedgerEntry]  # every Revenue change, in order
    collision: Collision | None  # waiting for a RED FLAG decision
    red_flag_card: int  # catalogue index of the RED FLAG, or EMPTY
    legal_cache: list[Intent] | None  # the legal intents of this decision, once listed

    # ------------------------------------------------------------------ play (by the engine)

    def legal_intents(self) -> list[Intent]:
        """The deciding seat's legal intents, listed once per decision. The list is shared
        with later calls (and clones) until the next ``apply``: read it, don't change it."""
        cached = self.legal_cache
        if cached is None:
            cached = self.legal_cache = self.rules.legal_intents(self)
        return cached

    def apply(self, intent: Intent, validate: bool = True) -> None:
        """Carry out one decision and every automatic step up to the next one. An illegal
        intent raises ``IllegalIntent`` and changes nothing. ``validate=False`` skips the checks
        of who decides and in which phase, for callers whose intent came from
        ``legal_intents()`` (search)."""
        self.rules.apply(self, intent, validate)

    # ------------------------------------------------------------------ queries

    def current_player(self) -> int:
        """The seat that must decide now, or -1 once the game is over."""
        phase = self.phase
        if phase in SEAT_TURN_PHASES:
            return (self.fedora + self.turn) % self.n
        return -1 if phase is Phase.GAME_OVER else self.actor

    def is_terminal(self) -> bool:
        return self.phase is Phase.GAME_OVER

    def revenue(self) -> tuple[int, ...]:
        return tuple(self.revenue_by_seat)

    def target_reached(self) -> bool:
        """R3.2 / R3.3: the highest seat (co-op: the team) has the target revenue."""
        target = self.config.target_revenue
        if target is None:
            return False
        if self.config.mode is Mode.COOP:
            return sum(self.revenue_by_seat) >= target
        return max(self.revenue_by_seat) >= target

    def winners(self) -> tuple[int, ...]:
        """D-end: the seats that won; empty while the game runs or when the team lost."""
        if self.phase is not Phase.GAME_OVER:
            return ()
        if self.config.mode is Mode.COOP:
            return tuple(range(self.n)) if self.target_reached() else ()
        best = max(self.revenue_by_seat)
        return tuple(s for s, r in enumerate(self.revenue_by_seat) if r == best)

    def clock(self) -> str:
        return CLOCK[self.stage]

    def superintendent(self) -> int:
        """R2.6.2: the seat holding the Fedora is the Superintendent."""
        return self.fedora

    def is_control_point(self, office: int) -> bool:
        """R2.1.5: Depots, Stations and Terminals are Control Points; Whistle Posts are not."""
        spec = self.catalogue.cards[self.stations[office].grid[OFFICE_CELL][0]].office
        return spec is not None and spec.control_point

    def log(self, kind: str, seat: int, **fields: Any) -> None:
        """Record an event; its text is rendered only when asked for."""
        self.events.append(_new_event(Event, (self.day, self.stage, kind, seat, fields)))

    # ------------------------------------------------------------------ copies, hashes, views

    def clone(self) -> GameState:
        """An independent copy that shares only immutable data. Events start empty."""
        other = GameState()
        other.config = self.config
        other.catalogue = self.catalogue
        other.rules = self.rules
        other.n = self.n
        other.rng = self.rng.copy()
        other.day = self.day
        other.stage = self.stage
        other.stages_played = self.stages_played
        other.phase = self.phase
        other.turn = self.turn
        other.fedora = self.fedora
        other.office_of_seat = self.office_of_seat[:]
        other.seat_of_office = self.seat_of_office[:]
        other.mainline = self.mainline
        other.hands = [hand[:] for hand in self.hands]
        other.home_office = self.home_office[:]
        other.departments = [dept[:] for dept in self.departments]
        other.salvage = self.salvage[:]
        other.set_aside = self.set_aside[:]
        other.stations = [station.copy() for station in self.stations]
        other.timetable = self.timetable[:]
        other.pending_extras = self.pending_extras[:]
        other.trays = [tray.copy() for tray in self.trays]
        other.division = self.division[:]
        other.division_total = self.division_total
        other.classification = self.classification[:]
        other.revenue_by_seat = self.revenue_by_seat[:]
        other.moves_left = self.moves_left
        other.events = []
        other.held = self.held[:]
        other.actor = self.actor
        other.building = self.building
        other.build_owner = self.build_owner
        other.build_turn = self.build_turn
        other.mainline_queue = self.mainline_queue[:]
        other.collision = self.collision
        other.red_flag_card = self.red_flag_card
        other.workers_used = self.workers_used.copy()
        other.ledger = self.ledger[:]
        other.legal_cache = self.legal_cache  # the same position has the same choices
        return other

    def shallow_copy(self) -> GameState:
        """A new state object holding this one's own fields, containers and all: what is
        written to one shows in the other. Next to free; for a look that writes nothing
        (``SeatView.of_simulation``)."""
        other = GameState()
        other.config = self.config
        other.catalogue = self.catalogue
        other.rules = self.rules
        other.n = self.n
        other.rng = self.rng
        other.day = self.day
        other.stage = self.stage
        other.stages_played = self.stages_played
        other.phase = self.phase
        other.turn = self.turn
        other.fedora = self.fedora
        other.office_of_seat = self.office_of_seat
        other.seat_of_office = self.seat_of_office
        other.mainline = self.mainline
        other.hands = self.hands
        other.home_office = self.home_office
        other.departments = self.departments
        other.salvage = self.salvage
        other.set_aside = self.set_aside
        other.stations = self.stations
        other.timetable = self.timetable
        other.pending_extras = self.pending_extras
        other.trays = self.trays
        other.division = self.division
        other.division_total = self.division_total
        other.classification = self.classification
        other.revenue_by_seat = self.revenue_by_seat
        other.moves_left = self.moves_left
        other.events = self.events
        other.held = self.held
        other.actor = self.actor
        other.building = self.building
        other.build_owner = self.build_owner
        other.build_turn = self.build_turn
        other.mainline_queue = self.mainline_queue
        other.workers_used = self.workers_used
        other.ledger = self.ledger
        other.collision = self.collision
        other.red_flag_card = self.red_flag_card
        other.legal_cache = self.legal_cache
        return other

    def snapshot(self) -> dict[str, Any]:
        """Every mutable part of the state as plain JSON data (events excluded);
        ``GameState.from_snapshot`` reads it back."""
        return {
            "rng": self.rng.state,
            "day": self.day,
            "stage": self.stage,
            "stages_played": self.stages_played,
            "phase": self.phase.value,
            "turn": self.turn,
            "fedora": self.fedora,
            "office_of_seat": self.office_of_seat[:],
            "mainline": list(self.mainline),
            "hands": [hand[:] for hand in self.hands],
            "home_office": self.home_office[:],
            "departments": [dept[:] for dept in self.departments],
            "salvage": self.salvage[:],
            "set_aside": self.set_aside[:],
            "stations": [
                {
                    "grid": sorted([list(cell), card, rotated] for cell, (card, rotated) in st.grid.items()),
                    "boxes": sorted(
                        [list(cell), b.outbound[:], b.inbound[:], b.work[:], b.unloading[:]]
                        for cell, b in st.boxes.items()
                    ),
                    "cars": sorted([list(cell), list(cars)] for cell, cars in st.cars.items()),
                    "modifiers": sorted([list(cell), list(served)] for cell, served in st.modifiers.items()),
                    "modifiers_used": sorted(list(cell) for cell in st.modifiers_used),
                }
                for st in self.stations
            ],
            "timetable": self.timetable[:],
            "pending_extras": [list(p) for p in self.pending_extras],
            "trays": [tray.snapshot() for tray in self.trays],
            "division": self.division[:],
            "classification": self.classification[:],
            "revenue": self.revenue_by_seat[:],
            "moves_left": self.moves_left,
            "held": self.held[:],
            "actor": self.actor,
            "building": [self.building, self.build_owner, self.build_turn],
            "mainline_queue": self.mainline_queue[:],
            "workers_used": sorted([list(cell), used] for cell, used in self.workers_used.items()),
            "ledger": [list(entry) for entry in self.ledger],
            "collision": self.collision and [list(x) if isinstance(x, tuple) else x for x in self.collision],
        }

    def state_hash(self) -> str:
        """SHA-256 of the canonical snapshot: equal for equal games on any machine."""
        game = {
            "config": self.config.to_dict(),
            "house_rules": self.config.house_rules.to_dict(),
            "rules_edition": RULES_EDITION,
        }
        text = json.dumps([game, self.snapshot()], sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know now (``SeatView``)."""
        return SeatView(self, seat)

    def card_places(self) -> list[tuple[int, str, Any]]:
        """Every card copy in the game as (card, area, key): the area's name and where in it
        (a seat, a Department, an (office, cell), a slot, a tray, a Mainline card; None for a
        single pile)."""
        cards = self.catalogue.cards
        out: list[tuple[int, str, Any]] = [
            (card, "hands", seat) for seat, hand in enumerate(self.hands) for card in hand
        ]
        out += [(card, "home_office", None) for card in self.home_office]
        out += [(card, "departments", d) for d, dept in enumerate(self.departments) for card in dept]
        out += [(card, "salvage", None) for card in self.salvage]
        out += [(card, "set_aside", None) for card in self.set_aside]
        out += [
            (card, "stations", (office, cell))
            for office, station in enumerate(self.stations)
            for cell, (card, _rotated) in station.grid.items()
        ]
        out += [(card, "timetable", slot) for slot, card in enumerate(self.timetable) if card != EMPTY]
        out += [(card, "pending_extras", i) for i, (card, _seat) in enumerate(self.pending_extras)]
        out += [
            (tray.train, "trays", i)
            for i, tray in enumerate(self.trays)
            if tray.train != EMPTY
            and cards[tray.train].kind is CardKind.EXTRA_TRAIN  # timetabled: on the chart
        ]
        out += [(card, "mainline", line) for line, card in enumerate(self.mainline)]
        return out

    def visible_cards(self, seat: int) -> Counter[int]:
        """Card copies ``seat`` can see or infer: every place but the Home Office and the other
        hands (the set-aside cards are the catalogue's leftovers, so they are known too)."""
        left = self.unseen_counts(seat)
        return Counter(
            {
                card: spec.count - left[card]
                for card, spec in enumerate(self.catalogue.cards)
                if spec.count > left[card]
            }
        )

    def unseen_counts(self, seat: int) -> list[int]:
        """Copies of each card ``seat`` cannot see (by card id): the catalogue's counts less the
        places of ``visible_cards``, counted straight from the piles (search asks at every
        determinization, its rollout bots at every draw)."""
        cards = self.catalogue.cards
        left = [card.count for card in cards]
        for card in self.hands[seat]:
            left[card] -= 1
        for dept in self.departments:
            for card in dept:
                left[card] -= 1
        for card in self.salvage:
            left[card] -= 1
        for card in self.set_aside:
            left[card] -= 1
        for station in self.stations:
            for card, _rotated in station.grid.values():
                left[card] -= 1
        for card in self.timetable:
            if card != EMPTY:
                left[card] -= 1
        for card, _seat in self.pending_extras:
            left[card] -= 1
        for tray in self.trays:
            if tray.train != EMPTY and cards[tray.train].kind is CardKind.EXTRA_TRAIN:
                left[tray.train] -= 1
        for card in self.mainline:
            left[card] -= 1
        return left


class _Unplayable:
    """The rules of a seat view's board: it hides cards, so it must not be played."""

    def legal_intents(self, state: GameState) -> list[Intent]:
        raise TypeError(
            "a seat view's board cannot be played: use view.legal_intents() or view.determinize()"
        )

    def apply(self, state: GameState, intent: Intent, validate: bool = True) -> None:
        raise TypeError("a seat view's board cannot be played: determinize the view first")


_UNPLAYABLE = _Unplayable()


class SeatView:
    """What one seat may know (bots get this, never the state): its own hand, the sizes of
    the other hands and of the Home Office, the face-up cards, the board, the ledger, and its
    legal intents when it is to decide. ``board`` is a copy of the state with every hidden
    card replaced by ``HIDDEN``, no events and a blank random stream; it cannot be played.
    ``determinize(rng)`` deals the hidden cards at random into a full, playable state."""

    __slots__ = ("seat", "board", "_legal", "_rules")

    def __init__(self, state: GameState, seat: int, shared: bool = False) -> None:
        if not 0 <= seat < state.n:
            raise ValueError(f"seat {seat} is not a seat of this game (0..{state.n - 1})")
        self.seat = seat
        self._rules = state.rules
        # The bot's own copy: whatever it does to the list leaves the state's choices alone.
        self._legal = list(state.legal_intents()) if state.current_player() == seat else []
        board = state.shallow_copy() if shared else state.clone()
        board.rules = _UNPLAYABLE
        board.rng = Rng(0)
        board.events = []
        board.legal_cache = None
        board.hands = [hand[:] if s == seat else [HIDDEN] * len(hand) for s, hand in enumerate(board.hands)]
        board.home_office = [HIDDEN] * len(board.home_office)
        self.board = board

    @classmethod
    def of_simulation(cls, state: GameState, seat: int) -> SeatView:
        """A view whose board shares the state's containers (``GameState.shallow_copy``)
        instead of copying them: for a search's own simulated states, where a copy at every
        decision of every rollout costs a tenth of the search. The hidden cards are hidden as
        in any view, but the bot must not change ``board`` (that would change the state), and
        the view is stale once the state moves on. Never for a bot at a table."""
        return cls(state, seat, shared=True)

    def legal_intents(self) -> list[Intent]:
        """The seat's legal intents (empty when another seat is to decide)."""
        return self._legal

    @property
    def hand(self) -> list[int]:
        return self.board.hands[self.seat]

    def current_player(self) -> int:
        return self.board.current_player()

    def snapshot(self) -> dict[str, Any]:
        return {"seat": self.seat, "board": self.board.snapshot(), "legal": self._legal}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SeatView) and self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]  # a view compares by value and is mutable

    def unseen_cards(self) -> list[int]:
        """The hidden card copies, as a sorted list: the catalogue less what the seat sees."""
        return [card for card, count in enumerate(self.board.unseen_counts(self.seat)) for _ in range(count)]

    def skip_determinize(self, rng: Rng) -> None:
        """Move ``rng`` on exactly as ``determinize(rng)`` would, dealing nothing: for a bot that
        needs no hidden card there but keeps its random stream where a deal would leave it."""
        board = self.board
        hidden = len(board.home_office) + sum(len(h) for s, h in enumerate(board.hands) if s != self.seat)
        rng.shuffle([0] * hidden)  # determinize's shuffle: the same draws
        rng.next_u32()  # the dealt state's own stream

    def determinize(self, rng: Rng) -> GameState:
        """A full state consistent with the view: the unseen cards shuffled with ``rng`` and
        dealt to the other hands and the Home Office (their sizes as the view shows), and a
        random stream freshly seeded from ``rng``. For search bots."""
        state = self.board.clone()
        state.rules = self._rules
        pool = self.unseen_cards()
        rng.shuffle(pool)
        for s, hand in enumerate(state.hands):
            if s != self.seat:
                state.hands[s] = sorted(pool.pop() for _ in hand)
        state.home_office = [pool.pop() for _ in state.home_office]
        assert not pool, "every unseen card has a place"
        state.rng = Rng(rng.next_u32())
        state.legal_cache = None
        return state

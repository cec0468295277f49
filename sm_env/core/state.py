"""The game state: one episode of Station Master, shaped like an OpenSpiel state.

``GameState.new(config, seed)`` sets the table up (R4) and runs until the first decision.
Then ``current_player()`` names the seat that must decide, ``legal_intents()`` lists its
choices and ``apply(intent)`` carries one out, running every automatic step after it until
the next decision. An illegal intent raises ``IllegalIntent`` naming the rule, before any
mutation. ``clone()`` copies only what mutates; static card data is shared by reference.
Rule ids refer to docs/rules.md.
"""

from __future__ import annotations

import hashlib
import json
from bisect import insort
from collections.abc import Callable
from typing import Any, NamedTuple

from sm_env.core import cargo, trains
from sm_env.core import station as switching
from sm_env.core.cars import CABOOSE, N_CAR_CODES, car_name, car_type, unflipped
from sm_env.core.catalogue import CardKind, Catalogue, Deck, FacilitySpec, load_catalogue
from sm_env.core.config import GameConfig, Mode
from sm_env.core.errors import ConfigError, IllegalIntent
from sm_env.core.intents import (
    AddCar,
    Area,
    Board,
    Cell,
    ChooseDivisionPoint,
    ChooseSwitch,
    Clearance,
    ClearInbound,
    Detrain,
    Discard,
    DrawDepartment,
    DrawHomeOffice,
    EndCargo,
    EndConsist,
    EndSwitching,
    EndTurn,
    Intent,
    IntentKind,
    Labor,
    MoveTray,
    Pass,
    PlaceCard,
    PlaceModifier,
    PlayCard,
    RedFlag,
    StockOutbound,
    Unjam,
    malformed,
)
from sm_env.core.phases import SEAT_TURN_PHASES, Phase
from sm_env.core.pieces import EMPTY, OFFICE_CELL, Boxes, Station, Tray
from sm_env.core.rng import Rng

STAGES_PER_DAY = 12
CLOCK = (
    "Midnight", "2:00 AM", "4:00 AM", "6:00 AM", "8:00 AM", "10:00 AM",
    "Noon", "2:00 PM", "4:00 PM", "6:00 PM", "8:00 PM", "10:00 PM",
)  # fmt: skip
SHIFT_CHANGE_STAGES = frozenset({2, 5, 8, 11})  # RC.2: fedora rows 4am, 10am, 4pm, 10pm
NIGHT_STAGES = frozenset({0, 1, 2, 10, 11})  # RB.1: midnight-4am and 8pm-10pm
DEPARTMENTS = 3
HAND_LIMIT = 3
HAND_SIZE = 3
MOVES_PER_SWITCH = 6
MOVES_AT_NIGHT = 5
EXTRA_TRAYS = 3


_PHASE_INTENTS: dict[Phase, frozenset[IntentKind]] = {
    Phase.LOCAL_OPS: frozenset(
        {
            IntentKind.PASS,
            IntentKind.CHOOSE_SWITCH,
            IntentKind.DRAW_HOME_OFFICE,
            IntentKind.DRAW_DEPARTMENT,
            IntentKind.STOCK_OUTBOUND,
            IntentKind.CLEAR_INBOUND,
            IntentKind.UNJAM,
        }
    ),
    Phase.SWITCHING: frozenset({IntentKind.MOVE_TRAY, IntentKind.END_SWITCHING}),
    Phase.CARD_PLAY: frozenset(
        {
            IntentKind.PLAY_CARD,
            IntentKind.PLACE_CARD,
            IntentKind.PLACE_MODIFIER,
            IntentKind.DISCARD,
            IntentKind.END_TURN,
        }
    ),
    Phase.NEW_TRAIN: frozenset({IntentKind.ADD_CAR}),
    Phase.EXTRA_SIDE: frozenset({IntentKind.CHOOSE_DIVISION_POINT}),
    Phase.EXTRA_CONSIST: frozenset({IntentKind.ADD_CAR, IntentKind.END_CONSIST}),
    Phase.CLEARANCE: frozenset({IntentKind.CLEARANCE}),
    Phase.RED_FLAG: frozenset({IntentKind.RED_FLAG}),
    Phase.CARGO: frozenset({IntentKind.LABOR, IntentKind.BOARD, IntentKind.DETRAIN, IntentKind.END_CARGO}),
    Phase.GAME_OVER: frozenset(),
}


_LAID_KINDS = frozenset({CardKind.TRACK, CardKind.FACILITY})  # laid with PlaceCard (D-grid.6)


class Event(NamedTuple):
    """Something that happened, for logs and the demo. ``seat`` is -1 for table events."""

    day: int
    stage: int
    kind: str
    seat: int
    text: str


class LedgerEntry(NamedTuple):
    """One change of a seat's Revenue (R2.4.7): a seat's revenue is the sum of its entries."""

    day: int
    stage: int
    seat: int
    amount: int
    rule: str
    text: str


class GameState:
    __slots__ = (
        "config",
        "catalogue",
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
        "collision",
        "red_flag_card",
        "workers_used",
        "ledger",
    )

    config: GameConfig
    catalogue: Catalogue
    n: int
    rng: Rng
    day: int
    stage: int
    stages_played: int
    phase: Phase
    turn: int
    fedora: int
    office_of_seat: list[int]
    seat_of_office: list[int]
    mainline: tuple[int, ...]
    hands: list[list[int]]
    home_office: list[int]  # top of the deck is the end of the list
    departments: list[list[int]]
    salvage: list[int]
    set_aside: list[int]
    stations: list[Station]  # indexed by office, 0 = westernmost
    timetable: list[int]  # stage slot -> timetabled train card, or EMPTY
    pending_extras: list[tuple[int, int]]  # (extra train card, seat that played it)
    trays: list[Tray]
    division: list[int]  # cars per code in the Division Yard
    division_total: int
    classification: list[int]
    revenue_by_seat: list[int]
    moves_left: int
    events: list[Event]
    held: list[int]  # timetabled trains due but without a Crew Tray, by number (R7.1)
    actor: int  # the deciding seat outside the seat-by-seat phases
    building: int  # the tray of the train being made up, or EMPTY
    build_owner: int  # the seat choosing an Extra's consist, or EMPTY for a timetabled train
    build_turn: int  # timetabled: next seat position from the Fedora; Extra: 1 once done
    mainline_queue: list[int]  # trays still to act this Mainline Phase; the first is acting
    collision: trains.Collision | None  # waiting for a RED FLAG decision
    red_flag_card: int  # catalogue index of the RED FLAG, or EMPTY
    workers_used: dict[Cell, int]  # this Cargo turn: workers each facility has used (R9.1.6)
    ledger: list[LedgerEntry]  # every Revenue change, in order

    # ------------------------------------------------------------------ setup (R4)

    @classmethod
    def new(cls, config: GameConfig, seed: int, catalogue: Catalogue | None = None) -> GameState:
        """Set the table up as section 4 and run to the first decision."""
        if not isinstance(config, GameConfig):
            raise ConfigError(f"config must be a GameConfig, got {type(config).__name__}")
        state = cls.__new__(cls)
        state.config = config
        state.catalogue = cat = catalogue or load_catalogue()
        state.n = n = config.offices
        try:
            state.rng = rng = Rng(seed)
        except ValueError as err:
            raise ConfigError(str(err)) from None
        state.day = state.stage = state.stages_played = state.turn = 0
        state.phase = Phase.LOCAL_OPS
        state.events = []
        state.revenue_by_seat = [0] * n
        state.moves_left = 0
        state.salvage = []
        state.set_aside = []
        state.timetable = [EMPTY] * STAGES_PER_DAY
        state.pending_extras = []
        state.held = []
        state.actor = state.building = state.build_owner = EMPTY
        state.build_turn = 0
        state.mainline_queue = []
        state.collision = None
        state.workers_used = {}
        state.ledger = []
        red_flags = cat.of_kind(CardKind.RED_FLAG)
        state.red_flag_card = red_flags[0] if red_flags else EMPTY

        # R4.2: a Mainline card drawn at random between neighbours and at both ends.
        mainline_deck = cat.deck(Deck.MAINLINE)
        if len(mainline_deck) < n + 1:
            raise ConfigError(
                f"{n} offices need {n + 1} Mainline cards; the catalogue has {len(mainline_deck)}"
            )
        rng.shuffle(mainline_deck)
        state.mainline = tuple(mainline_deck.pop() for _ in range(n + 1))
        state.set_aside.extend(mainline_deck)

        # R4.3 / D-seat.1: the highest seating roll holds the easternmost office.
        east = state._roll_off("seating") if n > 1 else 0
        state.seat_of_office = [(east + 1 + k) % n for k in range(n)]
        state.office_of_seat = [0] * n
        for office, seat in enumerate(state.seat_of_office):
            state.office_of_seat[seat] = office

        # R4.4 / C-fedora.2: the highest Superintendent roll takes the Fedora.
        state.fedora = state._roll_off("superintendent") if n > 1 else 0

        # R4.1: Whistle Post between two Limits; the rest of the setup cards set aside.
        whistle_posts = [i for i in cat.deck(Deck.SETUP) if cat.cards[i].kind is CardKind.OFFICE]
        limits = [i for i in cat.deck(Deck.SETUP) if cat.cards[i].kind is CardKind.LIMITS]
        if len(whistle_posts) < n or len(limits) < 2 * n:
            raise ConfigError(f"{n} offices need {n} Whistle Posts and {2 * n} Limits cards")
        state.stations = []
        for _ in range(n):
            station = Station()
            station.grid[(0, -1)] = (limits.pop(), False)
            station.grid[OFFICE_CELL] = (whistle_posts.pop(), False)
            station.grid[(0, 1)] = (limits.pop(), False)
            state.stations.append(station)
        state.set_aside.extend(whistle_posts + limits)
        state.set_aside.extend(
            i for i in cat.deck(Deck.SETUP) if cat.cards[i].kind is CardKind.DIVISION_POINT
        )

        # R4.5: the Home Office deck, shuffled (RB.2: even trains set aside with Sister Trains).
        deck = cat.deck(Deck.HOME_OFFICE)
        if config.house_rules.sister_trains:
            sisters = [i for i in deck if state._is_even_timetabled(i)]
            deck = [i for i in deck if not state._is_even_timetabled(i)]
            state.set_aside.extend(sisters)
        needed = HAND_SIZE * n + DEPARTMENTS
        if len(deck) < needed:
            raise ConfigError(
                f"the Home Office deck holds {len(deck)} cards; {n} offices need {needed} to deal"
            )
        rng.shuffle(deck)
        state.home_office = deck

        # R4.6: from the Superintendent leftward, three cards each; then the Departments.
        state.hands = [[] for _ in range(n)]
        for i in range(n):
            seat = (state.fedora + i) % n
            state.hands[seat] = sorted(deck.pop() for _ in range(HAND_SIZE))
        state.departments = [[deck.pop()] for _ in range(DEPARTMENTS)]

        # RB.4: Emergency Toolbox: a RED FLAG each, on top of the three.
        toolbox = cat.deck(Deck.TOOLBOX)
        if config.house_rules.emergency_toolbox:
            if len(toolbox) < n:
                raise ConfigError(
                    f"the Emergency Toolbox needs {n} RED FLAG cards; the catalogue has {len(toolbox)}"
                )
            for seat in range(n):
                insort(state.hands[seat], toolbox.pop())
        state.set_aside.extend(toolbox)
        state.set_aside.sort()

        # R4.8 / C-stock.1: every car in the Division Yard; players + 3 free trays.
        state.division = list(cat.car_supply())
        state.division_total = sum(state.division)
        state.classification = [0] * N_CAR_CODES
        state.trays = [Tray() for _ in range(n + EXTRA_TRAYS)]

        state.log("setup", -1, state._chain_text())
        state._start_local_turn()
        return state

    def _roll_off(self, what: str) -> int:
        """Each seat rolls the D12 in seat order; the first seat tied for highest wins."""
        rolls = [self.rng.d12() for _ in range(self.n)]
        winner = rolls.index(max(rolls))
        self.log(what, winner, f"{what} rolls {rolls}: seat {winner} highest")
        return winner

    def _is_even_timetabled(self, card: int) -> bool:
        spec = self.catalogue.cards[card].train
        return spec is not None and not spec.extra and spec.number % 2 == 0

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

    def winners(self) -> tuple[int, ...]:
        """D-end: the seats that won; empty while the game runs or when the team lost."""
        if self.phase is not Phase.GAME_OVER:
            return ()
        if self.config.mode is Mode.COOP:
            return tuple(range(self.n)) if self._target_reached() else ()
        best = max(self.revenue_by_seat)
        return tuple(s for s, r in enumerate(self.revenue_by_seat) if r == best)

    def clock(self) -> str:
        return CLOCK[self.stage]

    def superintendent(self) -> int:
        return self.fedora

    def is_control_point(self, office: int) -> bool:
        """R2.1.5: Depots, Stations and Terminals are Control Points; Whistle Posts are not."""
        spec = self.catalogue.cards[self.stations[office].grid[OFFICE_CELL][0]].office
        return spec is not None and spec.control_point

    def facility_cells(self, seat: int) -> list[Cell]:
        """Cells of the seat's station holding a facility with cargo boxes (R9)."""
        return sorted(self.stations[self.office_of_seat[seat]].boxes)

    def legal_intents(self) -> list[Intent]:
        phase = self.phase
        if phase is Phase.GAME_OVER:
            return []
        if phase is Phase.CARGO:
            return cargo.legal_cargo_intents(self)
        if phase not in SEAT_TURN_PHASES:
            return trains.legal_train_intents(self)
        seat = (self.fedora + self.turn) % self.n
        if phase is Phase.LOCAL_OPS:
            out: list[Intent] = [Pass(seat)]
            if self._tray_in_station(seat):
                out.append(ChooseSwitch(seat))
            if self.home_office:
                out.append(DrawHomeOffice(seat))
            out.extend(DrawDepartment(seat, d) for d in range(DEPARTMENTS) if self.departments[d])
            out.extend(self._freight_agent_intents(seat))
            return out
        if phase is Phase.SWITCHING:
            office = self.office_of_seat[seat]
            out = []
            for i, tray in enumerate(self.trays):
                if tray.office == office:
                    out.extend(switching.list_moves(self, seat, i))
            out.append(EndSwitching(seat))
            return out
        # Phase.CARD_PLAY
        hand = self.hands[seat]
        distinct = sorted(set(hand))
        out = []
        laid = [card for card in distinct if self.catalogue.cards[card].kind in _LAID_KINDS]
        placements = switching.placements_by_card(self, seat, laid) if laid else {}
        for card in distinct:
            kind = self.catalogue.cards[card].kind
            if kind in _LAID_KINDS:
                out.extend(PlaceCard(seat, card, cell, rot) for cell, rot in placements[card])
            elif kind is CardKind.MODIFIER:
                out.extend(
                    PlaceModifier(seat, card, cell, facility)
                    for cell, facility in switching.legal_modifier_placements(self, seat, card)
                )
            elif self._play_problem(seat, card) is None:
                out.append(PlayCard(seat, card))
        out.extend(Discard(seat, card, d) for card in distinct for d in range(DEPARTMENTS))
        if len(hand) <= HAND_LIMIT:
            out.append(EndTurn(seat))
        return out

    def _tray_in_station(self, seat: int) -> bool:
        office = self.office_of_seat[seat]
        return any(tray.office == office for tray in self.trays)

    def _freight_agent_intents(self, seat: int) -> list[Intent]:
        out: list[Intent] = []
        station = self.stations[self.office_of_seat[seat]]
        for cell in sorted(station.boxes):
            boxes = station.boxes[cell]
            facility = self.facility_spec(station, cell)
            if self.room(facility, boxes, True, self.capacity_bonus(station, cell)) > 0:
                for t in facility.outbound:
                    code = t * 2 + 1
                    if self.division[code]:
                        out.append(StockOutbound(seat, cell, code))
            for code in sorted(set(boxes.inbound)):
                out.append(ClearInbound(seat, cell, code))
            for code in sorted(set(boxes.outbound)):
                out.append(Unjam(seat, cell, Area.OUTBOUND, code))
            for slot, code in enumerate(boxes.work):
                if code != EMPTY:
                    out.append(Unjam(seat, cell, Area(slot + 1), code))
        return out

    def facility_spec(self, station: Station, cell: Cell) -> FacilitySpec:
        facility = self.catalogue.cards[station.grid[cell][0]].facility
        assert facility is not None  # boxes exist only on facility cards
        return facility

    def capacity_bonus(self, station: Station, cell: Cell) -> int:
        """R9.0.3: the capacity the Modifiers serving this facility add."""
        bonus = 0
        for modifier_cell, served in station.modifiers.items():
            if served == cell:
                spec = self.catalogue.cards[station.grid[modifier_cell][0]].modifier
                assert spec is not None
                bonus += spec.capacity
        return bonus

    @staticmethod
    def room(facility: FacilitySpec, boxes: Boxes, outbound: bool, bonus: int = 0) -> int:
        """Free places in the green (outbound) or red box (R9.1.3: a shared number caps both;
        R9.0.3: Modifiers add ``bonus`` to each capacity number)."""
        if not (facility.outbound if outbound else facility.inbound):
            return 0
        if facility.shared_capacity is not None:
            return facility.shared_capacity + bonus - len(boxes.outbound) - len(boxes.inbound)
        if outbound:
            return facility.outbound_capacity + bonus - len(boxes.outbound)
        return facility.inbound_capacity + bonus - len(boxes.inbound)

    # ------------------------------------------------------------------ apply

    def apply(self, intent: Intent) -> None:
        """Carry out one decision, then every automatic step up to the next decision."""
        seat = self.current_player()
        kind = getattr(intent, "kind", None)
        handler = _HANDLERS.get(type(intent))
        if handler is None or not isinstance(kind, IntentKind):
            raise IllegalIntent("R5.0.1", f"{intent!r} is not an intent")
        if seat < 0:
            raise IllegalIntent("D-end.3", "the game is over: no decision is due")
        problem = malformed(intent)
        if problem is not None:
            raise IllegalIntent("R5.0.1", problem)
        if intent.seat != seat:
            raise IllegalIntent(
                "R5.0.1",
                f"seat {seat} must decide now ({self.phase.value}), not seat {intent.seat}",
            )
        if kind not in _PHASE_INTENTS[self.phase]:
            allowed = ", ".join(sorted(k.value for k in _PHASE_INTENTS[self.phase]))
            raise IllegalIntent(
                "R5.0.1",
                f"{kind.value} is not a decision of the {self.phase.value} step (allowed: {allowed})",
            )
        handler(self, intent)

    # Local Operations choices (R6)

    def _apply_pass(self, intent: Pass) -> None:
        self.log("pass", intent.seat, f"seat {intent.seat} passes")
        self._end_choice(intent.seat)

    def _apply_choose_switch(self, intent: ChooseSwitch) -> None:
        if not self._tray_in_station(intent.seat):
            raise IllegalIntent(
                "R6.1.1", f"seat {intent.seat} has no Crew Tray in its station to switch with"
            )
        night = self.config.house_rules.reduced_visibility and self.stage in NIGHT_STAGES
        self.moves_left = MOVES_AT_NIGHT if night else MOVES_PER_SWITCH
        self.phase = Phase.SWITCHING
        self.log("switch", intent.seat, f"seat {intent.seat} switches with {self.moves_left} Moves")

    def _apply_end_switching(self, intent: EndSwitching) -> None:
        self.moves_left = 0
        self._end_choice(intent.seat)

    def _apply_draw_home_office(self, intent: DrawHomeOffice) -> None:
        if not self.home_office:
            raise IllegalIntent("R6.2.1", "the Home Office deck is empty")
        card = self.home_office.pop()
        insort(self.hands[intent.seat], card)
        self.log("draw", intent.seat, f"seat {intent.seat} draws {self._name(card)} from the Home Office")
        if not self.home_office:
            self._reshuffle()
        self.phase = Phase.CARD_PLAY

    def _apply_draw_department(self, intent: DrawDepartment) -> None:
        d = intent.department
        if not 0 <= d < DEPARTMENTS:
            raise IllegalIntent("R6.2.1", f"there is no Department {d} (they are 0, 1 and 2)")
        if not self.departments[d]:
            raise IllegalIntent("R6.2.1", f"Department {d} is empty")
        card = self.departments[d].pop()
        insort(self.hands[intent.seat], card)
        self.log("draw", intent.seat, f"seat {intent.seat} takes {self._name(card)} from Department {d}")
        if not self.departments[d]:
            self._refill_department(d)
        self.phase = Phase.CARD_PLAY

    def _apply_stock_outbound(self, intent: StockOutbound) -> None:
        boxes, facility = self._own_facility(intent.seat, intent.cell, "R6.3.1")
        code = intent.car
        if not 0 <= code < N_CAR_CODES or not code & 1 or car_type(code) not in facility.outbound:
            raise IllegalIntent(
                "R6.3.1",
                f"this facility's green box takes no {car_name(code)}",
            )
        station = self.stations[self.office_of_seat[intent.seat]]
        if self.room(facility, boxes, True, self.capacity_bonus(station, intent.cell)) <= 0:
            raise IllegalIntent("R9.1.3", "the green box is full")
        if not self.division[code]:
            raise IllegalIntent("C-yards.1", f"the Division Yard holds no {car_name(code)}")
        self.take_from_division(code)
        boxes.outbound.append(code)
        self.log("freight-agent", intent.seat, f"seat {intent.seat} stocks a {car_name(code)} on a green box")
        self._end_choice(intent.seat)

    def _apply_clear_inbound(self, intent: ClearInbound) -> None:
        boxes, _ = self._own_facility(intent.seat, intent.cell, "R6.3.2")
        if intent.car not in boxes.inbound:
            raise IllegalIntent("R6.3.2", "that car is not in the facility's red box")
        boxes.inbound.remove(intent.car)
        self.retire(intent.car)
        self.log(
            "freight-agent", intent.seat, f"seat {intent.seat} clears a {car_name(intent.car)} from a red box"
        )
        self._end_choice(intent.seat)

    def _apply_unjam(self, intent: Unjam) -> None:
        boxes, _ = self._own_facility(intent.seat, intent.cell, "R6.3.3")
        area = intent.area
        if area is Area.OUTBOUND:
            if intent.car not in boxes.outbound:
                raise IllegalIntent("R6.3.3", "that car is not in the facility's green box")
            boxes.outbound.remove(intent.car)
        else:  # a MEN|AT|WORK slot
            if boxes.work[area - 1] != intent.car or intent.car == EMPTY:
                raise IllegalIntent("R6.3.3", f"the {area.name} slot does not hold that car")
            boxes.work[area - 1], boxes.unloading[area - 1] = EMPTY, False
        self.retire(intent.car)
        self.log("freight-agent", intent.seat, f"seat {intent.seat} unjams a {car_name(intent.car)}")
        self._end_choice(intent.seat)

    def _own_facility(self, seat: int, cell: Cell, rule: str) -> tuple[Boxes, FacilitySpec]:
        station = self.stations[self.office_of_seat[seat]]
        boxes = station.boxes.get(cell)
        if boxes is None:
            raise IllegalIntent(rule, f"seat {seat}'s station has no facility with cargo boxes at {cell}")
        return boxes, self.facility_spec(station, cell)

    # The card-play step (R6.2.2-R6.2.4)

    def _apply_play_card(self, intent: PlayCard) -> None:
        seat, card = intent.seat, intent.card
        self._check_holds(seat, card, "R6.2.2")
        problem = self._play_problem(seat, card)
        if problem is not None:
            raise IllegalIntent(*problem)
        self.hands[seat].remove(card)
        spec = self.catalogue.cards[card]
        if spec.kind is CardKind.TRAIN:
            self._schedule(card, seat)
            if self.config.house_rules.sister_trains and spec.train and spec.train.number % 2 == 1:
                self._bring_in_sister(spec.train.number + 1, seat)
        elif spec.kind is CardKind.EXTRA_TRAIN:
            self.pending_extras.append((card, seat))
            self.log("play-extra", seat, f"seat {seat} plays {spec.name}; it runs when a Crew Tray is free")
        else:
            self._upgrade_office(seat, card)

    def _play_problem(self, seat: int, card: int) -> tuple[str, str] | None:
        """Why the seat cannot play this card from its hand now, as (rule id, message); None if
        it can."""
        spec = self.catalogue.cards[card]
        kind = spec.kind
        if kind is CardKind.TRAIN or kind is CardKind.EXTRA_TRAIN:
            return None
        if kind is CardKind.OFFICE:
            assert spec.office is not None
            station = self.stations[self.office_of_seat[seat]]
            current = self.catalogue.cards[station.grid[OFFICE_CELL][0]]
            assert current.office is not None
            if spec.office.tier <= current.office.tier:
                return ("D-play.3", f"{spec.name} does not upgrade a {current.name}")
            boxes = station.boxes.get(OFFICE_CELL)
            bonus = self.capacity_bonus(station, OFFICE_CELL)
            if (
                boxes
                and spec.facility
                and (
                    self.room(spec.facility, boxes, True, bonus) < 0
                    or self.room(spec.facility, boxes, False, bonus) < 0
                )
            ):
                return ("D-play.3", f"the cars in the {current.name}'s boxes would not fit on a {spec.name}")
            return None
        if kind is CardKind.RED_FLAG:
            return ("D-redflag.1", "a RED FLAG is played only to avert a collision in the Mainline Phase")
        return ("D-play.4", f"{spec.name} is laid on the station grid with PlaceCard or PlaceModifier")

    def _check_holds(self, seat: int, card: int, rule: str) -> None:
        if card not in self.hands[seat]:
            raise IllegalIntent(rule, f"seat {seat} holds no {self._name(card)}")

    def _apply_place_card(self, intent: PlaceCard) -> None:
        seat, card = intent.seat, intent.card
        self._check_holds(seat, card, "R6.2.2")
        problem = switching.placement_problem(self, seat, card, intent.cell, intent.rotated)
        if problem is not None:
            raise IllegalIntent(*problem)
        self.hands[seat].remove(card)
        switching.place(self, card, intent.cell, intent.rotated, self.office_of_seat[seat])
        turned = " turned 180°" if intent.rotated else ""
        self.log("place", seat, f"seat {seat} lays {self._name(card)}{turned} at {intent.cell}")

    def _apply_place_modifier(self, intent: PlaceModifier) -> None:
        seat, card = intent.seat, intent.card
        self._check_holds(seat, card, "R6.2.2")
        problem = switching.modifier_problem(self, seat, card, intent.cell, intent.facility)
        if problem is not None:
            raise IllegalIntent(*problem)
        self.hands[seat].remove(card)
        station = self.stations[self.office_of_seat[seat]]
        station.grid[intent.cell] = (card, False)
        station.modifiers[intent.cell] = intent.facility
        self.log(
            "place", seat, f"seat {seat} lays {self._name(card)} at {intent.cell}, serving {intent.facility}"
        )

    def _apply_move_tray(self, intent: MoveTray) -> None:
        switching.apply_move(self, intent)
        self.moves_left -= 1
        drops = sum(intent.drops) + intent.push
        self.log(
            "move",
            intent.seat,
            f"seat {intent.seat} moves tray {intent.tray} {intent.path[0]} -> {intent.path[-1]}"
            + (f", leaving {drops} car(s)" if drops else "")
            + f" ({self.moves_left} Moves left)",
        )
        if self.moves_left == 0:  # R6.1.2: the last Move ends the phase for this seat
            self._end_choice(intent.seat)

    def _schedule(self, card: int, seat: int) -> None:
        """R7.2: roll the D12 for the number board; if taken, work down the column, wrapping."""
        roll = self.rng.d12()
        slot = roll - 1
        while self.timetable[slot] != EMPTY:
            slot = (slot + 1) % STAGES_PER_DAY
        self.timetable[slot] = card
        self.log(
            "play-train",
            seat,
            f"seat {seat} plays {self._name(card)}: rolled {roll}, "
            f"departs at {CLOCK[slot]} (stage {slot + 1})",
        )

    def _bring_in_sister(self, number: int, seat: int) -> None:
        """RB.2: the even companion comes in with its odd train."""
        sister = self.catalogue.train_by_number.get(number)
        if sister is not None and sister in self.set_aside:
            self.set_aside.remove(sister)
            self._schedule(sister, seat)

    def _upgrade_office(self, seat: int, card: int) -> None:
        """D-play.3: a higher-tier office card replaces the office; its boxes carry over."""
        station = self.stations[self.office_of_seat[seat]]
        old = station.grid[OFFICE_CELL][0]
        station.grid[OFFICE_CELL] = (card, False)
        if self.catalogue.cards[old].deck is Deck.SETUP:
            insort(self.set_aside, old)
        else:
            self.salvage.append(old)
        station.boxes.setdefault(OFFICE_CELL, Boxes())
        self.log("upgrade", seat, f"seat {seat} upgrades its {self._name(old)} to a {self._name(card)}")

    def _apply_discard(self, intent: Discard) -> None:
        seat, card, d = intent.seat, intent.card, intent.department
        self._check_holds(seat, card, "R6.2.4")
        if not 0 <= d < DEPARTMENTS:
            raise IllegalIntent("R6.2.4", f"there is no Department {d} (they are 0, 1 and 2)")
        self.hands[seat].remove(card)
        self.departments[d].append(card)
        self.log("discard", seat, f"seat {seat} discards {self._name(card)} onto Department {d}")

    def _apply_end_turn(self, intent: EndTurn) -> None:
        hand = self.hands[intent.seat]
        if len(hand) > HAND_LIMIT:
            raise IllegalIntent(
                "R6.2.4",
                f"seat {intent.seat} holds {len(hand)} cards; discard or play down to {HAND_LIMIT} first",
            )
        self._next_local_turn()

    # ------------------------------------------------------------------ automatic steps

    def _end_choice(self, seat: int) -> None:
        """R6.2.4 / D-play.2: over the hand limit after any choice, the seat must get down to it."""
        if len(self.hands[seat]) > HAND_LIMIT:
            self.phase = Phase.CARD_PLAY
        else:
            self._next_local_turn()

    def _start_local_turn(self) -> None:
        self.phase = Phase.LOCAL_OPS
        if not self.home_office and self.salvage:  # D-deck.3
            self._reshuffle()

    def _next_local_turn(self) -> None:
        self.turn += 1
        if self.turn < self.n:
            self._start_local_turn()
            return
        trains.begin_new_train_phase(self)  # then the Mainline Phase and the rest of the Stage

    def after_mainline(self) -> None:
        self.actor = EMPTY
        cargo.begin_cargo_phase(self)

    def after_cargo(self) -> None:
        self.workers_used = {}
        self._end_stage()
        if self.phase is not Phase.GAME_OVER:
            self.turn = 0
            self._start_local_turn()

    def earn(self, seat: int, amount: int, rule: str, text: str) -> None:
        """A change of a seat's Revenue (R2.4.7), logged with the rule that causes it."""
        self.revenue_by_seat[seat] += amount
        self.ledger.append(LedgerEntry(self.day, self.stage, seat, amount, rule, text))
        self.log("revenue", seat, f"{text} [{rule}: {amount:+d}]")

    def _end_stage(self) -> None:
        if self.stage in SHIFT_CHANGE_STAGES:  # R5.1.5
            old = self.fedora
            self.fedora = (old + 1) % self.n
            self.log(
                "fedora",
                self.fedora,
                f"{CLOCK[self.stage]} shift change: the Fedora passes from seat {old} to seat {self.fedora}",
            )
        self.stages_played += 1
        if self.config.target_revenue is not None and self._target_reached():
            self._game_over("the revenue target is reached")
            return
        if self.stage < STAGES_PER_DAY - 1:
            self.stage += 1
            return
        self.log("day-end", -1, f"day {self.day + 1} ends; revenue {self.revenue_by_seat}")
        if self.day + 1 >= self.config.days:  # the clock stays on the last Stage played
            self._game_over(f"{self.config.days} day(s) played")
            return
        self.day += 1
        self.stage = 0
        if self.config.house_rules.employee_rotation:
            self._rotate_employees()

    def _rotate_employees(self) -> None:
        """RB.3: every player moves one chair left, to the next station east (wrapping)."""
        n = self.n
        old = self.office_of_seat[:]
        self.office_of_seat = [old[(s + 1) % n] for s in range(n)]
        for seat, office in enumerate(self.office_of_seat):
            self.seat_of_office[office] = seat
        self.log("rotation", -1, f"employee rotation: seat -> office {self.office_of_seat}")

    def _target_reached(self) -> bool:
        target = self.config.target_revenue
        if target is None:
            return False
        if self.config.mode is Mode.COOP:
            return sum(self.revenue_by_seat) >= target
        return max(self.revenue_by_seat) >= target

    def _game_over(self, why: str) -> None:
        self.phase = Phase.GAME_OVER
        self.log("game-over", -1, f"game over: {why}; revenue {self.revenue_by_seat}")

    # Decks (R6.2.5, R6.2.6)

    def _refill_department(self, d: int) -> None:
        if not self.home_office:
            return
        card = self.home_office.pop()
        self.departments[d].append(card)
        self.log("department-refill", -1, f"Department {d} refilled with {self._name(card)}")
        if not self.home_office:
            self._reshuffle()

    def _reshuffle(self) -> None:
        """Salvage Yard and Departments shuffled into a new Home Office; one card to each
        Department first (D-deck.2: a small pool may leave the Home Office empty)."""
        pool = self.salvage + [card for dept in self.departments for card in dept]
        self.salvage = []
        self.departments = [[] for _ in range(DEPARTMENTS)]
        self.rng.shuffle(pool)
        self.home_office = pool
        for d in range(DEPARTMENTS):
            if pool:
                self.departments[d].append(pool.pop())
        self.log("reshuffle", -1, f"Home Office reshuffled: {len(pool)} cards, Departments re-dealt")

    # Yards (C-yards)

    def take_from_division(self, code: int) -> None:
        self.division[code] -= 1
        self.division_total -= 1
        if self.division_total == 0:  # C-yards.2
            self.division, self.classification = self.classification, [0] * N_CAR_CODES
            self.division_total = sum(self.division)
            self.log(
                "yard-refill",
                -1,
                f"Division Yard empty: {self.division_total} cars return from the Classification Yard",
            )

    def retire(self, code: int) -> None:
        """C-yards.3: used cars go to the Classification Yard; cabooses to the Division Yard.
        A car leaving play is turned right side up (R9.3.4)."""
        code = unflipped(code)
        if car_type(code) == CABOOSE:
            self.division[code] += 1
            self.division_total += 1
        else:
            self.classification[code] += 1

    # ------------------------------------------------------------------ copies, hashes, text

    def clone(self) -> GameState:
        """An independent copy that shares only immutable data. Events start empty."""
        other = GameState.__new__(GameState)
        other.config = self.config
        other.catalogue = self.catalogue
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
        return other

    def snapshot(self) -> dict[str, Any]:
        """Every mutable part of the state as plain JSON data (events excluded)."""
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
        game = {"config": self.config.to_dict(), "house_rules": self.config.house_rules.to_dict()}
        text = json.dumps([game, self.snapshot()], sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def describe(self, intent: Intent) -> str:
        """A one-line, human reading of an intent (without hidden outcomes)."""
        s = f"seat {intent.seat}"
        if isinstance(intent, Pass):
            return f"{s}: pass"
        if isinstance(intent, ChooseSwitch):
            return f"{s}: switch with a train"
        if isinstance(intent, EndSwitching):
            return f"{s}: end switching"
        if isinstance(intent, DrawHomeOffice):
            return f"{s}: draw from the Home Office"
        if isinstance(intent, DrawDepartment):
            dept = self.departments[intent.department] if 0 <= intent.department < DEPARTMENTS else []
            top = f" ({self._name(dept[-1])})" if dept else ""
            return f"{s}: take the top of Department {intent.department}{top}"
        if isinstance(intent, PlayCard):
            return f"{s}: play {self._name(intent.card)}"
        if isinstance(intent, Discard):
            return f"{s}: discard {self._name(intent.card)} onto Department {intent.department}"
        if isinstance(intent, EndTurn):
            return f"{s}: end the turn"
        if isinstance(intent, StockOutbound):
            return f"{s}: Freight Agent stocks a {car_name(intent.car)} on the green box at {intent.cell}"
        if isinstance(intent, ClearInbound):
            return f"{s}: Freight Agent clears a {car_name(intent.car)} from the red box at {intent.cell}"
        if isinstance(intent, Unjam):
            return (
                f"{s}: Freight Agent unjams a {car_name(intent.car)} from {intent.area.name} at {intent.cell}"
            )
        if isinstance(intent, PlaceCard):
            turned = " turned 180°" if intent.rotated else ""
            return f"{s}: lay {self._name(intent.card)}{turned} at {intent.cell}"
        if isinstance(intent, PlaceModifier):
            return f"{s}: lay {self._name(intent.card)} at {intent.cell}, serving {intent.facility}"
        if isinstance(intent, AddCar):
            return f"{s}: add a {car_name(intent.car)} to the new train"
        if isinstance(intent, EndConsist):
            return f"{s}: the Extra's consist is complete"
        if isinstance(intent, ChooseDivisionPoint):
            side, runs = ("East", "west") if intent.east else ("West", "east")
            return f"{s}: set the Extra at the {side} Division Point (it runs {runs})"
        if isinstance(intent, Clearance):
            return f"{s}: {'clear' if intent.clear else 'hold'} the following train"
        if isinstance(intent, RedFlag):
            return f"{s}: {'play' if intent.play else 'do not play'} a RED FLAG"
        if isinstance(intent, Labor):
            return f"{s}: Laborers move the {car_name(intent.car)} at {intent.spot.name} of {intent.cell} on"
        if isinstance(intent, Board):
            return f"{s}: a Porter boards passengers onto tray {intent.tray}"
        if isinstance(intent, Detrain):
            return f"{s}: a Porter helps passengers off tray {intent.tray}"
        if isinstance(intent, EndCargo):
            return f"{s}: end the Cargo turn"
        path = " -> ".join(str(cell) for cell in intent.path)
        return f"{s}: move tray {intent.tray} {path}, drops {list(intent.drops)}, push {intent.push}"

    def _name(self, card: int) -> str:
        cards = self.catalogue.cards
        return cards[card].name if 0 <= card < len(cards) else f"card #{card}"

    def _chain_text(self) -> str:
        """The Division west to east (R4.3): WDP, Mainline, office, ..., Mainline, EDP."""
        cat = self.catalogue
        parts = ["West Division Point"]
        for office in range(self.n):
            parts.append(f"[{cat.cards[self.mainline[office]].regions}-region Mainline]")
            parts.append(f"office {office} (seat {self.seat_of_office[office]})")
        parts.append(f"[{cat.cards[self.mainline[self.n]].regions}-region Mainline]")
        parts.append("East Division Point")
        return " - ".join(parts)

    def log(self, kind: str, seat: int, text: str) -> None:
        self.events.append(Event(self.day, self.stage, kind, seat, text))


_HANDLERS: dict[type, Callable[[GameState, Any], None]] = {
    Pass: GameState._apply_pass,
    ChooseSwitch: GameState._apply_choose_switch,
    EndSwitching: GameState._apply_end_switching,
    DrawHomeOffice: GameState._apply_draw_home_office,
    DrawDepartment: GameState._apply_draw_department,
    PlayCard: GameState._apply_play_card,
    Discard: GameState._apply_discard,
    EndTurn: GameState._apply_end_turn,
    StockOutbound: GameState._apply_stock_outbound,
    ClearInbound: GameState._apply_clear_inbound,
    Unjam: GameState._apply_unjam,
    MoveTray: GameState._apply_move_tray,
    PlaceCard: GameState._apply_place_card,
    PlaceModifier: GameState._apply_place_modifier,
    AddCar: trains.apply_add_car,
    EndConsist: trains.apply_end_consist,
    ChooseDivisionPoint: trains.apply_choose_division_point,
    Clearance: trains.apply_clearance,
    RedFlag: trains.apply_red_flag,
    Labor: cargo.apply_labor,
    Board: cargo.apply_board,
    Detrain: cargo.apply_detrain,
    EndCargo: cargo.apply_end_cargo,
}

__all__ = ["CLOCK", "Boxes", "Event", "GameState", "LedgerEntry", "Phase", "Station", "Tray"]

"""What the heuristic bots share: estimates on a seat view built on the core's board queries
(``sm_env.core``: ETAs, capacities, the Moves a switch gives, ...; a bot never re-derives a
rule), the Cargo-turn search, a passive rollout for safety checks, and ``HeuristicBot``, the
decision loop the three strategies (``agents.passenger``, ``agents.freight``,
``agents.dispatcher``) specialise.

Every bot sees only its seat: ``choose(view)`` reads ``view.board`` (public information and
its own hand) and simulates on ``view.determinize(rng)`` copies (hidden cards dealt at random
from the bot's own seeded stream). Nothing is cached between decisions except the bot's own
switching plan, which is keyed by what the view shows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from agents.planning import Plan, StationScorer, plan_candidates, plan_switching, station_key
from sm_env.core import (
    COACH,
    EMPTY,
    FLIPPED,
    HAND_LIMIT,
    LOADED_COACH,
    OFFICE_CELL,
    STAGES_PER_DAY,
    AddCar,
    Board,
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
    GameState,
    Intent,
    Labor,
    MoveTray,
    Pass,
    Phase,
    PlaceCard,
    PlaceModifier,
    PlayCard,
    RedFlag,
    Rng,
    SeatView,
    StockOutbound,
    box_room,
    car_type,
    describe,
    eta,
    free_slot,
    moves_for_switch,
    office_tier,
    place,
    porters,
    regions,
    start_line,
)

Param = float
KEEP_PLANS = 3  # plans one switching search keeps: its best, and the few the station guard rolls out


# ---------------------------------------------------------------------------- estimates


def office_of(board: GameState, seat: int) -> int:
    return board.office_of_seat[seat]


def with_card_laid(board: GameState, intent: PlaceCard) -> GameState:
    """A copy of ``board`` with the card of a legal ``intent`` laid: laying a card changes its
    station alone, so only that station is copied (a seat view's board will do)."""
    office = office_of(board, intent.seat)
    trial = board.shallow_copy()
    trial.stations = board.stations[:]
    trial.stations[office] = board.stations[office].copy()
    place(trial, intent.card, intent.cell, intent.rotated, office)
    return trial


def coaches(consist: Iterable[int]) -> tuple[int, int, int]:
    """(loaded coaches that may detrain, loaded coaches boarded here (flipped), empty coaches)."""
    loaded = flipped = empty = 0
    for code in consist:
        if code < 0 or car_type(code) != COACH:
            continue
        if code & FLIPPED:
            flipped += 1
        elif code & 1:
            loaded += 1
        else:
            empty += 1
    return loaded, flipped, empty


def game_left(board: GameState) -> float:
    """Days of play left, counting the rest of today (1.0 = one whole day)."""
    return (board.config.days - board.day - 1) + (STAGES_PER_DAY - board.stage) / STAGES_PER_DAY


def card_timing_facts(board: GameState, office: int) -> tuple[object, ...]:
    """The public facts a heuristic's card values read besides the layouts (a memo key's part):
    the office's tier, the time left, the timetable's slots, and the Mainline and Crew Trays
    that set a train's travel and the timetable's capacity."""
    return (
        office,
        office_tier(board, office),
        board.day,
        board.stage,
        board.config.days,
        tuple(board.timetable),
        board.mainline,
        len(board.trays),
    )


TIMETABLE_LOAD = 0.5  # the share of tray time a timetable may take; holds and Extras need the rest


def travel_from_dp(board: GameState, office: int, east: bool) -> int:
    """Stages from a train's departure at a Division Point to its arrival at ``office``
    (running east from the West DP when ``east``), if it is never held."""
    n = board.n
    lines = range(0, office + 1) if east else range(office + 1, n + 1)
    stops = office if east else n - 1 - office
    return sum(regions(board, line) for line in lines) + stops


def timetable_capacity(board: GameState) -> int:
    """About how many timetabled trains the Crew Trays can run every day (C-trays.2): a day's
    tray time, at ``TIMETABLE_LOAD``, over one run from Division Point to Division Point."""
    trip = sum(regions(board, line) for line in range(board.n + 1)) + board.n
    return int(TIMETABLE_LOAD * len(board.trays) * STAGES_PER_DAY / trip)


def expected_visits(board: GameState, office: int, card: int) -> float:
    """About how many times a timetabled train played now would reach ``office`` before the
    game ends: the D12 slot roll (R7.2, taken slots push it down the column), a first run
    today only if its slot is not past, and its travel time from the Division Point. None
    once the timetable fills the Crew Trays: it would wait for a tray and delay the others."""
    spec = board.catalogue.cards[card].train
    if spec is None:
        return 0.0
    if not spec.extra and sum(c != EMPTY for c in board.timetable) >= timetable_capacity(board):
        return 0.0
    if spec.extra:
        travel = min(travel_from_dp(board, office, True), travel_from_dp(board, office, False))
        return 1.0 if board.stage + travel <= STAGES_PER_DAY * (board.config.days - board.day) - 1 else 0.0
    travel = travel_from_dp(board, office, spec.direction == "east")
    now = board.day * STAGES_PER_DAY + board.stage
    last = board.config.days * STAGES_PER_DAY - 1
    if free_slot(board, 0) == EMPTY:
        return 0.0
    total = 0
    for roll in range(STAGES_PER_DAY):
        slot = free_slot(board, roll)
        for day in range(board.day, board.config.days):
            start = day * STAGES_PER_DAY + slot
            if start >= now and start + travel <= last:
                total += 1
    return total / STAGES_PER_DAY


# ---------------------------------------------------------------------------- simulation


def passive_intent(state: GameState, flag_seat: int = -1) -> Intent:
    """What a seat that does nothing would choose: the baseline of the safety rollouts.
    ``flag_seat`` plays a RED FLAG when offered one; nobody else does."""
    phase, seat = state.phase, state.current_player()
    if phase is Phase.LOCAL_OPS:
        return Pass(seat)
    if phase is Phase.SWITCHING:
        return EndSwitching(seat)
    if phase is Phase.CARD_PLAY:
        hand = state.hands[seat]
        return EndTurn(seat) if len(hand) <= HAND_LIMIT else Discard(seat, hand[0], 0)
    if phase is Phase.CLEARANCE:
        return Clearance(seat, False)
    if phase is Phase.RED_FLAG:
        return RedFlag(seat, seat == flag_seat)
    if phase is Phase.CARGO:
        return EndCargo(seat)
    if phase is Phase.EXTRA_SIDE:
        return ChooseDivisionPoint(seat, False)
    if phase is Phase.EXTRA_CONSIST:
        return EndConsist(seat)
    return state.legal_intents()[0]


def rollout(
    state: GameState, until: Callable[[GameState], bool], flag_seat: int = -1, max_steps: int = 400
) -> None:
    """Play passive decisions on ``state`` (a playable copy) until ``until`` holds."""
    for _ in range(max_steps):
        if state.is_terminal() or until(state):
            return
        state.apply(passive_intent(state, flag_seat))


def losses_since(state: GameState, seat: int, start: int) -> int:
    """Revenue the seat lost (collisions) in ledger entries from index ``start`` on."""
    return -sum(e.amount for e in state.ledger[start:] if e.seat == seat and e.amount < 0)


def cargo_progress(state: GameState, office: int) -> float:
    """Laborer steps already spent on loads still on MEN|AT|WORK (they pay when they finish)."""
    station = state.stations[office]
    total = 0.0
    for cell, boxes in station.boxes.items():
        if cell == OFFICE_CELL:
            continue
        for slot, code in enumerate(boxes.work):
            if code == EMPTY:
                continue
            if boxes.unloading[slot]:
                total += 3 - slot
            elif code - 1 in station.cars.get(cell, ()):
                total += slot + 1
    return total


def best_cargo_intent(state: GameState, seat: int, progress_weight: float, max_nodes: int) -> Intent:
    """Search the seat's Cargo turn (every order of its worker actions, up to ``max_nodes``
    simulated actions) for the most Revenue now plus ``progress_weight`` per Laborer step
    spent on loads still underway."""
    office = state.office_of_seat[seat]
    budget = [max_nodes]

    def value(st: GameState) -> float:
        return st.revenue_by_seat[seat] + progress_weight * cargo_progress(st, office)

    def search(st: GameState) -> float:
        best = value(st)
        if st.phase is not Phase.CARGO or st.current_player() != seat:
            return best
        for intent in st.legal_intents():
            if isinstance(intent, EndCargo) or budget[0] <= 0:
                continue
            budget[0] -= 1
            child = st.clone()
            child.apply(intent)
            best = max(best, search(child))
        return best

    best_intent: Intent = EndCargo(seat)
    best_value = value(state) + 1e-6  # stopping wins only if nothing else is better
    for intent in state.legal_intents():
        if isinstance(intent, EndCargo):
            continue
        child = state.clone()
        child.apply(intent)
        v = search(child)
        if v > best_value + 1e-9:
            best_value, best_intent = v, intent
    return best_intent


# ---------------------------------------------------------------------------- the bot


class HeuristicBot:
    """Base of the heuristic bots: one handler per decision step; subclasses set the
    strategy by their parameters and by overriding the handlers and card values.

    Shared parameters (constructor keywords, defaults in ``DEFAULTS``; every bot's
    effective parameters are in ``bot.params``):

    - ``cargo_nodes`` (200): actions simulated when searching a Cargo turn.
    - ``progress_weight`` (0.2): value of one Laborer step spent on a load still underway.
    - ``safety_distance`` (1): regions a following train must be behind the train ahead on
      the Mainline card it departs onto before the Superintendent clears it.
    - ``beam`` (6), ``branch`` (4): width of the switching beam search and new stations kept
      per state and step; ``switch_gain`` (1.0): planned gain needed to choose switching;
      ``widen`` (3): how much wider the second search is when the first finds too little.
    - ``lookahead`` (3): Mainline Phases ahead in which an arriving train counts as "soon".
    - ``w_draw`` (1.0): weight of a card's value when choosing to draw; ``home_bonus`` (0.0):
      added to the expected value of a blind Home Office draw.
    - ``w_stock`` (2.0), ``w_clear`` (1.8): Freight Agent stocking a loaded coach / clearing
      the office's red box when a train due needs it; ``prestock`` (0.4): the fraction of it
      when no train is due.
    - ``discard_junk`` (0): when 1, also discard worthless cards below the hand limit.
    - ``end_consist`` (0.0): an own Extra stops taking cars worth less than this.
    - ``w_first_train`` (2.0): the least a timetabled train card is worth per expected visit
      while no train is on the timetable (``first_train_value``): a table of one bot kind
      must not leave the railroad without trains.
    """

    name: str = "heuristic"
    version: str = "1"
    DEFAULTS: ClassVar[dict[str, Param]] = {
        "cargo_nodes": 200,
        "progress_weight": 0.2,
        "safety_distance": 1,
        "beam": 6,
        "branch": 4,
        "switch_gain": 1.0,
        "widen": 3,
        "lookahead": 3,
        "w_draw": 1.0,
        "home_bonus": 0.0,
        "w_stock": 2.0,
        "w_clear": 1.8,
        "prestock": 0.4,
        "discard_junk": 0,
        "end_consist": 0.0,
        "w_first_train": 2.0,
    }

    def __init__(self, seed: int, **params: Any) -> None:
        defaults = {**HeuristicBot.DEFAULTS, **type(self).DEFAULTS}
        unknown = sorted(set(params) - set(defaults))
        if unknown:
            raise TypeError(f"{type(self).__name__} has no parameter(s) {', '.join(unknown)}")
        self.params: dict[str, Param] = {k: float(params.get(k, v)) for k, v in defaults.items()}
        self.seed = seed & 0xFFFFFFFF
        self.rng = Rng(self.seed)
        # per seat, the switching turn it was made for (Stages played), the plan's (station
        # key, Move) steps, and whether it ends the turn: one object may choose for several seats
        self._plans: dict[int, tuple[int, list[tuple[tuple[object, ...], MoveTray]], bool]] = {}
        self._memo: dict[tuple[object, ...], Any] = {}
        self._reason: str | None = None
        # a ``pick``'s reason, worded only when asked: rollouts make thousands of choices whose
        # reason nobody reads
        self._weighed: tuple[GameState, list[tuple[float, Intent]], float, Intent] | None = None
        self.last_options: list[tuple[float, Intent]] = []  # what its last ``pick`` weighed

    @property
    def reason(self) -> str | None:
        """Why the last choice, in a line (the play table's hint)."""
        if self._weighed is not None:
            self._reason = _weighed_text(*self._weighed)
            self._weighed = None
        return self._reason

    @reason.setter
    def reason(self, text: str | None) -> None:
        self._reason = text
        self._weighed = None

    def memo(self, key: tuple[object, ...], compute: Callable[[], Any]) -> Any:
        """A result the bot worked out before for the same public facts (``key``): searches
        are repeated while a train stands still; the cache depends on what the view shows only."""
        if key in self._memo:
            return self._memo[key]
        if len(self._memo) >= 4096:
            self._memo.clear()
        value = compute()
        self._memo[key] = value
        return value

    def share_memo(self, memo: dict[tuple[object, ...], Any]) -> None:
        """Work with ``memo`` as its cache: bots of one kind and parameters may share one (it
        holds what public facts gave), as a search bot's rollout bots do."""
        self._memo = memo

    def p(self, key: str) -> float:
        return self.params[key]

    # ------------------------------------------------------------------ dispatch

    def choose(self, view: SeatView) -> Intent:
        legal = view.legal_intents()
        if not legal:
            raise ValueError(f"seat {view.seat} has no decision to make now")
        self.reason = None
        if len(legal) == 1:
            self.reason = "the only decision there is"
            return legal[0]
        board = view.board
        phase = board.phase
        if phase is Phase.LOCAL_OPS:
            return self.local_ops(view, board, legal)
        if phase is Phase.SWITCHING:
            return self.switching(view, board, legal)
        if phase is Phase.CARD_PLAY:
            return self.card_play(view, board, legal)
        if phase is Phase.NEW_TRAIN or phase is Phase.EXTRA_CONSIST:
            return self.add_car(view, board, legal)
        if phase is Phase.EXTRA_SIDE:
            return self.extra_side(view, board, legal)
        if phase is Phase.CLEARANCE:
            clear = self.clear_following(view, board)
            if self.reason is None:
                gap = following_gap(board)
                ahead = f"the train ahead is {gap} region(s) on" if gap is not None else "no train ahead"
                self.reason = f"{ahead}; it needs {self.p('safety_distance'):g} to clear"
            return Clearance(view.seat, clear)
        if phase is Phase.RED_FLAG:
            flag = self.play_red_flag(view, board)
            self.reason = self.reason or "the flag averts a collision that would cost it 5 Revenue"
            return RedFlag(view.seat, flag)
        if phase is Phase.CARGO:
            return self.cargo(view, board, legal)
        return legal[0]

    # ------------------------------------------------------------------ card values

    def card_value(self, board: GameState, seat: int, card: int) -> float:
        """How much the card is worth to this bot, about in Revenue points."""
        return 0.0

    def card_value_key(self, board: GameState, seat: int) -> tuple[object, ...] | None:
        """The public facts ``card_value`` reads for the seat, as a memo key; None when the
        bot does not name them (its card values are then worked out afresh each time)."""
        return None

    def card_values(self, board: GameState, seat: int) -> dict[int, float]:
        """The seat's card values as the board stands, filled in as asked (``value_of``): kept
        while the facts of ``card_value_key`` stay the same, as they do through a Stage."""
        key = self.card_value_key(board, seat)
        if key is None:
            return {}
        values: dict[int, float] = self.memo(key, dict)
        return values

    def value_of(self, values: dict[int, float], board: GameState, seat: int, card: int) -> float:
        """``card_value`` through ``values`` (``card_values``)."""
        value = values.get(card)
        if value is None:
            value = values[card] = self.card_value(board, seat, card)
        return value

    def first_train_value(self, board: GameState, seat: int, card: int) -> float:
        """While the timetable is empty, a timetabled train of any make-up is worth
        ``w_first_train`` per expected visit: until one runs, no seat earns anything from
        trains, and a bot that discards the trains it cannot use would leave none."""
        spec = board.catalogue.cards[card].train
        if spec is None or spec.extra or any(c != EMPTY for c in board.timetable):
            return 0.0
        return self.p("w_first_train") * expected_visits(board, office_of(board, seat), card)

    def expected_draw(self, view: SeatView, board: GameState) -> float:
        """Mean value of a Home Office card, over the cards the seat cannot see (other hands
        and the deck): one of them is the card drawn."""
        pool = view.unseen_cards()
        if not pool:
            return 0.0
        seat = view.seat
        values = self.card_values(board, seat)  # copies of a card are worth the same
        total = 0.0
        for card in pool:  # ``value_of``, inlined: a rollout's hottest loop
            value = values.get(card)
            if value is None:
                value = values[card] = self.card_value(board, seat, card)
            total += value
        return total / len(pool)

    def draw_options(
        self, view: SeatView, board: GameState, legal: list[Intent]
    ) -> list[tuple[float, Intent]]:
        out: list[tuple[float, Intent]] = []
        seat = view.seat
        values = self.card_values(board, seat) if any(isinstance(i, DrawDepartment) for i in legal) else {}
        for intent in legal:
            if isinstance(intent, DrawDepartment):
                top = board.departments[intent.department][-1]
                out.append((self.value_of(values, board, seat, top), intent))
            elif isinstance(intent, DrawHomeOffice):
                out.append((self.expected_draw(view, board) + self.p("home_bonus"), intent))
        return out

    # ------------------------------------------------------------------ Local Operations

    def local_ops(self, view: SeatView, board: GameState, legal: list[Intent]) -> Intent:
        options = self.local_options(view, board, legal)
        options.append((0.0, Pass(view.seat)))
        return self.pick(board, options)

    def pick(self, board: GameState, options: list[tuple[float, Intent]]) -> Intent:
        """The best-valued option (the first on ties), saying why: its value against the next
        best's."""
        self.last_options = options
        value, best = _best_pair(options)
        self.reason = None
        self._weighed = (board, options, value, best)
        return best

    def local_options(
        self, view: SeatView, board: GameState, legal: list[Intent]
    ) -> list[tuple[float, Intent]]:
        return [(v * self.p("w_draw"), i) for v, i in self.draw_options(view, board, legal)]

    def passenger_agent_options(
        self, view: SeatView, board: GameState, legal: list[Intent]
    ) -> list[tuple[float, Intent]]:
        """Freight Agent work at the office: stock loaded coaches on the green box ahead of
        trains with empty coaches, clear the red box ahead of trains with loaded ones."""
        seat = view.seat
        office = office_of(board, seat)
        p = porters(board, office)
        station = board.stations[office]
        boxes = station.boxes.get(OFFICE_CELL)
        if boxes is None or p == 0:
            return []
        soon, now = self.coach_demand(board, office)
        loaded, empty = soon
        green = boxes.outbound.count(LOADED_COACH)
        red_room = box_room(board, office, OFFICE_CELL, False)
        urgent = now[0] + now[1] > 0
        out: list[tuple[float, Intent]] = []
        want_green = min(p, loaded + empty) if loaded + empty else 1
        stock = StockOutbound(seat, OFFICE_CELL, LOADED_COACH)
        if stock in legal and green < want_green:
            weight = 1.0 if urgent else (0.8 if loaded + empty else self.p("prestock"))
            out.append((self.p("w_stock") * weight, stock))
        want_red = min(p, loaded) if loaded else 1
        clear = ClearInbound(seat, OFFICE_CELL, LOADED_COACH)
        if clear in legal:
            if red_room < want_red:
                weight = 1.0 if now[0] else (0.8 if loaded else self.p("prestock"))
                out.append((self.p("w_clear") * weight, clear))
            else:
                out.append((0.15, clear))
        return out

    def coach_demand(self, board: GameState, office: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """((loaded, empty) coaches on trains at or coming to the office within the lookahead,
        the same for trains arriving in the next Mainline Phase or standing there now)."""
        horizon = int(self.p("lookahead"))
        soon = [0, 0]
        now = [0, 0]
        for i, tray in enumerate(board.trays):
            when = eta(board, i, office)
            if when is None or when > horizon:
                continue
            loaded, flipped, empty = coaches(tray.consist)
            if when > 0:
                loaded += flipped  # boarded elsewhere: turned right side up when it leaves
            soon[0] += loaded
            soon[1] += empty
            if when <= 1:
                now[0] += loaded
                now[1] += empty
        return (soon[0], soon[1]), (now[0], now[1])

    # ------------------------------------------------------------------ switching

    def scorer(self, view: SeatView, board: GameState) -> StationScorer:
        """The station this bot wants after switching (subclasses add goals)."""
        return StationScorer(board, view.seat)

    def candidate_plans(
        self, view: SeatView, board: GameState, scorer: StationScorer, moves: int, keep: int
    ) -> list[Plan]:
        """The beam search's ``keep`` best plans (``plan_candidates``) for ``scorer``'s goals,
        remembered for the same station: a train may stand there for several Stages, and the
        station guard asks again for the plans its bot has just searched."""
        key = ("plans", plan_key(board, view.seat), moves, keep, scorer.w_home, scorer.signature())
        seat = view.seat

        def search() -> list[Plan]:
            state = view.determinize(self.rng)
            return plan_candidates(
                state, seat, moves, scorer, int(self.p("beam")), int(self.p("branch")), keep
            )

        found: list[Plan] = self.memo(key, search)
        return list(found)

    def make_plan(self, view: SeatView, board: GameState, moves: int) -> Plan:
        """The beam search from the view's station; when the narrow beam finds no plan worth
        ``switch_gain``, once more ``widen`` times wider (a half-done plan that must first
        drop a caboose or cars out of the way is easily pruned by a narrow beam)."""
        scorer = self.scorer(view, board)
        key = ("plan", plan_key(board, view.seat), moves, scorer.signature())

        def search() -> Plan:
            beam, branch = int(self.p("beam")), int(self.p("branch"))
            plan = self.candidate_plans(view, board, scorer, moves, KEEP_PLANS)[0]
            widen = self.p("widen")
            if plan.score - plan.start_score < self.p("switch_gain") and widen > 1:
                wide = plan_switching(
                    view.determinize(self.rng),
                    view.seat,
                    moves,
                    scorer,
                    int(beam * widen),
                    int(branch * widen),
                )
                if wide.score > plan.score:
                    plan = wide
            return plan

        found: Plan = self.memo(key, search)
        return found

    def remember(self, board: GameState, seat: int, plan: Plan, final: bool = False) -> None:
        """Follow ``plan`` in the seat's switching turn of this Stage; when ``final``, stop
        once it is done (or the station no longer matches it) instead of planning on."""
        self._plans[seat] = (board.stages_played, list(zip(plan.keys, plan.moves, strict=True)), final)

    def forget_plan(self, seat: int) -> None:
        """Drop the switching plan remembered for the seat: the bot was asked for advice, and
        the turn goes on without it."""
        self._plans.pop(seat, None)

    def remembered_plan(
        self, board: GameState, seat: int
    ) -> tuple[list[tuple[tuple[object, ...], MoveTray]], bool]:
        """The switching steps (station key, Move) the bot remembered for ``seat`` in this
        Stage, and whether it ends the turn after them: what ``switching`` will play if the
        turn comes."""
        stage, steps, final = self._plans.get(seat, (-1, [], False))
        return (list(steps), final) if stage == board.stages_played else ([], False)

    def switch_option(
        self, view: SeatView, board: GameState, legal: list[Intent]
    ) -> tuple[float, Intent] | None:
        """Plan a switching turn from here; worth choosing if it gains enough."""
        choose = ChooseSwitch(view.seat)
        if choose not in legal:
            return None
        plan = self.make_plan(view, board, moves_for_switch(board))
        gain = plan.score - plan.start_score
        if not plan.moves or gain < self.p("switch_gain"):
            return None
        self.remember(board, view.seat, plan)
        return (gain, choose)

    def switching(self, view: SeatView, board: GameState, legal: list[Intent]) -> Intent:
        seat = view.seat
        key = station_key(board, seat)
        stage, steps, final = self._plans.pop(seat, (-1, [], False))
        if stage == board.stages_played:
            if steps and steps[0][0] == key and steps[0][1] in legal:
                self._plans[seat] = (stage, steps[1:], final)
                self.reason = "the next Move of the plan it made this turn"
                return steps[0][1]
            if final:
                self.reason = "its plan is done"
                return EndSwitching(seat)
        plan = self.make_plan(view, board, board.moves_left)
        if plan.moves and plan.score > plan.start_score + 1e-9:
            self.remember(board, seat, Plan(plan.moves[1:], plan.keys[1:], plan.score, plan.start_score))
            self.reason = (
                f"a plan of {len(plan.moves)} Move(s) raises its station's score "
                f"from {plan.start_score:.2f} to {plan.score:.2f}"
            )
            return plan.moves[0]
        self.reason = "no Move it found makes its station better"
        return EndSwitching(view.seat)

    # ------------------------------------------------------------------ card play

    def play_value(self, view: SeatView, board: GameState, intent: Intent) -> float:
        """Value of playing or laying a card now; <= 0 means keep it (or discard it)."""
        return -1.0

    def play_values(self, view: SeatView, board: GameState, plays: Sequence[Intent]) -> list[float]:
        """``play_value`` of each of ``plays``, in order (a bot may share work between them)."""
        return [self.play_value(view, board, intent) for intent in plays]

    def card_play(self, view: SeatView, board: GameState, legal: list[Intent]) -> Intent:
        seat = view.seat
        plays = [i for i in legal if isinstance(i, PlayCard | PlaceCard | PlaceModifier)]
        if plays:
            value, best = _best_pair(list(zip(self.play_values(view, board, plays), plays, strict=True)))
            if value > 0:
                self.reason = f"playing it is worth {value:.2f} now"
                return best
        hand = board.hands[seat]
        if len(hand) > HAND_LIMIT or self.p("discard_junk"):
            values = self.card_values(board, seat)
            worst = min(hand, key=lambda c: (self.value_of(values, board, seat, c), c))
            if len(hand) > HAND_LIMIT or self.value_of(values, board, seat, worst) <= 0:
                dept = min(
                    range(len(board.departments)),
                    key=lambda d: (
                        self.value_of(values, board, seat, board.departments[d][-1])
                        if board.departments[d]
                        else -9.0,
                        d,
                    ),
                )
                discard = Discard(seat, worst, dept)
                if discard in legal and (len(hand) > HAND_LIMIT or EndTurn(seat) not in legal):
                    self.reason = "over the hand limit: the card worth least to it goes"
                    return discard
        end = EndTurn(seat)
        if end in legal:
            self.reason = "no card in hand is worth playing now"
            return end
        return next(i for i in legal if isinstance(i, Discard))

    # ------------------------------------------------------------------ trains

    def car_value(self, board: GameState, seat: int, code: int, own_extra: bool) -> float:
        """Value of putting car ``code`` on the train being made up."""
        return 0.0

    def add_car(self, view: SeatView, board: GameState, legal: list[Intent]) -> Intent:
        own = board.phase is Phase.EXTRA_CONSIST
        options: list[tuple[float, Intent]] = []
        for intent in legal:
            if isinstance(intent, AddCar):
                options.append((self.car_value(board, view.seat, intent.car, own), intent))
            elif isinstance(intent, EndConsist):
                options.append((self.p("end_consist"), intent))  # only an Extra's owner may stop (R7.5)
        return self.pick(board, options)

    def extra_side(self, view: SeatView, board: GameState, legal: list[Intent]) -> Intent:
        """Send the Extra so it reaches the Office before the game ends, past the fewest
        offices with Porters (they would work its coaches first), soonest."""
        office = office_of(board, view.seat)
        n = board.n
        left = STAGES_PER_DAY * (board.config.days - board.day) - board.stage

        def cost(east: bool) -> tuple[bool, int, int]:
            before = range(office + 1, n) if east else range(office)  # from the East DP it runs west
            travel = travel_from_dp(board, office, not east)
            return (travel >= left, sum(porters(board, o) > 0 for o in before), travel)

        self.reason = "it reaches its office before the game ends, past the fewest Porters, soonest"
        return ChooseDivisionPoint(view.seat, min((False, True), key=cost))

    def clear_following(self, view: SeatView, board: GameState) -> bool:
        gap = following_gap(board)
        return gap is None or gap >= self.p("safety_distance")

    def play_red_flag(self, view: SeatView, board: GameState) -> bool:
        return True  # a flag is only offered to avert a collision this seat would pay for

    # ------------------------------------------------------------------ cargo

    def cargo(self, view: SeatView, board: GameState, legal: list[Intent]) -> Intent:
        actions = [i for i in legal if isinstance(i, Labor | Board | Detrain)]
        if not actions:
            return EndCargo(view.seat)
        state = view.determinize(self.rng)
        nodes = int(self.p("cargo_nodes"))
        self.reason = f"the first step of the best order of its workers' actions (a search of {nodes} nodes)"
        return best_cargo_intent(state, view.seat, self.p("progress_weight"), nodes)


def plan_key(board: GameState, seat: int) -> tuple[object, ...]:
    """Everything a switching plan of the seat reads, for its cache: the seat (the Moves are
    its intents), track, cars, trains and the loads being worked, which lock an industry
    track (R9.3.3). A plan cached without the locks was replayed into a locked track."""
    office = office_of(board, seat)
    station = board.stations[office]
    trains = tuple(
        (i, t.train, t.direction, t.facing) for i, t in enumerate(board.trays) if t.office == office
    )
    return (
        seat,
        station_key(board, seat),
        trains,
        tuple(sorted(station.grid.items())),
        tuple((cell, tuple(boxes.work)) for cell, boxes in sorted(station.boxes.items())),
    )


def following_gap(board: GameState) -> int | None:
    """In a Clearance decision: regions between the Start region the train would take and the
    nearest train ahead of it on that Mainline card (0: the Start region is taken), or None."""
    tray = board.trays[board.mainline_queue[0]]
    line = start_line(board, tray)
    d = tray.direction
    start = 0 if d > 0 else regions(board, line) - 1
    gaps = [
        (t.region - start) * d
        for t in board.trays
        if t.train != EMPTY and t.line == line and t.direction == d
    ]
    return min(gaps) if gaps else None


def _plain(board: GameState, intent: Intent) -> str:
    """An intent's text without its "seat N: " head."""
    return describe(board, intent).split(": ", 1)[-1]


def _weighed_text(board: GameState, options: list[tuple[float, Intent]], value: float, best: Intent) -> str:
    """A ``pick``'s reason: the chosen option's value against the next best's."""
    others = [(v, i) for v, i in options if i is not best]
    if not others:
        return f"worth {value:.2f}"
    second, runner = _best_pair(others)
    return f"worth {value:.2f}, against {second:.2f} for the next best ({_plain(board, runner)})"


def _best_pair(options: list[tuple[float, Intent]]) -> tuple[float, Intent]:
    best_value, best = options[0]
    for value, intent in options[1:]:
        if value > best_value:
            best_value, best = value, intent
    return best_value, best


__all__ = [
    "KEEP_PLANS",
    "HeuristicBot",
    "best_cargo_intent",
    "cargo_progress",
    "coaches",
    "expected_visits",
    "following_gap",
    "game_left",
    "losses_since",
    "office_of",
    "passive_intent",
    "rollout",
    "travel_from_dp",
]

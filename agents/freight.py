"""The freight builder: a bot that lays sidings and industries and works freight cars (R9.3).

The strategy and its parameters are documented on the class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from agents.common import Param, card_timing_facts, expected_visits, game_left, office_of, with_card_laid
from agents.planning import Plan, StationScorer, layout_value
from agents.safety import StationSafety
from sm_env.core import (
    CABOOSE,
    COACH,
    EMPTY,
    ENGINE,
    FLIPPED,
    LOADED_COACH,
    OFFICE_CELL,
    CardKind,
    Cell,
    ClearInbound,
    DrawDepartment,
    FacilitySpec,
    GameState,
    Intent,
    PlaceCard,
    PlaceModifier,
    PlayCard,
    SeatView,
    Station,
    StockOutbound,
    W,
    box_room,
    car_type,
    cell_ends,
    eta,
    facility_spec,
    geometry_for,
    office_tier,
    placements_by_card,
    porters,
    train_takes,
)

# a station's cards and industries, the promise of a free slot, the facilities' worth
LayoutKey = tuple[tuple[object, ...], tuple[Cell, ...], float, tuple[tuple[int, float], ...]]
# the layout gain of each (card, cell, rotated) tried on one station
PlacementGains = dict[tuple[int, Cell, bool], float]


class FreightBot(StationSafety):
    """Freight builder: lays sidings and industries, stocks loads, spots cars with planned
    switching Moves, loads and unloads.

    Strategy:

    1. Build: lay track and facility cards (``PlaceCard``) where they make the best layout —
       each facility's value (``facility_values``: its Laborers and directions, times the share
       of train cards that carry its car types, plus ``w_network`` where the other offices'
       industries unload what it loads or load what it unloads) times how well a train from
       the Office reaches its industry track and comes back (``planning.layout_value``: Moves
       there and back on the station's Move graph, four or fewer is best), plus the promise
       of a free slot a facility would fit, plus ``w_siding`` for a siding the Office reaches
       (track laid early, so that the guard of step 7 has somewhere to park a train);
       freight Modifiers (``PlaceModifier``) next to its facilities.
    2. Stock: the Freight Agent puts a load on a facility's green box when an empty car of its
       type waits on the industry track (or is coming on a train), and clears a red box that
       blocks an unloading.
    3. Switch: when a train at the Office carries a car an industry wants (an empty car to
       load, a loaded car to unload) or could take away a loaded car, it plans Moves with the
       beam search of ``agents.planning`` (every train back on the A/D track in order, the
       Running Track clear) and switches if the plan gains at least ``switch_gain``; a car
       loaded here is worth more aboard a train running toward an office that unloads it.
    4. Work: in the Cargo Phase it searches its Laborers' (and Porters') actions for the most
       Revenue plus progress of loads underway.
    5. Trains: it plays trains that carry its car types (value by expected visits to its
       Office), adds loaded cars its industries unload or empty cars they load to new trains,
       and sends its Extras toward its Office.
    6. Passengers on the side: office upgrades, coaches and Porter work at a lower weight.
    7. It guards its station (``StationSafety``): when a train due would strike a train on its
       full Office or cars on its Running Track, it switches out of the way instead (parking
       the standing train on a siding or industry track); with a train off the A/D track or
       cars on the Running Track its own plan of step 3 is taken only if a rollout finds it
       as safe as any other.

    Parameters (keywords; the shared ones are in ``HeuristicBot``, the station guard's in
    ``StationSafety``):

    - ``potential`` (2.0): value of a well-reached free facility slot; ``w_layout`` (1.0):
      weight of layout gains when laying a card; ``max_facilities`` (2): facilities it builds.
    - ``w_spot`` (3.0): a car of the right kind spotted on an industry track; ``w_carry`` (1.2):
      a loaded car aboard a train ready to depart; ``w_deliver`` (2.0): more when the train
      runs toward an office whose industries unload it.
    - ``w_network`` (1.5): a facility's worth for each direction the other offices'
      industries complete (its loads can be unloaded there, or their loads here).
    - ``w_fstock`` (2.5), ``w_fclear`` (2.0): stocking a freight load an empty car waits for,
      clearing a red box an unloading waits for.
    - ``w_train`` (1.5), ``w_extra`` (2.5): trains carrying its car types, per expected visit.
    - ``w_siding`` (2.0): a siding the Office reaches, where the guard can park a train when an
      arrival would find the A/D tracks full; a third of it for an open diagonal end of track
      the Office reaches (the first card of a siding).
    - ``up_base`` (3.0), ``up_step`` (1.0): office upgrades; ``passenger_weight`` (0.6): how much
      of the passenger game it plays; ``end_consist`` (0.5): an own Extra stops taking cars worth
      less than this.
    """

    name: str = "freight"
    # 2: it guards its station; 3: a first train of any make-up; 4: facilities valued by the
    # trains that carry their cars and the other offices' industries, loads carried toward unloading;
    # 5: a siding to park a train on is part of the layout (``w_siding``)
    version: str = "5"
    DEFAULTS: ClassVar[dict[str, Param]] = {
        "potential": 2.0,
        "w_layout": 1.0,
        "max_facilities": 2,
        "w_spot": 3.0,
        "w_carry": 1.2,
        "w_deliver": 2.0,
        "w_network": 1.5,
        "w_fstock": 2.5,
        "w_fclear": 2.0,
        "w_train": 1.5,
        "w_extra": 2.5,
        "up_base": 3.0,
        "up_step": 1.0,
        "passenger_weight": 0.6,
        "end_consist": 0.5,
        "w_siding": 2.0,
        **StationSafety.DEFAULTS,
    }

    # ------------------------------------------------------------------ the station

    def facilities(self, board: GameState, office: int) -> list[tuple[Cell, FacilitySpec]]:
        station = board.stations[office]
        return [
            (cell, facility_spec(board, station, cell))
            for cell in sorted(station.boxes)
            if cell != OFFICE_CELL
        ]

    def car_types(self, board: GameState, office: int) -> tuple[set[int], set[int]]:
        """(types its facilities load, types they unload)."""
        out: set[int] = set()
        inn: set[int] = set()
        for _, spec in self.facilities(board, office):
            out.update(spec.outbound)
            inn.update(spec.inbound)
        return out, inn

    def facility_values(self, board: GameState, office: int) -> dict[int, float]:
        """A facility card's worth at ``office``: its Laborers and directions, times how many
        train cards can carry its car types (``carriage``), plus ``w_network`` for each
        direction the other offices' industries complete (its loads have somewhere to go,
        or loads will come for it to unload)."""
        share = self.carriage(board)

        def compute() -> dict[int, float]:
            takes_in, sends_out = self.network(board, office)
            values: dict[int, float] = {}
            for card in board.catalogue.cards:
                spec = card.facility
                if card.kind is CardKind.FACILITY and spec is not None:
                    both = bool(spec.outbound) and bool(spec.inbound)
                    carried = max((share.get(t, 0.0) for t in (*spec.outbound, *spec.inbound)), default=0.0)
                    value = (1.0 + spec.laborers + (2.0 if both else 0.0)) * (0.5 + carried)
                    value += self.p("w_network") * (
                        bool(set(spec.outbound) & takes_in) + bool(set(spec.inbound) & sends_out)
                    )
                    values[card.index] = value
            return values

        found: dict[int, float] = self.memo(("facility values", office, self.laid(board)), compute)
        return found

    def laid(self, board: GameState) -> tuple[tuple[int, ...], ...]:
        """The facility cards laid at each office (a memo key's part)."""
        return tuple(
            tuple(sorted(st.grid[cell][0] for cell in st.boxes if cell != OFFICE_CELL))
            for st in board.stations
        )

    def carriage(self, board: GameState) -> dict[int, float]:
        """For each car type, the share of the train cards that may carry it."""

        def count() -> dict[int, float]:
            trains = [c.train for c in board.catalogue.cards if c.train is not None]
            return {
                t: sum(1 for spec in trains if dict(spec.consist.allowed).get(t, 0)) / max(1, len(trains))
                for t in range(COACH + 1, CABOOSE)
            }

        found: dict[int, float] = self.memo(("carriage",), count)
        return found

    def network(self, board: GameState, office: int) -> tuple[set[int], set[int]]:
        """(car types the other offices' industries unload, types they load)."""
        takes_in: set[int] = set()
        sends_out: set[int] = set()
        for other in range(board.n):
            if other != office:
                out, inn = self.car_types(board, other)
                takes_in |= inn
                sends_out |= out
        return takes_in, sends_out

    def unloaded_toward(self, board: GameState, office: int, direction: int) -> set[int]:
        """Car types unloaded by industries of the offices past ``office`` going ``direction``
        (+1 east: the offices of higher index)."""
        ahead = range(office + 1, board.n) if direction > 0 else range(office)
        types: set[int] = set()
        for other in ahead:
            types |= self.car_types(board, other)[1]
        return types

    def probe_card(self, board: GameState) -> int:
        cat = board.catalogue
        if "freight-house" in cat.by_id:
            return cat.by_id["freight-house"]
        facilities = cat.of_kind(CardKind.FACILITY)
        return facilities[0] if facilities else EMPTY

    def layout_key(self, board: GameState, station: Station, office: int) -> LayoutKey:
        """What ``layout`` reads: the station's cards and industries, and the facilities' worth."""
        built = sum(1 for cell in station.boxes if cell != OFFICE_CELL)
        potential = self.p("potential") if built < self.p("max_facilities") else 0.0
        return (
            tuple(sorted(station.grid.items())),
            tuple(sorted(station.boxes)),
            potential,
            tuple(sorted(self.facility_values(board, office).items())),
        )

    def layout(self, board: GameState, station: Station, office: int) -> float:
        key = self.layout_key(board, station, office)
        _, _, potential, values = key
        value: float = self.memo(
            ("layout", *key),
            lambda: (
                layout_value(board.catalogue, station, dict(values), potential, self.probe_card(board))
                + self.siding_value(board, station, self.p("w_siding"))
            ),
        )
        return value

    def placement_gains(self, board: GameState, office: int) -> PlacementGains:
        """The layout gain of each (card, cell, rotated) tried on the office's station as it
        stands, kept while what ``layout`` reads stays the same."""
        key = self.layout_key(board, board.stations[office], office)
        gains: PlacementGains = self.memo(("placement gains", *key), dict)
        return gains

    def placement_gain(
        self,
        view: SeatView,
        board: GameState,
        intent: PlaceCard,
        gains: PlacementGains | None = None,
    ) -> float:
        """What laying the card adds to the layout; ``gains``: the ``placement_gains`` of the
        board, for a caller trying many."""
        office = office_of(board, view.seat)
        # the random stream moves on as the deal the first version of this made moved it
        # (the bot's later draws stay)
        view.skip_determinize(self.rng)
        if gains is None:
            gains = self.placement_gains(board, office)
        placement = (intent.card, intent.cell, intent.rotated)
        gain = gains.get(placement)
        if gain is None:
            trial = with_card_laid(board, intent)
            before = self.layout(board, board.stations[office], office)
            gain = gains[placement] = self.layout(board, trial.stations[office], office) - before
        return gain

    def best_placement_gain(
        self, view: SeatView, board: GameState, card: int, gains: PlacementGains
    ) -> float:
        """The most a card could add to the layout now, laid where it helps most."""
        seat = view.seat
        options = placements_by_card(board, seat, (card,))[card]
        gains_there = (self.placement_gain(view, board, PlaceCard(seat, card, *o), gains) for o in options)
        return max(gains_there, default=0.0)

    # ------------------------------------------------------------------ cards

    def card_value_key(self, board: GameState, seat: int) -> tuple[object, ...] | None:
        # its card values read the timing facts and the facilities laid at every office
        # (its own count and car types, the others' network); never its track's layout
        return ("card values", *card_timing_facts(board, office_of(board, seat)), self.laid(board))

    def card_value(self, board: GameState, seat: int, card: int) -> float:
        """A quick value (the layout is judged precisely only for cards it can see)."""
        if card < 0:
            return 0.0
        spec = board.catalogue.cards[card]
        kind = spec.kind
        office = office_of(board, seat)
        built = len(self.facilities(board, office))
        if kind is CardKind.FACILITY:
            if built >= self.p("max_facilities"):
                return 0.1
            return 0.6 * self.facility_values(board, office).get(card, 1.0) * min(1.0, game_left(board))
        if kind is CardKind.TRACK:
            return (0.3 if built else 0.9) * min(1.0, game_left(board))
        if kind is CardKind.MODIFIER and spec.modifier is not None:
            if spec.modifier.applies_to == "freight":
                return (1.5 * spec.modifier.laborers + 0.6 * spec.modifier.capacity) if built else 0.4
            ready = 1.0 if office_tier(board, office) else 0.5
            return self.p("passenger_weight") * ready * (2.0 * spec.modifier.porters + spec.modifier.capacity)
        if kind is CardKind.OFFICE and spec.office is not None:
            current = office_tier(board, office)
            if spec.office.tier <= current:
                return 0.0
            base = self.p("up_base") if current == 0 else 0.0
            return (base + self.p("up_step") * (spec.office.tier - current)) * min(
                1.0, game_left(board) + 0.2
            )
        if (kind is CardKind.TRAIN or kind is CardKind.EXTRA_TRAIN) and spec.train is not None:
            allowed = dict(spec.train.consist.allowed)
            out, inn = self.car_types(board, office)
            mine = out | inn
            if not mine:
                mine = {1}  # boxcars: what a first Freight House would take
            freight = min(3, sum(m for t, m in allowed.items() if t in mine))
            coach_part = self.p("passenger_weight") * min(2, allowed.get(COACH, 0)) / 2
            visits = expected_visits(board, office, card)
            weight = self.p("w_extra") if spec.train.extra else self.p("w_train")
            value = weight * visits * (0.3 * freight + coach_part) - (0.3 if not freight else 0.0)
            return max(value, self.first_train_value(board, seat, card))
        if kind is CardKind.RED_FLAG:
            return 0.8
        return 0.0

    def draw_options(
        self, view: SeatView, board: GameState, legal: list[Intent]
    ) -> list[tuple[float, Intent]]:
        out = []
        gains = None
        for value, intent in super().draw_options(view, board, legal):
            if isinstance(intent, DrawDepartment):
                card = board.departments[intent.department][-1]
                if board.catalogue.cards[card].kind in (CardKind.TRACK, CardKind.FACILITY):
                    if gains is None:
                        gains = self.placement_gains(board, office_of(board, view.seat))
                    value = max(0.0, self.best_placement_gain(view, board, card, gains)) * self.p("w_layout")
            out.append((value, intent))
        return out

    def play_values(self, view: SeatView, board: GameState, plays: Sequence[Intent]) -> list[float]:
        places = any(isinstance(intent, PlaceCard) for intent in plays)
        gains = self.placement_gains(board, office_of(board, view.seat)) if places else None
        return [self.play_value(view, board, intent, gains) for intent in plays]

    def play_value(
        self,
        view: SeatView,
        board: GameState,
        intent: Intent,
        gains: PlacementGains | None = None,
    ) -> float:
        if isinstance(intent, PlaceCard):
            gain = self.placement_gain(view, board, intent, gains) * self.p("w_layout")
            return gain if gain > 0.05 else -1.0
        if isinstance(intent, PlaceModifier):
            return self.card_value(board, view.seat, intent.card)
        if isinstance(intent, PlayCard):
            return self.card_value(board, view.seat, intent.card)
        return -1.0

    # ------------------------------------------------------------------ Local Operations

    def local_options(
        self, view: SeatView, board: GameState, legal: list[Intent]
    ) -> list[tuple[float, Intent]]:
        options = super().local_options(view, board, legal)
        weight = self.p("passenger_weight")
        options += [(v * weight, i) for v, i in self.passenger_agent_options(view, board, legal)]
        options += self.freight_agent_options(view, board, legal)
        if self.wants_switching(view, board):
            switch = self.switch_option(view, board, legal)
            if switch is not None:
                options.append(switch)
        return self.guard_station(view, board, legal, options)

    def own_plans(self, view: SeatView, board: GameState, moves: int) -> list[Plan]:
        return [self.make_plan(view, board, moves)] if self.wants_switching(view, board) else []

    def freight_agent_options(
        self, view: SeatView, board: GameState, legal: list[Intent]
    ) -> list[tuple[float, Intent]]:
        seat = view.seat
        office = office_of(board, seat)
        station = board.stations[office]
        coming = self.cars_coming(board, office)
        out: list[tuple[float, Intent]] = []
        for cell, spec in self.facilities(board, office):
            boxes = station.boxes[cell]
            track = station.cars.get(cell, ())
            for t in spec.outbound:
                stock = StockOutbound(seat, cell, t * 2 + 1)
                if stock not in legal:
                    continue
                green = boxes.outbound.count(t * 2 + 1)
                working = sum(
                    1 for c, u in zip(boxes.work, boxes.unloading, strict=True) if c == t * 2 + 1 and not u
                )
                need = track.count(t * 2) - working - green
                if need > 0:
                    out.append((self.p("w_fstock"), stock))
                elif green + working == 0 and coming.get(t * 2, 0):
                    out.append((0.5 * self.p("w_fstock"), stock))
                elif green == 0:
                    out.append((0.25, stock))
            for code in sorted(set(boxes.inbound)):
                clear = ClearInbound(seat, cell, code)
                if clear not in legal:
                    continue
                waiting = any(u for u in boxes.unloading) or any(
                    car_type(c) in spec.inbound and c & 1 and not c & FLIPPED for c in track
                )
                free = box_room(board, office, cell, False)
                out.append((self.p("w_fclear") if waiting and free <= 0 else 0.3, clear))
        return out

    def cars_coming(self, board: GameState, office: int) -> dict[int, int]:
        """Car codes on trains at the Office or due within the lookahead."""
        horizon = int(self.p("lookahead"))
        counts: dict[int, int] = {}
        for i, tray in enumerate(board.trays):
            when = eta(board, i, office)
            if when is None or when > horizon:
                continue
            for code in tray.consist:
                if code >= 0:
                    counts[code & ~FLIPPED] = counts.get(code & ~FLIPPED, 0) + 1
        return counts

    def wants_switching(self, view: SeatView, board: GameState) -> bool:
        """Worth a plan: a train stands in the station and carries a car an industry wants on
        the side of its engine that leads into that industry, or could take away a car
        loaded here, or something stands where it should not (a train off the A/D track, a car
        on the Running Track)."""
        seat = view.seat
        office = office_of(board, seat)
        station = board.stations[office]
        trays = [i for i, t in enumerate(board.trays) if t.train != EMPTY and t.office == office]
        if not trays:
            return False
        if any(board.trays[i].cell != OFFICE_CELL for i in trays) or any(c[0] == 0 for c in station.cars):
            return True
        scorer = self.scorer(view, board)
        for i in trays:
            consist = board.trays[i].consist
            engine = consist.index(ENGINE)
            for side, cars in ((1, consist[engine + 1 :]), (-1, consist[:engine])):
                if any((code, side) in scorer.wanted_codes for code in cars):
                    return True
        for cars in station.cars.values():
            for code in cars:
                if code in scorer.carry and any(train_takes(board, board.trays[i], code) for i in trays):
                    return True
        return False

    def scorer(self, view: SeatView, board: GameState) -> StationScorer:
        office = office_of(board, view.seat)
        station = board.stations[office]
        spot = self.p("w_spot")
        loads_here, _ = self.car_types(board, office)
        want: dict[Cell, dict[int, list[float]]] = {}
        carry: dict[int, float] = {}
        toward: dict[tuple[int, int], float] = {}
        unloaded = {d: self.unloaded_toward(board, office, d) for d in (1, -1)}
        for cell, spec in self.facilities(board, office):
            boxes = station.boxes[cell]
            free = box_room(board, office, cell, True)
            wanted: dict[int, list[float]] = {}
            for t in spec.outbound:
                loads = (
                    boxes.outbound.count(t * 2 + 1) + (1 if free > 0 and board.division[t * 2 + 1] else 0) + 1
                )
                wanted[t * 2] = [spot, 0.8 * spot, 0.6 * spot][: min(3, loads)]
                carry[(t * 2 + 1) | FLIPPED] = self.p("w_carry")
                for d in (1, -1):
                    if t in unloaded[d]:
                        toward[((t * 2 + 1) | FLIPPED, d)] = self.p("w_deliver")
            for t in spec.inbound:
                wanted[t * 2 + 1] = [spot, 0.8 * spot, 0.6 * spot]
                if t not in loads_here:  # an empty left by unloading, wanted nowhere here
                    carry[t * 2] = 0.4 * self.p("w_carry")
            want[cell] = wanted
        return StationScorer(board, view.seat, want=want, carry=carry, carry_toward=toward)

    # ------------------------------------------------------------------ trains

    def car_value(self, board: GameState, seat: int, code: int, own_extra: bool) -> float:
        """A loaded car one of its industries unloads, or an empty car one loads, is worth most
        on a train whose cars will lead into that industry's track: a one-ended track entered
        eastward (its end W) is served by westbound trains (cars east of the engine), one
        entered westward by eastbound trains."""
        office = office_of(board, seat)
        kind = car_type(code)
        if kind == COACH:
            ready = porters(board, office) > 0
            value = (3.0 if ready else 2.0) if code == LOADED_COACH else (2.0 if ready else 1.5)
            return self.p("passenger_weight") * value
        if kind == CABOOSE:
            return 0.1
        direction = board.trays[board.building].direction if board.building != EMPTY else 0
        geo = geometry_for(board.catalogue)
        station = board.stations[office]
        best = 0.2 if not own_extra else 0.0
        for cell, spec in self.facilities(board, office):
            useful = (kind in spec.inbound and code & 1) or (kind in spec.outbound and not code & 1)
            if not useful:
                continue
            value = 3.0 if code & 1 else 2.5
            ends = cell_ends(geo, station, cell)
            serves = -1 if ends >> W & 1 else 1  # the train direction whose cars lead in
            best = max(best, value if direction in (0, serves) else 0.35 * value)
        return best


__all__ = ["FreightBot", "PlacementGains"]

"""The heuristic bots (agents.passenger, agents.freight, agents.dispatcher): always legal,
deterministic for a seed, deciding on their seat view only; and the switching planner spots
a car on an industry track with real Moves."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from conftest import (
    CAT,
    ENGINE,
    OFFICE_CELL,
    cid,
    draw_card,
    give_card,
    hide_differently,
    lay_by_hand,
    lay_siding,
    mainline_regions,
    new_state,
    occupy_slots,
    pass_local_ops,
    place_facility,
    put_train_at_dp,
    put_train_on_line,
    put_tray_in_station,
    schedule_by_hand,
    set_hand,
    set_office,
    take_cars,
)

from agents import REGISTRY, Agent, RandomAgent, make_bot, play_game, seat_seed
from agents.common import (
    HeuristicBot,
    expected_visits,
    following_gap,
    office_of,
    passive_intent,
    timetable_capacity,
)
from agents.dispatcher import DispatcherBot
from agents.freight import FreightBot, PlacementGains
from agents.passenger import PassengerBot
from agents.planning import Plan, StationScorer, distances_from, distances_to, plan_switching
from agents.policy import PolicyBot, PolicyNet
from agents.registry import BotSpecError
from agents.search import follow_plan, play_passengers
from sm_env.actions_v1 import token_table
from sm_env.core import eta, move_graph
from sm_env.core.cars import BOXCAR, CABOOSE, COACH, REEFER, car_code
from sm_env.core.catalogue import CardKind
from sm_env.core.config import GameConfig, HouseRules
from sm_env.core.engine import new_game
from sm_env.core.grid import place
from sm_env.core.intents import (
    AddCar,
    ChooseSwitch,
    DrawDepartment,
    DrawHomeOffice,
    EndConsist,
    EndSwitching,
    Intent,
    MoveTray,
    Pass,
    PlaceCard,
    PlaceModifier,
    RedFlag,
)
from sm_env.core.phases import Phase
from sm_env.core.rng import Rng
from sm_env.core.state import HIDDEN, GameState, SeatView
from sm_env.observations_v1 import ObservationEncoderV1

# The heuristics; the search and policy bots have their own tests (test_search_bot.py, test_policy_bot.py).
BOT_NAMES = tuple(
    name
    for name, spec in REGISTRY.items()
    if isinstance(spec.factory, type) and issubclass(spec.factory, HeuristicBot)
)
EMPTY_BOXCAR = car_code(BOXCAR, False)
LOADED_BOXCAR = car_code(BOXCAR, True)
LOADED_COACH = car_code(COACH, True)
EMPTY_REEFER = car_code(REEFER, False)
CABOOSE_CODE = car_code(CABOOSE, True)
RULE_SETS: tuple[dict[str, bool], ...] = (
    {},
    {"reduced_visibility": True},
    {"sister_trains": True},
    {"employee_rotation": True},
    {"emergency_toolbox": True},
    dict.fromkeys(HouseRules.names(), True),
)


def lineup(offices: int, shift: int, seed: int) -> list[Agent]:
    """The three heuristic bots and a random bot, rotated over the seats."""
    kinds = [*BOT_NAMES, "random"]
    out: list[Agent] = []
    for seat in range(offices):
        kind = kinds[(seat + shift) % len(kinds)]
        bot_seed = seat_seed(seed, seat)
        out.append(RandomAgent(bot_seed) if kind == "random" else REGISTRY[kind].factory(bot_seed))
    return out


class Checked:
    """Asserts every choice is one of the view's legal intents."""

    def __init__(self, bot: Agent) -> None:
        self.bot = bot
        self.name = bot.name

    def choose(self, view: SeatView) -> Intent:
        intent = self.bot.choose(view)
        assert intent in view.legal_intents(), f"{self.name} chose {intent}, not a legal intent"
        return intent


# ---------------------------------------------------------------------------- the bots' interface


@pytest.mark.parametrize("name", BOT_NAMES)
def test_bot_interface(name: str) -> None:
    bot = REGISTRY[name].factory(7)
    assert bot.name == name and isinstance(bot.name, str)
    assert isinstance(getattr(bot, "version", None), str)
    params = getattr(bot, "params", None)
    assert isinstance(params, dict) and params
    assert type(bot).__module__ in ("agents.passenger", "agents.freight", "agents.dispatcher")
    first = next(iter(params))
    changed = REGISTRY[name].factory(7, **{first: params[first] + 1})
    assert getattr(changed, "params", {})[first] == params[first] + 1
    with pytest.raises(TypeError, match="no parameter"):
        REGISTRY[name].factory(7, not_a_parameter=1)


def test_bots_have_distinct_documented_strategies() -> None:
    """Each bot's class docstring (or a base's) documents every parameter it has."""
    classes = (PassengerBot, FreightBot, DispatcherBot)
    assert len({c.name for c in classes}) == 3
    for cls in classes:
        docs = " ".join(base.__doc__ or "" for base in cls.__mro__)
        assert "Parameters" in (cls.__doc__ or "") and "Strategy" in (cls.__doc__ or "")
        for key in cls(0).params:
            assert f"``{key}``" in docs, f"{cls.__name__} does not document {key}"


# ---------------------------------------------------------------------------- always legal


@pytest.mark.parametrize("offices", range(1, 7))
@pytest.mark.parametrize("rules", range(len(RULE_SETS)))
def test_bots_always_legal(offices: int, rules: int) -> None:
    """Whole one-day games, every office count and house rule, the bots mixed with a random
    bot; the engine would raise IllegalIntent, and each choice must be a listed intent."""
    seed = 31 * offices + rules
    state = new_state(offices, seed, days=1, **RULE_SETS[rules])
    agents = [Checked(a) for a in lineup(offices, offices + rules, seed)]
    play_game(state, agents)
    assert state.is_terminal()


@pytest.mark.parametrize("name", BOT_NAMES)
def test_each_bot_legal_in_every_seat_of_a_two_day_game(name: str) -> None:
    state = new_state(3, 5, days=2, emergency_toolbox=True, sister_trains=True)
    agents: list[Agent] = [Checked(REGISTRY[name].factory(seat_seed(5, s))) for s in range(3)]
    play_game(state, agents)
    assert state.is_terminal()


# ---------------------------------------------------------------------------- determinism


@pytest.mark.parametrize("name", BOT_NAMES)
@pytest.mark.parametrize("offices", range(1, 7))
def test_a_table_of_one_bot_kind_runs_trains(name: str, offices: int) -> None:
    """No bot discards every train card: in two-day games among that bot alone a timetabled
    train runs (seed 4 at one office deals the passenger bot only a freight train)."""
    for seed in (3, 4):
        state = new_state(offices, seed, days=2)
        agents = [REGISTRY[name].factory(seat_seed(seed, s)) for s in range(offices)]
        ran = False
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(agents[seat].choose(state.view(seat)))
            ran = ran or any(t.train >= 0 and CAT.cards[t.train].kind is CardKind.TRAIN for t in state.trays)
        assert ran, f"{name} at {offices} office(s), seed {seed}: no timetabled train ran"


@pytest.mark.parametrize("name", BOT_NAMES)
def test_bot_is_deterministic_for_a_seed(name: str) -> None:
    def game() -> tuple[list[Intent], str]:
        state = new_state(3, 11, days=1, reduced_visibility=True)
        agents: list[Agent] = [RandomAgent(seat_seed(11, s)) for s in range(3)]
        agents[1] = REGISTRY[name].factory(seat_seed(11, 1))
        agents[2] = REGISTRY[name].factory(seat_seed(11, 2))
        return play_game(state, agents), state.state_hash()

    assert game() == game()


# ---------------------------------------------------------------------------- the seat view


@pytest.mark.parametrize("name", BOT_NAMES)
def test_bot_decides_on_its_view_only(name: str) -> None:
    """Two copies of the bot, one fed the real game and one a copy differing only in hidden
    cards (other hands, the deck order, the game's random stream), choose alike at every
    decision of a whole game."""
    seed = 23
    state = new_state(3, seed, days=1, emergency_toolbox=True)
    agents: list[Agent] = [RandomAgent(seat_seed(seed, s)) for s in range(3)]
    real = REGISTRY[name].factory(99)
    twin = REGISTRY[name].factory(99)
    mix = Rng(5)
    checked = 0
    while not state.is_terminal():
        seat = state.current_player()
        if seat == 0:
            intent = real.choose(state.view(0))
            assert twin.choose(hide_differently(state, 0, mix).view(0)) == intent
            checked += 1
        else:
            intent = agents[seat].choose(state.view(seat))
        state.apply(intent)
    assert checked > 20


@pytest.mark.parametrize("name", BOT_NAMES)
def test_one_bot_object_choosing_for_two_seats_chooses_as_fresh_bots_do(name: str) -> None:
    """One object plays seat 0 of one game and seat 1 of another, decision by decision in
    turn (as a table reusing a bot, or a search's rollouts, would ask it): a switching plan
    it made for one seat is never replayed for the other, and every choice is legal and what
    the bot that plays only that seat chooses."""
    shared = REGISTRY[name].factory(99)
    games = []
    for seed, mine in ((3, 0), (8, 1)):
        state = new_state(3, seed, days=2, emergency_toolbox=True)
        own: list[Agent] = [REGISTRY[name].factory(seat_seed(seed, s)) for s in range(3)]
        games.append((state, mine, own))
    shared_choices = 0
    while any(not state.is_terminal() for state, _, _ in games):
        for state, mine, own in games:
            while not state.is_terminal():
                seat = state.current_player()
                view = state.view(seat)
                intent = own[seat].choose(view)
                if seat == mine:
                    assert shared.choose(view) == intent
                    shared_choices += 1
                state.apply(intent)
                if seat == mine:
                    break  # the other game's seat next
    assert shared_choices > 40


def test_seat_view_hides_other_hands_and_the_deck() -> None:
    state = new_state(3, 4, emergency_toolbox=True)
    view = state.view(1)
    board = view.board
    assert board.hands[1] == state.hands[1]
    for seat in (0, 2):
        assert board.hands[seat] == [HIDDEN] * len(state.hands[seat])
    assert board.home_office == [HIDDEN] * len(state.home_office)
    assert board.departments == state.departments
    with pytest.raises(TypeError):
        board.legal_intents()
    assert state.view(0).legal_intents() == [] or state.current_player() == 0
    full = view.determinize(Rng(1))
    assert full.hands[1] == state.hands[1]
    assert sorted(full.home_office + full.hands[0] + full.hands[2]) == sorted(
        state.home_office + state.hands[0] + state.hands[2]
    )
    full.apply(full.legal_intents()[0])  # playable


# ---------------------------------------------------------------------------- the switching planner


def siding_state() -> GameState:
    """One office: a Depot between the Limits, the Running Track extended both ways, a
    turnout at (0,-1) whose NE leg runs through a junction at (1,0) to a Freight House at
    (1,1); westbound No. 3 on the A/D track with an empty boxcar at its east end."""
    state = new_state(1, 3)
    set_office(state, 0, "depot")
    station = state.stations[0]
    station.grid[(0, -2)] = station.grid.pop((0, -1))  # the Limits move outward (D-grid.7)
    station.grid[(0, 2)] = station.grid.pop((0, 1))
    lay_by_hand(state, 0, (0, -1), "turnout-right")
    lay_by_hand(state, 0, (0, 1), "straight")
    lay_by_hand(state, 0, (1, 0), "junction")
    place_facility(state, 0, (1, 1), "freight-house", outbound=[LOADED_BOXCAR])
    tray = put_tray_in_station(state, 0, OFFICE_CELL, train_id="train-3")
    tray.consist = (ENGINE, *take_cars(state, [LOADED_COACH, EMPTY_BOXCAR]))
    return state


def test_move_graph_round_trip_to_the_freight_house() -> None:
    state = siding_state()
    graph = move_graph(CAT, state.stations[0])
    assert distances_from(graph, OFFICE_CELL)[(1, 1)] + distances_to(graph, OFFICE_CELL)[(1, 1)] == 4
    assert (1, 1) in graph[(0, -2)]


def test_planner_spots_an_empty_boxcar_on_the_freight_house_within_six_moves() -> None:
    state = siding_state()
    state.apply(ChooseSwitch(0))
    assert state.phase is Phase.SWITCHING and state.moves_left == 6
    scorer = StationScorer(state, 0, want={(1, 1): {EMPTY_BOXCAR: [3.0]}})
    plan = plan_switching(state.clone(), 0, state.moves_left, scorer)
    assert 0 < len(plan.moves) <= 6
    for move in plan.moves:
        assert move in state.legal_intents()
        state.apply(move)
    station = state.stations[0]
    assert station.cars.get((1, 1)) == (EMPTY_BOXCAR,)
    tray = state.trays[0]
    assert tray.cell == OFFICE_CELL and tray.consist == (ENGINE, LOADED_COACH)
    assert not any(cell[0] == 0 for cell in station.cars)  # the Running Track is clear


def test_freight_bot_chooses_to_switch_and_spots_the_car() -> None:
    """In Local Operations the bot plans, chooses switching and plays the plan's Moves; the
    Freight House's Laborers then load the boxcar over the next Cargo Phases."""
    state = siding_state()
    bot = FreightBot(1)
    intent = bot.choose(state.view(0))
    assert intent == ChooseSwitch(0)
    state.apply(intent)
    moves = 0
    while state.phase is Phase.SWITCHING:
        intent = bot.choose(state.view(0))
        assert intent in state.legal_intents()
        if isinstance(intent, EndSwitching):
            assert moves and state.trays[0].cell == OFFICE_CELL  # home, in order
        moves += isinstance(intent, MoveTray)
        state.apply(intent)
    assert 0 < moves <= 6
    assert EMPTY_BOXCAR in state.stations[0].cars.get((1, 1), ())
    assert state.trays[0].line != -1  # it highballed in this Stage's Mainline Phase
    stages = state.stages_played
    while state.revenue()[0] == 0 and state.stages_played < stages + 3:
        state.apply(bot.choose(state.view(0)))  # green box -> MEN -> AT -> WORK -> the car
    assert state.revenue()[0] == 1  # R9.3.1
    assert LOADED_BOXCAR | 16 in state.stations[0].cars[(1, 1)]  # loaded here: flipped (R9.3.4)


def test_planner_trailing_point_in_a_train_with_a_caboose() -> None:
    """Appendix A.5's trailing point with a made-up train: westbound No. 5 on F, engine
    west, an empty boxcar in the middle, a caboose at the rear; the planner leaves the boxcar
    on the Freight House at C and brings the train back in order."""
    state = new_state(1, 9)
    station = state.stations[0]
    set_office(state, 0, "depot")
    station.grid[(0, -2)] = station.grid.pop((0, -1))
    station.grid[(0, 2)] = station.grid.pop((0, 1))
    lay_by_hand(state, 0, (0, -1), "turnout-right")
    lay_by_hand(state, 0, (0, 1), "turnout-left", rotated=True)
    lay_by_hand(state, 0, (1, -1), "straight")
    lay_by_hand(state, 0, (1, 0), "junction")
    place_facility(state, 0, (1, 1), "freight-house")
    tray = put_tray_in_station(state, 0, OFFICE_CELL, train_id="train-5")
    tray.consist = (ENGINE, *take_cars(state, [EMPTY_REEFER, EMPTY_BOXCAR, LOADED_COACH, CABOOSE_CODE]))
    state.apply(ChooseSwitch(0))
    scorer = StationScorer(state, 0, want={(1, 1): {EMPTY_BOXCAR: [3.0]}})
    plan = plan_switching(state.clone(), 0, 6, scorer, beam=8, branch=6)
    assert len(plan.moves) == 6  # the sixth Move ends the turn (R6.1.2): the train goes on
    for move in plan.moves:
        assert move in state.legal_intents()
        state.apply(move)
    assert state.stations[0].cars.get((1, 1)) == (EMPTY_BOXCAR,)
    tray = state.trays[0]
    assert tray.line != -1, "it highballed in order from the A/D track (R8.1.2)"
    assert tray.consist == (ENGINE, EMPTY_REEFER, LOADED_COACH, CABOOSE_CODE)


# ---------------------------------------------------------------------------- train sense


def test_eta_and_expected_visits() -> None:
    state = new_state(3, 2)
    tray = put_tray_in_station(state, 0, OFFICE_CELL, train_id="train-2")  # eastbound
    office = state.office_of_seat[0]
    index = state.trays.index(tray)
    assert eta(state, index, office) == 0
    if office < 2:
        expected = 1 + CAT.cards[state.mainline[office + 1]].regions
        assert eta(state, index, office + 1) == expected
    if office > 0:
        assert eta(state, index, office - 1) is None  # it runs away from there
    give_card(state, 0, CAT.by_id["train-1"])
    assert 0 < expected_visits(state, office, CAT.by_id["train-1"]) <= 1


def test_dispatcher_holds_a_following_train_onto_a_taken_start_region() -> None:
    """R8.1.4: a train ahead sits on the Start region: no clearance (R10.1 would charge it)."""
    state = new_state(2, 6)
    put_train_on_line(state, 0, 0, "train-2")  # eastbound, on the Start region of Mainline 0
    put_train_at_dp(state, "train-4")  # eastbound, waiting at the West Division Point
    state.phase = Phase.CLEARANCE
    state.actor = state.fedora
    state.mainline_queue = [i for i, t in enumerate(state.trays) if t.at_dp]
    assert following_gap(state) == 0
    for cls in (PassengerBot, FreightBot, DispatcherBot):
        bot: Callable[[int], Agent] = cls
        assert bot(1).choose(state.view(state.fedora)).clear is False  # type: ignore[attr-defined]


def test_bots_always_play_a_red_flag_they_are_offered() -> None:
    state = new_state(2, 6, emergency_toolbox=True)
    state.phase = Phase.RED_FLAG
    state.actor = 1
    for cls in (PassengerBot, FreightBot, DispatcherBot):
        assert cls(3).choose(state.view(1)) == RedFlag(1, True)


def danger_state() -> tuple[GameState, int]:
    """Seat 0's Depot: eastbound No. 2 stands on the turnout at (0, -1), on the Running Track
    between the west Limits and the Office, and eastbound No. 4 is on the last region of the
    Mainline card west of it, so No. 4 will strike No. 2 arriving in this Stage's Mainline
    Phase (R8.2.3). The siding at (1, 0) is one Move away. Returns the state at seat 0's Local
    Operations turn and the office."""
    state = new_state(2, 8)
    seat = 0
    office = state.office_of_seat[seat]
    set_office(state, seat, "depot")
    lay_siding(state, office)
    put_tray_in_station(state, seat, (0, -1), train_id="train-2")
    put_train_on_line(state, office, mainline_regions(state, office) - 1, "train-4")
    while state.current_player() != seat:
        state.apply(
            state.legal_intents()[0] if state.phase is not Phase.LOCAL_OPS else Pass(state.current_player())
        )
    assert state.phase is Phase.LOCAL_OPS
    return state, office


def full_office_state(seat: int = 0) -> tuple[GameState, int]:
    """Seat 0's Depot (two A/D tracks), with the turnout at (0, -1) and the siding at (1, 0) of
    ``danger_state``: eastbound No. 4 and No. 6 stand on the Office, and eastbound No. 2, on
    the last region of the Mainline card west of it, arrives first in this Stage's Mainline
    Phase (seniority) and strikes a train on the full Office (R8.2.3). Returns the state at
    seat 0's Local Operations turn and the office (or the same for ``seat``)."""
    state = new_state(2, 8)
    office = state.office_of_seat[seat]
    set_office(state, seat, "depot")
    lay_siding(state, office)
    put_tray_in_station(state, seat, train_id="train-4")
    put_tray_in_station(state, seat, train_id="train-6")
    put_train_on_line(state, office, mainline_regions(state, office) - 1, "train-2")
    while state.current_player() != seat:
        state.apply(
            state.legal_intents()[0] if state.phase is not Phase.LOCAL_OPS else Pass(state.current_player())
        )
    assert state.phase is Phase.LOCAL_OPS
    return state, office


def play_stage(state: GameState, bot: Agent | None, seat: int) -> None:
    """The bot plays seat ``seat`` (None: it passes too), everyone else passes, until the
    Cargo Phase or the next Stage."""
    stages = state.stages_played
    while state.stages_played == stages and state.phase is not Phase.CARGO:
        who = state.current_player()
        if who == seat and bot is not None:
            state.apply(bot.choose(state.view(seat)))
        else:
            state.apply(passive_intent(state))


@pytest.mark.parametrize("cls", [DispatcherBot, PassengerBot, FreightBot])
def test_heuristic_bots_park_a_held_train_on_their_siding_before_an_arrival(cls: type[HeuristicBot]) -> None:
    """R8.2.3: each heuristic bot foresees the arrival into a train on its Running Track,
    switches that train onto its siding, and nobody collides; a seat that only passes pays."""
    state, office = danger_state()
    play_stage(state, cls(2), 0)
    assert state.revenue()[0] == 0
    trains = {CAT.cards[t.train].id: t.cell for t in state.trays if t.office == office}
    assert trains == {"train-2": (1, 0), "train-4": OFFICE_CELL}

    state, office = danger_state()
    play_stage(state, None, 0)
    assert state.revenue()[0] == -5


@pytest.mark.parametrize("cls", [PassengerBot, FreightBot, DispatcherBot])
def test_heuristic_bots_clear_their_full_office_before_an_arrival(cls: type[HeuristicBot]) -> None:
    """R8.2.3 (edition 3): a train arriving at a full Office strikes a train standing there,
    charged to the office's seat. Each heuristic bot sees No. 2 coming, switches one of the
    standing trains onto its siding, and No. 2 takes the free A/D track; a seat that only
    passes pays for the collision."""
    state, office = full_office_state()
    play_stage(state, None, 0)
    assert state.revenue()[0] == -5
    assert [e.fields["cause"] for e in state.events if e.kind == "collision"] == ["full-office"]

    state, office = full_office_state()
    play_stage(state, cls(2), 0)
    assert state.revenue()[0] == 0
    assert not [e for e in state.events if e.kind == "collision"]
    trains = {CAT.cards[t.train].id: t.cell for t in state.trays if t.office == office}
    assert trains["train-2"] == OFFICE_CELL and (1, 0) in trains.values()


def random_policy_bot(state: GameState, guard: str = "", defer: str = "") -> PolicyBot:
    """A ``policy`` bot of an untrained network (seeded random weights) fitting ``state``'s
    spaces: what it plays is no plan at all."""
    table = token_table(state.config, state.catalogue)
    sizes = [ObservationEncoderV1(state.config, state.catalogue, table).size, 16, table.size]
    rng = np.random.default_rng(5)
    layers = [(rng.normal(size=(b, a)), rng.normal(size=b)) for a, b in itertools.pairwise(sizes)]
    net = PolicyNet(layers, {"offices": state.config.offices})
    return PolicyBot.with_net(2, net, "random.npz", guard=guard, defer=defer)


@pytest.mark.parametrize("guard", ["freight", "passenger", "dispatcher"])
@pytest.mark.parametrize("make_state", [danger_state, full_office_state])
def test_a_guarded_policy_parks_a_train_on_its_siding_before_an_arrival(
    make_state: Callable[[], tuple[GameState, int]], guard: str
) -> None:
    """R8.2.3: with ``guard=NAME`` that heuristic's station guard takes the policy's Local
    Operations and switching turns when an arrival would strike a train at its station: an
    untrained policy parks a train on its siding and nobody collides, in both dangers above."""
    state, office = make_state()
    bot = random_policy_bot(state, guard)
    assert bot.choose(state.view(0)) == ChooseSwitch(0)
    assert bot.reason is not None and bot.reason.startswith("its station guard")
    play_stage(state, bot, 0)
    assert state.revenue()[0] == 0
    assert not [e for e in state.events if e.kind == "collision"]
    assert (1, 0) in {t.cell for t in state.trays if t.office == office}


@pytest.mark.parametrize("defer", ["", "lay+draw"])
def test_the_policy_decides_every_turn_the_guard_leaves_alone(defer: str) -> None:
    """Through whole games, every decision of a guarded policy that is neither its guard's nor
    deferred to the guard's heuristic is the unguarded policy's on the same view (seeds where
    the guard takes turns); with ``defer=lay+draw`` the heuristic lays cards and picks the
    card a draw of the policy's takes (its best by ``draw_options``), and nothing else of its
    stands."""
    turns: Counter[str] = Counter()
    for seed in (2, 13):
        state = new_state(2, seed, days=2)
        guarded, unguarded = random_policy_bot(state, "freight", defer), random_policy_bot(state)
        rival = FreightBot(1)
        while not state.is_terminal():
            seat = state.current_player()
            if seat != 0:
                state.apply(rival.choose(state.view(seat)))
                continue
            view = state.view(0)
            intent = guarded.choose(view)
            reason = guarded.reason or ""
            if reason.startswith("its heuristic's choice of the card to draw"):
                options = FreightBot(7).draw_options(view, view.board, view.legal_intents())
                assert intent == max(options, key=lambda option: option[0])[1]
                assert isinstance(unguarded.choose(view), DrawHomeOffice | DrawDepartment)
                turns["draw"] += 1
            elif reason.startswith("its heuristic's choice"):
                assert isinstance(intent, PlaceCard | PlaceModifier), intent
                turns[type(intent).__name__] += 1
            elif reason.startswith("its station guard"):
                turns["guard"] += 1
            else:
                assert intent == unguarded.choose(view)
                turns["policy"] += 1
            state.apply(intent)
    assert turns["policy"] > 50, turns
    if defer:
        assert turns["PlaceCard"] and turns["draw"], turns
    else:
        assert turns["guard"] > 0 and set(turns) == {"guard", "policy"}, turns


def test_an_unknown_guard_is_refused() -> None:
    with pytest.raises(BotSpecError, match="no station guard 'bogus'"):
        make_bot("policy:guard=bogus", 1)


def test_deferring_needs_a_guard_and_a_known_choice() -> None:
    with pytest.raises(BotSpecError, match="defer=lay needs a guard"):
        make_bot("policy:defer=lay", 1)
    with pytest.raises(BotSpecError, match=r"cannot defer cargo \(known: lay, draw\)"):
        make_bot("policy:guard=freight,defer=lay+cargo", 1)


def test_a_policy_deferring_lay_lays_the_card_its_heuristic_would() -> None:
    """At a card play, ``defer=lay``: the freight bot's own choice when it lays a card (the
    turnout toward a siding here), whatever the policy would have played."""
    state = new_state(3, 8)
    seat = state.current_player()
    set_hand(state, seat, [cid("turnout-right-plain")])
    draw_card(state, cid("turnout-left-plain"))
    bot = random_policy_bot(state, "freight", "lay")
    intent = bot.choose(state.view(seat))
    assert intent == make_bot("freight", 2).choose(state.view(seat)) and isinstance(intent, PlaceCard)
    assert (bot.reason or "").startswith("its heuristic's choice")


def test_search_rollouts_play_the_priors_parking_plan() -> None:
    """R8.2.3: the freight bot's guard chooses to switch and remembers a plan that parks a
    train on the siding; a search rollout from that choice plays the same plan
    (``follow_plan``), so nobody collides in it, where the rollout's passenger bot, left to
    plan the turn with its own goals, lets No. 2 strike the full Office. The search bot with
    that prior then plays the Stage without a collision."""
    state, office = full_office_state()
    prior = FreightBot(2)
    assert prior.choose(state.view(0)) == ChooseSwitch(0)
    steps, final = prior.remembered_plan(state, 0)
    assert steps and final

    followed = state.clone()
    followed.apply(ChooseSwitch(0))
    follow_plan(followed, 0, steps, final)
    assert followed.phase is not Phase.SWITCHING or followed.current_player() != 0
    assert (1, 0) in {t.cell for t in followed.trays if t.office == office}
    play_passengers(followed, followed.stages_played + 1, 5, {})
    assert followed.revenue()[0] == 0

    unfollowed = state.clone()
    unfollowed.apply(ChooseSwitch(0))
    play_passengers(unfollowed, unfollowed.stages_played + 1, 5, {})
    assert unfollowed.revenue()[0] == -5

    play_stage(state, make_bot("search:prior=freight", 2), 0)
    assert state.revenue()[0] == 0


def test_a_plain_turnout_the_office_reaches_is_a_siding_begun() -> None:
    """``siding_value``: nothing on a bare Running Track; a third for a turnout a train passes
    through from the Office (a plain one has no wheel, yet its diagonal end is where a
    siding starts); all of it once the siding is laid (a parked train clears an A/D track
    before an arrival, R8.2.3)."""
    state = new_state(3, 8)
    office = state.office_of_seat[0]
    station, bot = state.stations[office], FreightBot(1)
    assert bot.siding_value(state, station, 3.0) == 0.0
    lay_by_hand(state, office, (0, -1), "turnout-right-plain")
    assert bot.siding_value(state, station, 3.0) == 1.0
    lay_by_hand(state, office, (1, 0), "junction")
    assert bot.siding_value(state, station, 3.0) == 3.0
    assert bot.siding_value(state, station, 0.0) == 0.0


def test_freight_bot_lays_a_turnout_toward_a_siding_before_any_facility() -> None:
    """freight@5 lays a plain turnout on its bare Running Track (the first card of a siding,
    ``w_siding``); without that weight (freight@4's layout) the turnout adds nothing and it
    keeps it."""

    def card_play_with_turnouts() -> tuple[GameState, int]:
        state = new_state(3, 8)
        assert state.phase is Phase.LOCAL_OPS
        seat = state.current_player()
        set_hand(state, seat, [cid("turnout-right-plain")])
        draw_card(state, cid("turnout-left-plain"))
        return state, seat

    state, seat = card_play_with_turnouts()
    intent = make_bot("freight", 1).choose(state.view(seat))
    assert isinstance(intent, PlaceCard) and CAT.cards[intent.card].kind is CardKind.TRACK
    state.apply(intent)
    assert FreightBot(1).siding_value(state, state.stations[state.office_of_seat[seat]], 3.0) == 1.0

    state, seat = card_play_with_turnouts()
    assert not isinstance(make_bot("freight:w_siding=0", 1).choose(state.view(seat)), PlaceCard)


def test_a_guarded_policy_lays_the_turnout_its_guard_would_toward_a_siding() -> None:
    """The freight guard's card play while its station has no siding: the turnout freight@5
    lays on its bare Running Track (above), whatever the policy would have played; once the
    siding is begun and then laid, the card play is the policy's again."""
    state = new_state(3, 8)
    seat = state.current_player()
    set_hand(state, seat, [cid("turnout-right-plain")])
    draw_card(state, cid("turnout-left-plain"))
    bot = random_policy_bot(state, "freight")
    intent = bot.choose(state.view(seat))
    assert intent == make_bot("freight", 2).choose(state.view(seat)) and isinstance(intent, PlaceCard)
    assert bot.reason is not None and bot.reason.startswith("its station guard")

    office = state.office_of_seat[seat]
    lay_by_hand(state, office, (0, -1), "turnout-right-plain")
    lay_by_hand(state, office, (1, 0), "junction")
    bot.choose(state.view(seat))
    assert not (bot.reason or "").startswith("its station guard")


def test_a_plan_made_for_one_seat_is_never_replayed_for_another() -> None:
    """One freight bot object switches for seat 0 of ``siding_state`` (its own plan: spot the
    boxcar) and for seat 1 of ``full_office_state`` (the guard's plan, which ends the turn),
    Move by Move in turn: each seat gets the Moves a bot playing only that seat makes."""
    spot, _ = siding_state(), 0
    guard, _ = full_office_state(1)
    shared = FreightBot(1)
    tables = [(spot, 0, FreightBot(1)), (guard, 1, FreightBot(1))]
    moves = [0, 0]
    stages = [spot.stages_played, guard.stages_played]
    while any(state.stages_played == stages[k] for k, (state, _, _) in enumerate(tables)):
        for k, (state, seat, own) in enumerate(tables):
            if state.stages_played != stages[k] or state.phase is Phase.CARGO:
                stages[k] = -1  # this turn is over
                continue
            if state.current_player() != seat:
                state.apply(passive_intent(state))
                continue
            intent = own.choose(state.view(seat))
            assert shared.choose(state.view(seat)) == intent
            moves[k] += isinstance(intent, MoveTray)
            state.apply(intent)
    assert moves[0] and moves[1]


def test_r7_4_heuristic_bots_add_a_car_to_a_timetabled_train() -> None:
    """R7.4: a seat asked must find a suitable car (no EndConsist is offered); each heuristic
    bot picks one of the cars offered, seat after seat."""
    for cls in (PassengerBot, FreightBot, DispatcherBot):
        state = new_state(3, 5)
        schedule_by_hand(state, CAT.by_id["train-5"], state.stage)
        pass_local_ops(state)
        assert state.phase is Phase.NEW_TRAIN and EndConsist(state.actor) not in state.legal_intents()
        while state.phase is Phase.NEW_TRAIN:
            choice = cls(4).choose(state.view(state.actor))
            assert isinstance(choice, AddCar), (cls, choice)
            state.apply(choice)


def test_expected_visits_stop_once_the_timetable_fills_the_crew_trays() -> None:
    """C-trays.2: once the timetable holds ``timetable_capacity`` trains, a new timetabled
    train is worth no visits (it would wait for a tray); an Extra still is."""
    state = new_state(3, 2)
    office = state.office_of_seat[0]
    capacity = timetable_capacity(state)
    assert 0 < capacity < 12
    occupy_slots(state, range(11, 11 - capacity + 1, -1), exclude=[CAT.by_id["train-1"]])
    assert expected_visits(state, office, CAT.by_id["train-1"]) > 0
    occupy_slots(state, [11 - capacity + 1], exclude=[CAT.by_id["train-1"]])
    assert sum(c != -1 for c in state.timetable) == capacity
    assert expected_visits(state, office, CAT.by_id["train-1"]) == 0.0
    assert expected_visits(state, office, CAT.by_id["extra-3"]) > 0


@pytest.mark.parametrize("name", ["passenger", "freight", "dispatcher"])
def test_heuristic_bots_say_why_in_a_line(name: str) -> None:
    """The play table's hint: after every choice a heuristic bot's ``reason`` is one line
    saying why; a bot that cannot say (random) has none."""
    state = new_game(GameConfig(offices=2, days=1), 11)
    bots = [make_bot(name, seat_seed(11, s)) for s in range(2)]
    reasons = set()
    weighed = False
    for _ in range(400):
        if state.is_terminal():
            break
        seat = state.current_player()
        intent = bots[seat].choose(state.view(seat))
        reason = bots[seat].reason  # type: ignore[attr-defined]
        assert isinstance(reason, str) and reason and "\n" not in reason, (intent, reason)
        reasons.add(reason.split(" ")[0])
        weighed = weighed or "for the next best (" in reason  # a pick's reason, worded when read
        state.apply(intent)
    assert len(reasons) >= 3 and weighed  # different decisions, different reasons
    assert getattr(make_bot("random", 1), "reason", None) is None


@pytest.mark.parametrize("kind", [PassengerBot, FreightBot])
@pytest.mark.parametrize(
    ("offices", "days", "rules"), [(3, 2, {}), (6, 2, {"overnight_yard": True}), (2, 4, {})]
)
def test_a_bots_kept_card_values_are_what_it_works_out_afresh(
    kind: type[HeuristicBot], offices: int, days: int, rules: dict[str, bool]
) -> None:
    """``card_values`` keeps a seat's card values while the facts of ``card_value_key`` stay
    the same (rollout bots share them through their memo): at every decision of whole games
    of that kind of bot, every value kept from an earlier board with the same key is the one
    ``card_value`` gives now, for every seat (a key missing the office's tier, the Stage, the
    timetable or, for the freight bot, the facilities laid at any office fails)."""
    state = new_state(offices, 41, days=days, **rules)
    players = [kind(seat_seed(41, s)) for s in range(offices)]
    probe = kind(5)
    checked = 0
    while not state.is_terminal():
        for seat in range(offices):
            board = state.view(seat).board
            values = probe.card_values(board, seat)
            for card, kept in values.items():
                assert kept == probe.card_value(board, seat, card), (seat, card)
                checked += 1
            for card in range(len(board.catalogue.cards)):
                probe.value_of(values, board, seat, card)
        seat = state.current_player()
        state.apply(players[seat].choose(state.view(seat)))
    assert checked > 10_000
    assert DispatcherBot(1).card_value_key(state, 0) is None  # its track values read the sidings too


def every_plan_rolled_out(
    bot: HeuristicBot, view: SeatView, plans: list[Plan], rng: Rng
) -> tuple[Plan | None, int]:
    """``safest_plan`` as it was first written, every candidate rolled out in list order: the
    reference its shortcut must match; and how many rollouts that took."""
    if plans and all(plan.moves for plan in plans):
        plans = [Plan([], [], plans[0].start_score, plans[0].start_score), *plans]
    ahead = int(bot.p("plan_stages")) - 1
    ranks = [
        (bot.stage_loss(view.determinize(rng), view.seat, ahead, plan.moves), -plan.score, index)
        for index, plan in enumerate(plans)
    ]
    chosen = plans[min(ranks)[2]] if ranks else None
    return (chosen if chosen is not None and chosen.moves else None), len(plans)


@pytest.mark.parametrize(
    ("cls", "days", "rules"), [(FreightBot, 2, {}), (FreightBot, 4, {"overnight_yard": True})]
)
def test_the_station_guard_stops_at_the_first_safe_plan_and_chooses_as_if_it_rolled_out_every_one(
    cls: type[HeuristicBot], days: int, rules: dict[str, bool]
) -> None:
    """``safest_plan`` rolls the candidates out best score first and stops at the first that
    loses nothing (no loss is below 0). At every guard decision of whole games it takes the
    plan that rolling out every candidate takes, and leaves its random stream in the same
    place; over the games it skips some rollouts."""
    rollouts = {"every plan": 0, "shortcut": 0}

    class Checked(cls):  # type: ignore[valid-type,misc]
        calls = 0

        def stage_loss(self, *args: Any, **kwargs: Any) -> float:
            self.calls += 1
            return float(super().stage_loss(*args, **kwargs))

        def safest_plan(self, view: SeatView, board: GameState, plans: list[Plan]) -> Plan | None:
            reference_rng = self.rng.copy()
            expected, rollouts_needed = every_plan_rolled_out(self, view, plans, reference_rng)
            before = self.calls
            assert super().safest_plan(view, board, plans) == expected
            assert self.rng.state == reference_rng.state
            rollouts["every plan"] += rollouts_needed
            rollouts["shortcut"] += self.calls - before
            return expected

    for seed in range(43, 46):
        state = new_state(3, seed, days=days, **rules)
        players = [Checked(seat_seed(seed, s)) for s in range(3)]
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(players[seat].choose(state.view(seat)))
    assert 0 < rollouts["shortcut"] < rollouts["every plan"], rollouts


@pytest.mark.parametrize("name", ["passenger", "freight", "dispatcher", "policy"])
@pytest.mark.parametrize(("days", "rules"), [(2, {}), (3, {"overnight_yard": True})], ids=["2d", "3d oy"])
def test_a_rollout_player_writes_nothing_to_a_view_that_shares_the_state(
    name: str, days: int, rules: dict[str, bool]
) -> None:
    """A search's rollouts give their bots views that share the simulation's containers
    (``SeatView.of_simulation``). At every decision of whole games each bot a rollout may
    use leaves such a view's state as it was, and chooses what its twin (same seed) chooses
    on a copied view."""
    for seed in (47, 48):
        state = new_state(3, seed, days=days, **rules)
        on_copies = [make_bot(name, seat_seed(seed, s)) for s in range(3)]
        on_shared = [make_bot(name, seat_seed(seed, s)) for s in range(3)]
        while not state.is_terminal():
            seat = state.current_player()
            expected = on_copies[seat].choose(state.view(seat))
            before = state.state_hash()
            assert on_shared[seat].choose(SeatView.of_simulation(state, seat)) == expected
            assert state.state_hash() == before
            state.apply(expected)


@pytest.mark.parametrize(("days", "rules"), [(2, {}), (3, {"overnight_yard": True})], ids=["2d", "3d oy"])
def test_the_freight_bots_placement_gain_is_a_whole_deals_and_leaves_its_stream_there(
    days: int, rules: dict[str, bool]
) -> None:
    """``placement_gain`` lays the card on a copy of the station alone, moving the random
    stream on as a deal would, and keeps the gains of a station (``placement_gains``): at every
    call in whole games of freight bots it gives the gain and leaves the stream where laying
    it on a whole dealt state (``view.determinize``) does."""
    calls = 0

    class Checked(FreightBot):
        def placement_gain(
            self,
            view: SeatView,
            board: GameState,
            intent: PlaceCard,
            gains: PlacementGains | None = None,
        ) -> float:
            nonlocal calls
            calls += 1
            reference_rng = self.rng.copy()
            office = office_of(board, view.seat)
            trial = view.determinize(reference_rng)
            place(trial, intent.card, intent.cell, intent.rotated, office)
            expected = self.layout(board, trial.stations[office], office) - self.layout(
                board, board.stations[office], office
            )
            assert super().placement_gain(view, board, intent, gains) == expected
            assert self.rng.state == reference_rng.state
            return expected

    for seed in (49, 50):
        state = new_state(3, seed, days=days, **rules)
        players = [Checked(seat_seed(seed, s)) for s in range(3)]
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(players[seat].choose(state.view(seat)))
    assert calls > 100

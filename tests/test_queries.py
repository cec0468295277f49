"""The board queries (``sm_env.core``'s face, defined in ``sm_env/core/queries.py``) against
the rules they serve, named by their ids in docs/rules.md: what a bot reads from a query is
what the rules then do."""

from __future__ import annotations

import pytest
from conftest import (
    CAT,
    cid,
    move_card,
    new_state,
    occupy_slots,
    pass_local_ops,
    pass_to_stage,
    put_train_at_dp,
    put_train_at_office,
    put_tray_in_station,
    set_consist,
    set_mainline_regions,
    set_office,
)

from agents import RandomAgent, seat_seed
from agents.common import HeuristicBot
from agents.planning import Plan
from sm_env.core import (
    CABOOSE,
    CABOOSE_CODE,
    CAR_TYPES,
    EMPTY,
    ENGINE,
    HAND_LIMIT,
    LOADED_COACH,
    OFFICE_CELL,
    AddCar,
    ChooseSwitch,
    EndTurn,
    ForcedRolls,
    GameState,
    MoveTray,
    Phase,
    SeatView,
    StockOutbound,
    ad_tracks,
    apply_scenarios,
    box_room,
    car_code,
    eta,
    free_slot,
    makeup_problem,
    move_graph,
    moves_for_switch,
    office_tier,
    porters,
    reachable,
    regions,
    start_line,
    station_moves,
    train_takes,
    trays_at,
    workers,
)
from sm_env.core.card_play import schedule

NIGHT = (0, 1, 2, 10, 11)  # RB.1: Stages 1, 2, 3, 11 and 12


def random_games(seeds: range, offices: int = 3, days: int = 2) -> list[GameState]:
    """The states of random games decision by decision (each a copy), for property checks."""
    out = []
    for seed in seeds:
        state = new_state(offices, seed, days)
        agents = [RandomAgent(seat_seed(seed, seat)) for seat in range(offices)]
        while not state.is_terminal():
            out.append(state.clone())
            seat = state.current_player()
            state.apply(agents[seat].choose(state.view(seat)))
    return out


GAMES = random_games(range(3))


# ---------------------------------------------------------------------------- R6.1.2, RB.1: Moves


@pytest.mark.parametrize("reduced", [False, True])
@pytest.mark.parametrize("stage", range(12))
def test_r6_1_2_rb_1_the_bots_moves_this_switch_are_what_the_switching_rules_grant(
    stage: int, reduced: bool
) -> None:
    """R6.1.2: six Moves; RB.1 (reduced_visibility): five at night. The seat's view tells the
    bot the Moves it will get before it chooses to switch; ChooseSwitch then grants those."""
    state = new_state(1, 4, reduced_visibility=reduced)
    pass_to_stage(state, stage)
    put_tray_in_station(state, 0)
    promised = moves_for_switch(state.view(0).board)
    state.apply(ChooseSwitch(0))
    assert state.moves_left == promised == (5 if reduced and stage in NIGHT else 6)


class _PlanWatcher(HeuristicBot):
    """A heuristic bot noting the Moves it plans a switching turn for."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.planned: list[int] = []

    def make_plan(self, view: SeatView, board: GameState, moves: int) -> Plan:
        self.planned.append(moves)
        return super().make_plan(view, board, moves)


@pytest.mark.parametrize("stage", [0, 5, 10])
def test_rb_1_a_bot_weighs_switching_with_the_moves_the_rules_grant(stage: int) -> None:
    """RB.1: a bot weighing whether to switch plans for as many Moves as ChooseSwitch grants."""
    state = new_state(1, 4, reduced_visibility=True)
    pass_to_stage(state, stage)
    put_tray_in_station(state, 0)
    bot = _PlanWatcher(7)
    view = state.view(0)
    bot.switch_option(view, view.board, state.legal_intents())
    state.apply(ChooseSwitch(0))
    assert bot.planned == [state.moves_left]


# ---------------------------------------------------------------------------- R6.2.4: hand limit


def test_r6_2_4_a_seat_may_end_its_turn_only_within_the_hand_limit() -> None:
    seen = set()
    for state in GAMES:
        if state.phase is Phase.CARD_PLAY:
            seat = state.current_player()
            within = len(state.hands[seat]) <= HAND_LIMIT
            assert (EndTurn(seat) in state.legal_intents()) is within
            seen.add(within)
    assert seen == {True, False}


# ---------------------------------------------------------------------------- R7.2: the number board


@pytest.mark.parametrize(("taken", "roll", "slot"), [((), 4, 3), ((3, 4), 4, 5), ((10, 11, 0), 11, 1)])
def test_r7_2_a_played_train_takes_the_free_slot_down_the_column(
    taken: tuple[int, ...], roll: int, slot: int
) -> None:
    """R7.2: the D12 names a slot; a taken slot sends the train down the column, wrapping."""
    state = new_state(2, 6)
    card = CAT.by_id["train-2"]
    occupy_slots(state, taken, exclude=[card])
    assert free_slot(state, roll - 1) == slot
    move_card(state, card, from_set_aside=True)
    stream = state.rng
    state.rng = ForcedRolls([roll], stream)
    schedule(state, card, 0)
    state.rng = stream
    assert state.timetable[slot] == card


# ---------------------------------------------------------------------------- the Mainline


@pytest.mark.parametrize("lengths", [(1, 1, 1), (2, 1, 2), (2, 2, 2)])
@pytest.mark.parametrize("direction", [1, -1])
def test_r8_2_1_r8_2_2_eta_is_when_an_unhindered_train_arrives(
    lengths: tuple[int, ...], direction: int
) -> None:
    """D-mainline.1: ``regions``; R8.2.1: one region a Mainline Phase from the Start region of
    ``start_line``; R8.2.2: a stop at every office. ``eta`` counts exactly the phases."""
    state = new_state(2, 1)
    for line, count in enumerate(lengths):
        set_mainline_regions(state, line, count)
    assert [regions(state, line) for line in range(len(lengths))] == list(lengths)
    tray = put_train_at_dp(state, "train-2" if direction > 0 else "train-1", direction)
    index = state.trays.index(tray)
    first = start_line(state, tray)
    assert first == (0 if direction > 0 else state.n)
    due = {office: eta(state, index, office) for office in range(state.n)}
    arrived: dict[int, int] = {}
    phases = 0
    while tray.train != EMPTY:
        pass_local_ops(state)
        phases += 1
        if phases == 1:
            assert tray.line == first
        if tray.office != EMPTY and tray.office not in arrived:
            arrived[tray.office] = phases
    assert arrived == due


def test_r8_1_2_a_train_departs_when_made_up_in_order() -> None:
    state = new_state(3, 4)
    held = put_train_at_office(state, 1, "train-6")
    set_consist(state, held, (LOADED_COACH, ENGINE, LOADED_COACH))
    ready = put_train_at_office(state, 2, "train-8")
    assert makeup_problem(state, held) == "its engine is not at an outer end"
    assert makeup_problem(state, ready) is None
    onto = start_line(state, ready)
    pass_local_ops(state)
    assert (held.office, held.cell) == (1, OFFICE_CELL)
    assert (ready.office, ready.line) == (EMPTY, onto)


# ---------------------------------------------------------------------------- offices and capacities


@pytest.mark.parametrize(("card", "tier"), [("depot", 1), ("station", 2), ("terminal", 3)])
def test_d_play_3_r2_1_11_office_tier_and_a_d_tracks_are_the_office_cards(card: str, tier: int) -> None:
    """D-play.3: the tier; R2.1.11: the A/D tracks; R9.1.5: the Porters of the office card."""
    state = new_state(2, 3)
    office = state.office_of_seat[0]
    assert (office_tier(state, office), ad_tracks(state, office), porters(state, office)) == (0, 1, 0)
    set_office(state, 0, card)
    spec = CAT.cards[cid(card)]
    assert spec.office is not None and spec.facility is not None
    assert (office_tier(state, office), ad_tracks(state, office)) == (tier, spec.office.ad_tracks)
    station = state.stations[office]
    assert porters(state, office) == workers(state, station, OFFICE_CELL) == spec.facility.porters


def test_ra_4_3_the_office_takes_as_many_trays_as_ad_tracks_counts() -> None:
    """RA.4.3: no Move enters an Office card whose A/D tracks are all held."""
    state = new_state(1, 5)
    set_office(state, 0, "depot")
    office = state.office_of_seat[0]
    for train_id in ("train-2", "train-4"):
        put_train_at_office(state, office, train_id)
    assert len(trays_at(state, office)) == ad_tracks(state, office) == 2
    away = put_tray_in_station(state, 0, (0, 1), train_id="train-6")
    assert trays_at(state, office, (0, 1)) == [state.trays.index(away)]
    assert all(m.path[-1] != OFFICE_CELL for m in station_moves(state, 0))


@pytest.mark.parametrize("stocked", [0, 1, 2])
def test_r9_1_3_the_green_box_takes_a_car_while_box_room_is_left(stocked: int) -> None:
    """R9.1.3 (with R6.3.1): StockOutbound is offered exactly while ``box_room`` is above 0."""
    state = new_state(2, 4)
    seat = state.current_player()
    office = state.office_of_seat[seat]
    set_office(state, seat, "depot", outbound=[LOADED_COACH] * stocked)
    spec = CAT.cards[cid("depot")].facility
    assert spec is not None
    free = box_room(state, office, OFFICE_CELL, True)
    assert free == spec.outbound_capacity - stocked
    assert (StockOutbound(seat, OFFICE_CELL, LOADED_COACH) in state.legal_intents()) is (free > 0)
    assert box_room(state, office, (1, 0), True) == 0  # no facility there


# ---------------------------------------------------------------------------- R7.4: cars a train takes


def test_r7_4_the_cars_offered_are_those_the_train_takes() -> None:
    """R7.4 / R7.5 (C-trays.5, C-yards.1): the cars offered for a train are the ones its card
    takes (``train_takes``) that the Division Yard holds."""
    codes = [car_code(kind, False) for kind in range(len(CAR_TYPES)) if kind != CABOOSE] + [CABOOSE_CODE]
    builds = 0
    for state in GAMES:
        if state.phase not in (Phase.NEW_TRAIN, Phase.EXTRA_CONSIST) or state.building == EMPTY:
            continue
        tray = state.trays[state.building]
        offered = {i.car for i in state.legal_intents() if isinstance(i, AddCar)}
        assert offered == {c for c in codes if train_takes(state, tray, c) and state.division[c]}
        builds += 1
    assert builds


# ---------------------------------------------------------------------------- D-grid.4, D-grid.5: reach


def test_d_grid_4_every_legal_move_follows_the_move_graph_within_reach() -> None:
    """The bots' Move graph and ``reachable`` hold every Move the switching rules offer: a
    Move ends on a wheel card the graph joins to its start, on cells reachable from the
    Office when the tray stands within reach."""
    checked = 0
    for state in GAMES:
        if state.phase is not Phase.SWITCHING:
            continue
        seat = state.current_player()
        office = state.office_of_seat[seat]
        station = state.stations[office]
        graph = move_graph(state.catalogue, station)
        reach = reachable(state, office)
        assert set(graph) <= set(station.grid) and OFFICE_CELL in reach
        for move in station_moves(state, seat):
            assert isinstance(move, MoveTray)
            start, end = move.path[0], move.path[-1]
            assert end in graph[start]
            if start in reach:
                assert set(move.path) <= reach
            checked += 1
    assert checked


def test_d_grid_4_the_built_spur_scenarios_facility_is_reachable() -> None:
    state = new_state(2, 3)
    apply_scenarios(state, "built_spur", 0)
    office = state.office_of_seat[0]
    facilities = [cell for cell in state.stations[office].boxes if cell != OFFICE_CELL]
    assert facilities and set(facilities) <= reachable(state, office)
    assert all(cell in move_graph(state.catalogue, state.stations[office]) for cell in facilities)

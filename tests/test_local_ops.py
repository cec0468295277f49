"""Local Operations (R6): the choices, the card-play step (R6.2.2-R6.2.4), playing trains
(R7.2, RB.2), Extras, office upgrades (D-play.3), unplayable cards (D-play.4), the hand limit
with the Emergency Toolbox (RB.4, D-play.2) and the Freight Agent (R6.3)."""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import (
    CAT,
    EMPTY,
    assert_invariants,
    cid,
    draw_card,
    expect_illegal,
    move_division_to_classification,
    new_state,
    occupy_slots,
    pass_to_stage,
    place_facility,
    put_on_top_of_home_office,
    put_tray_in_station,
    set_consist,
    set_hand,
    set_office,
    stand_cars,
)

from sm_env.core.cars import BOXCAR, CABOOSE, COACH, ENGINE, HOPPER, REEFER, TANK, car_code
from sm_env.core.intents import (
    Area,
    ChooseSwitch,
    ClearInbound,
    Discard,
    DrawDepartment,
    DrawHomeOffice,
    EndSwitching,
    EndTurn,
    MoveTray,
    Pass,
    PlayCard,
    StockOutbound,
    Unjam,
)
from sm_env.core.phases import Phase
from sm_env.core.state import GameState
from sm_env.core.text import event_text

LOADED_COACH = car_code(COACH, True)
EMPTY_COACH = car_code(COACH, False)
LOADED_BOXCAR = car_code(BOXCAR, True)
EMPTY_BOXCAR = car_code(BOXCAR, False)
LOADED_HOPPER = car_code(HOPPER, True)
LOADED_REEFER = car_code(REEFER, True)
LOADED_TANK = car_code(TANK, True)
CABOOSE_CAR = car_code(CABOOSE, True)
OFFICE = (0, 0)
FA_KINDS = (StockOutbound, ClearInbound, Unjam)


def fa_intents(state: GameState) -> list[object]:
    return [i for i in state.legal_intents() if isinstance(i, FA_KINDS)]


# --------------------------------------------------------------------------- the choice


def test_r6_0_1_legal_choices_at_the_start() -> None:
    """R6.0.1 / D-play.1: Pass, Home Office, each Department; no switch, no Freight Agent."""
    state = new_state(3, 4)
    seat = state.current_player()
    assert state.legal_intents() == [
        Pass(seat),
        DrawHomeOffice(seat),
        DrawDepartment(seat, 0),
        DrawDepartment(seat, 1),
        DrawDepartment(seat, 2),
    ]


def test_d_play_1_pass_ends_the_turn() -> None:
    """D-play.1: Pass does nothing and hands the turn to the seat on the left."""
    state = new_state(3, 4)
    seat = state.current_player()
    hands = [h[:] for h in state.hands]
    state.apply(Pass(seat))
    assert state.current_player() == (seat + 1) % 3
    assert state.phase is Phase.LOCAL_OPS
    assert state.hands == hands
    assert state.events[-1].kind == "pass"


def test_r6_2_1_draw_home_office_only_when_it_is_non_empty() -> None:
    """R6.2.1: DrawHomeOffice is legal iff the Home Office holds a card."""
    state = new_state(2, 4)
    seat = state.current_player()
    state.salvage.extend(state.home_office)
    state.home_office.clear()
    assert DrawHomeOffice(seat) not in state.legal_intents()
    expect_illegal(state, DrawHomeOffice(seat), "R6.2.1", "empty")
    assert Pass(seat) in state.legal_intents()


def test_r6_2_1_draw_department_only_when_it_is_non_empty() -> None:
    """R6.2.1: one DrawDepartment per non-empty Department."""
    state = new_state(2, 4)
    seat = state.current_player()
    state.home_office.insert(0, state.departments[1].pop())
    legal = state.legal_intents()
    assert DrawDepartment(seat, 1) not in legal
    assert DrawDepartment(seat, 0) in legal and DrawDepartment(seat, 2) in legal
    expect_illegal(state, DrawDepartment(seat, 1), "R6.2.1", "Department 1 is empty")


def test_r6_2_1_draw_home_office_takes_the_top_card() -> None:
    """R6.2.1: the top (last) Home Office card goes to the hand; the card-play step follows."""
    state = new_state(2, 4)
    seat = state.current_player()
    top = state.home_office[-1]
    size = len(state.home_office)
    state.apply(DrawHomeOffice(seat))
    assert state.phase is Phase.CARD_PLAY
    assert state.current_player() == seat
    assert len(state.home_office) == size - 1
    assert Counter(state.hands[seat])[top] >= 1 and len(state.hands[seat]) == 4
    assert_invariants(state)


def test_r6_2_1_draw_department_takes_the_top_card() -> None:
    """R6.2.1: the top face-up card of the Department; no refill while cards remain."""
    state = new_state(2, 4)
    seat = state.current_player()
    extra = state.home_office.pop()
    state.departments[2].append(extra)
    under = state.departments[2][0]
    size = len(state.home_office)
    state.apply(DrawDepartment(seat, 2))
    assert state.departments[2] == [under]
    assert extra in state.hands[seat]
    assert len(state.home_office) == size
    assert state.phase is Phase.CARD_PLAY
    assert_invariants(state)


def test_r6_1_1_choose_switch_needs_a_tray_in_the_station() -> None:
    """R6.1.1: ChooseSwitch only with a Crew Tray in the seat's own station."""
    state = new_state(2, 4)
    seat = state.current_player()
    assert ChooseSwitch(seat) not in state.legal_intents()
    expect_illegal(state, ChooseSwitch(seat), "R6.1.1")
    put_tray_in_station(state, 1 - seat)  # someone else's station
    assert ChooseSwitch(seat) not in state.legal_intents()
    expect_illegal(state, ChooseSwitch(seat), "R6.1.1")
    put_tray_in_station(state, seat)
    assert ChooseSwitch(seat) in state.legal_intents()


def test_r6_1_2_switching_step_and_end_switching() -> None:
    """R6.1.2: six Moves; EndSwitching is the only switching intent and ends the turn."""
    state = new_state(2, 4)
    seat = state.current_player()
    put_tray_in_station(state, seat)
    state.apply(ChooseSwitch(seat))
    assert state.phase is Phase.SWITCHING
    assert state.moves_left == 6
    assert state.legal_intents()[-1] == EndSwitching(seat)
    assert all(isinstance(i, (MoveTray, EndSwitching)) for i in state.legal_intents())
    state.apply(EndSwitching(seat))
    assert state.moves_left == 0
    assert state.phase is Phase.LOCAL_OPS
    assert state.current_player() == 1 - seat


@pytest.mark.parametrize("reduced", [False, True])
@pytest.mark.parametrize("stage", range(12))
def test_rb_1_reduced_visibility_gives_five_moves_at_night(stage: int, reduced: bool) -> None:
    """RB.1: five Moves in Stages 1, 2, 3, 11, 12 with Reduced Visibility, else six."""
    state = new_state(1, 4, reduced_visibility=reduced)
    pass_to_stage(state, stage)
    put_tray_in_station(state, 0)
    state.apply(ChooseSwitch(0))
    night = stage in (0, 1, 2, 10, 11)
    assert state.moves_left == (5 if reduced and night else 6)


# --------------------------------------------------------------------------- the card-play step


def test_r6_2_4_end_turn_only_within_the_hand_limit() -> None:
    """R6.2.4: after a draw (4 cards) EndTurn is illegal until the hand is down to 3."""
    state = new_state(2, 4)
    seat = state.current_player()
    state.apply(DrawHomeOffice(seat))
    assert EndTurn(seat) not in state.legal_intents()
    expect_illegal(state, EndTurn(seat), "R6.2.4", "4 cards")
    state.apply(Discard(seat, state.hands[seat][0], 0))
    assert EndTurn(seat) in state.legal_intents()
    state.apply(EndTurn(seat))
    assert state.phase is Phase.LOCAL_OPS
    assert state.current_player() == 1 - seat
    assert_invariants(state)


@pytest.mark.parametrize("department", [0, 1, 2])
def test_r6_2_4_discard_goes_on_top_of_the_chosen_department(department: int) -> None:
    """R6.2.4: a discarded card goes face up on top of the Department of the seat's choice."""
    state = new_state(2, 4)
    seat = state.current_player()
    state.apply(DrawHomeOffice(seat))
    card = state.hands[seat][-1]
    others = [dept[:] for dept in state.departments]
    state.apply(Discard(seat, card, department))
    assert state.departments[department] == others[department] + [card]
    for d in range(3):
        if d != department:
            assert state.departments[d] == others[d]
    assert len(state.hands[seat]) == 3
    assert state.phase is Phase.CARD_PLAY  # discarding does not end the step
    assert state.events[-1].kind == "discard"


def test_r6_2_4_discard_below_the_limit_and_onto_an_empty_department() -> None:
    """R6.2.4: discarding is allowed below the limit and onto an empty Department."""
    state = new_state(2, 4)
    seat = state.current_player()
    state.home_office.insert(0, state.departments[0].pop())
    state.apply(DrawHomeOffice(seat))
    for _ in range(3):
        state.apply(Discard(seat, state.hands[seat][0], 0))
    assert len(state.hands[seat]) == 1 and len(state.departments[0]) == 3
    assert EndTurn(seat) in state.legal_intents()
    assert_invariants(state)


def test_r6_2_2_card_play_legal_intents() -> None:
    """R6.2.2 / D-play.3 / D-play.4: trains, Extras and upgrades are playable; station cards
    and RED FLAGs only discardable; every hand card can be discarded onto each Department."""
    state = new_state(2, 4, emergency_toolbox=True)
    seat = state.current_player()
    set_hand(state, seat, [cid("train-5"), cid("extra-9"), cid("depot"), cid("straight"), cid("red-flag")])
    state.apply(Pass(seat))  # 5 cards: over the limit, straight to the card-play step
    assert state.phase is Phase.CARD_PLAY
    legal = state.legal_intents()
    plays = {i.card for i in legal if isinstance(i, PlayCard)}
    assert plays == {cid("train-5"), cid("extra-9"), cid("depot")}
    discards = {(i.card, i.department) for i in legal if isinstance(i, Discard)}
    assert discards == {(card, d) for card in set(state.hands[seat]) for d in range(3)}
    assert EndTurn(seat) not in legal


def test_r6_2_2_playing_a_card_not_in_hand_is_illegal() -> None:
    """R6.2.2"""
    state = new_state(2, 4)
    seat = draw_card(state, cid("train-1"))
    missing = next(c for c in range(len(CAT.cards)) if c not in state.hands[seat])
    expect_illegal(state, PlayCard(seat, missing), "R6.2.2")
    expect_illegal(state, Discard(seat, missing, 0), "R6.2.4")


# --------------------------------------------------------------------------- trains (R7.2, RB.2)


def test_r7_2_train_takes_the_rolled_slot() -> None:
    """R7.2: a timetabled train rolls the D12 for its slot (predicted with a cloned stream)."""
    state = new_state(2, 21)
    seat = draw_card(state, cid("train-7"))
    roll = state.rng.copy().d12()
    state.apply(PlayCard(seat, cid("train-7")))
    assert state.timetable[roll - 1] == cid("train-7")
    assert sum(slot != EMPTY for slot in state.timetable) == 1
    assert cid("train-7") not in state.hands[seat]
    assert state.events[-1].kind == "play-train" and f"rolled {roll}" in event_text(state.events[-1], state)
    assert state.phase is Phase.CARD_PLAY
    assert_invariants(state)


def _state_with_roll_at_least(minimum: int, card: int, **rules: bool) -> tuple[GameState, int, int]:
    for seed in range(200):
        state = new_state(2, seed, **rules)
        seat = draw_card(state, card)
        roll = state.rng.copy().d12()
        if roll >= minimum:
            return state, seat, roll
    raise AssertionError("no seed found")


def test_r7_2_occupied_slot_goes_down_the_column() -> None:
    """R7.2: an occupied slot sends the board to the next free slot down."""
    train = cid("train-1")
    state, seat, roll = _state_with_roll_at_least(1, train)
    slot = roll - 1
    occupy_slots(state, [slot, (slot + 1) % 12], exclude=[train])
    state.apply(PlayCard(seat, train))
    assert state.timetable[(slot + 2) % 12] == train
    assert_invariants(state)


def test_r7_2_occupied_slots_wrap_from_the_bottom_to_the_top() -> None:
    """R7.2: every slot from the roll to the bottom taken: wrap to the top (slot 1)."""
    train = cid("train-11")
    state, seat, roll = _state_with_roll_at_least(3, train)
    occupy_slots(state, range(roll - 1, 12), exclude=[train])
    state.apply(PlayCard(seat, train))
    assert state.timetable[0] == train
    assert_invariants(state)


def test_r7_2_wrap_skips_occupied_top_slots() -> None:
    """R7.2: wrapping continues down from the top past occupied slots."""
    train = cid("train-9")
    state, seat, roll = _state_with_roll_at_least(4, train)
    occupy_slots(state, list(range(roll - 1, 12)) + [0, 1], exclude=[train])
    state.apply(PlayCard(seat, train))
    assert state.timetable[2] == train


def _predict_slots(state: GameState, rolls: int) -> list[int]:
    rng = state.rng.copy()
    taken = [slot != EMPTY for slot in state.timetable]
    slots = []
    for _ in range(rolls):
        slot = rng.d12() - 1
        while taken[slot]:
            slot = (slot + 1) % 12
        taken[slot] = True
        slots.append(slot)
    return slots


@pytest.mark.parametrize("number", [1, 3, 5, 7, 9, 11])
def test_rb_2_sister_train_is_scheduled_with_its_odd_companion(number: int) -> None:
    """RB.2: playing odd train N schedules N, then N+1 from the set-aside cards, each with
    its own D12 roll right after the other."""
    state = new_state(2, 40 + number, sister_trains=True)
    odd, even = cid(f"train-{number}"), cid(f"train-{number + 1}")
    seat = draw_card(state, odd)
    first, second = _predict_slots(state, 2)
    assert even in state.set_aside
    state.apply(PlayCard(seat, odd))
    assert state.timetable[first] == odd
    assert state.timetable[second] == even
    assert even not in state.set_aside
    assert [e.kind for e in state.events[-2:]] == ["play-train", "play-train"]
    assert_invariants(state)


def test_rb_2_without_sister_trains_only_the_played_train_is_scheduled() -> None:
    """RB.2 off: the even train stays wherever it is."""
    state = new_state(2, 43)
    seat = draw_card(state, cid("train-3"))
    state.apply(PlayCard(seat, cid("train-3")))
    assert [c for c in state.timetable if c != EMPTY] == [cid("train-3")]


def test_rb_2_discarding_the_odd_train_leaves_the_sister_aside() -> None:
    """RB.2"""
    state = new_state(2, 44, sister_trains=True)
    seat = draw_card(state, cid("train-5"))
    state.apply(Discard(seat, cid("train-5"), 1))
    assert cid("train-6") in state.set_aside
    assert state.timetable == [EMPTY] * 12


def test_rb_2_extras_bring_no_sister() -> None:
    """RB.2: Extras are not part of the Sister rule."""
    state = new_state(2, 45, sister_trains=True)
    seat = draw_card(state, cid("extra-3"))
    aside = state.set_aside[:]
    state.apply(PlayCard(seat, cid("extra-3")))
    assert state.set_aside == aside
    assert state.timetable == [EMPTY] * 12


def test_r7_5_extra_goes_to_the_pending_extras() -> None:
    """R7.5 / R6.2.3: a played Extra waits in the pending Extras with its seat; no roll."""
    state = new_state(3, 46)
    seat = draw_card(state, cid("extra-11"))
    rng_state = state.rng.state
    state.apply(PlayCard(seat, cid("extra-11")))
    assert state.pending_extras == [(cid("extra-11"), seat)]
    assert state.rng.state == rng_state
    assert state.timetable == [EMPTY] * 12
    assert state.events[-1].kind == "play-extra"
    assert_invariants(state)


# --------------------------------------------------------------------------- office upgrades


def test_d_play_3_depot_on_the_whistle_post_through_intents() -> None:
    """D-play.3: a Depot replaces the Whistle Post; the Whistle Post is set aside; the new
    office gets (empty) boxes."""
    state = new_state(2, 47)
    seat = draw_card(state, cid("depot"))
    station = state.stations[state.office_of_seat[seat]]
    aside = Counter(state.set_aside)[cid("whistle-post")]
    salvage = state.salvage[:]
    state.apply(PlayCard(seat, cid("depot")))
    assert station.grid[OFFICE] == (cid("depot"), False)
    assert Counter(state.set_aside)[cid("whistle-post")] == aside + 1
    assert state.set_aside == sorted(state.set_aside)
    assert state.salvage == salvage
    boxes = station.boxes[OFFICE]
    assert boxes.outbound == [] and boxes.inbound == [] and boxes.cars() == []
    assert sorted(state.stations[state.office_of_seat[seat]].boxes) == [OFFICE]
    assert state.events[-1].kind == "upgrade"
    assert_invariants(state)


def test_d_play_3_upgrade_salvages_the_depot_and_keeps_its_cars() -> None:
    """D-play.3: a replaced Depot goes to the Salvage Yard; cars in its boxes move over."""
    state = new_state(2, 48)
    seat = state.current_player()
    set_office(state, seat, "depot", outbound=[LOADED_COACH], inbound=[EMPTY_COACH])
    seat = draw_card(state, cid("terminal"))
    state.apply(PlayCard(seat, cid("terminal")))
    station = state.stations[state.office_of_seat[seat]]
    assert station.grid[OFFICE] == (cid("terminal"), False)
    assert state.salvage[-1] == cid("depot")
    assert station.boxes[OFFICE].outbound == [LOADED_COACH]
    assert station.boxes[OFFICE].inbound == [EMPTY_COACH]
    assert_invariants(state)


@pytest.mark.parametrize(
    ("current", "card", "legal"),
    [
        ("whistle-post", "depot", True),
        ("whistle-post", "station", True),
        ("whistle-post", "terminal", True),
        ("depot", "station", True),
        ("depot", "terminal", True),
        ("station", "terminal", True),
        ("depot", "depot", False),
        ("station", "depot", False),
        ("station", "station", False),
        ("terminal", "depot", False),
        ("terminal", "station", False),
        ("terminal", "terminal", False),
    ],
)
def test_d_play_3_only_a_strictly_higher_tier(current: str, card: str, legal: bool) -> None:
    """D-play.3: an office card upgrades only to a strictly higher tier (skipping allowed)."""
    state = new_state(2, 49)
    seat = state.current_player()
    if current != "whistle-post":
        set_office(state, seat, current)
    seat = draw_card(state, cid(card))
    assert (PlayCard(seat, cid(card)) in state.legal_intents()) is legal
    if legal:
        state.apply(PlayCard(seat, cid(card)))
        assert state.stations[state.office_of_seat[seat]].grid[OFFICE][0] == cid(card)
        assert_invariants(state)
    else:
        expect_illegal(state, PlayCard(seat, cid(card)), "D-play.3")
        assert Discard(seat, cid(card), 0) in state.legal_intents()


def test_d_play_3_upgrade_touches_only_the_own_office() -> None:
    """D-play.3: the upgrade is of the playing seat's current office."""
    state = new_state(3, 50)
    seat = draw_card(state, cid("station"))
    others = [state.stations[o].grid.copy() for o in range(3) if o != state.office_of_seat[seat]]
    state.apply(PlayCard(seat, cid("station")))
    assert [state.stations[o].grid for o in range(3) if o != state.office_of_seat[seat]] == others


@pytest.mark.parametrize(
    "card_id",
    [
        "straight",
        "turnout-left-plain",
        "junction",
        "freight-house",
        "power-plant",
        "loading-dock",
        "waiting-room",
    ],
)
def test_d_play_4_station_cards_cannot_be_played_yet_but_can_be_discarded(card_id: str) -> None:
    """D-play.4: track, facility and modifier cards are not played with PlayCard (they are
    laid with PlaceCard/PlaceModifier, D-grid.6); they can always be discarded."""
    state = new_state(2, 51)
    seat = draw_card(state, cid(card_id))
    assert PlayCard(seat, cid(card_id)) not in state.legal_intents()
    expect_illegal(state, PlayCard(seat, cid(card_id)), "D-play.4")
    state.apply(Discard(seat, cid(card_id), 2))
    assert state.departments[2][-1] == cid(card_id)


def test_d_redflag_1_red_flag_is_not_played_in_local_operations() -> None:
    """D-redflag.1: the RED FLAG is played only in the Mainline Phase; it can be discarded."""
    state = new_state(2, 52, emergency_toolbox=True)
    seat = state.current_player()
    state.apply(DrawHomeOffice(seat))
    flag = cid("red-flag")
    assert PlayCard(seat, flag) not in state.legal_intents()
    expect_illegal(state, PlayCard(seat, flag), "D-redflag.1")
    state.apply(Discard(seat, flag, 0))
    assert state.departments[0][-1] == flag


# --------------------------------------------------------------------------- hand limit (RB.4)


def test_rb_4_d_play_2_pass_with_four_cards_must_discard() -> None:
    """RB.4 / D-play.2: a seat holding 4 cards that passes enters the card-play step and must
    get down to 3 before its turn ends."""
    state = new_state(3, 53, emergency_toolbox=True)
    seat = state.current_player()
    assert len(state.hands[seat]) == 4
    state.apply(Pass(seat))
    assert state.phase is Phase.CARD_PLAY and state.current_player() == seat
    assert EndTurn(seat) not in state.legal_intents()
    expect_illegal(state, EndTurn(seat), "R6.2.4")
    state.apply(Discard(seat, cid("red-flag"), 1))
    state.apply(EndTurn(seat))
    nxt = state.current_player()
    assert nxt == (seat + 1) % 3 and state.phase is Phase.LOCAL_OPS
    assert len(state.hands[nxt]) == 4
    assert_invariants(state)


def test_rb_4_d_play_2_draw_with_four_cards_needs_two_discards() -> None:
    """RB.4 / R6.2.4: 4 + 1 drawn = 5: two cards must go before EndTurn."""
    state = new_state(2, 54, emergency_toolbox=True)
    seat = state.current_player()
    state.apply(DrawHomeOffice(seat))
    assert len(state.hands[seat]) == 5
    state.apply(Discard(seat, state.hands[seat][0], 0))
    assert EndTurn(seat) not in state.legal_intents()
    state.apply(Discard(seat, state.hands[seat][0], 0))
    assert EndTurn(seat) in state.legal_intents()


def test_rb_4_d_play_2_end_switching_with_four_cards_must_discard() -> None:
    """D-play.2: the limit is checked after switching too."""
    state = new_state(2, 55, emergency_toolbox=True)
    seat = state.current_player()
    put_tray_in_station(state, seat)
    state.apply(ChooseSwitch(seat))
    state.apply(EndSwitching(seat))
    assert state.phase is Phase.CARD_PLAY and state.current_player() == seat


def test_rb_4_d_play_2_freight_agent_with_four_cards_must_discard() -> None:
    """D-play.2: the limit is checked after a Freight Agent action too."""
    state = new_state(2, 56, emergency_toolbox=True)
    seat = state.current_player()
    set_office(state, seat, "depot")
    state.apply(StockOutbound(seat, OFFICE, LOADED_COACH))
    assert state.phase is Phase.CARD_PLAY and state.current_player() == seat
    assert_invariants(state)


def test_rb_4_after_the_first_stage_every_hand_is_within_three() -> None:
    """RB.4: after each seat's first turn nobody holds more than three cards."""
    state = new_state(4, 57, emergency_toolbox=True)
    while state.stages_played == 0:
        seat = state.current_player()
        if state.phase is Phase.CARD_PLAY:
            if len(state.hands[seat]) > 3:
                state.apply(Discard(seat, state.hands[seat][0], 0))
            else:
                state.apply(EndTurn(seat))
        else:
            state.apply(Pass(seat))
    assert all(len(hand) == 3 for hand in state.hands)


# --------------------------------------------------------------------------- Freight Agent (R6.3)


def test_d_agent_1_no_freight_agent_without_a_facility() -> None:
    """D-agent.1: a Whistle Post has no boxes, so the Freight Agent has nothing to do."""
    state = new_state(2, 60)
    seat = state.current_player()
    assert fa_intents(state) == []
    assert sorted(state.stations[state.office_of_seat[seat]].boxes) == []
    expect_illegal(state, StockOutbound(seat, OFFICE, LOADED_COACH), "R6.3.1")
    expect_illegal(state, ClearInbound(seat, OFFICE, EMPTY_COACH), "R6.3.2")
    expect_illegal(state, Unjam(seat, OFFICE, Area.OUTBOUND, LOADED_COACH), "R6.3.3")


def test_r6_3_1_stock_outbound_takes_a_loaded_coach_from_the_division_yard() -> None:
    """R6.3.1: a Depot's green box takes loaded coaches from the Division Yard."""
    state = new_state(2, 61)
    seat = state.current_player()
    boxes = set_office(state, seat, "depot")
    assert fa_intents(state) == [StockOutbound(seat, OFFICE, LOADED_COACH)]
    before = state.division[LOADED_COACH]
    state.apply(StockOutbound(seat, OFFICE, LOADED_COACH))
    assert state.division[LOADED_COACH] == before - 1
    assert boxes.outbound == [LOADED_COACH]
    assert state.current_player() == 1 - seat and state.phase is Phase.LOCAL_OPS
    assert state.events[-1].kind == "freight-agent"
    assert_invariants(state)


def test_r6_3_1_depot_upgraded_through_intents_then_stocked() -> None:
    """R6.3.1 / D-play.3: the whole path through intents."""
    state = new_state(1, 62)
    assert fa_intents(state) == []
    put_on_top_of_home_office(state, cid("depot"))
    state.apply(DrawHomeOffice(0))
    state.apply(PlayCard(0, cid("depot")))
    state.apply(EndTurn(0))
    assert StockOutbound(0, OFFICE, LOADED_COACH) in state.legal_intents()
    state.apply(StockOutbound(0, OFFICE, LOADED_COACH))
    assert state.stations[0].boxes[OFFICE].outbound == [LOADED_COACH]
    assert_invariants(state)


@pytest.mark.parametrize(("outbound", "inbound"), [([LOADED_COACH], [EMPTY_COACH]), ([LOADED_COACH] * 2, [])])
def test_r9_1_3_shared_capacity_full_box_cannot_be_stocked(outbound: list[int], inbound: list[int]) -> None:
    """R6.3.1 / R9.1.3: a Depot's shared capacity 2 counts both boxes together."""
    state = new_state(2, 63)
    seat = state.current_player()
    set_office(state, seat, "depot", outbound=outbound, inbound=inbound)
    assert not any(isinstance(i, StockOutbound) for i in state.legal_intents())
    expect_illegal(state, StockOutbound(seat, OFFICE, LOADED_COACH), "R9.1.3", "full")


def test_r9_1_3_shared_capacity_with_room_left() -> None:
    """R9.1.3: one car in the red box leaves one place for the green box."""
    state = new_state(2, 63)
    seat = state.current_player()
    set_office(state, seat, "depot", inbound=[LOADED_COACH])
    assert StockOutbound(seat, OFFICE, LOADED_COACH) in state.legal_intents()


def test_r9_1_3_separate_capacities_of_a_station() -> None:
    """R9.1.3: a Station has 2 outbound and 2 inbound places, counted apart."""
    state = new_state(2, 64)
    seat = state.current_player()
    set_office(state, seat, "station", inbound=[EMPTY_COACH, LOADED_COACH])
    assert StockOutbound(seat, OFFICE, LOADED_COACH) in state.legal_intents()
    state = new_state(2, 64)
    seat = state.current_player()
    set_office(state, seat, "station", outbound=[LOADED_COACH, LOADED_COACH])
    expect_illegal(state, StockOutbound(seat, OFFICE, LOADED_COACH), "R9.1.3")


@pytest.mark.parametrize("car", [EMPTY_COACH, LOADED_BOXCAR, EMPTY_BOXCAR, CABOOSE_CAR, -1, 12, 99])
def test_r6_3_1_wrong_car_for_the_green_box(car: int) -> None:
    """R6.3.1: only a loaded car of a type the green box takes."""
    state = new_state(2, 65)
    seat = state.current_player()
    set_office(state, seat, "depot")
    expect_illegal(state, StockOutbound(seat, OFFICE, car), "R6.3.1")


def test_c_yards_1_car_not_in_the_division_yard() -> None:
    """C-yards.1: no loaded coach in the Division Yard: nothing to stock."""
    state = new_state(2, 66)
    seat = state.current_player()
    set_office(state, seat, "depot")
    move_division_to_classification(state, LOADED_COACH)
    assert fa_intents(state) == []
    expect_illegal(state, StockOutbound(seat, OFFICE, LOADED_COACH), "C-yards.1")
    assert_invariants(state)


def test_r6_3_facility_cell_must_be_in_the_seats_own_station() -> None:
    """R6.3.1-R6.3.3 / D-agent.1: a cell without a facility, or another seat's facility."""
    state = new_state(2, 67)
    seat = state.current_player()
    other = 1 - seat
    set_office(state, other, "depot", outbound=[LOADED_COACH], inbound=[EMPTY_COACH])
    assert fa_intents(state) == []
    for cell in [OFFICE, (0, 1), (0, -1), (1, 0), (5, 5)]:
        expect_illegal(state, StockOutbound(seat, cell, LOADED_COACH), "R6.3.1", "no facility")
        expect_illegal(state, ClearInbound(seat, cell, EMPTY_COACH), "R6.3.2", "no facility")
        expect_illegal(state, Unjam(seat, cell, Area.OUTBOUND, LOADED_COACH), "R6.3.3", "no facility")
    set_office(state, seat, "depot")
    expect_illegal(state, StockOutbound(seat, (0, 1), LOADED_COACH), "R6.3.1")


def test_r6_3_2_clear_inbound_to_the_classification_yard() -> None:
    """R6.3.2 / C-yards.3: a car from the red box goes to the Classification Yard."""
    state = new_state(2, 68)
    seat = state.current_player()
    boxes = set_office(state, seat, "station", inbound=[EMPTY_COACH, LOADED_COACH])
    legal = fa_intents(state)
    assert ClearInbound(seat, OFFICE, EMPTY_COACH) in legal
    assert ClearInbound(seat, OFFICE, LOADED_COACH) in legal
    state.apply(ClearInbound(seat, OFFICE, EMPTY_COACH))
    assert boxes.inbound == [LOADED_COACH]
    assert state.classification[EMPTY_COACH] == 1
    assert state.current_player() == 1 - seat
    assert_invariants(state)


def test_r6_3_2_clear_inbound_car_not_there() -> None:
    """R6.3.2: the car must be in the red box (not merely in the green one)."""
    state = new_state(2, 69)
    seat = state.current_player()
    set_office(state, seat, "station", outbound=[LOADED_COACH], inbound=[EMPTY_COACH])
    expect_illegal(state, ClearInbound(seat, OFFICE, LOADED_COACH), "R6.3.2", "red box")
    expect_illegal(state, ClearInbound(seat, OFFICE, LOADED_BOXCAR), "R6.3.2")


def test_r6_3_3_unjam_green_box_and_work_slots() -> None:
    """R6.3.3: Unjam takes a load its facility's workers cannot move on (no empty boxcar on the
    industry track for it) from the green box or a MEN|AT|WORK slot to the Classification
    Yard; one intent per jammed load, none for a load that can still be worked."""
    state = new_state(2, 70)
    seat = state.current_player()
    boxes = place_facility(
        state,
        seat,
        (1, 0),
        "freight-house",
        outbound=[LOADED_BOXCAR],
        work=[EMPTY, EMPTY, LOADED_BOXCAR],
    )
    legal = fa_intents(state)
    assert Unjam(seat, (1, 0), Area.OUTBOUND, LOADED_BOXCAR) in legal
    assert Unjam(seat, (1, 0), Area.WORK, LOADED_BOXCAR) in legal
    assert not any(isinstance(i, Unjam) and i.area in (Area.MEN, Area.AT) for i in legal)
    expect_illegal(state, Unjam(seat, (1, 0), Area.MEN, LOADED_BOXCAR), "R6.3.3", "MEN slot")
    expect_illegal(state, Unjam(seat, (1, 0), Area.AT, LOADED_BOXCAR), "R6.3.3", "AT slot")
    expect_illegal(state, Unjam(seat, (1, 0), Area.OUTBOUND, EMPTY_BOXCAR), "R6.3.3", "green box")
    expect_illegal(state, Unjam(seat, (1, 0), Area.MEN, EMPTY), "R6.3.3")
    state.apply(Unjam(seat, (1, 0), Area.WORK, LOADED_BOXCAR))
    assert boxes.work == [EMPTY, EMPTY, EMPTY]
    assert state.classification[LOADED_BOXCAR] == 1
    assert_invariants(state)


def test_r6_3_3_a_load_that_can_be_worked_is_not_jammed() -> None:
    """R6.3.3: with an empty boxcar on the industry track the load on WORK can go on into the
    car, so it is not jammed; the green box load still is (that one empty is the WORK load's).
    A load that can advance a slot is not jammed either."""
    state = new_state(2, 72)
    seat = state.current_player()
    office = state.office_of_seat[seat]
    place_facility(
        state, seat, (1, 0), "freight-house", outbound=[LOADED_BOXCAR], work=[EMPTY, EMPTY, LOADED_BOXCAR]
    )
    stand_cars(state, office, (1, 0), [EMPTY_BOXCAR])
    legal = fa_intents(state)
    assert Unjam(seat, (1, 0), Area.OUTBOUND, LOADED_BOXCAR) in legal
    assert Unjam(seat, (1, 0), Area.WORK, LOADED_BOXCAR) not in legal
    expect_illegal(state, Unjam(seat, (1, 0), Area.WORK, LOADED_BOXCAR), "R6.3.3", "not jammed")


def test_r6_3_3_a_coach_with_a_train_to_board_is_not_jammed() -> None:
    """R6.3.3: a coach in the office's green box is jammed only while no train at the office
    could take it (R9.2.1: an empty coach aboard)."""
    state = new_state(2, 73)
    seat = state.current_player()
    set_office(state, seat, "depot", outbound=[LOADED_COACH])
    assert Unjam(seat, OFFICE, Area.OUTBOUND, LOADED_COACH) in fa_intents(state)
    set_consist(state, put_tray_in_station(state, seat, OFFICE), [ENGINE, EMPTY_COACH])
    assert Unjam(seat, OFFICE, Area.OUTBOUND, LOADED_COACH) not in fa_intents(state)
    expect_illegal(state, Unjam(seat, OFFICE, Area.OUTBOUND, LOADED_COACH), "R6.3.3", "not jammed")


def test_r6_3_3_unjam_the_green_box() -> None:
    """R6.3.3"""
    state = new_state(2, 71)
    seat = state.current_player()
    boxes = set_office(state, seat, "depot", outbound=[LOADED_COACH])
    state.apply(Unjam(seat, OFFICE, Area.OUTBOUND, LOADED_COACH))
    assert boxes.outbound == []
    assert state.classification[LOADED_COACH] == 1
    assert_invariants(state)


@pytest.mark.parametrize(
    ("card_id", "stockable"),
    [
        ("freight-house", [LOADED_BOXCAR]),
        ("mine-tipple", [LOADED_HOPPER]),
        ("packing-sheds", [LOADED_REEFER]),
        ("refinery", [LOADED_TANK]),
        ("grocers-warehouse", []),
        ("power-plant", []),
    ],
)
def test_r6_3_1_freight_facilities_take_their_own_loads(card_id: str, stockable: list[int]) -> None:
    """R6.3.1 / R9.0.2: each freight facility's green box takes its own car type only (a
    facility without a green box takes nothing)."""
    state = new_state(2, 72)
    seat = state.current_player()
    place_facility(state, seat, (1, 2), card_id)
    stocks = [i.car for i in state.legal_intents() if isinstance(i, StockOutbound)]
    assert stocks == stockable
    for car in (LOADED_BOXCAR, LOADED_HOPPER, LOADED_REEFER, LOADED_TANK):
        if car not in stockable:
            expect_illegal(state, StockOutbound(seat, (1, 2), car), "R6.3.1")
    if stockable:
        state.apply(StockOutbound(seat, (1, 2), stockable[0]))
        assert_invariants(state)


def test_r6_3_freight_agent_lists_every_facility_of_the_station() -> None:
    """D-agent.1: the office and placed freight facilities are all worked by the agent."""
    state = new_state(2, 73)
    seat = state.current_player()
    set_office(state, seat, "depot", inbound=[EMPTY_COACH])
    place_facility(state, seat, (1, 0), "power-plant", inbound=[car_code(HOPPER, False)])
    assert sorted(state.stations[state.office_of_seat[seat]].boxes) == [(0, 0), (1, 0)]
    assert fa_intents(state) == [
        StockOutbound(seat, OFFICE, LOADED_COACH),
        ClearInbound(seat, OFFICE, EMPTY_COACH),
        ClearInbound(seat, (1, 0), car_code(HOPPER, False)),
    ]
    state.apply(ClearInbound(seat, (1, 0), car_code(HOPPER, False)))
    assert_invariants(state)

"""Illegal intents raise IllegalIntent naming the rule and change nothing (R5.0.1); and
``legal_intents()`` is exact: everything it lists applies, everything else in a broad
candidate pool is refused without a trace."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

import pytest
from conftest import (
    CAT,
    EMPTY,
    ENGINE,
    HOUSE_RULES,
    assert_invariants,
    cid,
    draw_card,
    expect_illegal,
    new_state,
    place_facility,
    play_random,
    put_tray_in_station,
    set_consist,
    set_office,
    stand_cars,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sm_env.core.cars import COACH, FLIPPED, N_CAR_CODES, car_code
from sm_env.core.catalogue import CardKind
from sm_env.core.errors import IllegalIntent
from sm_env.core.intents import (
    AddCar,
    Area,
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
    Intent,
    Labor,
    MoveTray,
    Pass,
    PlaceCard,
    PlaceModifier,
    PlayCard,
    RedFlag,
    Spot,
    StockOutbound,
    Unjam,
)
from sm_env.core.phases import Phase
from sm_env.core.state import GameState
from sm_env.core.text import describe
from sm_env.core.trains import free_tray

LOADED_COACH = car_code(COACH, True)
EMPTY_COACH = car_code(COACH, False)
OFFICE = (0, 0)


# --------------------------------------------------------------------------- scenarios


def local_ops() -> GameState:
    return new_state(3, 31)


def card_play(card: str | None = None, **rules: bool) -> GameState:
    state = new_state(3, 32, **rules)
    if card is None:
        state.apply(DrawHomeOffice(state.current_player()))
    else:
        draw_card(state, cid(card))
    return state


def switching() -> GameState:
    state = new_state(3, 33)
    seat = state.current_player()
    put_tray_in_station(state, seat)
    state.apply(ChooseSwitch(seat))
    return state


def game_over() -> GameState:
    state = new_state(2, 34)
    play_random(state, 34)
    return state


def seat_of(state: GameState) -> int:
    return state.current_player()


def other(state: GameState) -> int:
    return (state.current_player() + 1) % state.n


def with_empty_department(state: GameState, d: int) -> GameState:
    state.home_office[:0] = state.departments[d]
    state.departments[d].clear()
    return state


def with_empty_home_office(state: GameState) -> GameState:
    state.salvage.extend(state.home_office)
    state.home_office.clear()
    return state


def with_depot(state: GameState, **boxes: list[int]) -> GameState:
    set_office(state, state.current_player(), "depot", **boxes)
    return state


def not_in_hand(state: GameState) -> int:
    hand = state.hands[state.current_player()]
    return next(c for c in range(len(CAT.cards)) if c not in hand)


TABLE: list[tuple[str, Callable[[], tuple[GameState, Any]], str]] = [
    # Local Operations
    ("wrong seat passes", lambda: (s := local_ops(), Pass(other(s))), "R5.0.1"),
    ("wrong seat draws", lambda: (s := local_ops(), DrawHomeOffice(other(s))), "R5.0.1"),
    ("EndTurn in local ops", lambda: (s := local_ops(), EndTurn(seat_of(s))), "R5.0.1"),
    (
        "Discard in local ops",
        lambda: (s := local_ops(), Discard(seat_of(s), s.hands[seat_of(s)][0], 0)),
        "R5.0.1",
    ),
    (
        "PlayCard in local ops",
        lambda: (s := local_ops(), PlayCard(seat_of(s), s.hands[seat_of(s)][0])),
        "R5.0.1",
    ),
    ("EndSwitching in local ops", lambda: (s := local_ops(), EndSwitching(seat_of(s))), "R5.0.1"),
    (
        "MoveTray in local ops",
        lambda: (s := local_ops(), MoveTray(seat_of(s), 0, (OFFICE, (0, 1)), (0, 0))),
        "R5.0.1",
    ),
    ("not an intent (str)", lambda: (local_ops(), "pass"), "R5.0.1"),
    ("not an intent (None)", lambda: (local_ops(), None), "R5.0.1"),
    ("department 5", lambda: (s := local_ops(), DrawDepartment(seat_of(s), 5)), "R6.2.1"),
    ("department -1", lambda: (s := local_ops(), DrawDepartment(seat_of(s), -1)), "R6.2.1"),
    (
        "empty department",
        lambda: (s := with_empty_department(local_ops(), 2), DrawDepartment(seat_of(s), 2)),
        "R6.2.1",
    ),
    (
        "empty home office",
        lambda: (s := with_empty_home_office(local_ops()), DrawHomeOffice(seat_of(s))),
        "R6.2.1",
    ),
    ("switch without a tray", lambda: (s := local_ops(), ChooseSwitch(seat_of(s))), "R6.1.1"),
    (
        "stock without facility",
        lambda: (s := local_ops(), StockOutbound(seat_of(s), OFFICE, LOADED_COACH)),
        "R6.3.1",
    ),
    (
        "clear without facility",
        lambda: (s := local_ops(), ClearInbound(seat_of(s), OFFICE, EMPTY_COACH)),
        "R6.3.2",
    ),
    (
        "unjam without facility",
        lambda: (s := local_ops(), Unjam(seat_of(s), OFFICE, Area.OUTBOUND, LOADED_COACH)),
        "R6.3.3",
    ),
    (
        "stock empty car",
        lambda: (s := with_depot(local_ops()), StockOutbound(seat_of(s), OFFICE, EMPTY_COACH)),
        "R6.3.1",
    ),
    (
        "stock a full box",
        lambda: (
            s := with_depot(local_ops(), outbound=[LOADED_COACH], inbound=[EMPTY_COACH]),
            StockOutbound(seat_of(s), OFFICE, LOADED_COACH),
        ),
        "R9.1.3",
    ),
    (
        "clear a car not there",
        lambda: (s := with_depot(local_ops()), ClearInbound(seat_of(s), OFFICE, 0)),
        "R6.3.2",
    ),
    (
        "unjam an empty slot",
        lambda: (s := with_depot(local_ops()), Unjam(seat_of(s), OFFICE, Area.MEN, EMPTY)),
        "R6.3.3",
    ),
    # The card-play step
    ("Pass in card play", lambda: (s := card_play(), Pass(seat_of(s))), "R5.0.1"),
    ("draw in card play", lambda: (s := card_play(), DrawHomeOffice(seat_of(s))), "R5.0.1"),
    (
        "Freight Agent in card play",
        lambda: (s := with_depot(card_play()), StockOutbound(seat_of(s), OFFICE, LOADED_COACH)),
        "R5.0.1",
    ),
    ("wrong seat discards", lambda: (s := card_play(), Discard(other(s), s.hands[other(s)][0], 0)), "R5.0.1"),
    ("play a card not in hand", lambda: (s := card_play(), PlayCard(seat_of(s), not_in_hand(s))), "R6.2.2"),
    ("play card index 999", lambda: (s := card_play(), PlayCard(seat_of(s), 999)), "R6.2.2"),
    (
        "discard a card not in hand",
        lambda: (s := card_play(), Discard(seat_of(s), not_in_hand(s), 0)),
        "R6.2.4",
    ),
    (
        "discard to department 5",
        lambda: (s := card_play(), Discard(seat_of(s), s.hands[seat_of(s)][0], 5)),
        "R6.2.4",
    ),
    (
        "discard to department -1",
        lambda: (s := card_play(), Discard(seat_of(s), s.hands[seat_of(s)][0], -1)),
        "R6.2.4",
    ),
    ("EndTurn with 4 cards", lambda: (s := card_play(), EndTurn(seat_of(s))), "R6.2.4"),
    (
        "play a track card",
        lambda: (s := card_play("straight"), PlayCard(seat_of(s), cid("straight"))),
        "D-play.4",
    ),
    (
        "play a facility card",
        lambda: (s := card_play("mine-tipple"), PlayCard(seat_of(s), cid("mine-tipple"))),
        "D-play.4",
    ),
    (
        "play a modifier card",
        lambda: (s := card_play("baggage-room"), PlayCard(seat_of(s), cid("baggage-room"))),
        "D-play.4",
    ),
    (
        "play a red flag",
        lambda: (s := card_play(emergency_toolbox=True), PlayCard(seat_of(s), cid("red-flag"))),
        "D-redflag.1",
    ),
    (
        "office not higher",
        lambda: (s := with_depot(card_play("depot")), PlayCard(seat_of(s), cid("depot"))),
        "D-play.3",
    ),
    (
        "place a card not in hand",
        lambda: (s := card_play(), PlaceCard(seat_of(s), not_in_hand(s), (1, 0))),
        "R6.2.2",
    ),
    (
        "place a train card",
        lambda: (s := card_play("train-1"), PlaceCard(seat_of(s), cid("train-1"), (1, 0))),
        "D-grid.6",
    ),
    (
        "place a modifier not in hand",
        lambda: (s := card_play(), PlaceModifier(seat_of(s), not_in_hand(s), (1, 0), OFFICE)),
        "R6.2.2",
    ),
    # Switching
    ("Pass while switching", lambda: (s := switching(), Pass(seat_of(s))), "R5.0.1"),
    ("draw while switching", lambda: (s := switching(), DrawHomeOffice(seat_of(s))), "R5.0.1"),
    ("wrong seat ends switching", lambda: (s := switching(), EndSwitching(other(s))), "R5.0.1"),
    (
        "move a missing tray",
        lambda: (s := switching(), MoveTray(seat_of(s), 99, (OFFICE, (0, 1)), (0, 0))),
        "RA.0.2",
    ),
    (
        "move from the wrong card",
        lambda: (s := switching(), MoveTray(seat_of(s), 0, ((0, 1), (0, 2)), (0, 0))),
        "RA.0.2",
    ),
    # Game over
    ("Pass after the end", lambda: (game_over(), Pass(0)), "D-end.3"),
    ("draw after the end", lambda: (game_over(), DrawHomeOffice(1)), "D-end.3"),
]


@pytest.mark.parametrize(("name", "build", "rule_id"), TABLE, ids=[row[0] for row in TABLE])
def test_illegal_intent_names_the_rule_and_changes_nothing(
    name: str, build: Callable[[], tuple[GameState, Any]], rule_id: str
) -> None:
    """R5.0.1 and the rule of each row: IllegalIntent(rule_id); snapshot and hash unchanged."""
    state, intent = build()
    if not isinstance(intent, str | type(None)):
        assert intent not in state.legal_intents()
    error = expect_illegal(state, intent, rule_id)
    assert str(error).startswith(f"[{rule_id}] ")
    assert error.message


# --------------------------------------------------------------------------- the property


CELLS = [(0, 0), (0, 1), (0, -1), (1, 0), (1, 1), (-1, 0), (2, -1)]
CARS = range(-1, N_CAR_CODES + 1)
FACILITIES = ["freight-house", "mine-tipple", "packing-sheds", "grocers-warehouse", "refinery", "power-plant"]


def candidate_pool(state: GameState, legal: list[Intent]) -> list[Any]:
    """All intent classes x the deciding seat x small field ranges x every card index, plus
    every legal intent offered by another seat."""
    seat = state.current_player()
    n = state.n
    pool: list[Any] = []
    seats = [seat] if seat >= 0 else list(range(n))
    cards = range(-1, len(CAT.cards) + 1)
    station_cards = sorted(
        {c for c in (state.hands[seat] if seat >= 0 else []) if CAT.cards[c].kind
         in (CardKind.TRACK, CardKind.FACILITY, CardKind.MODIFIER, CardKind.TRAIN)}
        | {cid("straight"), cid("waiting-room")}
    )  # fmt: skip
    for s in seats:
        pool += [Pass(s), ChooseSwitch(s), EndSwitching(s), DrawHomeOffice(s), EndTurn(s)]
        pool += [DrawDepartment(s, d) for d in range(-1, 4)]
        pool += [PlayCard(s, c) for c in cards]
        pool += [Discard(s, c, d) for c in cards for d in range(-1, 4)]
        pool += [StockOutbound(s, cell, car) for cell in CELLS for car in CARS]
        pool += [ClearInbound(s, cell, car) for cell in CELLS for car in CARS]
        pool += [Unjam(s, cell, area, car) for cell in CELLS for area in Area for car in CARS]
        grid_cells = [(r, c) for r in range(-3, 4) for c in range(-3, 4)]
        for card in station_cards:
            pool += [PlaceCard(s, card, cell, rot) for cell in grid_cells for rot in (False, True)]
            pool += [
                PlaceModifier(s, card, cell, fac) for cell in grid_cells for fac in ((0, 0), (1, 0), (0, 1))
            ]
        pool += [MoveTray(s, t, (OFFICE, (0, 1)), (0, 0)) for t in range(-1, len(state.trays) + 1)]
        pool += [AddCar(s, car) for car in range(-1, N_CAR_CODES + 1)]
        pool += [EndConsist(s)] + [ChooseDivisionPoint(s, b) for b in (False, True)]
        pool += [Clearance(s, b) for b in (False, True)] + [RedFlag(s, b) for b in (False, True)]
        pool += [Labor(s, cell, spot, car) for cell in CELLS for spot in Spot for car in CARS]
        pool += [make(s, t) for make in (Board, Detrain) for t in range(-1, len(state.trays) + 1)]
        pool += [EndCargo(s)]
        pool += [MoveTray(s, 0, (OFFICE, (0, -1)), (0, 0), 1), MoveTray(s, 0, (OFFICE,), (0,))]
    for intent in legal:
        if isinstance(intent, MoveTray):
            path, drops = intent.path, intent.drops
            for i in range(len(drops)):
                more = drops[:i] + (drops[i] + 1,) + drops[i + 1 :]
                pool.append(dataclasses.replace(intent, drops=more))
            pool.append(dataclasses.replace(intent, push=intent.push + 1))
            pool.append(dataclasses.replace(intent, drops=drops + (0,)))
            if len(path) > 2:
                pool.append(dataclasses.replace(intent, path=path[:-1], drops=drops[:-1]))
            last = path[-1]
            for step in ((0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)):
                nxt = (last[0] + step[0], last[1] + step[1])
                pool.append(dataclasses.replace(intent, path=path + (nxt,), drops=drops + (0,)))
        if isinstance(intent, PlaceCard):
            pool.append(dataclasses.replace(intent, rotated=not intent.rotated))
        for s in range(n):
            if s != seat:
                pool.append(dataclasses.replace(intent, seat=s))
    return pool


def fingerprint(state: GameState) -> tuple[Any, ...]:
    return (state.state_hash(), state.division_total, tuple(state.seat_of_office), len(state.events))


class Picker:
    """Random choices for ``decorate``: from hypothesis data or from a seeded generator."""

    def __init__(self, data: st.DataObject | None = None, seed: int = 0) -> None:
        self.data = data
        self.random = random.Random(seed)

    def one(self, options: list[Any], label: str) -> Any:
        if self.data is not None:
            return self.data.draw(st.sampled_from(options), label=label)
        return self.random.choice(options)

    def integer(self, lo: int, hi: int, label: str) -> int:
        if self.data is not None:
            return self.data.draw(st.integers(lo, hi), label=label)
        return self.random.randint(lo, hi)

    def cars(
        self, state: GameState, codes: list[int], most: int, label: str, reserved: list[int] | None = None
    ) -> list[int]:
        """Up to ``most`` cars of the given codes that the Division Yard still holds (besides
        the ``reserved`` ones, already chosen for something else)."""
        chosen: list[int] = list(reserved or [])
        start = len(chosen)
        for _ in range(self.integer(0, max(most, 0), label)):
            available = [c for c in codes if state.division[c] - chosen.count(c) > 0]
            if not available:
                break
            chosen.append(self.one(available, label))
        return chosen[start:]


PLANS = ["plain", "office", "facility", "tray", "switching", "all", "cargo"]


def decorate(state: GameState, pick: Picker, plan: str) -> None:
    """Give the deciding seat's station a facility with random loads and/or a Crew Tray with
    random cars (and maybe start switching), by hand: situations random play cannot reach."""
    if plan in ("tray", "switching") or (plan != "plain" and pick.one([False, True], "finish turn")):
        while state.phase is Phase.CARD_PLAY:  # finish the turn: the next seat chooses
            seat = state.current_player()
            if len(state.hands[seat]) > 3:
                state.apply(Discard(seat, state.hands[seat][0], 0))
            else:
                state.apply(EndTurn(seat))
    seat = state.current_player()
    if seat < 0 or plan == "plain":
        return
    office = state.office_of_seat[seat]
    station = state.stations[office]
    free_cards = state.home_office + state.salvage + [c for d in state.departments for c in d]
    if plan in ("office", "all", "cargo"):
        current = CAT.cards[station.grid[OFFICE][0]].office
        assert current is not None
        options = [
            c
            for c in ("depot", "station", "terminal")
            if cid(c) in free_cards and CAT.card(c).office.tier > current.tier  # type: ignore[union-attr]
        ]
        if options:
            card = pick.one(options, "office")
            spec = CAT.card(card).facility
            assert spec is not None
            boxes = station.boxes.get(OFFICE)
            used_out = len(boxes.outbound) if boxes else 0
            used_in = len(boxes.inbound) if boxes else 0
            if spec.shared_capacity is not None:
                outbound = pick.cars(state, [LOADED_COACH], spec.shared_capacity - used_out - used_in, "out")
                room_in = spec.shared_capacity - used_out - used_in - len(outbound)
            else:
                outbound = pick.cars(state, [LOADED_COACH], spec.outbound_capacity - used_out, "out")
                room_in = spec.inbound_capacity - used_in
            inbound = pick.cars(state, [EMPTY_COACH, LOADED_COACH], room_in, "in", outbound)
            set_office(state, seat, card, outbound=outbound, inbound=inbound)
    if plan in ("facility", "all", "cargo") and (1, 0) not in station.grid:
        options = [c for c in FACILITIES if cid(c) in free_cards]
        if options:
            card = pick.one(options, "facility")
            spec = CAT.card(card).facility
            assert spec is not None
            out_codes = [car_code(t, True) for t in spec.outbound]
            in_codes = [car_code(t, loaded) for t in spec.inbound for loaded in (True, False)]
            if spec.shared_capacity is not None:
                outbound = pick.cars(state, out_codes, spec.shared_capacity, "facility out")
                inbound = pick.cars(
                    state, in_codes, spec.shared_capacity - len(outbound), "facility in", outbound
                )
            else:
                outbound = pick.cars(state, out_codes, spec.outbound_capacity, "facility out")
                inbound = pick.cars(state, in_codes, spec.inbound_capacity, "facility in", outbound)
            work: list[int] = []
            for _ in range(3):  # loads of a type the facility works, either way (R9.1.7)
                codes = sorted({car_code(t, True) for t in (*spec.outbound, *spec.inbound)})
                used = outbound + inbound + work
                codes = [c for c in codes if state.division[c] - used.count(c) > 0]
                work.append(pick.one([EMPTY, *codes], "work"))
            place_facility(state, seat, (1, 0), card, outbound=outbound, inbound=inbound, work=work)
    spare = free_tray(state)
    if (
        plan in ("tray", "switching", "all", "cargo")
        and spare != EMPTY
        and not any(t.office == office for t in state.trays)
    ):
        tray = put_tray_in_station(state, seat, index=spare)
        cars = pick.cars(state, [2, 3, 4, 5, 11], 3, "consist")
        cut = pick.integer(0, len(cars), "engine position")
        set_consist(state, tray, (*cars[:cut], ENGINE, *cars[cut:]))
        standing = pick.cars(state, [0, 1, 6, 7], 3, "standing")
        if standing:
            stand_cars(state, office, (0, pick.one([-1, 1], "limits side")), standing)
        if plan == "cargo":
            coaches = pick.cars(state, [EMPTY_COACH, LOADED_COACH], 3, "coaches")
            set_consist(
                state,
                tray,
                (ENGINE, *(c | FLIPPED if pick.one([False, True], "flip") else c for c in coaches)),
            )
            if (1, 0) in station.boxes and (1, 0) not in {t.cell for t in state.trays if t.office == office}:
                spec = CAT.cards[station.grid[(1, 0)][0]].facility
                assert spec is not None
                codes = [car_code(t, False) for t in spec.outbound] + [
                    car_code(t, True) for t in spec.inbound
                ]
                stand_cars(state, office, (1, 0), pick.cars(state, codes, 4, "industry track"))
            run_to_cargo(state)
        if state.phase is Phase.LOCAL_OPS and plan == "switching":
            state.apply(ChooseSwitch(seat))
            for _ in range(pick.integer(0, 3, "moves")):
                moves = [i for i in state.legal_intents() if isinstance(i, MoveTray)]
                if not moves or state.phase is not Phase.SWITCHING:
                    break
                state.apply(pick.one(moves, "move"))


def run_to_cargo(state: GameState) -> None:
    """Finish the Stage's Local Operations and train decisions (first legal choice) until a
    Cargo turn starts or the Stage is over."""
    stages = state.stages_played
    while state.phase is not Phase.CARGO and state.stages_played == stages and not state.is_terminal():
        seat = state.current_player()
        if state.phase is Phase.LOCAL_OPS:
            state.apply(Pass(seat))
        elif state.phase is Phase.CARD_PLAY:
            hand = state.hands[seat]
            state.apply(Discard(seat, hand[0], 0) if len(hand) > 3 else EndTurn(seat))
        elif state.phase is Phase.SWITCHING:
            state.apply(EndSwitching(seat))
        else:
            state.apply(state.legal_intents()[0])


def check_exactness(state: GameState) -> None:
    """Every listed intent applies (on a clone) and keeps the invariants; every other
    candidate raises IllegalIntent and leaves the state exactly unchanged."""
    legal = state.legal_intents()
    seat = state.current_player()
    assert len(set(legal)) == len(legal), "no intent is listed twice"
    assert all(intent.seat == seat for intent in legal)
    for intent in legal:
        assert describe(state, intent)
        clone = state.clone()
        clone.apply(intent)
        assert_invariants(clone)
    legal_set = set(legal)
    before = fingerprint(state)
    for candidate in candidate_pool(state, legal):
        if candidate in legal_set:
            continue
        with pytest.raises(IllegalIntent) as info:
            state.apply(candidate)
        if seat < 0:
            assert info.value.rule_id == "D-end.3"
        elif candidate.seat != seat:
            assert info.value.rule_id == "R5.0.1"
        assert fingerprint(state) == before, candidate


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    seed=st.integers(0, 2**32 - 1),
    offices=st.integers(1, 6),
    rules=st.sets(st.sampled_from(HOUSE_RULES)),
    steps=st.integers(0, 150),
    plan=st.sampled_from(PLANS),
    data=st.data(),
)
def test_legal_intents_are_complete_and_exact(
    seed: int, offices: int, rules: set[str], steps: int, plan: str, data: st.DataObject
) -> None:
    """R5.0.1 / R6.0.1: random seeds, configs and play prefixes (decorated with facilities,
    loads and Crew Trays): legal_intents() is complete and exact."""
    state = new_state(offices, seed, days=2, **{rule: True for rule in rules})
    play_random(state, seed, steps=steps if steps < 150 else None)
    decorate(state, Picker(data), plan)
    assert_invariants(state)
    check_exactness(state)


@pytest.mark.parametrize("plan", PLANS)
@pytest.mark.parametrize("seed", [5, 6])
def test_legal_intents_are_exact_in_fixed_situations(plan: str, seed: int) -> None:
    """R5.0.1 / R6.0.1: the same property on a fixed sample of every kind of situation."""
    offices = 1 + seed % 6
    state = new_state(offices, seed, days=2, emergency_toolbox=seed % 2 == 0)
    play_random(state, seed, steps=7 * seed)
    decorate(state, Picker(seed=seed), plan)
    assert_invariants(state)
    check_exactness(state)


def test_the_pool_covers_every_intent_class() -> None:
    state = new_state(2, 3)
    kinds = {type(c) for c in candidate_pool(state, state.legal_intents())}
    from sm_env.core.intents import INTENT_CLASSES

    assert kinds == set(INTENT_CLASSES.values())


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda seat: DrawDepartment(seat, "1"), "department"),  # type: ignore[arg-type]
        (lambda seat: DrawDepartment(seat, None), "department"),  # type: ignore[arg-type]
        (lambda seat: StockOutbound(seat, [0, 0], LOADED_COACH), "cell"),  # type: ignore[arg-type]
        (lambda seat: Unjam(seat, (0, 0), 1, LOADED_COACH), "area"),  # type: ignore[arg-type]
        (lambda seat: MoveTray(seat, 0, ((0, 0),), (0,)), "path"),
        (lambda seat: MoveTray(seat, 0, ((0, 0), (0, 1)), [0, 0]), "drops"),  # type: ignore[arg-type]
        (lambda seat: PlaceCard(seat, 0, (1, 0), 1), "rotated"),  # type: ignore[arg-type]
        (lambda seat: Pass(True), "seat"),
        (lambda seat: Pass(float(seat)), "seat"),  # type: ignore[arg-type]
    ],
)
def test_R5_0_1_malformed_intent_fields_are_refused_by_name(make: Any, field: str) -> None:
    state = new_state(2, 4)
    before = state.state_hash()
    with pytest.raises(IllegalIntent) as err:
        state.apply(make(state.current_player()))
    assert err.value.rule_id == "R5.0.1" and f"{field} must be" in err.value.message
    assert state.state_hash() == before

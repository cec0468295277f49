"""Shared helpers for the rules-core tests.

Tests import the helpers directly (``from conftest import new_state, ...``). The helpers that
edit a state by hand (``set_office``, ``place_facility``, ...) are edits of the core's one
editing API (``sm_env.core.edit``): each keeps every card and car in exactly one place, which
the edit checks on the way out (``check_conservation``), rolling back an edit that does not; a
test that wants a situation the first issue cannot reach by play (a full box, a car on a
MEN|AT|WORK slot, a Crew Tray in a station) builds it with them. Tests build scenarios only
through these builders (``stand_cars``, ``set_consist``, ``fill_boxes``, ``build_station``,
...), never by writing the state's fields, so they do not depend on its inner layout.
"""

from __future__ import annotations

import copy
import functools
import gzip
import json
import re
from bisect import insort
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest

from agents import RandomAgent, seat_seed
from sm_env.core import grid
from sm_env.core import state as state_module
from sm_env.core.cars import ENGINE, N_CAR_CODES, car_type, unflipped
from sm_env.core.catalogue import CardKind, Catalogue, Deck, load_catalogue
from sm_env.core.config import GameConfig, HouseRules, Mode
from sm_env.core.editing import Checker, edit
from sm_env.core.engine import new_game
from sm_env.core.errors import IllegalIntent
from sm_env.core.intents import Cell, DrawHomeOffice, Intent, Pass
from sm_env.core.invariants import check_conservation, check_invariants
from sm_env.core.phases import Phase
from sm_env.core.pieces import Boxes, Station, Tray
from sm_env.core.queries import spec_of
from sm_env.core.replay import Replay, parse_replay
from sm_env.core.revenue import earn
from sm_env.core.rng import Rng
from sm_env.core.state import GameState
from sm_env.core.trains import free_tray

CAT: Catalogue = load_catalogue()
CORPUS = Path(__file__).parent / "data" / "replays.jsonl.gz"  # experiments/devtools/record_corpus.py


@pytest.fixture(autouse=True, scope="session")
def sb3_logs_kept_out_of_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A model without a logger of its own gets an empty folder in /tmp at each ``learn``
    (``SB3_LOGDIR`` moves it): the tests' go under pytest's temporary directory."""
    patch = pytest.MonkeyPatch()
    patch.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3")))
    yield
    patch.undo()


@functools.cache
def corpus_replays() -> tuple[Replay, ...]:
    """The replay corpus, read once for every test module that plays it."""
    with gzip.open(CORPUS, "rt", encoding="utf-8") as lines:
        return tuple(
            parse_replay(json.loads(line), source=f"{CORPUS.name}:{i + 1}") for i, line in enumerate(lines)
        )


HOUSE_RULES: tuple[str, ...] = HouseRules.names()
EMPTY: int = state_module.EMPTY
OFFICE_CELL = (0, 0)


def cid(card_id: str) -> int:
    """Catalogue index of a card type by id."""
    return CAT.by_id[card_id]


def of_kind(kind: CardKind) -> tuple[int, ...]:
    return CAT.of_kind(kind)


# --------------------------------------------------------------------------- scenario edits

_F = TypeVar("_F", bound=Callable[..., Any])


def edited_by_hand(check: Checker | None = check_conservation) -> Callable[[_F], _F]:
    """A helper that builds a situation by hand, as one ``edit`` of its state: the edit drops
    the state's listed legal intents, checks the position with ``check`` on the way out and
    rolls back one that fails. A helper called by another is part of the caller's edit. The
    default check is conservation alone: tests build stations outside the rules' layouts."""

    def decorate(helper: _F) -> _F:
        @functools.wraps(helper)
        def edited(state: GameState, *args: Any, **kwargs: Any) -> Any:
            with edit(state, check):
                return helper(state, *args, **kwargs)

        return cast(_F, edited)

    return decorate


scenario_edit = edited_by_hand()
# Taking a card or cars out to put them elsewhere: only the caller's edit keeps them conserved.
part_of_an_edit = edited_by_hand(None)


# --------------------------------------------------------------------------- games


def make_config(
    offices: int = 2,
    days: int = 1,
    target: int | None = None,
    mode: Mode | str = Mode.COMPETITIVE,
    **house_rules: bool,
) -> GameConfig:
    return GameConfig(
        offices=offices,
        days=days,
        target_revenue=target,
        mode=Mode(mode),
        house_rules=HouseRules(**house_rules),
    )


def new_state(
    offices: int = 2,
    seed: int = 1,
    days: int = 1,
    target: int | None = None,
    mode: Mode | str = Mode.COMPETITIVE,
    **house_rules: bool,
) -> GameState:
    """A fresh game; house rules by keyword, e.g. ``new_state(3, 7, sister_trains=True)``."""
    return new_game(make_config(offices, days, target, mode, **house_rules), seed)


def bots(seed: int, n: int) -> list[RandomAgent]:
    return [RandomAgent(seat_seed(seed, seat)) for seat in range(n)]


def play_random(state: GameState, seed: int, steps: int | None = None, check: bool = False) -> list[Intent]:
    """Random bots (seeded from ``seed`` as the demo does) decide up to ``steps`` times or to
    the end; with ``check`` the invariants are asserted after every decision."""
    agents = bots(seed, state.n)
    decisions: list[Intent] = []
    while not state.is_terminal() and (steps is None or len(decisions) < steps):
        seat = state.current_player()
        intent = agents[seat].choose(state.view(seat))
        state.apply(intent)
        decisions.append(intent)
        if check:
            assert_invariants(state)
    return decisions


def pass_turns(state: GameState, count: int) -> None:
    """The deciding seats pass ``count`` Local Operations turns (hands must be within 3)."""
    for _ in range(count):
        assert state.phase is Phase.LOCAL_OPS, state.phase
        state.apply(Pass(state.current_player()))


def finish_stage(state: GameState) -> None:
    """Everyone still to act in this Stage passes; train decisions take the first legal one."""
    stages = state.stages_played
    while state.stages_played == stages and not state.is_terminal():
        seat = state.current_player()
        state.apply(Pass(seat) if state.phase is Phase.LOCAL_OPS else state.legal_intents()[0])


def pass_local_ops(state: GameState) -> None:
    """Every seat still to act in this Stage's Local Operations passes: the New Train and
    Mainline phases run until their first decision, or the next Stage begins."""
    stages = state.stages_played
    while state.phase is Phase.LOCAL_OPS and state.stages_played == stages:
        state.apply(Pass(state.current_player()))


@scenario_edit
def set_revenue(state: GameState, revenue: list[int]) -> None:
    """Give the seats these revenues by hand, as ledger entries (R2.4.7)."""
    for seat, amount in enumerate(revenue):
        change = amount - state.revenue_by_seat[seat]
        if change:
            earn(state, seat, change, "R2.4.7", "set by hand")


def pass_to_stage(state: GameState, stage: int) -> None:
    """Pass until the first turn of ``stage`` (0..11) of the current day."""
    while state.stage != stage:
        finish_stage(state)
    assert state.turn == 0


# --------------------------------------------------------------------------- conservation


def car_counts(state: GameState) -> list[int]:
    """Cars per code over the Division Yard, Classification Yard, trays' consists, cars
    standing in stations and facility boxes (C-stock.1)."""
    counts = [0] * N_CAR_CODES
    for code in range(N_CAR_CODES):
        counts[code] += state.division[code] + state.classification[code]
    for tray in state.trays:
        for code in tray.consist:
            if code >= 0:  # the engine is not rolling stock (C-stock.3)
                counts[unflipped(code)] += 1
    for station in state.stations:
        for cars in station.cars.values():
            for code in cars:
                counts[unflipped(code)] += 1
        for boxes in station.boxes.values():
            for code in boxes.cars():
                counts[code] += 1
    return counts


def card_counts(state: GameState) -> Counter[int]:
    """Card copies per type over every place a card can be."""
    counts: Counter[int] = Counter()
    for hand in state.hands:
        counts.update(hand)
    counts.update(state.home_office)
    for dept in state.departments:
        counts.update(dept)
    counts.update(state.salvage)
    counts.update(state.set_aside)
    for station in state.stations:
        counts.update(card for card, _rotated in station.grid.values())
    counts.update(card for card in state.timetable if card != EMPTY)
    counts.update(card for card, _seat in state.pending_extras)
    counts.update(
        t.train for t in state.trays if t.train != EMPTY and state.catalogue.cards[t.train].train.extra
    )
    counts.update(state.mainline)
    return counts


def expected_card_counts(cat: Catalogue = CAT) -> Counter[int]:
    return Counter({card.index: card.count for card in cat.cards if card.count})


def assert_conserved(state: GameState) -> None:
    """Every car (C-stock.1) and every card in exactly one place, the yards' bookkeeping
    consistent: the part of ``assert_invariants`` that any hand-built situation keeps."""
    problems = check_conservation(state)
    assert not problems, "\n".join(problems)


def assert_invariants(state: GameState) -> None:
    """Everything that must hold between any two decisions (``check_invariants``), the legal
    intents too: a deciding seat has a choice."""
    problems = check_invariants(state, choices=True)
    assert not problems, "\n".join(problems)


def hide_differently(state: GameState, seat: int, rng: Rng) -> GameState:
    """The same game but for what ``seat`` cannot see (D-view.1): the other hands and the Home
    Office dealt again from the same cards, and another random stream."""
    other = state.clone()
    with edit(other):
        pool = [card for s, hand in enumerate(other.hands) if s != seat for card in hand] + other.home_office
        rng.shuffle(pool)
        for s, hand in enumerate(other.hands):
            if s != seat:
                other.hands[s] = sorted(pool.pop() for _ in hand)
        other.home_office = pool
        other.rng = Rng(rng.next_u32())
    return other


def frozen(state: GameState) -> tuple[Any, ...]:
    """Everything an illegal intent must leave alone, detached from the live state."""
    return (
        copy.deepcopy(state.snapshot()),
        state.state_hash(),
        state.division_total,
        tuple(state.seat_of_office),
        len(state.events),
    )


def snapshot_json(state: GameState) -> str:
    return json.dumps(state.snapshot(), sort_keys=True)


def expect_illegal(state: GameState, intent: Any, rule_id: str, match: str | None = None) -> IllegalIntent:
    """``intent`` raises IllegalIntent(rule_id) and leaves the state exactly as it was."""
    before = frozen(state)
    with pytest.raises(IllegalIntent) as info:
        state.apply(intent)
    assert info.value.rule_id == rule_id, str(info.value)
    if match is not None:
        assert re.search(match, info.value.message), info.value.message
    assert frozen(state) == before
    return info.value


# --------------------------------------------------------------------------- hand edits


@part_of_an_edit
def move_card(state: GameState, card: int, *, from_set_aside: bool = False) -> None:
    """Remove one copy of ``card`` from a deck, a Department, the Salvage Yard or a hand
    (or the set-aside cards), so the caller can put it somewhere else."""
    if card in state.home_office:
        state.home_office.remove(card)
        return
    for dept in state.departments:
        if card in dept:
            dept.remove(card)
            return
    if card in state.salvage:
        state.salvage.remove(card)
        return
    for hand in state.hands:
        if card in hand:
            hand.remove(card)
            return
    if from_set_aside and card in state.set_aside:
        state.set_aside.remove(card)
        return
    raise AssertionError(f"no free copy of {CAT.cards[card].id} to move")


@scenario_edit
def put_on_top_of_home_office(state: GameState, card: int) -> None:
    move_card(state, card)
    state.home_office.append(card)


@scenario_edit
def give_card(state: GameState, seat: int, card: int) -> None:
    """One copy of ``card`` into ``seat``'s hand."""
    move_card(state, card)
    insort(state.hands[seat], card)


@scenario_edit
def set_hand(state: GameState, seat: int, cards: Iterable[int]) -> None:
    """Replace ``seat``'s hand: its cards go to the bottom of the Home Office."""
    old = state.hands[seat]
    state.hands[seat] = []
    state.home_office[:0] = old
    for card in cards:
        give_card(state, seat, card)


def draw_card(state: GameState, card: int) -> int:
    """The deciding seat draws ``card`` off the Home Office (R6.2.1); returns the seat."""
    assert state.phase is Phase.LOCAL_OPS
    seat = state.current_player()
    put_on_top_of_home_office(state, card)
    state.apply(DrawHomeOffice(seat))
    assert state.phase is Phase.CARD_PLAY
    return seat


@scenario_edit
def give_red_flag(state: GameState, seat: int) -> None:
    """A RED FLAG in place of the seat's first card (which goes under the Home Office)."""
    state.home_office.insert(0, state.hands[seat].pop(0))
    card = cid("red-flag")
    move_card(state, card, from_set_aside=True)
    insort(state.hands[seat], card)


@scenario_edit
def occupy_slots(state: GameState, slots: Iterable[int], exclude: Iterable[int] = ()) -> None:
    """Put timetabled trains (not in ``exclude``) on the given timetable slots."""
    skip = set(exclude) | {card for card in state.timetable if card != EMPTY}
    free = [card for card in of_kind(CardKind.TRAIN) if card not in skip]
    for slot in slots:
        assert state.timetable[slot] == EMPTY
        card = free.pop()
        move_card(state, card, from_set_aside=True)
        state.timetable[slot] = card


# --------------------------------------------------------------------------- cars and facilities


@part_of_an_edit
def take_cars(state: GameState, codes: Iterable[int]) -> list[int]:
    """Take cars out of the Division Yard by hand (no C-yards.2 refill)."""
    taken = list(codes)
    for code in taken:
        assert state.division[code] > 0, f"no car {code} in the Division Yard"
        state.division[code] -= 1
        state.division_total -= 1
    return taken


@scenario_edit
def move_division_to_classification(state: GameState, code: int, keep: int = 0) -> None:
    """Move cars of ``code`` from the Division Yard to the Classification Yard, leaving ``keep``."""
    moved = state.division[code] - keep
    assert moved >= 0
    state.division[code] = keep
    state.division_total -= moved
    state.classification[code] += moved


def _fill(
    boxes: Boxes, state: GameState, card: int, outbound: Iterable[int], inbound: Iterable[int], work: Any
) -> None:
    """Cars from the Division Yard into the boxes; a load on MEN|AT|WORK heads for a car if
    the facility loads its type, else for the red box."""
    boxes.outbound.extend(take_cars(state, outbound))
    boxes.inbound.extend(take_cars(state, inbound))
    if work is not None:
        work = list(work)
        assert len(work) == 3
        assert all(code == EMPTY for code in boxes.work), "the MEN|AT|WORK slots already hold loads"
        take_cars(state, [code for code in work if code != EMPTY])
        boxes.work = work
        spec = CAT.cards[card].facility
        assert spec is not None
        boxes.unloading = [code != EMPTY and car_type(code) not in spec.outbound for code in work]


@scenario_edit
def set_office(
    state: GameState,
    seat: int,
    card_id: str,
    outbound: Iterable[int] = (),
    inbound: Iterable[int] = (),
    work: Iterable[int] | None = None,
) -> Boxes:
    """Upgrade ``seat``'s office to ``card_id`` by hand, as D-play.3 does, and put cars
    (taken from the Division Yard) in its boxes. Returns the boxes."""
    station = state.stations[state.office_of_seat[seat]]
    card = cid(card_id)
    move_card(state, card)
    old = station.grid[OFFICE_CELL][0]
    station.grid[OFFICE_CELL] = (card, False)
    if CAT.cards[old].deck is Deck.SETUP:
        insort(state.set_aside, old)
    else:
        state.salvage.append(old)
    boxes = station.boxes.setdefault(OFFICE_CELL, Boxes())
    _fill(boxes, state, card, outbound, inbound, work)
    return boxes


@scenario_edit
def place_facility(
    state: GameState,
    seat: int,
    cell: tuple[int, int],
    card_id: str,
    outbound: Iterable[int] = (),
    inbound: Iterable[int] = (),
    work: Iterable[int] | None = None,
) -> Boxes:
    """Put a freight facility card on a free cell of ``seat``'s station by hand."""
    station = state.stations[state.office_of_seat[seat]]
    assert cell not in station.grid
    card = cid(card_id)
    move_card(state, card)
    station.grid[cell] = (card, False)
    boxes = station.boxes[cell] = Boxes()
    _fill(boxes, state, card, outbound, inbound, work)
    return boxes


@scenario_edit
def schedule_by_hand(state: GameState, card: int, slot: int | None = None) -> int:
    """Put timetabled train ``card`` on the turn chart (at ``slot`` or the last free one, so it
    is not due soon) if it is not there yet; returns its slot."""
    if card in state.timetable:
        return state.timetable.index(card)
    if slot is None:
        slot = max(s for s, c in enumerate(state.timetable) if c == EMPTY)
    assert state.timetable[slot] == EMPTY
    move_card(state, card, from_set_aside=True)
    state.timetable[slot] = card
    return slot


@scenario_edit
def hold_by_hand(state: GameState, card: int, slot: int | None = None) -> int:
    """Timetabled train ``card`` due earlier but held for want of a Crew Tray (R7.1): on the turn
    chart (``schedule_by_hand``) and among the held trains, by number; returns its slot."""
    assert card not in state.held and all(t.train != card for t in state.trays)
    slot = schedule_by_hand(state, card, slot)
    state.held.append(card)
    state.held.sort(key=lambda held: spec_of(CAT, held).number)
    return slot


@scenario_edit
def make_train(state: GameState, index: int, train_id: str | None = None, direction: int = 1) -> Tray:
    """Turn free tray ``index`` into a train, a bare engine placed nowhere yet (the caller
    sets where it stands): timetabled train ``train_id`` (by default the first not running),
    put on the chart if needed; or an Extra running in ``direction``, its card taken from
    wherever it lies."""
    tray = state.trays[index]
    assert tray.train == EMPTY
    if train_id is None:  # one no seat holds, so hands stay as they are
        busy = {t.train for t in state.trays} | set(state.held) | {c for hand in state.hands for c in hand}
        card = next(c for c in of_kind(CardKind.TRAIN) if c not in busy)
    else:
        card = cid(train_id)
    spec = CAT.cards[card].train
    assert spec is not None
    if spec.extra:
        move_card(state, card)
    else:
        schedule_by_hand(state, card)
        direction = 1 if spec.direction == "east" else -1
    tray.train = card
    tray.direction = tray.facing = direction
    tray.consist = (ENGINE,)
    tray.cleared_by = state.fedora
    return tray


@scenario_edit
def lay_by_hand(
    state: GameState, office: int, cell: tuple[int, int], card_id: str, rotated: bool = False
) -> None:
    """Put a track card from the decks on a free cell of ``office``'s station, by hand; laid on
    a Limits card of the Running Track it takes that cell and the Limits move outward (D-grid.7)."""
    station = state.stations[office]
    if cell[0] == 0 and cell in station.grid:
        limits = station.grid[cell]
        assert CAT.cards[limits[0]].kind is CardKind.LIMITS, f"{cell} holds no Limits card"
        assert not station.cars.get(cell) and not any(
            t.office == office and t.cell == cell for t in state.trays
        )
        outward = (0, cell[1] + (1 if cell[1] > 0 else -1))
        assert outward not in station.grid
        station.grid[outward] = station.grid.pop(cell)
    assert cell not in station.grid
    card = cid(card_id)
    move_card(state, card)
    station.grid[cell] = (card, rotated)


def lay_siding(state: GameState, office: int) -> None:
    """A siding one Move from the Office: a right-hand turnout on the west Limits cell (the
    Limits move outward) and a junction at (1, 0)."""
    lay_by_hand(state, office, (0, -1), "turnout-right")
    lay_by_hand(state, office, (1, 0), "junction")


@scenario_edit
def put_train_on_line(
    state: GameState,
    line: int,
    region: int,
    train_id: str | None = None,
    direction: int = 1,
    cleared_by: int | None = None,
) -> Tray:
    """A train (``make_train`` on the first free tray) on ``region`` of Mainline card ``line``,
    cleared by seat ``cleared_by`` at its highball (by default the Superintendent now, R10.1)."""
    tray = make_train(state, free_tray(state), train_id, direction)
    tray.line, tray.region = line, region
    if cleared_by is not None:
        assert 0 <= cleared_by < state.n
        tray.cleared_by = cleared_by
    return tray


@scenario_edit
def put_train_at_dp(state: GameState, train_id: str | None = None, direction: int = 1) -> Tray:
    """A train (``make_train`` on the first free tray) waiting at its origin Division Point."""
    tray = make_train(state, free_tray(state), train_id, direction)
    tray.at_dp = True
    return tray


@scenario_edit
def put_train_at_office(state: GameState, office: int, train_id: str | None = None) -> Tray:
    """A train (a bare engine, ``make_train``) on an A/D track of ``office``."""
    return put_tray_in_station(state, state.seat_of_office[office], OFFICE_CELL, train_id=train_id)


def mainline_regions(state: GameState, line: int) -> int:
    return CAT.cards[state.mainline[line]].regions


@scenario_edit
def set_mainline_regions(state: GameState, line: int, regions: int) -> int:
    """Mainline card ``line`` swapped, by hand, for a set-aside Mainline card of ``regions``
    regions (D-mainline.1: 1 or 2), or for the card of that length on another line (the two
    swap places), so a test does not depend on the seed's deal (R4.2). Returns the card."""
    current = state.mainline[line]
    if CAT.cards[current].regions == regions:
        return current
    aside = [c for c in state.set_aside if CAT.cards[c].kind is CardKind.MAINLINE]
    card = next((c for c in aside if CAT.cards[c].regions == regions), EMPTY)
    chain = list(state.mainline)
    if card != EMPTY:
        state.set_aside.remove(card)
        insort(state.set_aside, current)
    else:
        other = next(i for i, c in enumerate(chain) if CAT.cards[c].regions == regions)
        card = chain[other]
        chain[other] = current
    chain[line] = card
    state.mainline = tuple(chain)
    return card


@scenario_edit
def put_tray_in_station(
    state: GameState,
    seat: int,
    cell: tuple[int, int] = OFFICE_CELL,
    index: int | None = None,
    train_id: str | None = None,
) -> Tray:
    """Stand free tray ``index`` (by default the first free one) as a train (a bare engine,
    ``make_train``) on ``cell`` of ``seat``'s station."""
    tray = make_train(state, free_tray(state) if index is None else index, train_id)
    tray.office = state.office_of_seat[seat]
    tray.cell = cell
    tray.split = 0
    return tray


def _return_cars(state: GameState, codes: Iterable[int]) -> None:
    """Cars (not the engine) back to the Division Yard, right side up: ``take_cars`` undone."""
    for code in codes:
        if code != ENGINE:
            state.division[unflipped(code)] += 1
            state.division_total += 1


@scenario_edit
def stand_cars(state: GameState, office: int, cell: Cell, codes: Iterable[int]) -> tuple[int, ...]:
    """Cars from the Division Yard standing on ``cell`` of ``office``'s station, west to east, in
    place of any there (those go back to the Division Yard); a ``FLIPPED`` code stands flipped,
    as if loaded on this visit (D-grid.8, R9.3.4). No codes: nothing stands there."""
    station = state.stations[office]
    assert cell in station.grid, f"no card at {cell} for cars to stand on"
    cars = tuple(codes)
    assert ENGINE not in cars
    _return_cars(state, station.cars.pop(cell, ()))
    take_cars(state, [unflipped(code) for code in cars])
    if cars:
        station.cars[cell] = cars
    assert all(t.split <= len(cars) for t in state.trays if t.office == office and t.cell == cell)
    return cars


@scenario_edit
def set_consist(
    state: GameState,
    tray: Tray,
    codes_with_engine: Iterable[int],
    *,
    split: int | None = None,
    facing: int | None = None,
) -> Tray:
    """A train's consist, west to east, from Division-Yard cars (``ENGINE`` marks the engine, a
    ``FLIPPED`` code rides flipped; R2.2.3, C-trays.3, R9.3.4); its old cars go back to the
    Division Yard. ``split``: how many of the cars standing on its card are west of it
    (D-grid.11); ``facing``: +1 if the engine faces east, -1 west."""
    assert tray.train != EMPTY, "a free tray has no consist: make_train first"
    consist = tuple(codes_with_engine)
    assert consist.count(ENGINE) == 1, consist
    _return_cars(state, tray.consist)
    tray.consist = ()
    take_cars(state, [unflipped(code) for code in consist if code != ENGINE])
    tray.consist = consist
    if split is not None:
        assert tray.cell is not None, "only a train in a station shares its card with cars"
        assert 0 <= split <= len(state.stations[tray.office].cars.get(tray.cell, ()))
        tray.split = split
    if facing is not None:
        assert facing in (1, -1)
        tray.facing = facing
    return tray


@scenario_edit
def fill_boxes(
    state: GameState,
    office: int,
    cell: Cell,
    outbound: Iterable[int] = (),
    inbound: Iterable[int] = (),
    work: Iterable[int] | None = None,
) -> Boxes:
    """Cars from the Division Yard added to the green and red boxes of the facility at ``cell``
    of ``office``'s station and, with ``work``, on its empty MEN|AT|WORK slots (EMPTY for no
    load) (R2.5.4, R2.5.5, R9.1.7). Returns the boxes."""
    station = state.stations[office]
    boxes = station.boxes[cell]
    _fill(boxes, state, station.grid[cell][0], outbound, inbound, work)
    return boxes


@scenario_edit
def place_modifier(state: GameState, office: int, cell: Cell, card_id: str, facility: Cell) -> None:
    """A Modifier card from the decks on a free cell of ``office``'s station, serving the
    facility at ``facility`` (R9.0.3), by hand."""
    assert CAT.card(card_id).kind is CardKind.MODIFIER, f"{card_id} is not a Modifier"
    assert facility in state.stations[office].boxes, f"no facility at {facility}"
    lay_by_hand(state, office, cell, card_id)
    state.stations[office].modifiers[cell] = facility


@scenario_edit
def build_station(state: GameState, office: int, cards: Mapping[Cell, tuple[str, bool]]) -> Station:
    """``office``'s station laid out exactly as ``cards`` (cell -> (card id, rotated), D-grid.1),
    whatever the placement rules say: the cards come from the decks (or the set-aside cards),
    the ones they replace go back (setup cards set aside, R4.1; the rest under the Home Office),
    and every facility card (an office above a Whistle Post too) gets empty boxes (D-grid.6).
    Nothing may stand in the station yet. Returns the station."""
    station = state.stations[office]
    assert not station.cars and not any(boxes.cars() for boxes in station.boxes.values())
    assert not any(t.office == office for t in state.trays), "move the trains out first"
    for card, _rotated in station.grid.values():
        if CAT.cards[card].deck is Deck.SETUP:
            insort(state.set_aside, card)
        else:
            state.home_office.insert(0, card)
    station.grid.clear()
    station.boxes.clear()
    station.modifiers.clear()
    for cell, (card_id, rotated) in cards.items():
        card = cid(card_id)
        assert CAT.cards[card].kind is not CardKind.MODIFIER, "a Modifier goes in with place_modifier"
        move_card(state, card, from_set_aside=True)
        station.grid[cell] = (card, rotated)
        if CAT.cards[card].facility is not None:
            station.boxes[cell] = Boxes()
    return station


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def cat() -> Catalogue:
    return CAT


@pytest.fixture
def state() -> GameState:
    """A fresh two-office game, seed 1."""
    return new_state()


def brute_force_placements(state: GameState, seat: int, card: int) -> set[tuple[tuple[int, int], bool]]:
    """Every (cell, rotated) in and around the station window that placement_problem allows."""
    rows = range(-grid.ROW_LIMIT - 1, grid.ROW_LIMIT + 2)
    cols = range(-grid.COL_LIMIT - 1, grid.COL_LIMIT + 2)
    return {
        ((r, c), rot)
        for r in rows
        for c in cols
        for rot in (False, True)
        if grid.placement_problem(state, seat, card, (r, c), rot) is None
    }


@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """Torch on one thread for the test: on a busy machine its spinning worker threads make a
    short training run many times slower."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)

"""The card-play step of a draw (R6.2.2-R6.2.4, D-play): playing trains, Extras and office
upgrades, laying track, facility and Modifier cards, discarding down to the hand limit;
a timetabled train's D12 roll for its slot (R7.2) and its Sister train (RB.2)."""

from __future__ import annotations

from bisect import insort
from typing import TYPE_CHECKING

from sm_env.core.cargo import capacity_bonus, claim_capacity, room
from sm_env.core.catalogue import CardKind, Deck
from sm_env.core.chance import roll_d12
from sm_env.core.errors import IllegalIntent
from sm_env.core.grid import (
    legal_modifier_placements,
    modifier_problem,
    place,
    placement_problem,
    placements_by_card,
)
from sm_env.core.intents import Discard, EndTurn, Intent, PlaceCard, PlaceModifier, PlayCard
from sm_env.core.phases import Due, Next, Phase, Step
from sm_env.core.pieces import EMPTY, OFFICE_CELL, Boxes
from sm_env.core.state import DEPARTMENTS, STAGES_PER_DAY
from sm_env.core.text import card_name

if TYPE_CHECKING:
    from sm_env.core.state import GameState

HAND_LIMIT = 3  # R6.2.4
CARD_PLAY = Due(Phase.CARD_PLAY, EMPTY)
_LAID_KINDS = frozenset({CardKind.TRACK, CardKind.FACILITY})  # laid with PlaceCard (D-grid.6)


def legal_card_play(state: GameState) -> list[Intent]:
    seat = state.current_player()
    cards = state.catalogue.cards
    hand = state.hands[seat]
    distinct = sorted(set(hand))
    out: list[Intent] = []
    laid = [card for card in distinct if cards[card].kind in _LAID_KINDS]
    placements = placements_by_card(state, seat, laid) if laid else {}
    for card in distinct:
        kind = cards[card].kind
        if kind in _LAID_KINDS:
            out.extend(PlaceCard(seat, card, cell, rot) for cell, rot in placements[card])
        elif kind is CardKind.MODIFIER:
            out.extend(
                PlaceModifier(seat, card, cell, facility)
                for cell, facility in legal_modifier_placements(state, seat, card)
            )
        elif play_problem(state, seat, card) is None:
            out.append(PlayCard(seat, card))
    out.extend(Discard(seat, card, d) for card in distinct for d in range(DEPARTMENTS))
    if len(hand) <= HAND_LIMIT:
        out.append(EndTurn(seat))
    return out


def play_problem(state: GameState, seat: int, card: int) -> tuple[str, str] | None:
    """Why the seat cannot play this card from its hand now, as (rule id, message); None if
    it can."""
    cards = state.catalogue.cards
    spec = cards[card]
    kind = spec.kind
    if kind is CardKind.TRAIN or kind is CardKind.EXTRA_TRAIN:
        return None
    if kind is CardKind.OFFICE:
        assert spec.office is not None
        station = state.stations[state.office_of_seat[seat]]
        current = cards[station.grid[OFFICE_CELL][0]]
        assert current.office is not None
        if spec.office.tier <= current.office.tier:
            return ("D-play.3", f"{spec.name} does not upgrade a {current.name}")
        boxes = station.boxes.get(OFFICE_CELL)
        bonus = capacity_bonus(state, station, OFFICE_CELL)
        if (
            boxes
            and spec.facility
            and (room(spec.facility, boxes, True, bonus) < 0 or room(spec.facility, boxes, False, bonus) < 0)
        ):
            return ("D-play.3", f"the cars in the {current.name}'s boxes would not fit on a {spec.name}")
        return None
    if kind is CardKind.RED_FLAG:
        return ("D-redflag.1", "a RED FLAG is played only to avert a collision in the Mainline Phase")
    return ("D-play.4", f"{spec.name} is laid on the station grid with PlaceCard or PlaceModifier")


def _check_holds(state: GameState, seat: int, card: int, rule: str) -> None:
    if card not in state.hands[seat]:
        raise IllegalIntent(rule, f"seat {seat} holds no {card_name(state.catalogue, card)}")


def apply_play_card(state: GameState, intent: PlayCard) -> Next:
    seat, card = intent.seat, intent.card
    _check_holds(state, seat, card, "R6.2.2")
    problem = play_problem(state, seat, card)
    if problem is not None:
        raise IllegalIntent(*problem)
    state.hands[seat].remove(card)
    spec = state.catalogue.cards[card]
    if spec.kind is CardKind.TRAIN:
        schedule(state, card, seat)
        if state.config.house_rules.sister_trains and spec.train and spec.train.number % 2 == 1:
            _bring_in_sister(state, spec.train.number + 1, seat)
    elif spec.kind is CardKind.EXTRA_TRAIN:
        state.pending_extras.append((card, seat))
        state.log("play-extra", seat, card=card)
    else:
        _upgrade_office(state, seat, card)
    return CARD_PLAY


def schedule(state: GameState, card: int, seat: int) -> None:
    """R7.2: roll the D12 for the number board; if taken, work down the column, wrapping."""
    roll = roll_d12(state)
    slot = roll - 1
    while state.timetable[slot] != EMPTY:
        slot = (slot + 1) % STAGES_PER_DAY
    state.timetable[slot] = card
    state.log("play-train", seat, card=card, roll=roll, slot=slot)


def _bring_in_sister(state: GameState, number: int, seat: int) -> None:
    """RB.2: the even companion comes in with its odd train."""
    sister = state.catalogue.train_by_number.get(number)
    if sister is not None and sister in state.set_aside:
        state.set_aside.remove(sister)
        schedule(state, sister, seat)


def _upgrade_office(state: GameState, seat: int, card: int) -> None:
    """D-play.3: a higher-tier office card replaces the office; its boxes carry over."""
    station = state.stations[state.office_of_seat[seat]]
    old = station.grid[OFFICE_CELL][0]
    station.grid[OFFICE_CELL] = (card, False)
    if state.catalogue.cards[old].deck is Deck.SETUP:
        insort(state.set_aside, old)
    else:
        state.salvage.append(old)
    station.boxes.setdefault(OFFICE_CELL, Boxes())
    claim_capacity(state, station, OFFICE_CELL)  # R9.0.3: the boxes may now need a Modifier
    state.log("upgrade", seat, old=old, card=card)


def apply_place_card(state: GameState, intent: PlaceCard) -> Next:
    seat, card = intent.seat, intent.card
    _check_holds(state, seat, card, "R6.2.2")
    problem = placement_problem(state, seat, card, intent.cell, intent.rotated)
    if problem is not None:
        raise IllegalIntent(*problem)
    state.hands[seat].remove(card)
    place(state, card, intent.cell, intent.rotated, state.office_of_seat[seat])
    state.log("place", seat, card=card, cell=intent.cell, rotated=intent.rotated)
    return CARD_PLAY


def apply_place_modifier(state: GameState, intent: PlaceModifier) -> Next:
    seat, card = intent.seat, intent.card
    _check_holds(state, seat, card, "R6.2.2")
    problem = modifier_problem(state, seat, card, intent.cell, intent.facility)
    if problem is not None:
        raise IllegalIntent(*problem)
    state.hands[seat].remove(card)
    station = state.stations[state.office_of_seat[seat]]
    station.grid[intent.cell] = (card, False)
    station.modifiers[intent.cell] = intent.facility
    state.log("place", seat, card=card, cell=intent.cell, facility=intent.facility)
    return CARD_PLAY


def apply_discard(state: GameState, intent: Discard) -> Next:
    seat, card, d = intent.seat, intent.card, intent.department
    _check_holds(state, seat, card, "R6.2.4")
    if not 0 <= d < DEPARTMENTS:
        raise IllegalIntent("R6.2.4", f"there is no Department {d} (they are 0, 1 and 2)")
    state.hands[seat].remove(card)
    state.departments[d].append(card)
    state.log("discard", seat, card=card, department=d)
    return CARD_PLAY


def apply_end_turn(state: GameState, intent: EndTurn) -> Next:
    hand = state.hands[intent.seat]
    if len(hand) > HAND_LIMIT:
        raise IllegalIntent(
            "R6.2.4",
            f"seat {intent.seat} holds {len(hand)} cards; discard or play down to {HAND_LIMIT} first",
        )
    return Step.NEXT_TURN

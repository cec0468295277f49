"""The card-play step of a draw (R6.2.2-R6.2.4, D-play): playing trains, Extras and office
upgrades, laying track, facility and Modifier cards, discarding down to the hand limit;
a timetabled train's D12 roll for its slot (R7.2) and its Sister train (RB.2)."""

from __future__ import annotations

from bisect import insort
from typing import TYPE_CHECKING

from sm_env.core.cargo import claim_capacity
from sm_env.core.catalogue import CardKind, Deck
from sm_env.core.chance import roll_d12
from sm_env.core.config import MAX_OFFICES
from sm_env.core.errors import IllegalIntent
from sm_env.core.grid import (
    Survey,
    geometry_for,
    legal_modifier_placements,
    limits_open,
    modifier_problem,
    place,
    placement_problem,
    survey_of,
)
from sm_env.core.intents import Discard, EndTurn, Intent, PlaceCard, PlaceModifier, PlayCard
from sm_env.core.phases import Due, Next, Phase, Step
from sm_env.core.pieces import EMPTY, OFFICE_CELL, Boxes
from sm_env.core.queries import HAND_LIMIT, capacity_bonus, free_slot, room
from sm_env.core.state import DEPARTMENTS
from sm_env.core.text import card_name

if TYPE_CHECKING:
    from sm_env.core.state import GameState

CARD_PLAY = Due(Phase.CARD_PLAY, EMPTY)
_TRACK, _FACILITY = CardKind.TRACK, CardKind.FACILITY  # laid with PlaceCard (D-grid.6)
_TRAIN, _EXTRA_TRAIN = CardKind.TRAIN, CardKind.EXTRA_TRAIN


def legal_card_play(state: GameState) -> list[Intent]:
    seat = (state.fedora + state.turn) % state.n  # a seat-by-seat phase (R5.0.1)
    hand = state.hands[seat]
    distinct = sorted(set(hand))
    out: list[Intent] = []
    geo = geometry_for(state.catalogue)
    kinds = geo.kind
    survey: Survey | None = None
    west = east = False
    west_col = east_col = 0
    for card in distinct:
        kind = kinds[card]
        if kind is _TRACK or kind is _FACILITY:
            if survey is None:
                office = state.office_of_seat[seat]
                survey = survey_of(geo, state.stations[office])
                west_col, east_col = survey.limits()
                west = limits_open(state, office, west_col)
                east = limits_open(state, office, east_col)
            turns = geo.turns[card]
            if turns:  # into the Running Track at the open Limits (D-grid.7)
                if west:
                    out += [PlaceCard(seat, card, (0, west_col), rot) for rot in turns]
                if east:
                    out += [PlaceCard(seat, card, (0, east_col), rot) for rot in turns]
            out += [PlaceCard(seat, card, cell, rot) for cell, rot in survey.options(card)]
        elif kind is CardKind.MODIFIER:
            out += [
                PlaceModifier(seat, card, cell, facility)
                for cell, facility in legal_modifier_placements(state, seat, card)
            ]
        elif kind is _TRAIN or kind is _EXTRA_TRAIN:
            key = card * MAX_OFFICES + seat
            play = _PLAY.get(key)
            if play is None:
                play = _PLAY[key] = PlayCard(seat, card)
            out.append(play)
        elif kind is CardKind.OFFICE and play_problem(state, seat, card) is None:
            out.append(PlayCard(seat, card))
    for card in distinct:
        key = card * MAX_OFFICES + seat
        discards = _DISCARDS.get(key)
        if discards is None:
            discards = _DISCARDS[key] = tuple(Discard(seat, card, d) for d in range(DEPARTMENTS))
        out += discards
    if len(hand) <= HAND_LIMIT:
        out.append(_END_TURN[seat])
    return out


def relist_card_play(state: GameState, before: list[Intent], intent: Intent) -> list[Intent] | None:
    """The card-play choices after a discard or a played train or Extra, from those before it:
    the rest of the station and the table are as they were, so only the card's own choices go
    (when it was the last copy in the hand) and ending the turn may become legal (R6.2.4).
    Anything else is listed afresh."""
    if type(intent) is PlayCard:
        if geometry_for(state.catalogue).kind[intent.card] not in (_TRAIN, _EXTRA_TRAIN):
            return None
    elif type(intent) is not Discard:
        return None
    card = intent.card
    seat = intent.seat
    hand = state.hands[seat]
    if card in hand:
        out = before[:]
    else:
        out = [listed for listed in before if getattr(listed, "card", EMPTY) != card]
    # By type, not identity: a copied state's cached list holds copies of the shared intents.
    if len(hand) <= HAND_LIMIT and (not out or type(out[-1]) is not EndTurn):
        out.append(_END_TURN[seat])
    return out


# The card-play intents are values: one shared copy of each, made when first listed.
_PLAY: dict[int, PlayCard] = {}  # card * MAX_OFFICES + seat -> PlayCard
_DISCARDS: dict[int, tuple[Discard, ...]] = {}  # card * MAX_OFFICES + seat -> onto each Department
_END_TURN = tuple(EndTurn(seat) for seat in range(MAX_OFFICES))


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
    slot = free_slot(state, roll - 1)
    assert slot != EMPTY, "a train card is played only while the number board has a free slot"
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

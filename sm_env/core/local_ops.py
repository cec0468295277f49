"""The Local Operations Phase (R6): each seat in turn switches with a train, draws a card or
works as Freight Agent (or passes); the Freight Agent's three operations (R6.3)."""

from __future__ import annotations

from bisect import insort
from typing import TYPE_CHECKING

from sm_env.core.card_play import CARD_PLAY
from sm_env.core.cargo import can_work, claim_capacity
from sm_env.core.cars import N_CAR_CODES, car_name, car_type
from sm_env.core.catalogue import FacilitySpec
from sm_env.core.config import MAX_OFFICES
from sm_env.core.decks import refill_department, reshuffle
from sm_env.core.errors import IllegalIntent
from sm_env.core.intents import (
    Area,
    Cell,
    ChooseSwitch,
    ClearInbound,
    DrawDepartment,
    DrawHomeOffice,
    EndSwitching,
    Intent,
    MoveTray,
    Pass,
    Spot,
    StockOutbound,
    Unjam,
)
from sm_env.core.phases import Due, Next, Phase, Step
from sm_env.core.pieces import EMPTY, Boxes
from sm_env.core.queries import HAND_LIMIT, capacity_bonus, facility_spec, moves_for_switch, room
from sm_env.core.state import DEPARTMENTS
from sm_env.core.switching import apply_move, station_moves
from sm_env.core.yards import retire, supplies, take_from_division

if TYPE_CHECKING:
    from sm_env.core.state import GameState

LOCAL_OPS = Due(Phase.LOCAL_OPS, EMPTY)
SWITCHING = Due(Phase.SWITCHING, EMPTY)


# ---------------------------------------------------------------------------- the turn


def start_turn(state: GameState) -> Next:
    """A seat's Local Operations turn; D-deck.3: an empty Home Office is rebuilt first."""
    if not state.home_office and state.salvage:
        reshuffle(state)
    return LOCAL_OPS


def end_choice(state: GameState) -> Next:
    """R6.2.4 / D-play.2: over the hand limit after any choice, the seat must get down to it."""
    if len(state.hands[state.current_player()]) > HAND_LIMIT:
        return CARD_PLAY
    return Step.NEXT_TURN


def next_turn(state: GameState) -> Next:
    """The next seat leftward; after the last, the New Train Phase (R5.1)."""
    state.turn += 1
    return Step.LOCAL_TURN if state.turn < state.n else Step.NEW_TRAIN


def tray_in_station(state: GameState, seat: int) -> bool:
    office = state.office_of_seat[seat]
    for tray in state.trays:  # noqa: SIM110  # a plain loop: quicker than any() on a generator
        if tray.office == office:
            return True
    return False


def legal_choices(state: GameState) -> list[Intent]:
    """R6.0.1: switch, draw, Freight Agent, or pass (D-play.1)."""
    seat = (state.fedora + state.turn) % state.n  # a seat-by-seat phase (R5.0.1)
    out: list[Intent] = [_PASS[seat]]
    if tray_in_station(state, seat):
        out.append(_CHOOSE_SWITCH[seat])
    if state.home_office:
        out.append(_DRAW_HOME_OFFICE[seat])
    draws = _DRAW_DEPARTMENT[seat]
    departments = state.departments
    for d in range(DEPARTMENTS):
        if departments[d]:
            out.append(draws[d])
    if state.stations[state.office_of_seat[seat]].boxes:
        out += _freight_agent_intents(state, seat)
    return out


# The Local Operations choices are values: one shared copy of each (MAX_OFFICES seats).
_PASS = tuple(Pass(seat) for seat in range(MAX_OFFICES))
_CHOOSE_SWITCH = tuple(ChooseSwitch(seat) for seat in range(MAX_OFFICES))
_DRAW_HOME_OFFICE = tuple(DrawHomeOffice(seat) for seat in range(MAX_OFFICES))
_DRAW_DEPARTMENT = tuple(
    tuple(DrawDepartment(seat, d) for d in range(DEPARTMENTS)) for seat in range(MAX_OFFICES)
)


def apply_pass(state: GameState, intent: Pass) -> Next:
    state.log("pass", intent.seat)
    return Step.END_CHOICE


# ---------------------------------------------------------------------------- switching (R6.1)


def legal_moves(state: GameState) -> list[Intent]:
    """Every Move of every Crew Tray in the seat's station, then stopping (R6.1)."""
    seat = state.current_player()
    out: list[Intent] = [*station_moves(state, seat), EndSwitching(seat)]
    return out


def apply_choose_switch(state: GameState, intent: ChooseSwitch) -> Next:
    if not tray_in_station(state, intent.seat):
        raise IllegalIntent("R6.1.1", f"seat {intent.seat} has no Crew Tray in its station to switch with")
    state.moves_left = moves_for_switch(state)  # R6.1.2, RB.1
    state.log("switch", intent.seat, moves=state.moves_left)
    return SWITCHING


def apply_move_tray(state: GameState, intent: MoveTray) -> Next:
    apply_move(state, intent)
    state.moves_left -= 1
    state.log(
        "move",
        intent.seat,
        tray=intent.tray,
        start=intent.path[0],
        end=intent.path[-1],
        left=sum(intent.drops) + intent.push,
        moves=state.moves_left,
    )
    if state.moves_left == 0:  # R6.1.2: the last Move ends the phase for this seat
        return Step.END_CHOICE
    return SWITCHING


def apply_end_switching(state: GameState, intent: EndSwitching) -> Next:
    state.moves_left = 0
    return Step.END_CHOICE


# ---------------------------------------------------------------------------- drawing (R6.2.1)


def apply_draw_home_office(state: GameState, intent: DrawHomeOffice) -> Next:
    if not state.home_office:
        raise IllegalIntent("R6.2.1", "the Home Office deck is empty")
    card = state.home_office.pop()
    insort(state.hands[intent.seat], card)
    state.log("draw", intent.seat, card=card)
    if not state.home_office:
        reshuffle(state)
    return CARD_PLAY


def apply_draw_department(state: GameState, intent: DrawDepartment) -> Next:
    d = intent.department
    if not 0 <= d < DEPARTMENTS:
        raise IllegalIntent("R6.2.1", f"there is no Department {d} (they are 0, 1 and 2)")
    if not state.departments[d]:
        raise IllegalIntent("R6.2.1", f"Department {d} is empty")
    card = state.departments[d].pop()
    insort(state.hands[intent.seat], card)
    state.log("draw", intent.seat, card=card, department=d)
    if not state.departments[d]:
        refill_department(state, d)
    return CARD_PLAY


# ---------------------------------------------------------------------------- Freight Agent (R6.3)


def _freight_agent_intents(state: GameState, seat: int) -> list[Intent]:
    out: list[Intent] = []
    station = state.stations[state.office_of_seat[seat]]
    for cell in sorted(station.boxes):
        boxes = station.boxes[cell]
        facility = facility_spec(state, station, cell)
        if room(facility, boxes, True, capacity_bonus(state, station, cell)) > 0:
            for t in facility.outbound:
                code = t * 2 + 1
                if supplies(state, code):
                    out.append(StockOutbound(seat, cell, code))
        for code in sorted(set(boxes.inbound)):
            out.append(ClearInbound(seat, cell, code))
        for code in sorted(set(boxes.outbound)):
            if not can_work(state, seat, cell, Spot.GREEN, code):
                out.append(Unjam(seat, cell, Area.OUTBOUND, code))
        for slot, code in enumerate(boxes.work):
            if code != EMPTY and not can_work(state, seat, cell, Spot(slot + 1), code):
                out.append(Unjam(seat, cell, Area(slot + 1), code))
    return out


def _own_facility(state: GameState, seat: int, cell: Cell, rule: str) -> tuple[Boxes, FacilitySpec]:
    station = state.stations[state.office_of_seat[seat]]
    boxes = station.boxes.get(cell)
    if boxes is None:
        raise IllegalIntent(rule, f"seat {seat}'s station has no facility with cargo boxes at {cell}")
    return boxes, facility_spec(state, station, cell)


def apply_stock_outbound(state: GameState, intent: StockOutbound) -> Next:
    boxes, facility = _own_facility(state, intent.seat, intent.cell, "R6.3.1")
    code = intent.car
    if not 0 <= code < N_CAR_CODES or not code & 1 or car_type(code) not in facility.outbound:
        raise IllegalIntent("R6.3.1", f"this facility's green box takes no {car_name(code)}")
    station = state.stations[state.office_of_seat[intent.seat]]
    if room(facility, boxes, True, capacity_bonus(state, station, intent.cell)) <= 0:
        raise IllegalIntent("R9.1.3", "the green box is full")
    if not supplies(state, code):
        raise IllegalIntent("C-yards.1", f"the Division Yard holds no {car_name(code)}")
    take_from_division(state, code)
    boxes.outbound.append(code)
    claim_capacity(state, station, intent.cell)
    state.log("freight-agent", intent.seat, action="stock", car=code, cell=intent.cell)
    return Step.END_CHOICE


def apply_clear_inbound(state: GameState, intent: ClearInbound) -> Next:
    boxes, _ = _own_facility(state, intent.seat, intent.cell, "R6.3.2")
    if intent.car not in boxes.inbound:
        raise IllegalIntent("R6.3.2", "that car is not in the facility's red box")
    boxes.inbound.remove(intent.car)
    retire(state, intent.car)
    state.log("freight-agent", intent.seat, action="clear", car=intent.car, cell=intent.cell)
    return Step.END_CHOICE


def apply_unjam(state: GameState, intent: Unjam) -> Next:
    boxes, _ = _own_facility(state, intent.seat, intent.cell, "R6.3.3")
    area = intent.area
    if area is Area.OUTBOUND:
        if intent.car not in boxes.outbound:
            raise IllegalIntent("R6.3.3", "that car is not in the facility's green box")
    elif boxes.work[area - 1] != intent.car or intent.car == EMPTY:  # a MEN|AT|WORK slot
        raise IllegalIntent("R6.3.3", f"the {area.name} slot does not hold that car")
    if can_work(state, intent.seat, intent.cell, Spot(area), intent.car):
        raise IllegalIntent("R6.3.3", "the facility is not jammed: its workers can still move that load on")
    if area is Area.OUTBOUND:
        boxes.outbound.remove(intent.car)
    else:
        boxes.work[area - 1], boxes.unloading[area - 1] = EMPTY, False
    retire(state, intent.car)
    state.log("freight-agent", intent.seat, action="unjam", car=intent.car, cell=intent.cell)
    return Step.END_CHOICE

"""The New Train Phase (R7, C-trays.2, D-run.3): held trains, timetabled trains made up at
their Division Point with up to one empty car from each seat, Extras placed and loaded with
empty cars by their owner (C-yards.1: the Division Yard gives empty cars to build trains)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sm_env.core.cars import CABOOSE, CABOOSE_CODE, ENGINE, car_name, car_type
from sm_env.core.errors import IllegalIntent
from sm_env.core.intents import AddCar, ChooseDivisionPoint, EndConsist, Intent
from sm_env.core.phases import Due, Next, Phase, Step
from sm_env.core.pieces import EMPTY, Tray
from sm_env.core.queries import fitting_cars, spec_of, train_label
from sm_env.core.trains import free_tray, front_to_back, set_front_to_back
from sm_env.core.yards import take_from_division

if TYPE_CHECKING:
    from sm_env.core.state import GameState


def allowed_cars(state: GameState, tray: Tray) -> list[int]:
    """Car codes the Division Yard holds that the train's card still allows (R7.4, C-yards.1);
    under V-yards.2, when it holds none of them, those the Classification Yard would bring."""
    fitting = fitting_cars(state, tray)
    held = [code for code in fitting if state.division[code]]
    if held or not state.config.house_rules.yard_on_demand:
        return held
    return [code for code in fitting if state.classification[code]]


def begin(state: GameState) -> Next:
    """R7.1 / D-run.3: the train due at this Stage joins the held trains unless it is held
    already; one still on the line from an earlier slot runs again as another section."""
    due = state.timetable[state.stage]
    if due != EMPTY and due not in state.held:
        state.held.append(due)
        state.held.sort(key=lambda card: spec_of(state.catalogue, card).number)
    return Step.BUILD_TRAINS


def build(state: GameState) -> Next:
    """Build trains until a decision is due or none can be built; then the Mainline Phase."""
    while True:
        if state.building != EMPTY:
            due = _offer_car(state)
            if due is not None:
                return due
            _finish_build(state)
            continue
        tray = free_tray(state)
        if tray != EMPTY and state.held:
            _start_timetabled(state, tray, state.held.pop(0))
            continue
        if tray != EMPTY and state.pending_extras:
            # R7.5: Extras after the timetabled trains, by seniority, then play order.
            best = min(
                range(len(state.pending_extras)),
                key=lambda k: spec_of(state.catalogue, state.pending_extras[k][0]).number,
            )
            card, seat = state.pending_extras.pop(best)
            state.trays[tray].train = card
            state.building, state.build_owner = tray, seat
            return Due(Phase.EXTRA_SIDE, seat)
        break
    if state.held:
        state.log("held", -1, trains=list(state.held))
    return Step.MAINLINE


def _start_timetabled(state: GameState, index: int, card: int) -> None:
    """R7.3: a free tray at the Division Point the card's direction gives, engine in front,
    a required caboose behind; then each seat adds a car (R7.4)."""
    tray = state.trays[index]
    spec = spec_of(state.catalogue, card)
    tray.train = card
    tray.direction = tray.facing = 1 if spec.direction == "east" else -1
    _set_at_dp(state, index)
    state.building, state.build_owner, state.build_turn = index, EMPTY, 0
    state.log("new-train", -1, train=card, tray=index, east=tray.direction < 0)


def _set_at_dp(state: GameState, index: int) -> None:
    tray = state.trays[index]
    tray.at_dp = True
    tray.consist = (ENGINE,)
    if spec_of(state.catalogue, tray.train).consist.caboose == "required" and state.division[CABOOSE_CODE]:
        _add(state, tray, CABOOSE_CODE)


def _offer_car(state: GameState) -> Due | None:
    """The next car decision of the train being built, or None when none is due."""
    tray = state.trays[state.building]
    if state.build_owner != EMPTY:  # an Extra: its owner picks until done (R7.5)
        if state.build_turn or not allowed_cars(state, tray):
            return None
        return Due(Phase.EXTRA_CONSIST, state.build_owner)
    while state.build_turn < state.n:  # R7.4: Superintendent first, then leftward
        seat = (state.fedora + state.build_turn) % state.n
        if allowed_cars(state, tray):
            return Due(Phase.NEW_TRAIN, seat)
        state.log("no-car", seat, train=tray.train)
        state.build_turn += 1
    return None


def _finish_build(state: GameState) -> None:
    tray = state.trays[state.building]
    state.log("train-ready", -1, train=tray.train, consist=tray.consist, facing=tray.facing)
    state.building = state.build_owner = EMPTY
    state.build_turn = 0


def _add(state: GameState, tray: Tray, code: int) -> None:
    """A car from the Division Yard onto the train: behind the cars already placed, ahead of a
    caboose; a caboose at the rear (R7.4)."""
    take_from_division(state, code)
    order = front_to_back(tray)
    if car_type(code) != CABOOSE and car_type(order[-1]) == CABOOSE:
        order.insert(len(order) - 1, code)
    else:
        order.append(code)
    set_front_to_back(tray, order)


def legal_car_choices(state: GameState) -> list[Intent]:
    """AddCar for each car the train takes (R7.4: a seat asked must add one), and for an
    Extra's owner EndConsist to add no more (R7.5)."""
    seat = state.actor
    out: list[Intent] = [AddCar(seat, code) for code in allowed_cars(state, state.trays[state.building])]
    if state.build_owner != EMPTY:
        out.append(EndConsist(seat))
    return out


def legal_side_choices(state: GameState) -> list[Intent]:
    return [ChooseDivisionPoint(state.actor, False), ChooseDivisionPoint(state.actor, True)]


def apply_add_car(state: GameState, intent: AddCar) -> Next:
    tray = state.trays[state.building]
    rule = "R7.5" if state.build_owner != EMPTY else "R7.4"
    if intent.car not in fitting_cars(state, tray):
        raise IllegalIntent(
            rule,
            f"{train_label(state.catalogue, tray.train)} takes no {car_name(intent.car)} now "
            f"(allowed: {', '.join(car_name(c) for c in allowed_cars(state, tray))})",
        )
    if intent.car not in allowed_cars(state, tray):
        raise IllegalIntent("C-yards.1", f"the Division Yard holds no {car_name(intent.car)}")
    _add(state, tray, intent.car)
    state.log("add-car", intent.seat, train=tray.train, car=intent.car)
    if state.build_owner == EMPTY:
        state.build_turn += 1
    return Step.BUILD_TRAINS


def apply_end_consist(state: GameState, intent: EndConsist) -> Next:
    if state.build_owner == EMPTY:
        tray = state.trays[state.building]
        cars = ", ".join(car_name(code) for code in allowed_cars(state, tray))
        raise IllegalIntent(
            "R7.4",
            f"a seat must find a suitable car for {train_label(state.catalogue, tray.train)}; "
            f"the Division Yard holds one ({cars})",
        )
    state.build_turn = 1  # R7.5: the owner is done choosing
    return Step.BUILD_TRAINS


def apply_choose_division_point(state: GameState, intent: ChooseDivisionPoint) -> Next:
    tray = state.trays[state.building]
    tray.direction = tray.facing = -1 if intent.east else 1
    _set_at_dp(state, state.building)
    state.log("new-train", intent.seat, train=tray.train, tray=state.building, east=intent.east)
    return Step.BUILD_TRAINS

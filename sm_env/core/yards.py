"""The two yards (C-yards): the Division Yard supplies cars, the Classification Yard collects
used ones and refills the Division Yard when it runs empty."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sm_env.core.cars import CABOOSE, N_CAR_CODES, car_type, unflipped

if TYPE_CHECKING:
    from sm_env.core.state import GameState


def supplies(state: GameState, code: int) -> bool:
    """Can the Division Yard give a car of ``code`` (C-yards.1)? Under V-yards.2 it can also
    when only the Classification Yard holds one: the return brings it."""
    if state.division[code]:
        return True
    return state.config.house_rules.yard_on_demand and state.classification[code] > 0


def take_from_division(state: GameState, code: int) -> None:
    """A car leaves the Division Yard (C-yards.1); when that empties it, the Classification
    Yard moves back in at once (C-yards.2). Under V-yards.2 the Classification Yard comes back
    first when the Division Yard holds no car of ``code``."""
    if not state.division[code] and state.config.house_rules.yard_on_demand:
        _return_classification(state, on_demand=True)
    state.division[code] -= 1
    state.division_total -= 1
    if state.division_total == 0:
        state.division, state.classification = state.classification, [0] * N_CAR_CODES
        state.division_total = sum(state.division)
        state.log("yard-refill", -1, cars=state.division_total)


def return_overnight(state: GameState) -> None:
    """V-yards.1 (a variant beyond the seeds): at the end of a day every Classification car
    goes back to the Division Yard."""
    _return_classification(state, overnight=True)


def _return_classification(state: GameState, **why: bool) -> None:
    """Every Classification car back into the Division Yard (V-yards.1, V-yards.2)."""
    cars = sum(state.classification)
    if cars:
        state.division = [a + b for a, b in zip(state.division, state.classification, strict=True)]
        state.classification = [0] * N_CAR_CODES
        state.division_total += cars
        state.log("yard-refill", -1, cars=cars, **why)


def retire(state: GameState, code: int) -> None:
    """C-yards.3: used cars go to the Classification Yard; cabooses to the Division Yard.
    A car leaving play is turned right side up (R9.3.4)."""
    code = unflipped(code)
    if car_type(code) == CABOOSE:
        state.division[code] += 1
        state.division_total += 1
    else:
        state.classification[code] += 1

"""Collisions (R10, R8.2.3, R8.2.4, D-collision) and the RED FLAG that averts one
(D-redflag.1): both trains (or the train and the standing cars) leave play and the seat at
fault loses 5 Revenue."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sm_env.core.intents import Cell, Intent, RedFlag
from sm_env.core.phases import Due, Next, Phase, Step
from sm_env.core.pieces import EMPTY, OFFICE_CELL
from sm_env.core.queries import cars_of, spec_of, train_label
from sm_env.core.revenue import earn
from sm_env.core.state import Collision
from sm_env.core.yards import retire

if TYPE_CHECKING:
    from sm_env.core.state import GameState

COLLISION_PENALTY = 5  # R10.1, R10.2


def cause_of(collision: Collision) -> str:
    """What the moving train met (D-collision.1): another train on a Mainline region, a train
    on every A/D track of the Office it arrives at, or cars or a tray on the Running Track
    arriving or leaving."""
    if collision.rule == "R10.1":
        return "mainline"
    if collision.rule == "R8.2.4":
        return "departure-track"
    return "full-office" if collision.cell == OFFICE_CELL else "arrival-track"


def collide(state: GameState, collision: Collision) -> Due | None:
    """D-redflag.1: the seat to pay may avert it with a RED FLAG (a decision is due); else
    it happens now."""
    if state.red_flag_card in state.hands[collision.seat]:
        state.collision = collision
        return Due(Phase.RED_FLAG, collision.seat)
    _resolve(state, collision)
    return None


def _resolve(state: GameState, collision: Collision) -> None:
    """D-collision.2: both removed; the seat loses 5 Revenue (R10.1, R10.2)."""
    cat = state.catalogue
    mover = state.trays[collision.mover]
    victim = "standing cars"
    if collision.struck != EMPTY:
        victim = train_label(cat, state.trays[collision.struck].train)
    text = (
        f"COLLISION {collision.where}: {train_label(cat, mover.train)} strikes {victim}; "
        f"seat {collision.seat} loses {COLLISION_PENALTY} Revenue ({collision.rule})"
    )
    direction = mover.direction
    state.log(
        "collision", collision.seat, cause=cause_of(collision), rule=collision.rule,
        tray=collision.mover, struck=collision.struck, office=collision.office,
    )  # fmt: skip
    remove_train(state, collision.mover)
    if collision.struck != EMPTY:
        remove_train(state, collision.struck)
    else:
        assert collision.cell is not None
        _remove_cars(state, collision.office, collision.cell, direction)
    earn(state, collision.seat, -COLLISION_PENALTY, collision.rule, text)


def _remove_cars(state: GameState, office: int, cell: Cell, mover_direction: int) -> None:
    """The group of standing cars met first on ``cell`` leaves play (C-yards.3)."""
    station = state.stations[office]
    cars = station.cars[cell]
    tray = next((t for t in state.trays if t.office == office and t.cell == cell), None)
    gone: tuple[int, ...]
    kept: tuple[int, ...]
    if tray is None:
        gone, kept = cars, ()
    elif mover_direction > 0:
        gone, kept = cars[: tray.split], cars[tray.split :]
        tray.split = 0
    else:
        gone, kept = cars[tray.split :], cars[: tray.split]
    for code in gone:
        retire(state, code)
    if kept:
        station.cars[cell] = kept
    else:
        del station.cars[cell]


def remove_train(state: GameState, index: int) -> None:
    """A train leaves play: cars to the Classification Yard, caboose to the Division Yard,
    an Extra's card to the Salvage Yard; a timetabled card stays on the chart (R10.3, D-run.2)."""
    tray = state.trays[index]
    for code in cars_of(tray):
        retire(state, code)
    if spec_of(state.catalogue, tray.train).extra:
        state.salvage.append(tray.train)
    tray.free()


def legal_red_flag(state: GameState) -> list[Intent]:
    return [RedFlag(state.actor, True), RedFlag(state.actor, False)]


def apply_red_flag(state: GameState, intent: RedFlag) -> Next:
    collision = state.collision
    assert collision is not None
    state.collision = None
    if intent.play:
        state.hands[intent.seat].remove(state.red_flag_card)
        state.salvage.append(state.red_flag_card)
        if collision.struck in state.mainline_queue:  # the flag stops both trains this Stage
            state.mainline_queue.remove(collision.struck)
        state.log(
            "red-flag", intent.seat, train=state.trays[collision.mover].train, where=collision.where,
            cause=cause_of(collision), tray=collision.mover,
        )  # fmt: skip
    else:
        _resolve(state, collision)
    state.mainline_queue.pop(0)
    return Step.RUN_MAINLINE

"""The engine: it makes games, lists the legal intents of a decision and applies an intent,
then runs the automatic parts of the turn until the next decision is due.

Everything comes from two tables. ``PHASES``: for each ``Phase``, the function that lists its
legal intents, the intent kinds that are its decisions (from the registry, with their
handlers) and the automatic steps that begin it. ``STEPS``: for each ``Step``, the function
that carries it out. A handler or a step returns what comes next — another step, or the
decision now ``Due`` — and the engine alone writes ``state.phase``: no rules module calls
back into the flow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sm_env.core import card_play, cargo, collisions, local_ops, mainline, new_train, setup, stage_end
from sm_env.core.catalogue import Catalogue, load_catalogue
from sm_env.core.config import GameConfig
from sm_env.core.errors import IllegalIntent
from sm_env.core.intents import Intent, IntentKind, malformed
from sm_env.core.phases import Next, Phase, Step
from sm_env.core.registry import INTENTS
from sm_env.core.snapshot import from_snapshot
from sm_env.core.state import GameState


@dataclass(frozen=True, slots=True)
class PhaseRules:
    legal: Callable[[GameState], list[Intent]]
    kinds: frozenset[IntentKind]  # its decisions; the registry gives each one's handler
    begun_by: tuple[Step | IntentKind, ...]  # the steps or decisions that lead into it (checked)
    # After a decision that keeps the phase: the new legal intents from the old ones and the
    # intent applied, when that is quicker than listing afresh (None: list afresh). It must
    # give exactly what ``legal`` would (the tests hold it to that).
    relist: Callable[[GameState, list[Intent], Intent], list[Intent] | None] | None = None


def _kinds(phase: Phase) -> frozenset[IntentKind]:
    return frozenset(entry.kind for entry in INTENTS if phase in entry.phases)


def _nothing(state: GameState) -> list[Intent]:
    return []


PHASES: dict[Phase, PhaseRules] = {
    Phase.LOCAL_OPS: PhaseRules(local_ops.legal_choices, _kinds(Phase.LOCAL_OPS), (Step.LOCAL_TURN,)),
    Phase.SWITCHING: PhaseRules(local_ops.legal_moves, _kinds(Phase.SWITCHING), (IntentKind.CHOOSE_SWITCH,)),
    Phase.CARD_PLAY: PhaseRules(
        card_play.legal_card_play,
        _kinds(Phase.CARD_PLAY),
        (Step.END_CHOICE, IntentKind.DRAW_HOME_OFFICE, IntentKind.DRAW_DEPARTMENT),
        card_play.relist_card_play,
    ),
    Phase.NEW_TRAIN: PhaseRules(new_train.legal_car_choices, _kinds(Phase.NEW_TRAIN), (Step.BUILD_TRAINS,)),
    Phase.EXTRA_SIDE: PhaseRules(
        new_train.legal_side_choices, _kinds(Phase.EXTRA_SIDE), (Step.BUILD_TRAINS,)
    ),
    Phase.EXTRA_CONSIST: PhaseRules(
        new_train.legal_car_choices, _kinds(Phase.EXTRA_CONSIST), (Step.BUILD_TRAINS,)
    ),
    Phase.CLEARANCE: PhaseRules(mainline.legal_clearance, _kinds(Phase.CLEARANCE), (Step.RUN_MAINLINE,)),
    Phase.RED_FLAG: PhaseRules(
        collisions.legal_red_flag, _kinds(Phase.RED_FLAG), (Step.RUN_MAINLINE, IntentKind.CLEARANCE)
    ),
    Phase.CARGO: PhaseRules(cargo.legal_cargo_intents, _kinds(Phase.CARGO), (Step.NEXT_CARGO_SEAT,)),
    Phase.GAME_OVER: PhaseRules(_nothing, frozenset(), (Step.STAGE_END,)),
}

STEPS: dict[Step, Callable[[GameState], Next]] = {
    Step.LOCAL_TURN: local_ops.start_turn,
    Step.END_CHOICE: local_ops.end_choice,
    Step.NEXT_TURN: local_ops.next_turn,
    Step.NEW_TRAIN: new_train.begin,
    Step.BUILD_TRAINS: new_train.build,
    Step.MAINLINE: mainline.begin,
    Step.RUN_MAINLINE: mainline.run,
    Step.CARGO: cargo.begin,
    Step.NEXT_CARGO_SEAT: cargo.next_seat,
    Step.STAGE_END: stage_end.end_stage,
}


class Engine:
    """The rules a state is played by (``GameState.rules``)."""

    __slots__ = ()  # stateless, shared by every game

    def legal_intents(self, state: GameState) -> list[Intent]:
        return PHASES[state.phase].legal(state)

    def apply(self, state: GameState, intent: Intent, validate: bool = True) -> None:
        """Validate (unless told not to), carry the intent out, then run to the next decision.
        An intent that is one of the decision's listed intents (the very object) passes the
        checks of ``_check`` by construction."""
        handler = _HANDLERS.get(type(intent))
        before = state.legal_cache
        if handler is None or validate and (before is None or not _listed(before, intent)):
            _check(state, intent, handler is not None)
        assert handler is not None
        phase = state.phase
        next_ = handler(state, intent)
        state.legal_cache = None
        while type(next_) is Step:  # as ``_run``
            next_ = STEPS[next_](state)
        state.phase, state.actor = next_  # type: ignore[misc]  # a Due once no Step is left
        if before is not None and state.phase is phase:
            relist = _RELIST.get(phase)
            if relist is not None:
                state.legal_cache = relist(state, before, intent)


ENGINE = Engine()
_HANDLERS: dict[type, Callable[[GameState, Any], Next]] = {entry.cls: entry.handler for entry in INTENTS}
_RELIST = {phase: rules.relist for phase, rules in PHASES.items() if rules.relist is not None}


def _listed(legal: list[Intent], intent: Intent) -> bool:
    for listed in legal:  # noqa: SIM110  # a plain loop: quicker than any() on a generator
        if listed is intent:
            return True
    return False


def _check(state: GameState, intent: Any, known: bool) -> None:
    """R5.0.1: an intent, by the seat that must decide, of a kind this phase decides."""
    if not known or not isinstance(getattr(intent, "kind", None), IntentKind):
        raise IllegalIntent("R5.0.1", f"{intent!r} is not an intent")
    seat = state.current_player()
    if seat < 0:
        raise IllegalIntent("D-end.3", "the game is over: no decision is due")
    problem = malformed(intent)
    if problem is not None:
        raise IllegalIntent("R5.0.1", problem)
    if intent.seat != seat:
        raise IllegalIntent(
            "R5.0.1", f"seat {seat} must decide now ({state.phase.value}), not seat {intent.seat}"
        )
    kinds = PHASES[state.phase].kinds
    if intent.kind not in kinds:
        allowed = ", ".join(sorted(k.value for k in kinds))
        raise IllegalIntent(
            "R5.0.1",
            f"{intent.kind.value} is not a decision of the {state.phase.value} step (allowed: {allowed})",
        )


def _run(state: GameState, next_: Next) -> None:
    """Run automatic steps until a decision is due, and record it."""
    state.legal_cache = None
    while type(next_) is Step:
        next_ = STEPS[next_](state)
    state.phase, state.actor = next_  # type: ignore[misc]  # a Due once no Step is left


def new_game(config: GameConfig, seed: int, catalogue: Catalogue | None = None) -> GameState:
    """Set the table up as section 4 and run to the first decision."""
    state, first = setup.set_up(config, seed, catalogue or load_catalogue(), ENGINE)
    _run(state, first)
    return state


def load_snapshot(snapshot: object, config: GameConfig, catalogue: Catalogue | None = None) -> GameState:
    """A playable state rebuilt from ``GameState.snapshot()`` data, validated: data that is
    malformed or breaks an invariant raises ``SnapshotError`` saying why."""
    return from_snapshot(snapshot, config, ENGINE, catalogue or load_catalogue())

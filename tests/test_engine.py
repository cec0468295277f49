"""The engine's tables, the intent registry, the fast path for search and chance in one place
(R5.0.1, R5.1, C-rng.1)."""

from __future__ import annotations

from typing import get_args

import pytest
from conftest import HOUSE_RULES, assert_invariants, draw_card, new_state, play_random

from sm_env.actions import ActionTable
from sm_env.core import engine
from sm_env.core.chance import ForcedRolls, force_rolls
from sm_env.core.intents import INTENT_CLASSES, Intent, IntentKind, PlayCard
from sm_env.core.phases import SEAT_TURN_PHASES, Phase, Step
from sm_env.core.registry import BY_CLASS, INTENTS
from sm_env.core.rng import Rng
from sm_env.core.text import describe


def test_r5_0_1_every_intent_kind_has_one_class_and_one_registry_entry() -> None:
    classes = get_args(Intent)
    assert {cls.kind for cls in classes} == set(IntentKind)
    assert len(classes) == len(IntentKind) == len(INTENTS) == len(BY_CLASS)
    assert set(INTENT_CLASSES.values()) == set(classes) == {entry.cls for entry in INTENTS}
    for entry in INTENTS:
        assert entry.cls.text, f"{entry.cls.__name__} has no text template"
        assert entry.phases and entry.blocks


def test_r5_1_every_phase_and_step_is_in_the_engine_tables() -> None:
    assert set(engine.PHASES) == set(Phase)
    assert set(engine.STEPS) == set(Step)
    for phase, rules in engine.PHASES.items():
        registered = {entry.cls.kind for entry in INTENTS if phase in entry.phases}
        assert rules.kinds == registered
        assert rules.begun_by, f"{phase} is begun by nothing"
    assert engine.PHASES[Phase.GAME_OVER].kinds == frozenset()


def test_r5_1_each_phase_is_begun_only_as_the_phase_table_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """Watch every automatic step: a phase entered by an intent with no step run was begun by
    that intent's kind, else by the last step run; either must be in its ``begun_by``. (An
    intent that keeps its phase, such as a Move or a discard, begins nothing.)"""
    last: list[Step] = []

    def watched(step: Step) -> object:
        run = engine.STEPS[step]

        def step_and_note(state: object) -> object:
            last.append(step)
            return run(state)  # type: ignore[arg-type]

        return step_and_note

    monkeypatch.setattr(engine, "STEPS", {step: watched(step) for step in engine.STEPS})
    entered: set[Phase] = set()
    for seed in range(40):
        state = new_state(2 + seed % 4, seed, days=3, emergency_toolbox=True)
        if entered == set(Phase):
            break
        rng = Rng(seed)
        while not state.is_terminal():
            legal = state.legal_intents()
            intent = legal[rng.below(len(legal))]
            before, steps = state.phase, len(last)
            state.apply(intent)
            if len(last) == steps and state.phase is before:
                continue
            begun_by = last[-1] if len(last) > steps else intent.kind
            assert begun_by in engine.PHASES[state.phase].begun_by, (begun_by, state.phase)
            entered.add(state.phase)
    assert entered == set(Phase)


def test_r5_0_1_the_action_table_is_built_from_the_registry() -> None:
    """Every action of a block with a constructor maps to an intent and back; the blocks come
    in the registry's order."""
    state = new_state(3, 1)
    table = ActionTable(state.config, state.catalogue)
    names = [block.name for entry in INTENTS for block in entry.blocks]
    assert list(table.blocks) == names
    for seat in range(3):
        row = table.intents[seat]
        assert len(row) == table.size
        for action, intent in enumerate(row):
            if intent is None:
                assert table.decode(action)[0].startswith("move_")
                continue
            assert intent.seat == seat
            assert table.index(intent) == action
            assert table.intent(seat, action) == intent


@pytest.mark.parametrize("seed", range(6))
def test_r5_0_1_apply_without_validation_plays_the_same_game(seed: int) -> None:
    """``validate=False`` (search) on intents from ``legal_intents()`` gives the same game."""
    checked = new_state(1 + seed % 6, seed, days=1, **{HOUSE_RULES[seed % 4]: True})
    fast = checked.clone()
    decisions = play_random(checked, seed)
    for intent in decisions:
        assert intent in fast.legal_intents()
        fast.apply(intent, validate=False)
    assert fast.state_hash() == checked.state_hash()


def test_r5_0_1_legal_intents_are_listed_once_per_decision() -> None:
    state = new_state(3, 2)
    first = state.legal_intents()
    assert state.legal_intents() is first
    twin = state.clone()
    assert twin.legal_intents() is first  # the same position has the same choices
    state.apply(first[0])
    assert state.legal_intents() is not first
    assert twin.legal_intents() is first


def test_r5_0_1_every_intent_reads_as_text() -> None:
    state = new_state(3, 5, days=3)
    for _ in range(300):
        for intent in state.legal_intents():
            line = describe(state, intent)
            assert line.startswith(f"seat {intent.seat}: ") and "{" not in line
        state.apply(state.legal_intents()[-1])


def test_c_rng_1_forced_rolls_decide_the_timetable_slot() -> None:
    """R7.2 through chance.roll_d12: a forced 5 puts the train on the fifth stage's slot."""
    state = new_state(2, 3)
    before = state.rng.state
    force_rolls(state, [5])
    card = state.catalogue.by_id["train-3"]
    seat = draw_card(state, card)
    state.apply(PlayCard(seat, card))
    assert state.timetable[4] == card
    assert isinstance(state.rng, ForcedRolls) and state.rng.rolls == [] and state.rng.state == before
    assert_invariants(state)


def test_c_rng_1_a_forced_roll_must_be_a_d12_face() -> None:
    with pytest.raises(ValueError, match="1..12"):
        ForcedRolls([0, 13], Rng(1))


def test_c_rng_1_forced_rolls_copy_with_their_state() -> None:
    state = new_state(2, 3)
    force_rolls(state, [7, 8])
    other = state.clone()
    assert state.rng.d12() == 7
    assert other.rng.d12() == 7 and other.rng.d12() == 8
    assert state.rng.d12() == 8


def test_r5_0_1_seat_turn_phases_name_the_seat_from_the_turn() -> None:
    state = new_state(4, 9)
    while not state.is_terminal():
        if state.phase in SEAT_TURN_PHASES:
            assert state.current_player() == (state.fedora + state.turn) % state.n
        else:
            assert state.current_player() == state.actor
        state.apply(state.legal_intents()[0])


@pytest.mark.parametrize("seed", range(12))
def test_r5_0_1_kept_and_relisted_legal_intents_equal_a_listing_afresh(seed: int) -> None:
    """The engine keeps a decision's legal intents, works the next ones out from them when a
    decision keeps the phase (``PhaseRules.relist``), and the placement survey keeps what it
    knows of each station grid: every list must equal one listed from scratch."""
    from sm_env.core.grid import geometry_for

    state = new_state(1 + seed % 6, seed, days=2, **{HOUSE_RULES[seed % len(HOUSE_RULES)]: True})
    rng = Rng(seed)
    while not state.is_terminal():
        legal = state.legal_intents()
        scratch = state.clone()
        for station in scratch.stations:
            station.survey = None
        geometry_for(scratch.catalogue).surveys.clear()
        assert legal == engine.PHASES[scratch.phase].legal(scratch)
        state.apply(legal[rng.below(len(legal))])

"""Determinism (C-rng.2): the same seed, config, house rules and decisions give the same game,
bit for bit; clones are independent copies."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
from conftest import (
    HOUSE_RULES,
    bots,
    cid,
    finish_stage,
    frozen,
    new_state,
    play_random,
    put_tray_in_station,
    set_office,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from sm_env.core import state as state_module
from sm_env.core.cars import COACH, car_code
from sm_env.core.config import RULES_EDITION
from sm_env.core.intents import ChooseSwitch, Intent
from sm_env.core.revenue import earn
from sm_env.core.state import GameState


def hashes_of_bot_game(state: GameState, seed: int) -> tuple[list[Intent], list[str]]:
    agents = bots(seed, state.n)
    decisions, hashes = [], [state.state_hash()]
    while not state.is_terminal():
        seat = state.current_player()
        intent = agents[seat].choose(state.view(seat))
        state.apply(intent)
        decisions.append(intent)
        hashes.append(state.state_hash())
    return decisions, hashes


@pytest.mark.parametrize(
    ("offices", "rules"),
    [
        (1, {}),
        (3, {}),
        (4, {"sister_trains": True, "emergency_toolbox": True}),
        (6, {"employee_rotation": True}),
    ],
)
def test_c_rng_2_same_seed_config_and_decisions_same_hash_at_every_step(
    offices: int, rules: dict[str, bool]
) -> None:
    """C-rng.2: replaying the decisions on a fresh game gives the same hash after each one."""
    seed = 77 + offices
    decisions, hashes = hashes_of_bot_game(new_state(offices, seed, days=2, **rules), seed)
    again = new_state(offices, seed, days=2, **rules)
    assert again.state_hash() == hashes[0]
    for intent, expected in zip(decisions, hashes[1:], strict=True):
        again.apply(intent)
        assert again.state_hash() == expected
    assert again.is_terminal()


def test_c_rng_2_bots_replay_identically() -> None:
    """C-rng.2: seeded bots make the same decisions in a second run."""
    first = hashes_of_bot_game(new_state(3, 5), 5)
    second = hashes_of_bot_game(new_state(3, 5), 5)
    assert first == second


def test_c_rng_2_different_seeds_different_games() -> None:
    """C-rng.2"""
    hashes = {new_state(3, seed).state_hash() for seed in range(30)}
    assert len(hashes) == 30


@pytest.mark.parametrize("rule", ["sister_trains", "emergency_toolbox"])
def test_c_rng_2_house_rules_change_the_setup(rule: str) -> None:
    """C-rng.2: a seed alone is not enough when house rules differ (RB.2, RB.4 change the deal)."""
    for seed in range(5):
        assert new_state(3, seed).state_hash() != new_state(3, seed, **{rule: True}).state_hash()


def test_c_rng_2_employee_rotation_changes_the_second_day() -> None:
    """C-rng.2 / RB.3: same seed, same decisions, different office map from day 2."""
    plain, rotating = new_state(3, 8, days=2), new_state(3, 8, days=2, employee_rotation=True)
    assert plain.snapshot() == rotating.snapshot()
    assert plain.state_hash() != rotating.state_hash()  # the hash covers the house rules too
    while plain.day == 0:
        finish_stage(plain)
        finish_stage(rotating)
    assert plain.office_of_seat != rotating.office_of_seat


def test_c_rng_2_reduced_visibility_changes_the_night_moves() -> None:
    """C-rng.2 / RB.1: same seed and decisions; at night the switching step has fewer Moves."""
    plain, night = new_state(2, 9), new_state(2, 9, reduced_visibility=True)
    for state in (plain, night):
        put_tray_in_station(state, state.current_player())
        state.apply(ChooseSwitch(state.current_player()))
    assert plain.moves_left != night.moves_left
    assert plain.state_hash() != night.state_hash()


def test_state_hash_is_sha256_of_config_house_rules_rules_edition_and_the_canonical_snapshot() -> None:
    import hashlib

    state = new_state(2, 10)
    game = {
        "config": state.config.to_dict(),
        "house_rules": state.config.house_rules.to_dict(),
        "rules_edition": 3,
    }
    assert RULES_EDITION == 3
    text = json.dumps([game, state.snapshot()], sort_keys=True, separators=(",", ":"))
    assert state.state_hash() == hashlib.sha256(text.encode()).hexdigest()
    assert len(state.state_hash()) == 64


def test_c_rng_2_the_hash_names_the_rules_edition(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same game hashes differently under another rules edition: a saved hash says
    which rules made it."""
    state = new_state(2, 10)
    now = state.state_hash()
    monkeypatch.setattr(state_module, "RULES_EDITION", RULES_EDITION + 1)
    assert state.state_hash() != now
    monkeypatch.undo()
    assert state.state_hash() == now


def test_c_rng_2_hash_is_the_same_in_another_process() -> None:
    """C-rng.2: equal games hash equal on any run (no per-process hashing or ordering)."""
    state = new_state(4, 11, sister_trains=True)
    play_random(state, 11, steps=40)
    code = (
        "import sys; sys.path.insert(0, 'tests')\n"
        "from conftest import new_state, play_random\n"
        "s = new_state(4, 11, sister_trains=True); play_random(s, 11, steps=40); print(s.state_hash())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == state.state_hash()


# --------------------------------------------------------------------------- clones


def mutate(state: GameState) -> None:
    """Change every mutable part of a state by hand."""
    state.rng.next_u32()
    state.hands[0].append(state.home_office.pop())
    state.departments[0].append(99)
    state.salvage.append(7)
    state.set_aside.append(1)
    state.timetable[3] = 27
    state.pending_extras.append((39, 0))
    earn(state, 0, 5, "R2.4.7", "set by hand")
    state.division[1] -= 1
    state.classification[1] += 1
    state.office_of_seat.reverse()
    state.seat_of_office.reverse()
    station = state.stations[0]
    station.grid[(1, 0)] = (10, True)
    station.cars[(1, 0)] = (2, 3)
    for boxes in station.boxes.values():
        boxes.outbound.append(1)
        boxes.inbound.append(0)
        boxes.work[0] = 5
        boxes.unloading[0] = True
    station.modifiers[(2, 2)] = (0, 0)
    tray = state.trays[1]
    tray.office, tray.cell, tray.consist, tray.train = 0, (0, 0), (-1, 3), 27
    tray.direction, tray.line, tray.region, tray.at_dp, tray.cleared_by = -1, 2, 1, True, 0
    state.held.append(29)
    state.actor, state.building, state.build_owner, state.build_turn = 1, 2, 0, 1
    state.mainline_queue.append(3)
    state.workers_used[(0, 0)] = 1
    state.stage = (state.stage + 1) % 12
    state.turn = 0
    state.moves_left = 3


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), offices=st.integers(1, 6), steps=st.integers(0, 80))
def test_clone_is_independent_and_equal(seed: int, offices: int, steps: int) -> None:
    """C-rng.2: clone() has an equal hash; mutating the clone never changes the original, nor
    the reverse."""
    state = new_state(offices, seed)
    play_random(state, seed, steps=steps)
    depot = cid("depot")
    if depot in state.home_office + state.salvage + [c for hand in state.hands for c in hand]:
        set_office(state, 0, "depot", outbound=[car_code(COACH, True)])
    clone = state.clone()
    assert clone.state_hash() == state.state_hash()
    assert clone.events == []
    before = frozen(state)
    mutate(clone)
    assert frozen(state) == before
    assert clone.state_hash() != state.state_hash()
    fresh = state.clone()
    clone_before = frozen(fresh)
    mutate(state)
    assert frozen(fresh) == clone_before


@pytest.mark.parametrize("rules", [{}, {name: True for name in HOUSE_RULES}])
def test_clone_continued_with_the_same_decisions_reaches_the_same_hash(rules: dict[str, bool]) -> None:
    """C-rng.2: a mid-game clone fed the original's later decisions ends in the same state."""
    state = new_state(3, 12, days=2, **rules)
    play_random(state, 12, steps=60)
    clone = state.clone()
    decisions = play_random(state, 13)
    for intent in decisions:
        clone.apply(intent)
    assert clone.is_terminal()
    assert clone.state_hash() == state.state_hash()


def test_clone_of_a_terminal_state() -> None:
    """C-rng.2 / D-end.3"""
    state = new_state(2, 14)
    play_random(state, 14)
    clone = state.clone()
    assert clone.is_terminal() and clone.state_hash() == state.state_hash()
    assert clone.winners() == state.winners()


def test_snapshot_is_plain_json() -> None:
    state = new_state(3, 15)
    play_random(state, 15, steps=30)
    data = state.snapshot()
    assert json.loads(json.dumps(data)) == json.loads(json.dumps(copy.deepcopy(data)))


def test_snapshot_is_detached_from_the_state() -> None:
    state = new_state(2, 16)
    snap = state.snapshot()
    kept = copy.deepcopy(snap)
    state.apply(state.legal_intents()[1])  # draw a card
    assert snap == kept
    snap["hands"][0].append(0)
    assert 0 not in state.hands[0] or state.hands[0].count(0) == kept["hands"][0].count(0)

"""Property tests of the rules core over whole games (issue 26): hypothesis draws the
configuration (1-6 offices, 1-5 days, any house rules, competitive or co-op with a target),
the seed and the decisions (a seed for the choice of a legal intent at every step).

- the legal intents are exact at every decision: each listed intent applies, and every
  near miss (a listed intent for another seat, or with one field nudged) is refused;
- a refused intent changes nothing, and the game then goes on exactly as it would have;
- saving a position (``position_to_json``, through JSON text) and loading it
  (``parse_position``) mid-game, then going on, equals never saving;
- a seat's view is the same, byte for byte, for two games that differ only in what the seat
  cannot see (the other hands, the Home Office's order, the random stream);
- the number of decisions is bounded by the configuration, per Stage and per phase
  (``decision_bound``), and no game runs past its bound.

tests/test_legality.py holds the exactness against a far broader candidate pool at single
positions; these hold it, more cheaply, at every decision of whole games."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import assert_invariants, hide_differently
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sm_env.core import (
    HAND_LIMIT,
    MAX_OFFICES,
    MAX_TRAY_CARS,
    STAGES_PER_DAY,
    Catalogue,
    GameConfig,
    GameState,
    HouseRules,
    IllegalIntent,
    Intent,
    Mode,
    Phase,
    Rng,
    load_catalogue,
    new_game,
    parse_position,
    position_to_json,
    workers,
)

MAX_DAYS = 5
EXTRA_TRAYS = 3  # C-trays.1: a game has n + 3 Crew Trays

PROPERTY = settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@st.composite
def configs(draw: st.DrawFn, max_days: int = MAX_DAYS) -> GameConfig:
    """Any configuration: 1-6 offices, 1..max_days days, any set of house rules (the
    Appendix B rules and the variant), competitive with or without a target, or co-op."""
    offices = draw(st.integers(1, MAX_OFFICES), label="offices")
    days = draw(st.integers(1, max_days), label="days")
    mode = draw(st.sampled_from(Mode), label="mode")
    targets = st.integers(1, 40)  # revenue: reached in some games, not in others
    target = draw(targets if mode is Mode.COOP else st.none() | targets, label="target")
    rules = draw(st.sets(st.sampled_from(HouseRules.names())), label="house rules")
    return GameConfig(
        offices=offices,
        days=days,
        target_revenue=target,
        mode=mode,
        house_rules=HouseRules(**dict.fromkeys(rules, True)),
    )


seeds = st.integers(0, 2**32 - 1)


def sweep(test: Any, examples: int, **strategies: st.SearchStrategy[Any]) -> Any:
    """The same property over more examples (and, by ``strategies``, longer games): marked
    slow, so the default run stays short."""
    body = test.hypothesis.inner_test
    return pytest.mark.slow(settings(PROPERTY, max_examples=examples)(given(**strategies)(body)))


def decisions(state: GameState, chooser: random.Random, limit: int | None = None) -> Iterator[Intent]:
    """The game played on by ``chooser`` (an index into the legal intents at every step), up to
    ``limit`` decisions; yields each intent before it is applied."""
    played = 0
    while not state.is_terminal() and (limit is None or played < limit):
        legal = state.legal_intents()
        intent = legal[chooser.randrange(len(legal))]
        yield intent
        state.apply(intent)
        played += 1


# --------------------------------------------------------------------------- exactness


def near_misses(state: GameState, legal: list[Intent]) -> list[Any]:
    """Intents that are not listed but look like those that are: each listed intent for every
    other seat, and with each int field moved by one either way (a card, a car, a department,
    a tray, the cars pushed ...)."""
    listed = set(legal)
    out: list[Any] = []
    for intent in legal:
        out += [dataclasses.replace(intent, seat=s) for s in range(state.n) if s != intent.seat]
        for field in dataclasses.fields(intent):
            value = getattr(intent, field.name)
            if field.name != "seat" and type(value) is int:
                out += [dataclasses.replace(intent, **{field.name: value + d}) for d in (-1, 1)]
    return [c for c in out if c not in listed]


def fingerprint(state: GameState) -> tuple[Any, ...]:
    return (state.state_hash(), state.phase, state.actor, len(state.events), state.legal_intents())


@settings(PROPERTY, max_examples=8)
@given(config=configs(max_days=2), seed=seeds, play=seeds)
def test_legal_intents_are_exact_at_every_decision(config: GameConfig, seed: int, play: int) -> None:
    """R5.0.1: at every decision each listed intent applies (on a clone) and keeps the
    invariants; every near miss raises IllegalIntent and changes nothing."""
    state = new_game(config, seed)
    chooser = random.Random(play)
    refused = 0
    for step, intent in enumerate(decisions(state, chooser)):
        legal = state.legal_intents()
        assert legal and len(set(legal)) == len(legal)
        # Every intent at the first decisions of a game; then a sample, for the time it takes.
        for listed in legal if step < 10 else chooser.sample(legal, min(3, len(legal))):
            clone = state.clone()
            clone.apply(listed)
            if step < 10:
                assert_invariants(clone)
        before, quick = fingerprint(state), (state.phase, state.actor, len(state.events))
        for miss in near_misses(state, legal):
            try:
                state.apply(miss)
            except IllegalIntent:
                refused += 1
            else:
                raise AssertionError(f"{miss!r} is not listed but was applied")
            assert (state.phase, state.actor, len(state.events)) == quick, miss
        assert fingerprint(state) == before  # the hash once per decision: it costs
        assert intent in state.legal_intents()
    assert state.is_terminal() and refused > 0


# --------------------------------------------------------------------------- refused intents


@PROPERTY
@given(config=configs(max_days=2), seed=seeds, play=seeds, every=st.integers(1, 5))
def test_refused_intents_change_nothing_and_the_game_goes_on_alike(
    config: GameConfig, seed: int, play: int, every: int
) -> None:
    """R5.0.1: a game in which near misses are tried (and refused) at every ``every``-th
    decision has, after each decision, the hash of the same game played without them."""
    tried, clean = new_game(config, seed), new_game(config, seed)
    chooser = random.Random(play)
    attempts = 0
    for step, intent in enumerate(decisions(clean, chooser)):
        if step % every == 0:
            before = tried.state_hash()
            for miss in near_misses(tried, tried.legal_intents())[:20]:
                try:
                    tried.apply(miss)
                except IllegalIntent as error:
                    assert str(error).startswith(f"[{error.rule_id}] ")
                    attempts += 1
                else:
                    raise AssertionError(f"{miss!r} is not listed but was applied")
            assert tried.state_hash() == before
        assert tried.legal_intents() == clean.legal_intents()
        tried.apply(tried.legal_intents()[clean.legal_intents().index(intent)])
    assert attempts > 0
    assert tried.is_terminal() and tried.state_hash() == clean.state_hash()


# --------------------------------------------------------------------------- save and load


def saved_and_loaded(state: GameState, catalogue: Catalogue) -> GameState:
    """The state through a position file's text and back."""
    text = json.dumps(position_to_json(state), indent=1)
    loaded = parse_position(json.loads(text), catalogue)
    assert loaded is not state and loaded.state_hash() == state.state_hash()
    return loaded


@settings(PROPERTY, max_examples=15)
@given(config=configs(), seed=seeds, play=seeds, saves=st.lists(st.integers(0, 600), min_size=1, max_size=4))
def test_save_load_and_go_on_equals_never_saving(
    config: GameConfig, seed: int, play: int, saves: list[int]
) -> None:
    """C-rng.2: saving and loading a position at the drawn decisions (the loaded game then
    played on, and saved again later) gives, at every later decision, the same legal intents
    in the same order, the same hash and, at the end, the same revenue and winners."""
    catalogue = load_catalogue()
    ours, twin = new_game(config, seed, catalogue), new_game(config, seed, catalogue)
    chooser = random.Random(play)
    loads = 0
    for step, intent in enumerate(decisions(ours, chooser)):
        if step in saves:
            twin = saved_and_loaded(twin, catalogue)
            loads += 1
        assert twin.state_hash() == ours.state_hash()
        legal = twin.legal_intents()
        assert legal == ours.legal_intents()
        twin.apply(legal[ours.legal_intents().index(intent)])
    if not loads:  # the game ended before every drawn step: save the end
        twin = saved_and_loaded(twin, catalogue)
    assert twin.is_terminal() and ours.is_terminal()
    assert twin.state_hash() == ours.state_hash()
    assert (twin.revenue(), twin.winners()) == (ours.revenue(), ours.winners())


# --------------------------------------------------------------------------- views


def view_bytes(state: GameState, seat: int) -> bytes:
    return json.dumps(state.view(seat).snapshot(), sort_keys=True, default=repr).encode()


@PROPERTY
@given(
    config=configs(),
    seed=seeds,
    play=seeds,
    steps=st.integers(0, 400),
    deal=seeds,
)
def test_a_seats_view_is_blind_to_hidden_cards(
    config: GameConfig, seed: int, play: int, steps: int, deal: int
) -> None:
    """D-view.1: for every seat, a game whose other hands, Home Office and random stream were
    dealt again (``hide_differently``), and the game its own view determinizes, give that
    seat a view equal byte for byte; and the hidden cards are no part of the view."""
    state = new_game(config, seed)
    for _ in decisions(state, random.Random(play), limit=steps):
        pass
    for seat in range(state.n):
        mine = view_bytes(state, seat)
        other = hide_differently(state, seat, Rng(deal))
        assert view_bytes(other, seat) == mine
        full = state.view(seat).determinize(Rng(deal ^ 0x5EED))
        assert view_bytes(full, seat) == mine
        if seat == state.current_player():
            assert full.legal_intents() == state.legal_intents()
        if other.hands != state.hands or other.home_office != state.home_office:
            assert other.state_hash() != state.state_hash()


# --------------------------------------------------------------------------- bounded games


def train_cars(catalogue: Catalogue) -> int:
    """The most cars a train card allows (C-trays.5: never above what a tray moves)."""
    most = max(card.train.consist.max_cars for card in catalogue.cards if card.train is not None)
    assert most <= MAX_TRAY_CARS
    return most


def worker_supply(catalogue: Catalogue) -> int:
    """Every Laborer and Porter the catalogue's cards could ever give at once: each copy of a
    facility or a Modifier counted once (a Modifier serves one facility a Stage, R9.0.3)."""
    total = 0
    for card in catalogue.cards:
        for spec in (card.facility, card.modifier):
            if spec is not None:
                total += card.count * (spec.laborers + spec.porters)
    return total


def stage_bounds(config: GameConfig, catalogue: Catalogue) -> dict[str, int]:
    """The most decisions one Stage can hold, phase by phase, from the rules:

    - Local Operations (R6.0.1): one choice per seat; then either a card-play step (R6.2.2,
      R6.2.4: each PlayCard or Discard takes a card out of a hand of at most HAND_LIMIT + 1 at
      the turn's start, the Emergency Toolbox's RED FLAG (RB.4), + 1 drawn; then EndTurn) or a
      switching step (R6.1.2: at most 6 Moves, EndSwitching among them);
    - New Train (R7.1-R7.5): at most one train per Crew Tray (n + 3, C-trays.1), each asking
      every seat for one car (R7.4) or, an Extra, a side, its cars and EndConsist (R7.5);
    - Mainline (R8.0.1): every train acts once, with at most one Clearance (R8.1.4) and one
      RED FLAG decision (D-redflag.1);
    - Cargo (R9.0.1, R9.1.6): each action spends a worker, so every worker at most once
      (``worker_supply``) and one EndCargo per seat."""
    n = config.offices
    trays = n + EXTRA_TRAYS
    hand = HAND_LIMIT + 1 + 1
    return {
        "local": n * (1 + max(hand + 1, 6)),
        "new_train": trays * max(n, 1 + train_cars(catalogue) + 1),
        "mainline": trays * 2,
        "cargo": worker_supply(catalogue) + n,
    }


PHASE_GROUP = {
    Phase.LOCAL_OPS: "local",
    Phase.CARD_PLAY: "local",
    Phase.SWITCHING: "local",
    Phase.NEW_TRAIN: "new_train",
    Phase.EXTRA_SIDE: "new_train",
    Phase.EXTRA_CONSIST: "new_train",
    Phase.CLEARANCE: "mainline",
    Phase.RED_FLAG: "mainline",
    Phase.CARGO: "cargo",
}


def decision_bound(config: GameConfig, catalogue: Catalogue) -> int:
    """The most decisions a game of ``config`` can hold: a Stage's most, every Stage."""
    return config.days * STAGES_PER_DAY * sum(stage_bounds(config, catalogue).values())


def test_phase_groups_cover_every_deciding_phase() -> None:
    assert set(PHASE_GROUP) == set(Phase) - {Phase.GAME_OVER}


def test_the_bound_grows_with_the_configuration() -> None:
    catalogue = load_catalogue()
    small = decision_bound(GameConfig(offices=1, days=1), catalogue)
    large = decision_bound(GameConfig(offices=6, days=5), catalogue)
    assert 0 < small < large < 10**6


@settings(PROPERTY, max_examples=40)
@given(config=configs(), seed=seeds, play=seeds)
def test_every_game_ends_within_its_decision_bound(config: GameConfig, seed: int, play: int) -> None:
    """D-end.3: a game ends after ``days`` days (or at the target) within
    ``decision_bound``; each Stage keeps within ``stage_bounds``, and each step within the
    rule that bounds it: a seat's hand at its turn, its card plays, its Moves, its Cargo
    actions (its workers) and one Local Operations choice per seat."""
    catalogue = load_catalogue()
    state = new_game(config, seed, catalogue)
    bound = decision_bound(config, catalogue)
    per_stage: Counter[tuple[int, str]] = Counter()
    choices: Counter[tuple[int, int]] = Counter()
    chooser = random.Random(play)
    run: tuple[int, Phase, int] | None = None  # (stage, phase, seat) of the current step
    run_length = run_limit = 0
    played = 0
    while not state.is_terminal():
        assert played < bound, f"{played} decisions and no end: {config}"
        phase, seat, stage = state.phase, state.current_player(), state.stages_played
        if (stage, phase, seat) != run:
            run, run_length = (stage, phase, seat), 0
            run_limit = {
                Phase.CARD_PLAY: len(state.hands[seat]) + 1,  # each play or discard, then EndTurn
                Phase.SWITCHING: state.moves_left,  # R6.1.2
                Phase.CARGO: cargo_workers(state, seat) + 1,  # R9.1.6, then EndCargo
            }.get(phase, bound)
        if phase is Phase.LOCAL_OPS:
            assert len(state.hands[seat]) <= HAND_LIMIT + 1, state.hands[seat]
            choices[(stage, seat)] += 1
            assert choices[(stage, seat)] == 1, "two Local Operations choices in one Stage"
        run_length += 1
        assert run_length <= run_limit, (phase, seat, run_length, run_limit)
        per_stage[(stage, PHASE_GROUP[phase])] += 1
        intent = state.legal_intents()[chooser.randrange(len(state.legal_intents()))]
        state.apply(intent)
        played += 1
    limits = stage_bounds(config, catalogue)
    for (stage, group), count in per_stage.items():
        assert count <= limits[group], (stage, group, count, limits[group])
    assert state.stages_played <= config.days * STAGES_PER_DAY
    assert played <= bound


def cargo_workers(state: GameState, seat: int) -> int:
    """Every worker of the seat's station (R9.1.4, R9.1.5, with the Modifiers serving each)."""
    station = state.stations[state.office_of_seat[seat]]
    return sum(workers(state, station, cell) for cell in station.boxes)


# --------------------------------------------------------------------------- longer sweeps

test_legal_intents_are_exact_sweep = sweep(
    test_legal_intents_are_exact_at_every_decision, 25, config=configs(max_days=3), seed=seeds, play=seeds
)
test_save_load_sweep = sweep(
    test_save_load_and_go_on_equals_never_saving,
    40,
    config=configs(),
    seed=seeds,
    play=seeds,
    saves=st.lists(st.integers(0, 1200), min_size=1, max_size=8),
)
test_decision_bound_sweep = sweep(
    test_every_game_ends_within_its_decision_bound, 200, config=configs(), seed=seeds, play=seeds
)

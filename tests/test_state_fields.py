"""GameState's hand-written layout against its declaration (``sm_env.core.fields.LAYOUT``).

Nothing here names a field: every test enumerates the declaration, so a field added to the
state and not declared, or declared and then forgotten in ``__slots__``, ``clone``,
``snapshot``, ``load_snapshot`` or the setup, fails here."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from enum import Enum
from typing import Any

import pytest
from conftest import bots, hold_by_hand, new_state, of_kind

from sm_env.core import snapshot as snapshot_module
from sm_env.core.catalogue import CardKind
from sm_env.core.engine import load_snapshot
from sm_env.core.fields import DERIVED, FIELDS, LAYOUT, SLOTS, SNAPSHOT_KEYS, Clone, Field
from sm_env.core.phases import Phase
from sm_env.core.pieces import Boxes, Station, Tray
from sm_env.core.rng import Rng
from sm_env.core.state import GameState

# Mutable pieces a field may hold, walked into by their slots. A station's ``survey`` is left
# out: it is derived from the grid alone and shared on purpose by equal grids.
PIECES = (Station, Tray, Boxes, Rng)
SHARED_PARTS = frozenset({"survey"})

# Random games (offices, seed, days, house rules): among their positions every phase, and
# every field with content (a collision, held trains, pending Extras, workers used, ...).
GAMES: tuple[tuple[int, int, int, dict[str, bool]], ...] = (
    (3, 61, 3, {"emergency_toolbox": True}),
    (3, 51, 3, {"emergency_toolbox": True}),
    (4, 7, 2, {"sister_trains": True}),
    (2, 11, 2, {}),
    (3, 6, 3, {}),  # workers used in a Cargo turn
)


@functools.cache
def sample() -> tuple[GameState, ...]:
    """Copies of every 5th position of GAMES, of the first in each phase, and of their last."""
    out: list[GameState] = []
    for offices, seed, days, rules in GAMES:
        state = new_state(offices, seed, days=days, **rules)
        agents = bots(seed, offices)
        step = 0
        seen: set[object] = set()  # the phases and the fields with content met in this game
        while not state.is_terminal():
            new = {state.phase} | {field.name for field in LAYOUT if has_content(state, field)}
            if step % 5 == 0 or not new <= seen:
                seen |= new
                kept = state.clone()
                kept.events = state.events[-5:]  # a clone's start empty: keep some to test that
                out.append(kept)
            seat = state.current_player()
            state.apply(agents[seat].choose(state.view(seat)))
            step += 1
        out.append(state.clone())
    held = new_state(3, 5)  # trains held for want of a Crew Tray are rare in random play
    hold_by_hand(held, of_kind(CardKind.TRAIN)[0])
    out.append(held)
    return tuple(out)


def value(state: GameState, field: Field) -> Any:
    return getattr(state, field.name)


def plain(item: object) -> object:
    """A value in comparable form: pieces by their contents, tuples and lists apart."""
    if isinstance(item, PIECES):
        parts = [s for s in type(item).__slots__ if s not in SHARED_PARTS]
        return (type(item).__name__, *(plain(getattr(item, s)) for s in parts))
    if isinstance(item, dict):
        return {key: plain(v) for key, v in item.items()}
    if isinstance(item, set):
        return ("set", sorted(item))
    if isinstance(item, list):
        return [plain(v) for v in item]
    if isinstance(item, tuple):
        return (type(item).__name__, *(plain(v) for v in item))
    return item


def mutable_parts(item: object) -> dict[int, object]:
    """Every mutable object reachable from ``item`` (lists, dicts, sets, pieces), by id."""
    found: dict[int, object] = {}

    def walk(node: object) -> None:
        if isinstance(node, (list, dict, set, *PIECES)):
            if id(node) in found:
                return
            found[id(node)] = node
        if isinstance(node, dict):
            for key, child in node.items():
                walk(key)
                walk(child)
        elif isinstance(node, (list, tuple, set, frozenset)) and not isinstance(node, (str, Enum)):
            for child in node:
                walk(child)
        elif isinstance(node, PIECES):
            for slot in type(node).__slots__:
                if slot not in SHARED_PARTS:
                    walk(getattr(node, slot))

    walk(item)
    return found


def has_content(state: GameState, field: Field) -> bool:
    """``field`` holds something: it is not empty, None or 0."""
    return value(state, field) not in (None, 0, [], (), {})


def with_content(field: Field) -> Iterator[GameState]:
    return (state for state in sample() if has_content(state, field))


# --------------------------------------------------------------------------- the declaration


def test_slots_are_the_declared_fields_in_order() -> None:
    assert tuple(GameState.__slots__) == SLOTS
    assert len(set(SLOTS)) == len(SLOTS)


def test_annotations_are_the_declared_types() -> None:
    annotations = {name: str(kind) for name, kind in vars(GameState)["__annotations__"].items()}
    assert annotations == {field.name: field.type for field in LAYOUT}
    assert tuple(annotations) == SLOTS


def test_every_field_is_in_a_snapshot_or_says_what_it_is_derived_from() -> None:
    for field in LAYOUT:
        assert (field.key is None) == bool(field.derived), field.name
    assert {field.name for field in LAYOUT if field.key is None} == DERIVED
    assert set(SNAPSHOT_KEYS) == {field.key for field in LAYOUT if field.key is not None}


def test_the_snapshot_reader_takes_its_key_lists_from_the_declaration() -> None:
    assert snapshot_module.SNAPSHOT_KEYS == SNAPSHOT_KEYS
    assert snapshot_module.DERIVED_SLOTS == DERIVED


def test_the_sample_gives_every_mutable_field_content_and_reaches_every_phase() -> None:
    """So that the tests below are not vacuous."""
    assert {state.phase for state in sample()} == set(Phase)
    for field in LAYOUT:
        if field.clone is not Clone.SHARED:
            assert next(with_content(field), None) is not None, field.name


# --------------------------------------------------------------------------- clone


@pytest.mark.parametrize("field", LAYOUT, ids=lambda f: f.name)
def test_clone_copies_each_field_as_declared(field: Field) -> None:
    """SHARED: the same object; EMPTIED: empty; COPIED and EACH_COPIED: equal, and no mutable
    object of the clone's value (at any depth) is one of the original's."""
    for original in sample():
        original.legal_intents()  # the cache holds a list too
        other = original.clone()
        mine, theirs = value(original, field), value(other, field)
        if field.clone is Clone.SHARED:
            assert theirs is mine
        elif field.clone is Clone.EMPTIED:
            assert theirs == []
        else:
            assert plain(theirs) == plain(mine)
            shared = mutable_parts(theirs).keys() & mutable_parts(mine).keys()
            assert not shared, (
                f"{field.name}: the clone shares {[mutable_parts(mine)[i] for i in shared][:3]}"
            )


@pytest.mark.parametrize("field", LAYOUT, ids=lambda f: f.name)
def test_a_shallow_copy_holds_every_field_itself(field: Field) -> None:
    """``shallow_copy`` (a rollout's views): every field is the original's own object."""
    for original in sample()[::4]:
        original.legal_intents()
        assert value(original.shallow_copy(), field) is value(original, field)


def test_copied_fields_hold_only_immutable_items() -> None:
    """COPIED means a shallow copy is enough: the container is the only mutable part (a
    random stream is one object)."""
    for field in LAYOUT:
        if field.clone is Clone.COPIED:
            for state in with_content(field):
                item = value(state, field)
                assert list(mutable_parts(item)) == [id(item)], field.name


def test_playing_a_clone_leaves_the_original_alone() -> None:
    for k, original in enumerate(sample()[::3]):
        before = json.dumps(original.snapshot(), sort_keys=True)
        other = original.clone()
        agents = bots(k, other.n)
        for _ in range(25):
            if other.is_terminal():
                break
            seat = other.current_player()
            other.apply(agents[seat].choose(other.view(seat)))
        assert json.dumps(original.snapshot(), sort_keys=True) == before


# --------------------------------------------------------------------------- snapshot


def test_snapshot_writes_the_declared_keys(state: GameState) -> None:
    assert tuple(state.snapshot()) == SNAPSHOT_KEYS


@pytest.mark.parametrize("field", LAYOUT, ids=lambda f: f.name)
def test_snapshot_writes_each_field_under_its_key_alone(field: Field) -> None:
    """A state given another position's value of one field snapshots differently under that
    field's key and nowhere else; a derived field changes nothing."""
    states = sample()
    pairs = (
        (a, b)
        for a, b in zip(states, states[1:], strict=False)
        if plain(value(a, field)) != plain(value(b, field))
    )
    pair = next(pairs, None)
    if pair is None:  # the same in every game: static data, the engine
        assert field.clone is Clone.SHARED and field.key is None, field.name
        return
    base, donor = pair
    hybrid = base.clone()
    setattr(hybrid, field.name, value(donor.clone(), field))
    before, after = base.snapshot(), hybrid.snapshot()
    changed = {key for key in SNAPSHOT_KEYS if before[key] != after[key]}
    assert changed == (set() if field.key is None else {field.key}), field.name


@pytest.mark.parametrize("field", LAYOUT, ids=lambda f: f.name)
def test_load_snapshot_gives_back_every_field(field: Field) -> None:
    """Through JSON and back: each snapshotted field equal, each derived one derived again
    (events start empty; the legal intents are listed afresh, the same)."""
    for original in sample():
        rebuilt = load_snapshot(json.loads(json.dumps(original.snapshot())), original.config)
        assert hasattr(rebuilt, field.name), f"load_snapshot leaves {field.name!r} unset"
        if field.clone is Clone.EMPTIED:
            assert value(rebuilt, field) == []
        elif field.name == "legal_cache":
            assert rebuilt.legal_cache is None
            assert rebuilt.legal_intents() == original.legal_intents()
        else:
            assert plain(value(rebuilt, field)) == plain(value(original, field)), field.name


# --------------------------------------------------------------------------- setup


@pytest.mark.parametrize(
    "rules", [{}, {"emergency_toolbox": True, "sister_trains": True}], ids=["plain", "rb"]
)
@pytest.mark.parametrize("offices", [1, 3, 6])
def test_a_new_game_sets_every_field_as_its_snapshot_rebuilds_it(
    offices: int, rules: dict[str, bool]
) -> None:
    state = new_state(offices, 3, **rules)
    rebuilt = load_snapshot(state.snapshot(), state.config)
    for field in LAYOUT:
        assert hasattr(state, field.name), f"the setup leaves {field.name!r} unset"
        if field.clone is not Clone.EMPTIED and field.name != "legal_cache":
            assert plain(value(rebuilt, field)) == plain(value(state, field)), field.name


def test_fields_by_name() -> None:
    assert list(FIELDS) == list(SLOTS)
    assert all(FIELDS[field.name] is field for field in LAYOUT)

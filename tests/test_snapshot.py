"""Rebuilding a state from its snapshot (C-rng.2): ``from_snapshot`` gives the same hash and
the same continuation as the original, shares nothing with it, and refuses malformed or
inconsistent data with a SnapshotError naming the place; position files save and load one
state."""

from __future__ import annotations

import contextlib
import copy
import functools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    CAT,
    HOUSE_RULES,
    assert_invariants,
    bots,
    new_state,
    of_kind,
    pass_local_ops,
    put_tray_in_station,
    schedule_by_hand,
)

from agents import RandomAgent
from sm_env.core.catalogue import CardKind
from sm_env.core.config import GameConfig
from sm_env.core.engine import load_snapshot
from sm_env.core.errors import ConfigError, ReplayError, SnapshotError
from sm_env.core.phases import Phase
from sm_env.core.pieces import Boxes, Station, Tray
from sm_env.core.replay import load_position, position_to_json, save_position
from sm_env.core.rng import Rng
from sm_env.core.snapshot import DERIVED_SLOTS, SNAPSHOT_KEYS
from sm_env.core.state import GameState

# GameState's fields: its __slots__, or as a class compiled with mypyc, which keeps none, the
# attributes it lays out (the same names, in the same order).
STATE_SLOTS: tuple[str, ...] = vars(GameState).get("__slots__") or vars(GameState)["__mypyc_attrs__"]

# (offices, seed, days, house-rule bit mask, co-op): 1-6 offices, all 16 combinations of the
# four Appendix B rules, half of the games with the overnight_yard variant too, both modes;
# RED_FLAG_GAME reaches a RED FLAG decision, the last game a rich Local Operations position.
Game = tuple[int, int, int, int, bool]
RED_FLAG_GAME: Game = (3, 61, 3, 8, False)
GAMES: list[Game] = [
    *((1 + i % 6, 100 + i, 1 + i % 3, i % 16 | 16 * (i // 12), False) for i in range(24)),
    (2, 140, 2, 5, True),
    (5, 141, 2, 26, True),
    RED_FLAG_GAME,
    (3, 37, 3, 8, False),
]
POSITIONS_PER_PHASE = 12
CONTINUATION = 40  # decisions played on from each rebuilt position


def rules_of(mask: int) -> dict[str, bool]:
    return {name: bool(mask >> i & 1) for i, name in enumerate(HOUSE_RULES)}


def start(game: tuple[int, int, int, int, bool]) -> GameState:
    offices, seed, days, mask, coop = game
    if coop:
        return new_state(offices, seed, days=days, target=40, mode="coop", **rules_of(mask))
    return new_state(offices, seed, days=days, **rules_of(mask))


def positions(game: tuple[int, int, int, int, bool]) -> Iterator[GameState]:
    """The live state at every decision of a random game, and at its end."""
    state = start(game)
    agents = bots(game[1], state.n)
    while not state.is_terminal():
        yield state
        state.apply(agents[state.current_player()].choose(state.view(state.current_player())))
    yield state


def rebuild(state: GameState) -> GameState:
    """From the snapshot as it would come back from a JSON file."""
    return load_snapshot(json.loads(json.dumps(state.snapshot())), state.config)


@functools.cache
def sampled() -> dict[Phase, list[GameState]]:
    """Copies of positions in each phase over GAMES: the first and every 7th of the phase in
    each game, at most POSITIONS_PER_PHASE a phase."""
    out: dict[Phase, list[GameState]] = {}
    for game in GAMES:
        seen: dict[Phase, int] = {}
        for state in positions(game):
            count = seen.get(state.phase, 0)
            seen[state.phase] = count + 1
            kept = out.setdefault(state.phase, [])
            if count % 7 == 0 and len(kept) < POSITIONS_PER_PHASE:
                kept.append(state.clone())
    return out


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g[0]}offices-seed{g[1]}-days{g[2]}-rules{g[3]}")
def test_c_rng_2_round_trip_gives_the_same_hash_at_every_decision(
    game: tuple[int, int, int, int, bool],
) -> None:
    """C-rng.2: at every decision and at the end, the state rebuilt from its snapshot (through
    JSON, or straight from the snapshot's lists) hashes as the original."""
    for i, state in enumerate(positions(game)):
        rebuilt = rebuild(state)
        assert rebuilt.state_hash() == state.state_hash()
        if i % 25 == 0:
            assert load_snapshot(state.snapshot(), state.config).state_hash() == state.state_hash()
            assert_invariants(rebuilt)


def test_d_run_3_a_train_running_in_two_sections_round_trips() -> None:
    """D-run.3: a timetabled card on two trays (its second section being made up, then
    ready) is a valid state: it rebuilds to the same hash."""
    state = new_state(2, 1)
    card = CAT.by_id["train-1"]
    schedule_by_hand(state, card, 0)
    put_tray_in_station(state, 0, (0, 1), train_id="train-1")
    pass_local_ops(state)
    assert state.phase is Phase.NEW_TRAIN
    for _ in range(2):
        assert sum(t.train == card for t in state.trays) == 2
        assert rebuild(state).state_hash() == state.state_hash()
        assert_invariants(rebuild(state))
        state.apply(state.legal_intents()[0])


def test_c_rng_2_the_sample_reaches_every_phase() -> None:
    """Switching, Card play, New Train, both Extra decisions, Clearance, RED FLAG, Cargo and
    game over are all among the rebuilt positions."""
    assert set(sampled()) == set(Phase)


@pytest.mark.parametrize("phase", list(Phase), ids=lambda p: p.value)
def test_c_rng_2_rebuilt_state_continues_as_the_original(phase: Phase) -> None:
    """C-rng.2: from a rebuilt position the same decisions give the same legal choices, the
    same events and the same hash after each one."""
    for k, position in enumerate(sampled()[phase]):
        original = position.clone()
        rebuilt = rebuild(original)
        agent = RandomAgent(1000 + k)
        for _ in range(CONTINUATION):
            assert rebuilt.current_player() == original.current_player()
            assert rebuilt.legal_intents() == original.legal_intents()
            if original.is_terminal():
                break
            intent = agent.choose(original.view(original.current_player()))
            original.apply(intent)
            rebuilt.apply(intent)
            assert rebuilt.state_hash() == original.state_hash()
        assert rebuilt.events == original.events
        assert rebuilt.winners() == original.winners()


def plain(value: object) -> object:
    """A slot's value in comparable form: pieces by their contents; tuples and lists apart."""
    if isinstance(value, Rng):
        return ("Rng", value.state)
    if isinstance(value, Tray):
        return ("Tray", value.snapshot(), value.cell, value.consist)
    if isinstance(value, Boxes):
        return ("Boxes", value.outbound, value.inbound, value.work, value.unloading)
    if isinstance(value, Station):
        boxes = {cell: plain(b) for cell, b in value.boxes.items()}
        return ("Station", value.grid, boxes, value.cars, value.modifiers)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, tuple):
        return (type(value).__name__, *(plain(v) for v in value))
    return value


@pytest.mark.parametrize("phase", list(Phase), ids=lambda p: p.value)
def test_every_slot_is_set_and_equal_to_the_original(phase: Phase) -> None:
    """A slot GameState gains and from_snapshot does not set fails here; events start empty,
    as in a clone."""
    slots = STATE_SLOTS
    assert set(slots) >= DERIVED_SLOTS
    original = sampled()[phase][-1]
    rebuilt = rebuild(original)
    for slot in slots:
        assert hasattr(rebuilt, slot), f"from_snapshot leaves slot {slot!r} unset"
        if slot == "events":
            assert rebuilt.events == []
        elif slot == "legal_cache":  # derived: listed when asked for, or kept from the last decision
            assert rebuilt.legal_intents() == original.legal_intents()
        else:
            assert plain(getattr(rebuilt, slot)) == plain(getattr(original, slot)), slot


def test_snapshot_keys_are_the_ones_the_state_writes(state: GameState) -> None:
    assert tuple(state.snapshot()) == SNAPSHOT_KEYS


def test_rebuilt_state_shares_nothing_with_the_data() -> None:
    """Emptying every list of the snapshot afterwards leaves the rebuilt state alone."""
    original = sampled()[Phase.RED_FLAG][0]
    data = original.snapshot()
    rebuilt = load_snapshot(data, original.config)

    def empty(node: object) -> None:
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else []
        for child in list(children):
            empty(child)
        if isinstance(node, list):
            node.clear()

    empty(data)
    assert rebuilt.state_hash() == original.state_hash()


@pytest.mark.parametrize("phase", [Phase.SWITCHING, Phase.CARGO, Phase.RED_FLAG], ids=lambda p: p.value)
def test_c_rng_2_rebuilt_and_original_are_independent(phase: Phase) -> None:
    """Playing on either leaves the other as it was."""
    original = sampled()[phase][0].clone()
    before = original.state_hash()
    rebuilt = rebuild(original)
    agents = bots(7, original.n)
    for _ in range(30):
        if not original.is_terminal():
            original.apply(agents[original.current_player()].choose(original.view(original.current_player())))
    assert rebuilt.state_hash() == before
    after = original.state_hash()
    agents = bots(8, rebuilt.n)
    for _ in range(30):
        if not rebuilt.is_terminal():
            rebuilt.apply(agents[rebuilt.current_player()].choose(rebuilt.view(rebuilt.current_player())))
    assert original.state_hash() == after


def test_from_snapshot_needs_a_game_config(state: GameState) -> None:
    with pytest.raises(ConfigError, match="config must be a GameConfig"):
        load_snapshot(state.snapshot(), state.config.to_dict())  # type: ignore[arg-type]


def test_another_config_is_refused(state: GameState) -> None:
    """The config gives the sizes the data must have: two offices' data is not a third's."""
    with pytest.raises(SnapshotError, match=r"office_of_seat: must have 3 entries \(one per seat\), got 2"):
        load_snapshot(state.snapshot(), GameConfig(offices=3))


# --------------------------------------------------------------------------- corrupted snapshots


def first(
    predicate: Callable[[GameState], bool], game: tuple[int, int, int, int, bool] = GAMES[-1]
) -> GameState:
    """The first position of ``game`` (by default the last of GAMES) that satisfies ``predicate``."""
    return next(state.clone() for state in positions(game) if predicate(state))


def rich(state: GameState) -> bool:
    """Local Operations with trains in a station and on the Mainline and a free tray, cars
    standing on cards and in boxes, a Modifier laid and a ledger entry."""
    return (
        state.phase is Phase.LOCAL_OPS
        and any(t.office != -1 for t in state.trays)
        and any(t.line != -1 for t in state.trays)
        and any(t.train == -1 for t in state.trays)
        and any(st.cars for st in state.stations)
        and any(b.cars() for st in state.stations for b in st.boxes.values())
        and any(st.modifiers for st in state.stations)
        and bool(state.ledger)
    )


@pytest.fixture(scope="module")
def local() -> GameState:
    return first(rich)


@pytest.fixture(scope="module")
def red_flag() -> GameState:
    return first(lambda state: state.phase is Phase.RED_FLAG, RED_FLAG_GAME)


Edit = Callable[[dict[str, Any], GameState], object]


def at(data: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        data = data[key]
    return data


def put(path: tuple[Any, ...], value: object) -> Edit:
    def edit(data: dict[str, Any], state: GameState) -> None:
        at(data, path[:-1])[path[-1]] = value

    return edit


def add(path: tuple[Any, ...], delta: int) -> Edit:
    def edit(data: dict[str, Any], state: GameState) -> None:
        at(data, path[:-1])[path[-1]] += delta

    return edit


def tray_where(state: GameState, where: str) -> int:
    """The first tray free, standing in a station or on the Mainline."""
    test = {
        "free": lambda t: t.train == -1,
        "station": lambda t: t.office != -1,
        "line": lambda t: t.line != -1,
    }[where]
    return next(i for i, t in enumerate(state.trays) if test(t))


def on_tray(where: str, field: int, value: object) -> Edit:
    def edit(data: dict[str, Any], state: GameState) -> None:
        data["trays"][tray_where(state, where)][field] = value

    return edit


def station_with(state: GameState, part: str) -> int:
    return next(office for office, st in enumerate(state.stations) if getattr(st, part))


def in_station(part: str, path: tuple[Any, ...], value: object) -> Edit:
    """Set ``path`` inside the first entry of ``part`` of the first station that has one."""

    def edit(data: dict[str, Any], state: GameState) -> None:
        at(data["stations"][station_with(state, part)][part][0], path[:-1])[path[-1]] = value

    return edit


def duplicate_card(data: dict[str, Any], state: GameState) -> None:
    data["salvage"].append(next(card for card in state.set_aside if CAT.cards[card].count == 1))


def missing_car(data: dict[str, Any], state: GameState) -> None:
    code = next(code for code, count in enumerate(state.division) if count)
    data["division"][code] -= 1


def extra_car_in_a_box(data: dict[str, Any], state: GameState) -> None:
    box = data["stations"][station_with(state, "boxes")]["boxes"][0]
    box[1].append(box[1][0] if box[1] else 1)


def tray_in_two_places(data: dict[str, Any], state: GameState) -> None:
    data["trays"][tray_where(state, "station")][9] = True  # also at its Division Point


def tray_nowhere(data: dict[str, Any], state: GameState) -> None:
    tray = data["trays"][tray_where(state, "station")]
    tray[0], tray[1], tray[5] = -1, None, 0


def two_trays_on_one_region(data: dict[str, Any], state: GameState) -> None:
    on_line = data["trays"][tray_where(state, "line")]
    other = data["trays"][tray_where(state, "station")]
    other[0], other[1], other[5] = -1, None, 0
    other[7], other[8], other[10] = on_line[7], on_line[8], 0


def tray_off_the_grid(data: dict[str, Any], state: GameState) -> None:
    index = tray_where(state, "station")
    grid = state.stations[state.trays[index].office].grid
    data["trays"][index][1] = next([2, c] for c in range(-5, 6) if (2, c) not in grid)


def two_engines(data: dict[str, Any], state: GameState) -> None:
    data["trays"][tray_where(state, "station")][2].append(-1)


def beyond_its_card(data: dict[str, Any], state: GameState) -> None:
    """The train on the Mainline moved to region 1 of a free one-region card (D-mainline.1)."""
    index = tray_where(state, "line")
    taken = {t.line for t in state.trays}
    short = next(
        line for line, card in enumerate(state.mainline) if CAT.cards[card].regions == 1 and line not in taken
    )
    data["trays"][index][7], data["trays"][index][8] = short, 1


def box_on_a_track_card(data: dict[str, Any], state: GameState) -> None:
    office = station_with(state, "boxes")
    grid = state.stations[office].grid
    track = next(cell for cell, (card, _) in grid.items() if CAT.cards[card].kind is CardKind.TRACK)
    data["stations"][office]["boxes"][0][0] = list(track)


def unsorted_hand(data: dict[str, Any], state: GameState) -> None:
    low, high = sorted(set(state.home_office))[:2]
    data["home_office"].remove(low)
    data["home_office"].remove(high)
    data["hands"][0] = [high, low]


def held_off_the_chart(data: dict[str, Any], state: GameState) -> None:
    data["held"] = [next(card for card in of_kind(CardKind.TRAIN) if card not in state.timetable)]


def timetable_with_a_mainline_card(data: dict[str, Any], state: GameState) -> None:
    data["timetable"][data["timetable"].index(-1)] = data["mainline"][0]


def grid_without_office(data: dict[str, Any], state: GameState) -> None:
    grid = data["stations"][0]["grid"]
    grid[:] = [entry for entry in grid if entry[0] != [0, 0]]


def grid_cell_twice(data: dict[str, Any], state: GameState) -> None:
    grid = data["stations"][0]["grid"]
    grid.append(copy.deepcopy(grid[0]))


def unserved_modifier(data: dict[str, Any], state: GameState) -> None:
    data["stations"][station_with(state, "modifiers")]["modifiers"].clear()


def collision_outside_red_flag(data: dict[str, Any], state: GameState) -> None:
    data["collision"] = [0, -1, 0, [0, 1], 0, "R10.2", "nowhere"]


def red_flag_given_away(data: dict[str, Any], state: GameState) -> None:
    hand = data["hands"][state.actor]
    hand.remove(state.red_flag_card)
    data["salvage"].append(state.red_flag_card)


def not_an_object(data: dict[str, Any], state: GameState) -> object:
    return [data]


def drop_key(key: str) -> Edit:
    def edit(data: dict[str, Any], state: GameState) -> None:
        del data[key]

    return edit


def drop_last(key: str) -> Edit:
    def edit(data: dict[str, Any], state: GameState) -> None:
        data[key].pop()

    return edit


def truncate(key: str, keep: int) -> Edit:
    def edit(data: dict[str, Any], state: GameState) -> None:
        del data[key][keep:]

    return edit


# Each: one edit of a good Local Operations snapshot, and what the SnapshotError says.
CORRUPTIONS: list[Any] = [
    # shape: keys and types
    pytest.param(not_an_object, r"^snapshot: must be a JSON object, got list$", id="not-an-object"),
    pytest.param(drop_key("rng"), r"^snapshot: missing key\(s\): rng$", id="missing-key"),
    pytest.param(put(("comment",), "hi"), r"^snapshot: unknown key\(s\): 'comment'$", id="unknown-key"),
    pytest.param(
        put(("day",), True), r"^snapshot: day: True is not a day of the game \(0\.\.2\)$", id="bool-day"
    ),
    pytest.param(put(("stage",), 1.0), r"stage: 1\.0 is not a stage \(0\.\.11\)", id="float-stage"),
    pytest.param(put(("hands",), ()), r"hands: must be a list, got tuple", id="tuple-for-list"),
    pytest.param(put(("day",), 10**5000), r"day: a value too large to show is not a day", id="huge-int"),
    pytest.param(put(("turn",), "0"), r"turn: '0' is not a seat position \(0\.\.3\)", id="str-turn"),
    pytest.param(
        put(("stations", 0, "tracks"), []), r"stations\[0\]: unknown key\(s\): 'tracks'", id="station-key"
    ),
    pytest.param(
        put(("ledger", 0), [0, 0, 0, 5]),
        r"ledger\[0\]: must be a list of 6 \[day, stage, seat",
        id="entry-length",
    ),
    # lengths
    pytest.param(
        truncate("hands", 2),
        r"^snapshot: hands: must have 3 entries \(one per seat\), got 2$",
        id="hands-length",
    ),
    pytest.param(
        truncate("timetable", 11), r"timetable: must have 12 entries \(one per stage\)", id="timetable"
    ),
    pytest.param(truncate("departments", 2), r"departments: must have 3 entries, got 2", id="departments"),
    pytest.param(
        truncate("division", 11), r"division: must have 12 entries \(one per car code\)", id="division"
    ),
    pytest.param(
        truncate("classification", 0), r"classification: must have 12 entries", id="classification-length"
    ),
    pytest.param(
        truncate("trays", 5), r"trays: must have 6 entries \(offices \+ 3, C-trays\.1\)", id="trays"
    ),
    pytest.param(truncate("stations", 1), r"stations: must have 3 entries \(one per office\)", id="stations"),
    pytest.param(truncate("office_of_seat", 2), r"office_of_seat: must have 3 entries", id="seats-length"),
    pytest.param(
        truncate("mainline", 3), r"mainline: must have 4 entries \(one per gap and end\)", id="mainline"
    ),
    # ranges
    pytest.param(put(("day",), 3), r"day: 3 is not a day of the game \(0\.\.2\)", id="day-range"),
    pytest.param(put(("stage",), 12), r"stage: 12 is not a stage \(0\.\.11\)", id="stage-range"),
    pytest.param(put(("rng",), -1), r"rng: -1 is not an integer \(0\.\.4294967295\)", id="rng-range"),
    pytest.param(
        put(("phase",), "lunch"), r"phase: 'lunch' is not a phase \(one of local_operations, ", id="phase"
    ),
    pytest.param(put(("phase",), 2), r"phase: 2 is not a phase", id="phase-type"),
    pytest.param(put(("fedora",), 3), r"fedora: 3 is not a seat \(0\.\.2\)", id="fedora"),
    pytest.param(put(("actor",), -2), r"actor: -2 is not a seat or -1 \(-1\.\.2\)", id="actor"),
    pytest.param(put(("moves_left",), 7), r"moves_left: 7 is not an integer \(0\.\.6\)", id="moves-range"),
    pytest.param(
        put(("hands", 1), [12, 999]),
        r"^snapshot: hands\[1\]\[1\]: 999 is not a card index \(0\.\.\d+\)$",
        id="card-index",
    ),
    pytest.param(put(("salvage",), [-1]), r"salvage\[0\]: -1 is not a card index", id="card-negative"),
    pytest.param(
        timetable_with_a_mainline_card,
        r"timetable\[\d+\]: card \d+ \('[a-z0-9-]+'\) is of kind 'mainline', not 'train'",
        id="card-kind",
    ),
    pytest.param(put(("held",), [0.5]), r"held\[0\]: 0\.5 is not a card index", id="held-type"),
    pytest.param(put(("division", 0), -1), r"division\[0\]: -1 is not a count \(0\.\.\d+\)", id="count"),
    pytest.param(
        put(("classification", 1), True), r"classification\[1\]: True is not a count", id="bool-count"
    ),
    pytest.param(
        in_station("cars", (1, 0), 12),
        r"stations\[\d\]\.cars\[0\]\[1\] \(cars\)\[0\]: 12 is not a car code \(0\.\.11, 16\.\.27 flipped\)$",
        id="car-code",
    ),
    pytest.param(
        in_station("boxes", (3, 0), 17),
        r"boxes\[0\]\[3\] \(work\)\[0\]: 17 is not a car code \(0\.\.11, or -1 for an empty slot\)$",
        id="flipped-car-in-a-box",
    ),
    pytest.param(
        on_tray("station", 2, [-1, 99]),
        r"trays\[\d\]\[2\] \(consist\)\[1\]: 99 is not a car code "
        r"\(0\.\.11, 16\.\.27 flipped, or -1 for the engine\)",
        id="consist-code",
    ),
    pytest.param(
        on_tray("free", 3, 0), r"trays\[\d\]\[3\] \(facing\): 0 is not a facing \(1 or -1\)", id="facing"
    ),
    pytest.param(
        on_tray("line", 7, 4),
        r"trays\[\d\]\[7\] \(line\): 4 is not a Mainline card or -1 \(-1\.\.3\)",
        id="line",
    ),
    pytest.param(
        on_tray("station", 0, 3), r"trays\[\d\]\[0\] \(office\): 3 is not an office or -1", id="office"
    ),
    pytest.param(
        put(("ledger", 0, 2), 7), r"ledger\[0\]\[2\] \(seat\): 7 is not a seat \(0\.\.2\)", id="ledger-seat"
    ),
    pytest.param(
        put(("building",), [9, -1, 0]), r"building\[0\] \(tray\): 9 is not a Crew Tray index", id="build"
    ),
    pytest.param(
        put(("pending_extras",), [[of_kind(CardKind.EXTRA_TRAIN)[0], 5]]),
        r"pending_extras\[0\]\[1\] \(seat\): 5 is not a seat \(0\.\.2\)",
        id="extra-seat",
    ),
    pytest.param(
        put(("mainline_queue",), [6]), r"mainline_queue\[0\]: 6 is not a Crew Tray index", id="queue"
    ),
    # cells
    pytest.param(
        put(("stations", 0, "grid", 0, 0), [0]),
        r"stations\[0\]\.grid\[0\]\[0\] \(cell\): \[0\] is not a cell: \[row, col\] integers",
        id="cell-length",
    ),
    pytest.param(put(("stations", 0, "grid", 0, 0), [0, "1"]), r"is not a cell", id="cell-str"),
    pytest.param(put(("stations", 0, "grid", 0, 0), [True, 0]), r"\[True, 0\] is not a cell", id="cell-bool"),
    pytest.param(
        put(("stations", 0, "grid", 0, 0), [3, 0]),
        r"row in -2\.\.2 and col in -5\.\.5 \(D-grid\.9\)",
        id="D-grid.9-cell-out",
    ),
    pytest.param(
        put(("workers_used",), [[[0, 0, 0], 1]]), r"workers_used\[0\]\[0\] \(cell\)", id="workers-cell"
    ),
    pytest.param(
        put(("workers_used",), [[[0, 0], 1], [[0, 0], 1]]), r"cell \[0, 0\] appears twice", id="workers-twice"
    ),
    # seats (D-seat.1)
    pytest.param(
        put(("office_of_seat",), [0, 0, 1]),
        r"office_of_seat: \[0, 0, 1\] is not a permutation of 0\.\.2: office 0 is held by two seats",
        id="D-seat.1-not-a-permutation",
    ),
    pytest.param(
        put(("office_of_seat",), [0, 1, 3]), r"office_of_seat\[2\]: 3 is not an office", id="seat-office"
    ),
    # hands and stations
    pytest.param(unsorted_hand, r"hands\[\d\]: \[.*\] is not sorted", id="hand-unsorted"),
    pytest.param(
        grid_without_office, r"stations\[0\]\.grid: no office card on cell \[0, 0\]", id="R4.1-no-office"
    ),
    pytest.param(
        grid_cell_twice,
        r"stations\[0\]\.grid\[\d+\]\[0\] \(cell\): cell \[.*\] appears twice",
        id="grid-twice",
    ),
    pytest.param(
        box_on_a_track_card,
        r"boxes\[0\]\[0\] \(cell\): \[.*\] is not a cell with a facility card",
        id="box-on-track",
    ),
    pytest.param(
        in_station("cars", (1,), []), r"cars\[0\]\[1\] \(cars\): must list the cars", id="no-cars-listed"
    ),
    pytest.param(
        in_station("modifiers", (1,), [2, 5]),
        r"modifiers\[0\]\[1\] \(serves\): \[2, 5\] is not a facility with boxes",
        id="R9.0.3-modifier-serves",
    ),
    pytest.param(
        unserved_modifier,
        r"modifiers: the Modifier at \[.*\] serves no facility",
        id="R9.0.3-modifier-unserved",
    ),
    # card conservation
    pytest.param(
        duplicate_card,
        r"^snapshot: cards: 2 copies of '[a-z0-9-]+' \(card \d+\) in the game \(salvage, set_aside\); "
        r"the catalogue has 1$",
        id="card-duplicated",
    ),
    pytest.param(
        drop_last("home_office"),
        r"cards: .* in the game.*; the catalogue has",
        id="card-lost",
    ),
    pytest.param(
        held_off_the_chart,
        r"held\[0\]: card \d+ \('train-\d+'\) is not on the timetable \(R7\.1\)",
        id="R7.1-held-off-the-chart",
    ),
    # car conservation (C-stock.1)
    pytest.param(
        missing_car,
        r"^snapshot: cars: \d+ .+ car\(s\) in the game \(Division Yard \d+, Classification Yard \d+, "
        r"trains \d+, "
        r"station cards \d+, facility boxes \d+\); the supply has \d+ \(C-stock\.1\)$",
        id="C-stock.1-car-missing",
    ),
    pytest.param(
        extra_car_in_a_box,
        r"cars: .*facility boxes \d+\); the supply has .*C-stock\.1",
        id="C-stock.1-car-extra",
    ),
    # revenue (R2.4.7)
    pytest.param(
        add(("revenue", 0), 1),
        r"^snapshot: revenue\[0\]: -?\d+ is not the sum of seat 0's ledger entries, -?\d+ \(R2\.4\.7\)$",
        id="R2.4.7-revenue-vs-ledger",
    ),
    pytest.param(put(("ledger",), []), r"revenue\[\d\]: -?\d+ is not the sum", id="R2.4.7-ledger-lost"),
    # Crew Trays (C-trays.1)
    pytest.param(
        tray_in_two_places,
        r"trays\[\d\]: a train is in exactly one place; this one is at its Division Point and in a station",
        id="C-trays.1-tray-in-two-places",
    ),
    pytest.param(
        tray_nowhere,
        r"trays\[\d\]: a train is in exactly one place; this one is nowhere",
        id="C-trays.1-tray-nowhere",
    ),
    pytest.param(
        on_tray("free", 0, 0),
        r"trays\[\d\]: a free tray \(train -1\) has nothing else set",
        id="C-trays.1-free-tray-set",
    ),
    pytest.param(
        two_engines,
        r"trays\[\d\]: a train has exactly one engine \(-1\) in its consist",
        id="C-trays.1-two-engines",
    ),
    pytest.param(
        two_trays_on_one_region,
        r"trays\[\d\]: region \d+ of Mainline \d+ is taken by trays\[\d\] \(D-mainline\.3\)",
        id="D-mainline.3-two-trays-one-region",
    ),
    pytest.param(beyond_its_card, r"trays\[\d\]: Mainline \d has regions 0\.\.0, not 1", id="no-region"),
    pytest.param(
        on_tray("line", 8, 9), r"trays\[\d\]\[8\] \(region\): 9 is not a Mainline region", id="region"
    ),
    pytest.param(
        tray_off_the_grid, r"trays\[\d\]: its cell \[2, -?\d\] is not on the grid of station", id="grid"
    ),
    # the phase and who decides (R5.0.1)
    pytest.param(
        put(("turn",), 3),
        r"turn: 3 is not a seat position \(0\.\.2\), as 'local_operations' needs",
        id="R5.0.1-turn",
    ),
    pytest.param(put(("actor",), 1), r"actor: must be -1 in 'local_operations'", id="R5.0.1-actor-in-turn"),
    pytest.param(
        put(("phase",), "clearance"),
        r"actor: 'clearance' needs the deciding seat \(0\.\.2\), got -1",
        id="R5.0.1-no-actor",
    ),
    pytest.param(
        put(("moves_left",), 3), r"moves_left: 3 Moves left do not fit 'local_operations'", id="R6.1.2-moves"
    ),
    pytest.param(
        put(("building",), [0, -1, 0]),
        r"building: a train is being made up exactly in the New Train",
        id="building",
    ),
    pytest.param(
        put(("mainline_queue",), [0]),
        r"mainline_queue: trains queue only during the Mainline",
        id="queue-outside",
    ),
    pytest.param(
        collision_outside_red_flag, r"collision: a collision waits only in 'red_flag'", id="collision"
    ),
    pytest.param(
        add(("stages_played",), 1), r"stages_played: \d+ does not agree with day \d, stage", id="clock"
    ),
]


def refuse(data: object, state: GameState, match: str) -> None:
    with pytest.raises(SnapshotError, match=match):
        load_snapshot(data, state.config)


@pytest.mark.parametrize(("edit", "match"), CORRUPTIONS)
def test_corrupted_snapshot_is_refused_naming_the_place(local: GameState, edit: Edit, match: str) -> None:
    """C-stock.1, R2.4.7, C-trays.1, D-seat.1, R5.0.1: each corruption is a SnapshotError
    whose message names the field and what was expected."""
    data = json.loads(json.dumps(local.snapshot()))
    replaced = edit(data, local)
    refuse(data if replaced is None else replaced, local, match)


RED_FLAG_CORRUPTIONS: list[Any] = [
    pytest.param(put(("collision",), None), r"collision: 'red_flag' needs the collision", id="no-collision"),
    pytest.param(put(("collision",), [1, 2]), r"collision: must be a list of 7 \[mover, struck", id="shape"),
    pytest.param(put(("collision", 3), [0]), r"collision\[3\] \(cell\): \[0\] is not a cell", id="cell"),
    pytest.param(put(("collision", 4), 3), r"collision\[4\] \(seat\): 3 is not a seat", id="seat-range"),
    pytest.param(
        red_flag_given_away,
        r"hands\[\d\]: the seat deciding on a RED FLAG holds none \(D-redflag\.1\)",
        id="flag",
    ),
    pytest.param(
        put(("mainline_queue",), []), r"mainline_queue: 'red_flag' needs the acting train", id="queue"
    ),
    pytest.param(put(("turn",), 0), r"turn: must be 3 in 'red_flag'", id="R5.0.1-turn"),
    pytest.param(
        put(("collision", 3), [0, 4]), r"collision: a train striking standing cars names", id="cars"
    ),
]


@pytest.mark.parametrize(("edit", "match"), RED_FLAG_CORRUPTIONS)
def test_d_redflag_1_corrupted_red_flag_decision_is_refused(
    red_flag: GameState, edit: Edit, match: str
) -> None:
    """D-redflag.1: the RED FLAG decision needs its collision and the seat charged with it."""
    data = json.loads(json.dumps(red_flag.snapshot()))
    edit(data, red_flag)
    refuse(data, red_flag, match)


def test_game_over_snapshot_is_fine() -> None:
    """D-end.3: a finished game rebuilds; nobody decides."""
    final = sampled()[Phase.GAME_OVER][0]
    rebuilt = rebuild(final)
    assert rebuilt.is_terminal() and rebuilt.current_player() == -1 and rebuilt.legal_intents() == []
    assert rebuilt.winners() == final.winners()


def nodes(data: object, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, child in items:
        yield from nodes(child, (*path, key))


JUNK: tuple[object, ...] = (None, "x", -2, 99, True, 1.5, [], {}, [0, 0])


def test_any_edit_of_any_field_is_a_snapshot_error_or_a_valid_state(red_flag: GameState) -> None:
    """Never a bare KeyError, TypeError or IndexError: every node of a snapshot replaced by
    junk, or dropped, gives SnapshotError or (when the edit happens to be consistent) a state."""
    text = json.dumps(red_flag.snapshot())
    for path in list(nodes(json.loads(text)))[1:]:
        for value in (*JUNK, "drop"):
            data = json.loads(text)
            parent = at(data, path[:-1])
            if value == "drop":
                del parent[path[-1]]
            else:
                parent[path[-1]] = value
            with contextlib.suppress(SnapshotError):
                load_snapshot(data, red_flag.config)


# --------------------------------------------------------------------------- position files


@pytest.mark.parametrize("phase", [Phase.CARD_PLAY, Phase.SWITCHING, Phase.RED_FLAG, Phase.GAME_OVER])
def test_c_rng_2_position_file_round_trip(tmp_path: Path, phase: Phase) -> None:
    """C-rng.2: a saved position loads to a state of the same hash that plays on the same."""
    original = sampled()[phase][0].clone()
    path = tmp_path / "position.json"
    save_position(original, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert list(data) == ["format", "version", "rules_edition", "config", "house_rules", "state", "hash"]
    assert data["format"] == "station-master-position" and data["version"] == 2
    assert data["rules_edition"] == 3
    assert data["hash"] == original.state_hash()
    loaded = load_position(path)
    assert loaded.state_hash() == original.state_hash()
    assert loaded.config == original.config
    agent = RandomAgent(5)
    for _ in range(20):
        if original.is_terminal():
            break
        intent = agent.choose(original.view(original.current_player()))
        original.apply(intent)
        loaded.apply(intent)
        assert loaded.state_hash() == original.state_hash()


def test_position_with_a_catalogue_argument(tmp_path: Path, local: GameState) -> None:
    path = tmp_path / "position.json"
    save_position(local, path)
    assert load_position(path, CAT).state_hash() == local.state_hash()


@pytest.fixture
def position(local: GameState) -> dict[str, Any]:
    return position_to_json(local)


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "position.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


BAD_POSITIONS: list[Any] = [
    pytest.param(put(("format",), "station-master-replay"), "not a Station Master position", id="format"),
    pytest.param(drop_key("format"), "not a Station Master position", id="no-format"),
    pytest.param(
        put(("version",), 3), r"unsupported position version 3 \(this build reads 2\)", id="version"
    ),
    pytest.param(drop_key("hash"), r"missing key\(s\): hash", id="no-hash"),
    pytest.param(drop_key("state"), r"missing key\(s\): state", id="no-state"),
    pytest.param(put(("seed",), 3), r"unknown key\(s\): seed", id="unknown-key"),
    pytest.param(put(("hash",), "abc"), "hash must be a 64-character hex string", id="hash-format"),
    pytest.param(put(("config", "offices"), 9), "offices must be an integer 1..6", id="config"),
    pytest.param(
        put(("house_rules", "fog"), True), r"unknown key\(s\) in house_rules: fog", id="house-rules"
    ),
]


@pytest.mark.parametrize(("edit", "match"), BAD_POSITIONS)
def test_malformed_position_file_is_a_replay_error(
    tmp_path: Path, local: GameState, position: dict[str, Any], edit: Edit, match: str
) -> None:
    edit(position, local)
    path = write(tmp_path, position)
    with pytest.raises(ReplayError, match=match) as info:
        load_position(path)
    assert str(path) in str(info.value)


def test_c_rng_2_position_hash_must_match(tmp_path: Path, position: dict[str, Any]) -> None:
    """C-rng.2: the recorded hash belongs to the state; another is a mismatch."""
    recorded = position["hash"]
    position["hash"] = ("f" if recorded[0] != "f" else "e") + recorded[1:]
    with pytest.raises(ReplayError, match="position hash mismatch: the file records [ef]"):
        load_position(write(tmp_path, position))


def test_c_rng_2_position_of_other_house_rules_fails_its_hash(
    tmp_path: Path, position: dict[str, Any]
) -> None:
    """C-rng.2: the hash covers the house rules, so a position cannot change them."""
    position["house_rules"]["sister_trains"] = not position["house_rules"]["sister_trains"]
    with pytest.raises(ReplayError, match="position hash mismatch"):
        load_position(write(tmp_path, position))


def test_position_with_a_bad_state_is_a_snapshot_error_naming_the_file(
    tmp_path: Path, position: dict[str, Any]
) -> None:
    position["state"]["hands"][0] = [999]
    path = write(tmp_path, position)
    with pytest.raises(
        SnapshotError, match=r"position\.json: snapshot: hands\[0\]\[0\]: 999 is not a card index"
    ):
        load_position(path)


def test_position_for_another_size_of_game_is_a_snapshot_error(
    tmp_path: Path, position: dict[str, Any]
) -> None:
    position["config"]["offices"] = 4
    with pytest.raises(SnapshotError, match=r"office_of_seat: must have 4 entries"):
        load_position(write(tmp_path, position))


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "not valid JSON"),
        ("{", r"not valid JSON.*line 1"),
        ("[]", "a position must be a JSON object, got list"),
        ("{}", "not a Station Master position"),
        ("[" * 100_000 + "]" * 100_000, "not a usable JSON document"),
    ],
    ids=["empty", "truncated", "list", "empty-object", "too-deep"],
)
def test_not_a_position_file(tmp_path: Path, text: str, match: str) -> None:
    with pytest.raises(ReplayError, match=match):
        load_position(write(tmp_path, text))


def test_missing_position_file(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match="no such file"):
        load_position(tmp_path / "nope.json")

"""Replay files (C-rng.2): save, load, verify; every malformed file raises ReplayError with a
message that says what is wrong, never another exception."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CAT, new_state, play_random

from sm_env.core import replay as replay_module
from sm_env.core.cars import BOXCAR, CABOOSE_CODE, COACH, HOPPER, REEFER, car_code
from sm_env.core.config import RULES_EDITION, GameConfig, HouseRules
from sm_env.core.errors import ReplayError
from sm_env.core.intents import (
    INTENT_CLASSES,
    AddCar,
    Area,
    Board,
    ChooseDivisionPoint,
    ChooseSwitch,
    Clearance,
    ClearInbound,
    Detrain,
    Discard,
    DrawDepartment,
    DrawHomeOffice,
    EndCargo,
    EndConsist,
    EndSwitching,
    EndTurn,
    Intent,
    Labor,
    MoveTray,
    Pass,
    PlaceCard,
    PlaceModifier,
    PlayCard,
    RedFlag,
    Spot,
    StockOutbound,
    Unjam,
    intent_from_json,
    intent_to_json,
)
from sm_env.core.replay import Replay, load_position, load_replay, parse_replay, position_to_json


def demo(seed: int = 3, offices: int = 3, days: int = 1, **rules: bool) -> Replay:
    state = new_state(offices, seed, days=days, **rules)
    decisions = play_random(state, seed)
    return Replay(seed, state.config, tuple(decisions), state.state_hash())


@pytest.fixture(scope="module")
def replay() -> Replay:
    return demo()


@pytest.fixture
def good(replay: Replay) -> dict[str, Any]:
    return replay.to_json()


def write(tmp_path: Path, data: object, name: str = "r.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize(
    ("offices", "days", "rules"),
    [
        (1, 1, {}),
        (3, 2, {"sister_trains": True, "employee_rotation": True}),
        (5, 1, {"emergency_toolbox": True}),
    ],
)
def test_c_rng_2_save_load_verify_round_trip(
    tmp_path: Path, offices: int, days: int, rules: dict[str, bool]
) -> None:
    """C-rng.2: a saved demo loads back equal and verifies to its recorded hash."""
    original = demo(20 + offices, offices, days, **rules)
    path = tmp_path / "game.json"
    original.save(path)
    loaded = load_replay(path)
    assert loaded == original
    final = loaded.verify()
    assert final.is_terminal()
    assert final.state_hash() == original.final_hash
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "station-master-replay" and data["version"] == 2
    assert data["rules_edition"] == RULES_EDITION == 3
    assert data["house_rules"] == original.config.house_rules.to_dict()
    assert "house_rules" not in data["config"]


def test_replay_with_a_custom_catalogue_argument(tmp_path: Path, replay: Replay) -> None:
    path = tmp_path / "game.json"
    replay.save(path, CAT)
    assert load_replay(path, CAT).verify(CAT).state_hash() == replay.final_hash


def test_run_without_verify_ignores_the_hash(replay: Replay) -> None:
    """C-rng.2: run() replays; only verify() checks the recorded hash."""
    tampered = Replay(replay.seed, replay.config, replay.decisions, "0" * 64)
    assert tampered.run().state_hash() == replay.final_hash


SAMPLE_INTENTS: list[Intent] = [
    Pass(0),
    ChooseSwitch(1),
    EndSwitching(2),
    DrawHomeOffice(0),
    DrawDepartment(1, 2),
    PlayCard(0, CAT.by_id["train-7"]),
    Discard(1, CAT.by_id["red-flag"], 0),
    EndTurn(2),
    StockOutbound(0, (0, 0), car_code(COACH, True)),
    ClearInbound(1, (1, -1), car_code(BOXCAR, False)),
    Unjam(2, (0, 0), Area.OUTBOUND, car_code(COACH, True)),
    Unjam(2, (-1, 2), Area.WORK, car_code(5, True)),
    MoveTray(0, 2, ((0, 0), (0, 1), (1, 2)), (0, 1, 0), 1),
    PlaceCard(1, CAT.by_id["turnout-left"], (-1, 1), True),
    PlaceModifier(0, CAT.by_id["waiting-room"], (1, 1), (0, 0)),
    AddCar(1, car_code(REEFER, False)),
    AddCar(2, CABOOSE_CODE),
    EndConsist(0),
    ChooseDivisionPoint(1, True),
    Clearance(2, False),
    RedFlag(0, True),
    Labor(1, (1, 0), Spot.TRACK, car_code(HOPPER, True)),
    Labor(2, (-1, 1), Spot.AT, car_code(BOXCAR, True)),
    Board(0, 3),
    Detrain(1, 0),
    EndCargo(2),
]


def test_every_intent_kind_has_a_sample() -> None:
    assert {type(i) for i in SAMPLE_INTENTS} == set(INTENT_CLASSES.values())


@pytest.mark.parametrize("intent", SAMPLE_INTENTS, ids=lambda i: type(i).__name__)
def test_intent_json_round_trip(intent: Intent) -> None:
    data = json.loads(json.dumps(intent_to_json(intent, CAT)))
    assert data["kind"] == intent.kind.value
    assert intent_from_json(data, CAT) == intent


def test_replay_json_names_cards_and_cars_readably(replay: Replay) -> None:
    data = replay.to_json()
    for item in data["decisions"]:
        if "card" in item:
            assert item["card"] in CAT.by_id
        if "car" in item:
            assert isinstance(item["car"], str)


# --------------------------------------------------------------------------- verification


def test_edited_final_hash_fails_verification_naming_the_mismatch(
    tmp_path: Path, good: dict[str, Any]
) -> None:
    """C-rng.2: verify() checks the recorded hash."""
    recorded = good["final_hash"]
    good["final_hash"] = ("f" if recorded[0] != "f" else "e") + recorded[1:]
    loaded = load_replay(write(tmp_path, good))
    with pytest.raises(ReplayError, match="hash mismatch") as info:
        loaded.verify()
    assert good["final_hash"] in str(info.value) and recorded in str(info.value)


def test_dropped_last_decision_fails_verification(tmp_path: Path, good: dict[str, Any]) -> None:
    """C-rng.2: the recorded hash belongs to the whole decision sequence."""
    good["decisions"] = good["decisions"][:-1]
    with pytest.raises(ReplayError, match="hash mismatch"):
        load_replay(write(tmp_path, good)).verify()


def test_other_seed_fails(tmp_path: Path, good: dict[str, Any]) -> None:
    """C-rng.2: the same decisions under another seed fail (illegal or another hash)."""
    good["seed"] += 1
    with pytest.raises(ReplayError):
        load_replay(write(tmp_path, good)).verify()


def test_other_house_rules_fail(tmp_path: Path, good: dict[str, Any]) -> None:
    """C-rng.2: a seed is not enough when house rules differ."""
    good["house_rules"]["sister_trains"] = True
    with pytest.raises(ReplayError):
        load_replay(write(tmp_path, good)).verify()


def test_illegal_decision_names_its_index(tmp_path: Path, good: dict[str, Any]) -> None:
    """R5.0.1: a decision made by the wrong seat is illegal at its point."""
    first = good["decisions"][0]
    good["decisions"][0] = {"kind": "pass", "seat": (first["seat"] + 1) % 3}
    with pytest.raises(ReplayError, match=r"decision 0 .*is illegal.*R5\.0\.1"):
        load_replay(write(tmp_path, good)).run()


def test_illegal_decision_later_in_the_game(tmp_path: Path, good: dict[str, Any]) -> None:
    """R6.2.1: a Department that does not exist."""
    seat = good["decisions"][5]["seat"]
    good["decisions"][5] = {"kind": "draw_department", "seat": seat, "department": 5}
    with pytest.raises(ReplayError, match="decision 5"):
        load_replay(write(tmp_path, good)).run()


def test_decision_after_the_game_ended(tmp_path: Path, good: dict[str, Any]) -> None:
    """D-end.3"""
    good["decisions"].append({"kind": "pass", "seat": 0})
    with pytest.raises(ReplayError, match=r"D-end\.3"):
        load_replay(write(tmp_path, good)).run()


# --------------------------------------------------------------------------- malformed files


def _edit(data: dict[str, Any], key: str, value: object) -> dict[str, Any]:
    data = json.loads(json.dumps(data))
    if value is _DELETE:
        del data[key]
    else:
        data[key] = value
    return data


class _Delete:
    """The key left out of the replay (its repr names the test stably: xdist's workers must
    collect the same ids)."""

    def __repr__(self) -> str:
        return "<deleted>"


_DELETE = _Delete()

MALFORMED: list[tuple[str, Any, str]] = [
    ("format", "chess-replay", "not a Station Master replay"),
    ("format", _DELETE, "not a Station Master replay"),
    ("version", 3, r"unsupported replay version 3 \(this build reads 2\)"),
    ("version", 1, "made under rules edition 1; this build plays rules edition 3"),
    ("rules_edition", 2, "made under rules edition 2; this build plays rules edition 3"),
    ("rules_edition", 4, "made under rules edition 4; this build plays rules edition 3"),
    ("rules_edition", "3", "rules_edition must be a positive integer, got '3'"),
    ("rules_edition", True, "rules_edition must be a positive integer, got True"),
    ("rules_edition", 0, "rules_edition must be a positive integer, got 0"),
    ("rules_edition", _DELETE, "rules_edition must be a positive integer, got None"),
    ("version", "1", "unsupported replay version"),
    ("seed", -1, "seed must be an integer in 0..4294967295"),
    ("seed", 2**32, "seed must be an integer"),
    ("seed", "7", "seed must be an integer"),
    ("seed", 1.0, "seed must be an integer"),
    ("seed", True, "seed must be an integer"),
    ("seed", None, "seed must be an integer"),
    ("seed", _DELETE, "missing key.*seed"),
    ("config", _DELETE, "missing key.*config"),
    ("config", [], "config must be a JSON object"),
    ("config", {"offices": 9, "days": 1}, "offices"),
    ("config", {"offices": 3}, "missing 'days'"),
    ("config", {"offices": 3, "days": 1, "seats": 2}, "unknown key.*seats"),
    ("config", {"offices": 3, "days": 1, "mode": "solo"}, "mode"),
    ("config", {"offices": 3, "days": 1, "mode": "coop"}, "target_revenue"),
    ("house_rules", {"fog": True}, "unknown key.*fog"),
    ("house_rules", {"sister_trains": "yes"}, "sister_trains"),
    ("house_rules", "none", "house_rules must be a JSON object"),
    ("decisions", {"0": {"kind": "pass"}}, "decisions must be a list"),
    ("decisions", _DELETE, "missing key.*decisions"),
    ("final_hash", 12, "final_hash must be a 64-character"),
    ("final_hash", "abc", "final_hash must be a 64-character"),
    ("final_hash", _DELETE, "missing key.*final_hash"),
    ("comment", "hello", "unknown key.*comment"),
]


@pytest.mark.parametrize(("key", "value", "match"), MALFORMED, ids=lambda v: repr(v)[:30])
def test_malformed_top_level_raises_replay_error(
    tmp_path: Path, good: dict[str, Any], key: str, value: object, match: str
) -> None:
    path = write(tmp_path, _edit(good, key, value))
    with pytest.raises(ReplayError, match=match) as info:
        load_replay(path)
    assert str(path) in str(info.value)


BAD_DECISIONS: list[tuple[object, str]] = [
    ("pass", "an intent must be a JSON object"),
    ([0], "an intent must be a JSON object"),
    ({"kind": "teleport", "seat": 0}, "unknown intent kind 'teleport'"),
    ({"seat": 0}, "unknown intent kind"),
    ({"kind": "pass"}, "missing field 'seat'"),
    ({"kind": "pass", "seat": 0, "why": "tired"}, "unknown field.*why"),
    ({"kind": "pass", "seat": "0"}, "seat must be an integer"),
    ({"kind": "pass", "seat": True}, "seat must be an integer"),
    ({"kind": "play_card", "seat": 0, "card": "train-13"}, "card 'train-13' is not a card id"),
    ({"kind": "play_card", "seat": 0, "card": 27}, "is not a card id"),
    ({"kind": "discard", "seat": 0, "card": "depot", "department": 1.5}, "department must be an integer"),
    ({"kind": "stock_outbound", "seat": 0, "cell": [0], "car": "loaded coach"}, "cell"),
    ({"kind": "stock_outbound", "seat": 0, "cell": [0, "0"], "car": "loaded coach"}, "cell"),
    ({"kind": "stock_outbound", "seat": 0, "cell": [0, 0], "car": "loaded zeppelin"}, "car must be one of"),
    ({"kind": "stock_outbound", "seat": 0, "cell": [0, 0], "car": 1}, "car must be one of"),
    (
        {"kind": "unjam", "seat": 0, "cell": [0, 0], "area": "inbound", "car": "empty coach"},
        "area must be one of",
    ),
    ({"kind": "move_tray", "seat": 0, "tray": 0, "path": [[0, 0]], "drops": [0], "push": 0}, "path"),
    (
        {"kind": "move_tray", "seat": 0, "tray": 0, "path": [[0, 0], [0, 1]], "drops": [0, "1"], "push": 0},
        "drops",
    ),
    ({"kind": "place_card", "seat": 0, "card": "straight", "cell": [1, 0], "rotated": 1}, "rotated"),
]


@pytest.mark.parametrize(("decision", "match"), BAD_DECISIONS, ids=lambda v: repr(v)[:40])
def test_malformed_decision_raises_replay_error(
    tmp_path: Path, good: dict[str, Any], decision: object, match: str
) -> None:
    good["decisions"][1] = decision
    with pytest.raises(ReplayError, match=match) as info:
        load_replay(write(tmp_path, good))
    assert "decisions[1]" in str(info.value)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "not valid JSON"),
        ("{", "not valid JSON.*line 1"),
        ("station master", "not valid JSON"),
        ("[]", "must be a JSON object, got list"),
        ('"replay"', "must be a JSON object, got str"),
        ("null", "must be a JSON object"),
        ("42", "must be a JSON object"),
        ("{}", "not a Station Master replay"),
    ],
)
def test_not_a_replay_file(tmp_path: Path, text: str, match: str) -> None:
    with pytest.raises(ReplayError, match=match):
        load_replay(write(tmp_path, text))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match="no such file"):
        load_replay(tmp_path / "nope.json")


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "bin.json"
    path.write_bytes(b"\xff\xfe\x00garbage\x80")
    with pytest.raises(ReplayError, match="cannot read"):
        load_replay(path)


def test_a_directory(tmp_path: Path) -> None:
    with pytest.raises(ReplayError):
        load_replay(tmp_path)


def test_parse_replay_of_non_dict() -> None:
    with pytest.raises(ReplayError, match="src: a replay must be a JSON object"):
        parse_replay([1, 2], source="src")


def test_replay_config_objects_are_real_configs(replay: Replay) -> None:
    assert isinstance(replay.config, GameConfig)
    assert isinstance(replay.config.house_rules, HouseRules)


def test_deeply_nested_json_is_a_replay_error(tmp_path: Path) -> None:
    path = write(tmp_path, "[" * 100_000 + "]" * 100_000)
    with pytest.raises(ReplayError):
        load_replay(path)


def test_huge_integer_literal_is_a_replay_error(tmp_path: Path) -> None:
    path = write(tmp_path, '{"format": "station-master-replay", "version": 1, "seed": ' + "9" * 5000 + "}")
    with pytest.raises(ReplayError):
        load_replay(path)


def test_final_hash_must_be_hex(tmp_path: Path, good: dict[str, Any]) -> None:
    good["final_hash"] = "z" * 64
    with pytest.raises(ReplayError, match="final_hash"):
        load_replay(write(tmp_path, good))


# --------------------------------------------------------------------------- rules editions

DATA = Path(__file__).parent / "data"
EDITION_1 = DATA / "replay_rules_edition_1.json"
# Made by a build of edition 2 (commit b3a478c): a 2-office game of random bots, and a
# position 30 decisions into it.
EDITION_2 = DATA / "replay_rules_edition_2.json"
EDITION_2_POSITION = DATA / "position_rules_edition_2.json"


def refuse_to_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any game set up or rebuilt from here on fails the test: a refused file leaves no state."""

    def built(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a game was built from a refused file")

    monkeypatch.setattr(replay_module, "new_game", built)
    monkeypatch.setattr(replay_module, "load_snapshot", built)


def test_c_rng_2_an_edition_1_replay_is_refused_naming_both_editions(monkeypatch: pytest.MonkeyPatch) -> None:
    """An edition-1 replay (format version 1, from the old corpus) cannot be replayed by an
    edition-3 build: ReplayError names the file and both editions, and no game is built."""
    data = json.loads(EDITION_1.read_text(encoding="utf-8"))
    assert data["version"] == 1 and "rules_edition" not in data
    refuse_to_build(monkeypatch)
    with pytest.raises(ReplayError) as info:
        load_replay(EDITION_1)
    message = str(info.value)
    assert message.startswith(f"{EDITION_1}: this replay was made under rules edition 1; ")
    assert "this build plays rules edition 3" in message and "use a build of rules edition 1" in message
    with pytest.raises(ReplayError, match="made under rules edition 1; this build plays rules edition 3"):
        parse_replay(data)


def test_c_rng_2_edition_2_files_are_refused_naming_both_editions(monkeypatch: pytest.MonkeyPatch) -> None:
    """A replay and a position saved by an edition-2 build are refused by this edition-3
    build with both editions named, before any game is built."""
    assert json.loads(EDITION_2.read_text(encoding="utf-8"))["rules_edition"] == 2
    assert json.loads(EDITION_2_POSITION.read_text(encoding="utf-8"))["rules_edition"] == 2
    refuse_to_build(monkeypatch)
    for path, what, load in (
        (EDITION_2, "replay", load_replay),
        (EDITION_2_POSITION, "position", load_position),
    ):
        with pytest.raises(ReplayError) as info:
            load(path)
        message = str(info.value)
        assert message.startswith(f"{path}: this {what} was made under rules edition 2; ")
        assert "this build plays rules edition 3" in message and "use a build of rules edition 2" in message


def test_c_rng_2_a_replay_of_a_later_edition_is_refused(
    tmp_path: Path, good: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that claims rules edition 4 is refused the same way, whatever else it holds."""
    good["rules_edition"] = 4
    path = write(tmp_path, good)
    refuse_to_build(monkeypatch)
    with pytest.raises(ReplayError) as info:
        load_replay(path)
    message = str(info.value)
    assert message.startswith(f"{path}: this replay was made under rules edition 4; ")
    assert "this build plays rules edition 3" in message and "use a build of rules edition 4" in message


@pytest.mark.parametrize(("version", "edition"), [(1, None), (2, 1), (2, 2), (2, 4)])
def test_c_rng_2_a_position_of_another_edition_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: int, edition: int | None
) -> None:
    """Positions too: a version-1 file (edition 1) or one claiming another edition is
    refused with both editions named, before any state is rebuilt."""
    data = position_to_json(new_state(2, 3))
    assert data["version"] == 2 and data["rules_edition"] == 3
    data["version"] = version
    if edition is None:
        del data["rules_edition"]
    else:
        data["rules_edition"] = edition
    path = write(tmp_path, data, "position.json")
    refuse_to_build(monkeypatch)
    claimed = 1 if edition is None else edition
    with pytest.raises(ReplayError) as info:
        load_position(path)
    message = str(info.value)
    assert message.startswith(f"{path}: this position was made under rules edition {claimed}; ")
    assert "this build plays rules edition 3" in message


# ----------------------------------------------------------------------------- seats, atomic saves


def test_c_rng_2_seats_are_kept_and_ignored_by_the_replay(replay: Replay, tmp_path: Path) -> None:
    """Who held each seat is a label the file keeps (the play table's resume reads it); the
    game the decisions make is the same with or without it."""
    labelled = Replay(
        replay.seed, replay.config, replay.decisions, replay.final_hash, ("human", "passenger", "human")
    )
    path = tmp_path / "game.json"
    labelled.save(path)
    loaded = load_replay(path)
    assert loaded == labelled and loaded.seats == ("human", "passenger", "human")
    assert loaded.verify().state_hash() == replay.final_hash
    assert "seats" not in replay.to_json()


@pytest.mark.parametrize(
    "seats", [["human"], "human", ["human", "", "passenger"], ["human", 3, "passenger"]], ids=str
)
def test_malformed_seats_are_a_replay_error(replay: Replay, seats: object) -> None:
    data = replay.to_json()
    data["seats"] = seats
    with pytest.raises(ReplayError, match=r"seats must list one non-empty name per seat \(3\)"):
        parse_replay(data)


def _credited(replay: Replay, seats: tuple[str, ...], handed: int) -> Replay:
    """``replay`` with ``seats``, seat 0's decisions before ``handed`` credited to a bot."""
    holders = tuple(
        "passenger" if d.seat == 0 and i < handed else seats[d.seat] for i, d in enumerate(replay.decisions)
    )
    return Replay(replay.seed, replay.config, replay.decisions, replay.final_hash, seats, holders)


def test_c_rng_2_holders_are_kept_and_ignored_by_the_replay(replay: Replay, tmp_path: Path) -> None:
    """Who made each decision is a label too: written where a seat changed hands, read back
    as written; the decisions, the game they make and its hash are the same without it."""
    seats = ("human", "random", "human")
    credited = _credited(replay, seats, 30)
    path = tmp_path / "game.json"
    credited.save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["holders"] == list(credited.holders) and "passenger" in data["holders"]
    loaded = load_replay(path)
    assert loaded == credited
    assert [loaded.holder(i) for i in range(len(loaded.decisions))] == list(credited.holders)
    assert loaded.verify().state_hash() == replay.final_hash
    without = {k: v for k, v in data.items() if k not in ("seats", "holders")}
    assert without == replay.to_json()


def test_holders_that_say_no_more_than_the_seats_are_not_written(replay: Replay) -> None:
    seats = ("human", "random", "human")
    constant = _credited(replay, seats, 0)
    data = constant.to_json()
    assert "holders" not in data
    loaded = parse_replay(data)
    assert loaded.holders == ()
    assert [loaded.holder(i) for i in range(len(replay.decisions))] == list(constant.holders)
    assert replay.holder(0) is None, "a file with neither says nothing"
    only = Replay(replay.seed, replay.config, replay.decisions, replay.final_hash, (), constant.holders)
    assert parse_replay(only.to_json()).holders == constant.holders, "no seats: holders are written"


def _with(index: int, value: object) -> Callable[[list[Any]], object]:
    return lambda holders: [*holders[:index], value, *holders[index + 1 :]]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda h: "human", "holders must be a list, one name per decision, got str"),
        (lambda h: {"0": "human"}, "holders must be a list, one name per decision, got dict"),
        (
            lambda h: ["human", "random"],
            r"holders names 2 holder\(s\) for \d+ decision\(s\): it must name one per decision",
        ),
        (lambda h: h[:-1], r"holders names \d+ holder\(s\) for \d+ decision\(s\)"),
        (_with(5, 3), r"holders\[5\] must be a non-empty name, got 3"),
        (_with(5, ""), r"holders\[5\] must be a non-empty name, got ''"),
        (_with(5, None), r"holders\[5\] must be a non-empty name, got None"),
    ],
    ids=["string", "object", "too-few", "one-short", "number", "empty", "null"],
)
def test_malformed_holders_are_a_replay_error(
    replay: Replay, edit: Callable[[list[Any]], object], message: str
) -> None:
    data = _credited(replay, ("human", "random", "human"), 30).to_json()
    data["holders"] = edit(data["holders"])
    with pytest.raises(ReplayError, match=f"^game.json: {message}"):
        parse_replay(data, source="game.json")


def test_a_save_that_fails_leaves_the_old_file_whole(
    replay: Replay, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Replay.save writes a temporary file and renames it over the old one: if the write
    fails, the old file is untouched and no temporary file is left behind."""
    path = tmp_path / "game.json"
    replay.save(path)
    before = path.read_bytes()

    def broken(src: object, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(replay_module.os, "replace", broken)
    longer = Replay(replay.seed, replay.config, replay.decisions[:-1], replay.final_hash)
    with pytest.raises(OSError, match="disk full"):
        longer.save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]


def test_a_saved_file_keeps_the_usual_permissions(replay: Replay, tmp_path: Path) -> None:
    """A new file gets what the umask gives any new file (not the temporary file's 0600); a
    file saved over keeps its own."""
    umask = os.umask(0o022)
    try:
        path = tmp_path / "game.json"
        replay.save(path)
        assert path.stat().st_mode & 0o777 == 0o644
        path.chmod(0o600)
        replay.save(path)
        assert path.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(umask)

"""Hostile files, fuzzed (issue 26): replay, position, catalogue, policy and network files.

Each fuzz test starts from a good file and breaks it the ways a shared or damaged file breaks:
a value of the wrong type, a huge number, deep nesting, a key missing, unknown or given twice,
a list cut short or grown, the bytes truncated or not UTF-8, an array header claiming
gigabytes. The loader must either accept the file, and then what it gives must work (a replay
replays or says which decision is illegal, a position plays on), or refuse it with its own
error class and a one-line message naming the file. Never another exception, never a hang.

Inputs the fuzzer once broke a loader with are kept below as plain cases (``test_found_*``).
"""

from __future__ import annotations

import io
import json
import os
import struct
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import new_state, play_random
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents import make_bot, seat_seed
from agents.net import Net, NetFileError
from agents.policy import PolicyFileError, PolicyNet
from experiments.cli import main
from sm_env.core import RULES_EDITION, GameState, Intent, Replay, check_invariants, load_snapshot
from sm_env.core.catalogue import load_catalogue
from sm_env.core.engine import new_game
from sm_env.core.errors import CatalogueError, ReplayError, SnapshotError
from sm_env.core.replay import load_position, load_replay, position_to_json

# CI runs 150 fixed inputs per fuzz test; STATION_MASTER_FUZZ=N runs N fresh random ones
LONG = int(os.environ.get("STATION_MASTER_FUZZ", "0"))
FUZZ = settings(
    max_examples=LONG or 150,
    derandomize=not LONG,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
CATALOGUE_FILE = Path(__file__).parents[1] / "sm_env" / "core" / "data" / "cards.json"


# --------------------------------------------------------------------------- good files


def _game() -> tuple[Replay, GameState]:
    """A whole game of heuristic bots (most kinds of decision), and its state part-way."""
    state = new_state(3, 11, days=2)
    bots = [
        make_bot(name, seat_seed(11, seat)) for seat, name in enumerate(["freight", "passenger", "random"])
    ]
    decisions: list[Intent] = []
    midgame = state
    while not state.is_terminal():
        if len(decisions) == 150:
            midgame = state.clone()
        seat = state.current_player()
        decisions.append(bots[seat].choose(state.view(seat)))
        state.apply(decisions[-1])
    seats = ("freight", "passenger", "human")
    return Replay(11, state.config, tuple(decisions), state.state_hash(), seats), midgame


REPLAY, MIDGAME = _game()
REPLAY_DOC: dict[str, Any] = REPLAY.to_json()
POSITION_DOC: dict[str, Any] = position_to_json(MIDGAME)
CATALOGUE_DOC: dict[str, Any] = json.loads(CATALOGUE_FILE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


# --------------------------------------------------------------------------- breaking JSON

DEEP = "\x00deep{}\x00"  # a placeholder json.dumps cannot nest that deep itself; spliced in as text
HUGE_NUMBERS = (2**63, -(2**63) - 1, 2**64, 10**100, 10**4000, -(10**4000))

leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from(HUGE_NUMBERS),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["", "\ud800", "\x00", "human", "pass", "0" * 64]),
    st.sampled_from([DEEP.format(n) for n in (50, 990, 5000, 100_000)]),
)
hostile = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def _paths(doc: object, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document, the document itself first."""
    found = [path]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += _paths(value, (*path, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            found += _paths(value, (*path, i))
    return found


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


@st.composite
def broken_json(draw: st.DrawFn, doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with one to three of its places broken: replaced, removed, renamed or resized."""
    doc = json.loads(json.dumps(doc))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(doc)
        # places deep in the document are many: weigh the top levels up so they are hit too
        path = draw(st.sampled_from(paths[:12]) | st.sampled_from(paths))
        node = _at(doc, path)
        parent: Any = _at(doc, path[:-1]) if path else None
        last: Any = path[-1] if path else None
        how = draw(st.sampled_from(["replace", "remove", "unknown", "resize", "retype"]))
        if how == "replace" and parent is not None:
            parent[last] = draw(hostile)
        elif how == "remove" and isinstance(parent, dict | list):
            del parent[last]
        elif how == "unknown" and isinstance(node, dict):
            node[draw(st.text(min_size=1, max_size=8))] = draw(hostile)
        elif how == "resize" and isinstance(node, list):
            grow = draw(st.booleans())
            if node and grow:
                node.append(draw(st.sampled_from(node)))
            else:
                del node[draw(st.integers(0, len(node))) :]
        elif parent is not None:  # retype: a number as text, a list as an object, ...
            parent[last] = (
                {str(i): v for i, v in enumerate(node)}
                if isinstance(node, list)
                else [node]
                if isinstance(node, dict)
                else str(node)
            )
    return doc


def _text(doc: object) -> str:
    text = json.dumps(doc, allow_nan=True)
    for depth in (50, 990, 5000, 100_000):
        text = text.replace(json.dumps(DEEP.format(depth)), "[" * depth + "]" * depth)
    return text


@st.composite
def broken_bytes(draw: st.DrawFn, doc: dict[str, Any]) -> bytes:
    """A file's bytes: the document broken as JSON, then maybe as text (cut short, a key
    given twice, bytes that are not UTF-8)."""
    text = _text(draw(broken_json(doc)) if draw(st.integers(0, 3)) else doc)
    how = draw(st.sampled_from(["as is", "as is", "truncate", "duplicate", "not utf-8", "number"]))
    if how == "truncate":
        text = text[: draw(st.integers(0, len(text) - 1))]
    elif how == "duplicate":  # a top-level key again, first, with another value
        key = draw(st.sampled_from(sorted(doc)))
        text = "{" + json.dumps(key) + ": " + _text(draw(hostile)) + ", " + text[1:]
    elif how == "number":
        number = draw(st.sampled_from(["1" * 5000, "1e999999", "-0.0", "1E400", "NaN", "-Infinity"]))
        text = '{"seed": ' + number + ", " + text[1:]
    raw = text.encode("utf-8", "surrogatepass")
    if how == "not utf-8":
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80"])) + raw[at:]
    return raw


def assert_one_line(err: Exception, source: str) -> None:
    message = str(err)
    assert message.startswith(source), message
    assert "\n" not in message and 0 < len(message) <= 1500, message


# --------------------------------------------------------------------------- replays


@FUZZ
@given(raw=broken_bytes(REPLAY_DOC))
def test_fuzzed_replay_files_load_and_replay_or_are_refused(folder: Path, raw: bytes) -> None:
    path = folder / "replay.json"
    path.write_bytes(raw)
    try:
        replay = load_replay(path)
    except ReplayError as err:
        assert_one_line(err, str(path))
        return
    try:  # a file that loads replays to its hash, or names what does not
        replay.verify()
    except ReplayError as err:
        assert_one_line(err, "")


ODD_INTS = st.sampled_from([-1, 0, 1, 2, 3, 5, 12, 43, 99, -(2**31), 2**31, 2**64, 10**30])


@st.composite
def illegal_decisions(draw: st.DrawFn) -> dict[str, Any]:
    """The good replay with decisions that are well formed but out of turn, out of range,
    swapped, repeated or cut: it must replay to the decision that fails and name it."""
    doc: dict[str, Any] = json.loads(json.dumps(REPLAY_DOC))
    decisions = doc["decisions"]
    for _ in range(draw(st.integers(1, 3))):
        if not decisions:
            break
        i = draw(st.integers(0, len(decisions) - 1))
        how = draw(st.sampled_from(["other", "number", "swap", "repeat", "cut"]))
        if how == "other":
            decisions[i] = json.loads(json.dumps(draw(st.sampled_from(decisions))))
        elif how == "number":
            numbers = [key for key, value in decisions[i].items() if isinstance(value, int | list)]
            if numbers:
                key = draw(st.sampled_from(numbers))
                value = decisions[i][key]
                decisions[i][key] = (
                    [[draw(ODD_INTS), draw(ODD_INTS)] for _ in value]
                    if isinstance(value, list) and value and isinstance(value[0], list)
                    else [draw(ODD_INTS) for _ in value]
                    if isinstance(value, list)
                    else draw(ODD_INTS)
                )
        elif how == "swap" and i + 1 < len(decisions):
            decisions[i], decisions[i + 1] = decisions[i + 1], decisions[i]
        elif how == "repeat":
            decisions.insert(i, decisions[i])
        else:
            del decisions[i:]
    return doc


@FUZZ
@given(doc=illegal_decisions())
def test_illegal_decisions_are_named_by_the_replay(folder: Path, doc: dict[str, Any]) -> None:
    path = folder / "decisions.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    try:
        replay = load_replay(path)
    except ReplayError as err:
        assert_one_line(err, str(path))
        return
    try:
        state = replay.verify()
    except ReplayError as err:
        assert_one_line(err, "")
        assert "is illegal" in str(err) or "hash mismatch" in str(err)
    else:
        assert state.state_hash() == replay.final_hash


# --------------------------------------------------------------------------- positions


@FUZZ
@given(raw=broken_bytes(POSITION_DOC))
def test_fuzzed_position_files_load_and_play_on_or_are_refused(folder: Path, raw: bytes) -> None:
    path = folder / "position.json"
    path.write_bytes(raw)
    try:
        state = load_position(path)
    except (ReplayError, SnapshotError) as err:
        assert_one_line(err, str(path))
        return
    assert check_invariants(state) == []
    play_random(state, 5, steps=40, check=True)


@FUZZ
@given(data=broken_json(POSITION_DOC["state"]))
def test_fuzzed_snapshots_rebuild_a_sound_state_or_are_refused(data: dict[str, Any]) -> None:
    """Deeper than the file's hash can reach: the snapshot itself, broken and rebuilt."""
    try:
        state = load_snapshot(data, MIDGAME.config)
    except SnapshotError as err:
        assert_one_line(err, "snapshot")
        return
    assert check_invariants(state) == []
    play_random(state, 5, steps=40, check=True)


# --------------------------------------------------------------------------- catalogues


@FUZZ
@given(raw=broken_bytes(CATALOGUE_DOC))
def test_fuzzed_catalogue_files_load_and_deal_or_are_refused(folder: Path, raw: bytes) -> None:
    path = folder / "cards.json"
    path.write_bytes(raw)
    try:
        catalogue = load_catalogue(path)
    except CatalogueError as err:
        assert_one_line(err, str(path))
        return
    for offices in (1, 6):
        state = new_game(new_state(offices).config, 3, catalogue)
        assert check_invariants(state) == []
        play_random(state, 3, steps=30, check=True)


# --------------------------------------------------------------------------- npz files


def tiny_file(kind: str) -> dict[str, np.ndarray]:
    """The arrays of a small good policy file (``kind`` "policy") or network file ("net")."""
    rng = np.random.default_rng(0)
    shapes = {"w0": (4, 3), "b0": (4,), "w1": (5, 4), "b1": (5,)}
    meta: dict[str, Any] = {"format": 1, "rules_edition": RULES_EDITION, "layers": 2, "offices": 3}
    if kind == "net":
        shapes = {"trunk_w0": (4, 3), "trunk_b0": (4,), "policy_w": (5, 4), "policy_b": (5,)}
        shapes |= {"win_w": (2, 4), "win_b": (2,), "margin_w": (2, 4), "margin_b": (2,)}
        meta = {"format": 1, "kind": "net", "rules_edition": RULES_EDITION, "trunk_layers": 1}
    arrays = {name: rng.standard_normal(shape).astype(np.float32) for name, shape in shapes.items()}
    arrays["meta"] = np.array(json.dumps(meta))
    return arrays


def load_file(kind: str, path: Path) -> None:
    """Load a policy or network file and run it once on an observation."""
    if kind == "net":
        net = Net.load(path)
        logits, win, margin = net.forward(np.ones(net.obs_size, np.float32))
        assert np.isfinite(logits).all() and win.shape == margin.shape == (net.seats,)
    else:
        policy = PolicyNet.load(path)
        assert np.isfinite(policy.logits(np.ones(policy.obs_size, np.float32))).all()


def _npz(arrays: dict[str, np.ndarray]) -> bytes:
    out = io.BytesIO()
    np.savez(out, allow_pickle=False, **arrays)
    return out.getvalue()


def npy_claiming(shape: tuple[int, ...], dtype: str = "<f4", data: bytes = b"") -> bytes:
    """An .npy member whose header claims ``shape`` but whose data is only ``data``."""
    header = repr({"descr": dtype, "fortran_order": False, "shape": shape}).encode("latin1")
    header += b" " * (-(len(header) + 11) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + data


def npz_with(members: dict[str, bytes], base: dict[str, np.ndarray]) -> bytes:
    """An .npz of ``base``'s arrays with raw ``members`` (name -> bytes) put in or over them."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, array in base.items():
            if f"{name}.npy" not in members:
                buffer = io.BytesIO()
                np.lib.format.write_array(buffer, array, allow_pickle=False)
                archive.writestr(f"{name}.npy", buffer.getvalue())
        for name, raw in members.items():
            archive.writestr(name, raw)
    return out.getvalue()


ODD_ARRAYS = [
    np.zeros((0,), np.float32),
    np.zeros((4, 0), np.float32),
    np.zeros((4, 3, 2), np.float32),
    np.full((4, 3), np.nan, np.float32),
    np.full((5, 4), 1e300, np.float64),
    np.zeros((4, 3), np.complex64),
    np.array(["a", "b"]),
    np.zeros((), np.int8),
    np.zeros((4, 3), [("a", "<f4")]),
    np.array(b"\xff\xfe"),
    np.array(7),
]


@st.composite
def broken_npz(draw: st.DrawFn, kind: str) -> bytes:
    """A policy or network file broken in its metadata, an array, its headers or its bytes."""
    arrays = tiny_file(kind)
    how = draw(st.sampled_from(["meta", "array", "drop", "extra", "huge", "bytes"]))
    names = sorted(arrays)
    if how == "meta":
        arrays["meta"] = np.array(_text(draw(broken_json(json.loads(str(arrays["meta"]))))))
    elif how == "array":
        arrays[draw(st.sampled_from(names))] = draw(st.sampled_from(ODD_ARRAYS))
    elif how == "drop":
        del arrays[draw(st.sampled_from(names))]
    elif how == "extra":
        arrays[draw(st.sampled_from(["w9", "extra", "trunk_w1"]))] = draw(st.sampled_from(ODD_ARRAYS))
    elif how == "huge":  # a header claiming terabytes over a few bytes of data
        name = draw(st.sampled_from(names))
        shape = draw(st.sampled_from([(2**31,), (10**6, 10**6), (2**62, 4), (4, 2**40), (-1, 4)]))
        dtype = "<U1000" if name == "meta" else draw(st.sampled_from(["<f4", "<f8", "|u1", "|O"]))
        return npz_with({f"{name}.npy": npy_claiming(shape, dtype, b"\0" * 64)}, arrays)
    raw = _npz(arrays)
    if how == "bytes":
        cut = draw(st.integers(0, len(raw) - 1))
        raw = raw[:cut] if draw(st.booleans()) else raw[:cut] + bytes([raw[cut] ^ 0xFF]) + raw[cut + 1 :]
    return raw


@FUZZ
@given(raw=broken_npz("policy"))
def test_fuzzed_policy_files_are_refused(folder: Path, raw: bytes) -> None:
    path = folder / "policy.npz"
    path.write_bytes(raw)
    try:
        load_file("policy", path)
    except PolicyFileError as err:
        assert_one_line(err, "")
        assert str(path) in str(err)


@FUZZ
@given(raw=broken_npz("net"))
def test_fuzzed_network_files_are_refused(folder: Path, raw: bytes) -> None:
    path = folder / "net.npz"
    path.write_bytes(raw)
    try:
        load_file("net", path)
    except NetFileError as err:
        assert_one_line(err, "")
        assert str(path) in str(err)


# --------------------------------------------------------------------------- found by the fuzzer


def _write(folder: Path, name: str, raw: bytes) -> Path:
    path = folder / name
    path.write_bytes(raw)
    return path


def npz_twice(name: str, base: dict[str, np.ndarray]) -> bytes:
    """An .npz of ``base`` holding the array ``name`` a second time (zipfile allows it)."""
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, base[name])
    raw = io.BytesIO(npz_with({}, base))
    with warnings.catch_warnings(), zipfile.ZipFile(raw, "a") as archive:
        warnings.simplefilter("ignore")  # zipfile's "Duplicate name"
        archive.writestr(f"{name}.npy", buffer.getvalue())
    return raw.getvalue()


def encrypted(raw: bytes) -> bytes:
    """An .npz whose members are marked encrypted (bit 0 of each header's flags)."""
    marked = bytearray(raw)
    for signature, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = marked.find(signature)
        while at >= 0:
            marked[at + flags] |= 1
            at = marked.find(signature, at + 4)
    return bytes(marked)


def _with_meta(kind: str, meta_text: str) -> bytes:
    arrays = tiny_file(kind)
    arrays["meta"] = np.array(meta_text)
    return _npz(arrays)


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"", "not a whole .npz archive"),  # np.load raised EOFError: a traceback from the CLI
        (b"root:x:0:0:root:/root:/bin/bash\n", "not a whole .npz archive"),  # was "pickled data"
        (npz_with({"w0.npy": npy_claiming((2**31,), "<U1000")}, tiny_file("policy")), "claims"),
        (npz_with({"meta.npy": npy_claiming((2**31,), "<U1000")}, tiny_file("policy")), "claims"),
        (
            npz_with({"w1.npy": npy_claiming((10**6, 10**6), "<f4", b"\0" * 64)}, tiny_file("policy")),
            "claims",
        ),
        (npz_with({"w0.npy": npy_claiming((4, 3), "<f4", b"\0" * 8)}, tiny_file("policy")), "holds 8"),
        (_npz({**tiny_file("policy"), "w0": np.zeros(3, np.float32)}), "layer 0 has shapes"),  # IndexError
        (_with_meta("policy", "[" * 100_000 + "]" * 100_000), "nest deeper"),  # RecursionError
        (
            _with_meta(
                "policy",
                json.dumps({"format": 1, "rules_edition": RULES_EDITION})[:-1] + ', "layers": 1e400}',
            ),
            "layer count",
        ),  # OverflowError
        (_npz({**tiny_file("policy"), "b1": np.full(5, np.nan, np.float32)}), "NaN"),
        (encrypted(_npz(tiny_file("policy"))), "encrypted"),  # zipfile's RuntimeError
        (npz_with({"w0.npy": b""}, tiny_file("policy")), "not a readable .npy array"),
        (npz_with({"notes.txt": b"hello"}, tiny_file("policy")), "not an array"),
        (npz_twice("w0", tiny_file("policy")), "holds the array 'w0' twice"),
        (_npz(tiny_file("policy")).replace(b"w0.npy", b"w0.npz", 1), "not a whole .npz"),  # 3000 characters
    ],
    ids=[
        "empty",
        "text",
        "claim-w0",
        "claim-meta",
        "claim-4tb",
        "cut-short",
        "1-d-weights",
        "deep-meta",
        "inf-layers",
        "nan",
        "encrypted",
        "empty-member",
        "not-npy",
        "twice",
        "names-differ",
    ],
)
def test_found_policy_files_that_broke_the_loader(folder: Path, raw: bytes, words: str) -> None:
    path = _write(folder, "found.npz", raw)
    with pytest.raises(PolicyFileError, match=words) as info:
        PolicyNet.load(path)
    assert_one_line(info.value, "")
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"", "not a whole .npz archive"),
        (npz_with({"trunk_w0.npy": npy_claiming((2**40, 4))}, tiny_file("net")), "claims"),
        (_npz({**tiny_file("net"), "trunk_w0": np.zeros(3, np.float32)}), "trunk layer 0"),
        (_with_meta("net", '{"format": 1, "format": 1}'), "duplicate key"),
    ],
    ids=["empty", "claim", "1-d-weights", "duplicate-key"],
)
def test_found_network_files_that_broke_the_loader(folder: Path, raw: bytes, words: str) -> None:
    path = _write(folder, "found-net.npz", raw)
    with pytest.raises(NetFileError, match=words):
        Net.load(path)


def _catalogue_with(edit: Callable[[dict[str, Any]], object]) -> bytes:
    doc = json.loads(json.dumps(CATALOGUE_DOC))
    edit(doc)
    return json.dumps(doc).encode()


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b'{"format": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nest deeper"),  # RecursionError
        (b'{"version": ' + b"1" * 5000 + b"}", "more than 4300 digits"),  # ValueError
        (
            _catalogue_with(lambda d: d["cards"][9].update(count=10**9)),
            "at most 1000",
        ),  # a deck of 10**9 cards
        (_catalogue_with(lambda d: d["rolling_stock"][0].update(loaded=10**12)), "at most 1000"),
        (b'{"version": NaN}', "NaN is not a JSON number"),
    ],
    ids=["deep", "long-number", "billion-cards", "huge-stock", "nan"],
)
def test_found_catalogue_files_that_broke_the_loader(folder: Path, raw: bytes, words: str) -> None:
    path = _write(folder, "found-cards.json", raw)
    with pytest.raises(CatalogueError, match=words) as info:
        load_catalogue(path)
    assert_one_line(info.value, str(path))


@pytest.mark.parametrize("key", ["format", "version", "rules_edition", "config", "hash", "seats"])
def test_found_a_huge_value_is_not_quoted_whole(folder: Path, key: str) -> None:
    """Messages quoted the value: a 4000-digit number made a message of 4000 characters."""
    path = _write(folder, "found-long.json", _text({**POSITION_DOC, key: {"": 10**4000}}).encode())
    with pytest.raises(ReplayError) as info:
        load_position(path)
    assert_one_line(info.value, str(path))
    assert len(str(info.value)) < len(str(path)) + 400


def test_found_thousands_of_unknown_keys_are_not_all_listed() -> None:
    snapshot = {**POSITION_DOC["state"], **{f"k{i}": 1 for i in range(10_000)}}
    with pytest.raises(SnapshotError, match=r"unknown key\(s\): 'k0', .* and 9995 more$"):
        load_snapshot(snapshot, MIDGAME.config)


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b'{"seed": 1, ' + _text(REPLAY_DOC).encode()[1:], 'duplicate key "seed"'),  # json kept the last
        (_text({**REPLAY_DOC, "seed": float("nan")}).encode(), "NaN is not a JSON number"),
        (_text({**REPLAY_DOC, "decisions": [DEEP.format(990)]}).encode(), "nest deeper"),
        (_text({**REPLAY_DOC, "seats": ["freight", "passenger", "\udc80"]}).encode(), "surrogate"),
    ],
    ids=["duplicate-key", "nan", "deep-decision", "half-surrogate"],
)
def test_found_replay_files_the_loader_took(folder: Path, raw: bytes, words: str) -> None:
    path = _write(folder, "found-replay.json", raw)
    with pytest.raises(ReplayError, match=words) as info:
        load_replay(path)
    assert_one_line(info.value, str(path))


# --------------------------------------------------------------------------- the command line


@pytest.mark.parametrize(
    "argv",
    [
        ["replay", "{bad}"],
        ["replay", "{bad}", "--verify"],
        ["play", "--resume", "{bad}", "--fast"],
        ["tournament", "--bots", "policy:path={empty},random", "--games", "1", "--jobs", "1"],
        ["tournament", "--bots", "mcts:net={bad},random", "--games", "1", "--jobs", "1"],
    ],
    ids=["replay", "replay-verify", "play-resume", "tournament-empty-policy", "tournament-text-net"],
)
def test_the_command_line_refuses_a_bad_file_in_one_line(
    folder: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """Exit 2 and one ``station-master: error:`` line; the file resumed is left as it was (an
    empty policy file was a traceback: np.load's EOFError)."""
    bad = _write(folder, "bad.json", b'{"format": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    empty = _write(folder, "empty.npz", b"")
    before = bad.read_bytes()
    assert main([arg.format(bad=bad, empty=empty) for arg in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("station-master: error: ") and err.count("\n") == 1, err
    assert bad.read_bytes() == before

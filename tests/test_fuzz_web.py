"""Hostile requests to the browser table's server, fuzzed (issue 26), in-process as in
tests/test_web_api.py.

Every endpoint is sent broken paths, query strings and bodies: wrong types, huge numbers,
deep nesting, keys twice, NaN, bytes that are not UTF-8, a Content-Length that is not a
number or claims gigabytes. Each answer is a 2xx, or a 4xx with ``{"error": message}``, never
a 500 (the test client raises what the app raises); a refused request leaves the game exactly
as it was (its state, its decision count and its save file). Bodies are read up to a bound,
bot specs with parameters (files to read, hours of search) are refused, and the games and
replays the server holds in memory are bounded.

Inputs the fuzzer once broke the server with are kept below as plain cases (``test_found_*``).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from experiments.play.web.games import GameStore
from experiments.play.web.server import MAX_BODY, make_app
from sm_env.core import GameConfig, Replay, new_game

# CI runs 250 fixed inputs per fuzz test; STATION_MASTER_FUZZ=N runs N fresh random ones
LONG = int(os.environ.get("STATION_MASTER_FUZZ", "0"))
FUZZ = settings(
    max_examples=LONG or 250,
    derandomize=not LONG,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
ENDPOINTS = [
    ("GET", "/api/options"),
    ("GET", "/api/games"),
    ("POST", "/api/games"),
    ("GET", "/api/games/{game}"),
    ("GET", "/api/games/{game}/table"),
    ("POST", "/api/games/{game}/decide"),
    ("POST", "/api/games/{game}/advance"),
    ("POST", "/api/games/{game}/undo"),
    ("POST", "/api/games/{game}/preview"),
    ("GET", "/api/games/{game}/hint"),
    ("GET", "/api/games/{game}/ahead"),
    ("GET", "/api/games/{game}/replay"),
    ("POST", "/api/games/{game}/open"),
    ("POST", "/api/replays"),
    ("GET", "/api/replays/{replay}"),
    ("GET", "/api/replays/{replay}/at/{index}"),
    ("GET", "/api/replays/{replay}/chances"),
]


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, GameStore, str, str]]:
    """A server with one game where a person is to decide, and one short replay open."""
    store = GameStore(tmp_path_factory.mktemp("games"))
    client = TestClient(make_app(store))
    game = client.post("/api/games", json={"seats": ["human", "human"], "days": 1, "seed": 4}).json()["id"]
    config = GameConfig(offices=2)
    replay = Replay(4, config, (), new_game(config, 4).state_hash()).to_json()
    opened = client.post("/api/replays", json={"name": "r.json", "text": json.dumps(replay)}).json()["id"]
    yield client, store, game, opened


def frozen(store: GameStore, game: str) -> tuple[str, int, bytes]:
    web = store.get(game)
    return web.state.state_hash(), web.number, store.path_of(game).read_bytes()


def assert_refusal(answer: Any) -> None:
    """A 4xx whose body is ``{"error": a line saying why}``."""
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text[:300])
    error = answer.json()["error"]
    assert isinstance(error, str) and 0 < len(error) <= 2000 and "Traceback" not in error, error


# --------------------------------------------------------------------------- what is sent

DEEP = "\x00deep{}\x00"
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([-1, 0, 1, 2, 999, 2**31, 2**64, 10**30, -(10**30)]),
    st.floats(allow_nan=False),
    st.text(max_size=10),
    st.sampled_from(["human", "random", "hard", "policy:path=/dev/zero", "mcts:iterations=100000000", "0"]),
    st.sampled_from(["\ud800", "a\udfffb", "\x00", "\u2028"]),
    st.sampled_from([DEEP.format(n) for n in (70, 5000, 100_000)]),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
GOOD_BODIES: list[dict[str, Any]] = [
    {"seat": 0, "number": 0, "decision": 0},
    {"number": 0},
    {"seat": 0, "number": 0, "rules": True},
    {"seats": ["human", "random"], "days": 1, "seed": 1},
    {"name": "r.json", "text": "{}"},
]


def _text(value: object) -> str:
    text = json.dumps(value)
    for depth in (70, 5000, 100_000):
        text = text.replace(json.dumps(DEEP.format(depth)), "[" * depth + "]" * depth)
    return text


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    """A JSON body near a good one with some fields broken, or not JSON at all."""
    how = draw(st.sampled_from(["near", "near", "near", "value", "bytes", "twice", "nan"]))
    if how == "value":
        return _text(draw(values)).encode()
    if how == "bytes":
        return draw(st.binary(max_size=40) | st.sampled_from([b"\xff\xfe{}", b'{"seat": \xed\xa0\x80}', b""]))
    body = dict(draw(st.sampled_from(GOOD_BODIES)))
    for key in draw(
        st.lists(st.sampled_from([*body, "seed", "seats", "name", "text", "bot", "x"]), max_size=3)
    ):
        body[key] = draw(values)
    if how == "twice":  # a key given twice: the server must not pick one silently
        return ('{"number": 0, ' + _text(body)[1:]).encode()
    if how == "nan":
        return ('{"number": NaN, ' + _text(body)[1:]).encode()
    return _text(body).encode()


path_parts = st.one_of(
    st.just("GOOD"),
    st.just("GOOD"),
    st.sampled_from(
        ["nope!", "x" * 41, "y" * 5000, "..", "%00", "-1", "99999999999999", "²", "--5", "1e5", " 1"]
    ),
    st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=12),
)
queries = st.dictionaries(
    st.sampled_from(["seat", "bot", "rules", "reveal"]),
    st.sampled_from(
        ["0", "1", "watch", "hotseat", "--5", "²", "٣", "9" * 5000, "", "0,1,x", "hard", "random"]
    )
    | st.text(alphabet=st.characters(codec="ascii"), max_size=8),
    max_size=3,
)


# --------------------------------------------------------------------------- the fuzz


@FUZZ
@given(
    endpoint=st.sampled_from(ENDPOINTS),
    game=path_parts,
    replay=path_parts,
    index=path_parts,
    query=queries,
    body=bodies(),
    length=st.sampled_from([None, None, None, b"99999999999999999999", b"12x", "²".encode("latin-1"), b"-1"]),
)
def test_fuzzed_requests_get_an_answer_or_a_4xx_and_change_nothing(
    table: tuple[TestClient, GameStore, str, str],
    endpoint: tuple[str, str],
    game: str,
    replay: str,
    index: str,
    query: dict[str, str],
    body: bytes,
    length: bytes | None,
) -> None:
    client, store, good_game, good_replay = table
    method, template = endpoint
    if template.endswith(("/ahead", "/chances", "/hint")) and query.get("bot") not in (None, "random"):
        query = {**query, "bot": "random"}  # keep the searching endpoints quick: a refusal or a cheap bot
    url = template.format(
        game=good_game if game == "GOOD" else quote(game, safe=""),
        replay=good_replay if replay == "GOOD" else quote(replay, safe=""),
        index="0" if index == "GOOD" else quote(index, safe=""),
    )
    before = frozen(store, good_game)
    headers = {b"content-type": b"application/json"} | ({b"content-length": length} if length else {})
    answer = client.request(
        method, url, params=query, content=body if method == "POST" else None, headers=headers
    )
    assert answer.status_code < 500, answer.text[:300]
    if answer.status_code >= 400:
        assert_refusal(answer)
        assert frozen(store, good_game) == before


# --------------------------------------------------------------------------- bounds


def _post_stream(app: Any, path: str, chunks: int, size: int) -> tuple[int, int]:
    """POST ``chunks`` chunks of ``size`` bytes at the ASGI app with no Content-Length; the
    status and how many chunks the app read before answering."""
    read = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal read
        read += 1
        return {"type": "http.request", "body": b"[" * size, "more_body": read < chunks}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": [(b"content-type", b"application/json")], "client": ("test", 1), "server": ("test", 80),
    }  # fmt: skip
    asyncio.run(app(scope, receive, send))
    return next(m["status"] for m in sent if m["type"] == "http.response.start"), read


def test_a_body_without_length_is_read_only_up_to_the_bound(tmp_path: Path) -> None:
    """A client streaming a gigabyte (1024 chunks of 1 MiB) is cut off past MAX_BODY."""
    app = make_app(GameStore(tmp_path))
    status, read = _post_stream(app, "/api/games", chunks=1024, size=2**20)
    assert status == 413
    assert read <= MAX_BODY // 2**20 + 2


def test_games_held_in_memory_are_bounded_and_put_away_games_come_back(tmp_path: Path) -> None:
    store = GameStore(tmp_path, max_games=3, idle_seconds=0)
    client = TestClient(make_app(store))
    ids = [
        client.post("/api/games", json={"seats": ["human", "random"], "days": 1, "seed": s}).json()["id"]
        for s in range(8)
    ]
    assert len(store.games) <= 3 and len(list(tmp_path.glob("*.json"))) == 8
    for game in ids:  # each read back from its save file when asked for
        answer = client.get(f"/api/games/{game}")
        assert answer.status_code == 200 and answer.json()["id"] == game
        assert len(store.games) <= 3


def test_a_full_table_of_games_in_use_refuses_a_new_one_and_writes_nothing(tmp_path: Path) -> None:
    store = GameStore(tmp_path, max_games=2, idle_seconds=3600)
    client = TestClient(make_app(store))
    for seed in range(2):
        assert client.post("/api/games", json={"seats": ["human"], "seed": seed}).status_code == 201
    answer = client.post("/api/games", json={"seats": ["human"], "seed": 9})
    assert answer.status_code == 429 and "try again" in answer.json()["error"]
    assert len(list(tmp_path.glob("*.json"))) == 2


def test_open_replays_are_bounded_the_oldest_closed(tmp_path: Path) -> None:
    store = GameStore(tmp_path, max_replays=2)
    client = TestClient(make_app(store))
    config = GameConfig(offices=1)
    text = json.dumps(Replay(1, config, (), new_game(config, 1).state_hash()).to_json())
    ids = [client.post("/api/replays", json={"name": "r", "text": text}).json()["id"] for _ in range(5)]
    assert len(store.replays) == 2
    assert client.get(f"/api/replays/{ids[-1]}").status_code == 200
    gone = client.get(f"/api/replays/{ids[0]}")
    assert gone.status_code == 404 and "open the file again" in gone.json()["error"]


# --------------------------------------------------------------------------- found by the fuzzer


@pytest.mark.parametrize("seat", ["--5", "²", "٣", "-", "9" * 5000])
def test_found_a_seat_that_is_not_an_ascii_number_is_a_400(
    table: tuple[TestClient, GameStore, str, str], seat: str
) -> None:
    """``"--5".lstrip("-")`` and ``"²"`` pass ``isdigit`` but not ``int``: once a 500."""
    client, store, game, _ = table
    before = frozen(store, game)
    answer = client.get(f"/api/games/{game}/table", params={"seat": seat})
    assert_refusal(answer)
    assert "seat" in answer.json()["error"] and frozen(store, game) == before


def test_a_content_length_that_is_not_an_ascii_number_is_a_400(
    table: tuple[TestClient, GameStore, str, str],
) -> None:
    client, store, game, _ = table
    before = frozen(store, game)
    answer = client.post(
        f"/api/games/{game}/advance", content=b"{}", headers={b"content-length": "²".encode("latin-1")}
    )
    assert_refusal(answer)
    assert "Content-Length" in answer.json()["error"] and frozen(store, game) == before


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b'{"number": 0, "number": 1}', "duplicate key"),
        (b'{"number": NaN}', "NaN"),
        (b'{"seat": ' + b"[" * 70 + b"]" * 70 + b"}", "nest deeper"),
        (b'{"number": 0, "seat": "\\ud800"}', "surrogate"),
    ],
)
def test_found_json_the_server_used_to_take_is_refused(
    table: tuple[TestClient, GameStore, str, str], body: bytes, words: str
) -> None:
    """Keys twice (json kept the last silently), NaN (not JSON) and nesting deep enough to
    overflow whatever walks it."""
    client, store, game, _ = table
    before = frozen(store, game)
    answer = client.post(f"/api/games/{game}/undo", content=body)
    assert_refusal(answer)
    assert words in answer.json()["error"] and frozen(store, game) == before


@pytest.mark.parametrize(
    "spec", ["policy:path=/dev/zero", "mcts:net=/etc/passwd", "mcts:iterations=100000000", "random:x=1"]
)
def test_found_a_page_may_not_give_a_bot_parameters(tmp_path: Path, spec: str) -> None:
    """A seat or a hint names a bot: parameters could make the server read its own files or
    search for hours."""
    store = GameStore(tmp_path)
    client = TestClient(make_app(store))
    answer = client.post("/api/games", json={"seats": ["human", spec]})
    assert_refusal(answer)
    assert "by name" in answer.json()["error"] and not list(tmp_path.glob("*.json"))
    game = client.post("/api/games", json={"seats": ["human", "human"], "seed": 2}).json()["id"]
    before = frozen(store, game)
    hint = client.get(f"/api/games/{game}/hint", params={"seat": 0, "bot": spec})
    assert_refusal(hint)
    assert frozen(store, game) == before


@pytest.mark.parametrize("name", ["\ud800", "x\udfff"])
def test_found_a_replay_named_by_half_a_surrogate_pair_is_a_400(tmp_path: Path, name: str) -> None:
    """The name was echoed in the answer, which cannot be encoded as UTF-8: once a 500."""
    store = GameStore(tmp_path)
    client = TestClient(make_app(store))
    config = GameConfig(offices=1)
    text = json.dumps(Replay(1, config, (), new_game(config, 1).state_hash()).to_json())
    answer = client.post("/api/replays", content=json.dumps({"name": name, "text": text}).encode())
    assert_refusal(answer)
    assert "surrogate" in answer.json()["error"] and not store.replays


def test_found_hostile_files_in_the_games_folder_are_left_out_of_the_list(tmp_path: Path) -> None:
    """A file nested too deep for json (RecursionError: once a 500), not UTF-8, or not a game."""
    store = GameStore(tmp_path)
    client = TestClient(make_app(store))
    game = client.post("/api/games", json={"seats": ["human"], "seed": 1}).json()["id"]
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "bytes.json").write_bytes(b"\xff\xfe")
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "twice.json").write_text('{"config": {}, "config": {}}')
    answer = client.get("/api/games")
    assert answer.status_code == 200 and [g["id"] for g in answer.json()["games"]] == [game]
    assert_refusal(client.get("/api/games/deep"))


def test_found_a_setup_with_a_huge_value_gets_a_short_message(tmp_path: Path) -> None:
    client = TestClient(make_app(GameStore(tmp_path)))
    for setup in (
        {"seats": ["human"], "mode": "m" * 100_000},
        {"seats": ["human"], "days": [0] * 100_000},
        {"seats": ["human"] * 100_000},
        {"seats": ["human"], "seed": [1] * 100_000},
        {"seats": ["human"], "x" * 100_000: 1},
    ):
        answer = client.post("/api/games", json=setup)
        assert_refusal(answer)
        assert len(answer.json()["error"]) <= 400
    for url in ("/api/games/" + "g" * 50_000, "/api/replays/" + "r" * 50_000):
        answer = client.get(url)
        assert_refusal(answer)
        assert len(answer.json()["error"]) <= 400
    answer = client.post("/api/replays", json={"name": "n" * 100_000, "text": "{}"})
    assert_refusal(answer)
    assert len(answer.json()["error"]) <= 400

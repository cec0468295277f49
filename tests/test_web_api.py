"""The browser table's server (experiments.play.web), through its HTTP API in-process.

Each request that changes a game names the decision it answers; bad requests get a 4xx with a
message and leave the game exactly as it was (its state hash and its save file unchanged).
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from experiments.cli import main
from experiments.play.web.games import GameStore, plain_line
from experiments.play.web.server import make_app
from sm_env.core import GameConfig, Replay, new_game


@pytest.fixture
def store(tmp_path: Path) -> GameStore:
    return GameStore(tmp_path / "games")


@pytest.fixture
def client(store: GameStore) -> TestClient:
    return TestClient(make_app(store))


def start(client: TestClient, seats: list[str], seed: int = 1, days: int = 1) -> str:
    answer = client.post("/api/games", json={"seats": seats, "days": days, "seed": seed})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


def table(client: TestClient, game: str, seat: int | str = 0) -> dict[str, Any]:
    answer = client.get(f"/api/games/{game}/table?seat={seat}")
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def run_bots(client: TestClient, game: str) -> dict[str, Any]:
    """Advance the bots until a person is to decide (or the game ends)."""
    status = client.get(f"/api/games/{game}").json()
    while status["bot_to_move"]:
        answer = client.post(f"/api/games/{game}/advance", json={"number": status["number"]})
        assert answer.status_code == 200, answer.text
        status = answer.json()["status"]
    return dict(status)


def frozen(store: GameStore, game: str) -> tuple[str, int, bytes]:
    """What must not change when a request is refused: the state, the decisions, the file."""
    web = store.get(game)
    return web.state.state_hash(), web.number, store.path_of(game).read_bytes()


def test_setup_makes_a_saved_game_and_refuses_a_bad_one(client: TestClient, store: GameStore) -> None:
    game = start(client, ["human", "medium", "hard"], seed=5)
    saved = json.loads(store.path_of(game).read_text())
    assert saved["format"] and saved["seats"] == ["human", "medium", "hard"] and saved["seed"] == 5
    listed = client.get("/api/games").json()["games"]
    assert [g["id"] for g in listed] == [game]
    for bad, words in [
        ({"seats": ["human", "nobody"]}, "nobody"),
        ({"seats": []}, "seats"),
        ({"seats": ["human"], "days": 0}, "days"),
        ({"seats": ["human"], "seed": -1}, "seed"),
        ({"seats": ["human"], "seed": 2**40}, "seed"),
        ({"seats": ["human"], "mode": "coop"}, "target"),
        ({"seats": ["human"], "house_rules": ["no_such_rule"]}, "no_such_rule"),
        ({"seats": ["human"], "colour": "red"}, "colour"),
        ({"seats": ["human"] * 7}, "offices"),
    ]:
        answer = client.post("/api/games", json=bad)
        assert answer.status_code == 400, (bad, answer.text)
        assert words in answer.json()["error"], (bad, answer.json())
    assert len(client.get("/api/games").json()["games"]) == 1


def test_a_seat_sees_only_its_own_hand_and_a_bot_seat_is_never_shown(client: TestClient) -> None:
    game = start(client, ["human", "human", "medium"])
    mine = table(client, game, 0)["scene"]["seats"]
    assert mine[0]["hand"] is not None and mine[1]["hand"] is None and mine[2]["hand"] is None
    assert all(seat["hand_count"] == 3 for seat in mine)
    watcher = table(client, game, "watch")["scene"]["seats"]
    assert all(seat["hand"] is None for seat in watcher)
    assert table(client, game, "watch")["decisions"] == []
    answer = client.get(f"/api/games/{game}/table?seat=2")
    assert answer.status_code == 403 and "bot" in answer.json()["error"]
    assert client.get(f"/api/games/{game}/table?seat=9").status_code == 400
    assert client.get(f"/api/games/{game}/table?seat=x").status_code == 400


def test_a_decision_is_applied_logged_and_saved(client: TestClient, store: GameStore) -> None:
    game = start(client, ["human", "medium", "medium"])
    status = run_bots(client, game)
    seat = status["current"]
    view = table(client, game, seat)
    draw = next(d for d in view["decisions"] if d["kind"] == "draw_home_office")
    answer = client.post(
        f"/api/games/{game}/decide", json={"seat": seat, "number": status["number"], "decision": draw["id"]}
    )
    assert answer.status_code == 200, answer.text
    after = answer.json()
    assert after["status"]["number"] == status["number"] + 1
    assert after["log"][-1]["text"] == "You draw from the Home Office"
    assert any(e["text"].startswith("You draw") for e in after["log"][-1]["events"])
    saved = json.loads(store.path_of(game).read_text())
    assert len(saved["decisions"]) == status["number"] + 1


def test_refused_requests_change_nothing(client: TestClient, store: GameStore) -> None:
    game = start(client, ["human", "medium", "medium"])
    status = run_bots(client, game)
    seat, number = status["current"], status["number"]
    before = frozen(store, game)
    url = f"/api/games/{game}/decide"
    refusals = [
        (
            client.post(url, json={"seat": seat, "number": number - 1 if number else 5, "decision": 0}),
            409,
            "decision",
        ),
        (client.post(url, json={"seat": seat, "number": number, "decision": 999}), 400, "no decision 999"),
        (client.post(url, json={"seat": seat, "number": number, "decision": -1}), 400, "no decision"),
        (client.post(url, json={"seat": seat, "number": number, "decision": "1; drop"}), 400, "whole number"),
        (client.post(url, json={"seat": seat, "number": number}), 400, "decision"),
        (client.post(url, json={"seat": 2, "number": number, "decision": 0}), 403, "bot"),
        (client.post(url, content=b"{not json"), 400, "not JSON"),
        (client.post(url, content=b"\xff\xfe"), 400, "not JSON"),
        (client.post(url, content=b"[1, 2]"), 400, "object"),
        (client.post(url, content=b"[" * 100_000), 400, "not JSON"),
        (client.post(url, content=b"{}", headers={"content-length": "999999999999"}), 413, "too large"),
        (
            client.post(f"/api/games/{game}/advance", json={"number": number}),
            200,
            None,
        ),  # a person is to move
        (
            client.post(f"/api/games/{game}/undo", json={"seat": seat, "number": number}),
            400,
            "nothing to undo",
        ),
        (
            client.post(f"/api/games/{game}/preview", json={"seat": seat, "number": number, "decision": 0}),
            400,
            "not a switching Move",
        ),
        (client.post("/api/games/nope!/decide", json={}), 404, "no game"),
        (client.post("/api/games/unknown1/decide", json={}), 404, "no game"),
    ]
    for answer, code, words in refusals:
        assert answer.status_code == code, answer.text
        if words:
            assert words in answer.json()["error"], answer.json()
        assert frozen(store, game) == before
    assert client.get("/api/nothing-here").status_code == 404
    assert client.get(f"/api/games/{game}/decide").status_code == 405


def test_a_stale_page_is_refused_never_applied(client: TestClient, store: GameStore) -> None:
    game = start(client, ["human", "medium", "medium"])
    status = run_bots(client, game)
    seat, number = status["current"], status["number"]
    first = client.post(f"/api/games/{game}/decide", json={"seat": seat, "number": number, "decision": 0})
    assert first.status_code == 200
    after = frozen(store, game)
    second = client.post(f"/api/games/{game}/decide", json={"seat": seat, "number": number, "decision": 1})
    assert second.status_code == 409 and "moved on" in second.json()["error"]
    assert frozen(store, game) == after


def test_undo_goes_back_to_the_persons_previous_decision(client: TestClient, store: GameStore) -> None:
    game = start(client, ["human", "medium", "medium"])
    status = run_bots(client, game)
    start_hash = store.get(game).state.state_hash()
    seat, number = status["current"], status["number"]
    client.post(f"/api/games/{game}/decide", json={"seat": seat, "number": number, "decision": 0})
    status = run_bots(client, game)
    answer = client.post(f"/api/games/{game}/undo", json={"seat": seat, "number": status["number"]})
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"]["number"] == number
    assert store.get(game).state.state_hash() == start_hash
    assert len(json.loads(store.path_of(game).read_text())["decisions"]) == number
    assert len(answer.json()["log"]) == number


def test_a_game_resumes_from_its_file_after_a_restart(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    first = TestClient(make_app(GameStore(folder)))
    game = start(first, ["human", "medium", "medium"])
    status = run_bots(first, game)
    first.post(
        f"/api/games/{game}/decide",
        json={"seat": status["current"], "number": status["number"], "decision": 0},
    )
    seen = table(first, game, 0)
    again = TestClient(make_app(GameStore(folder)))  # a new server on the same folder
    resumed = table(again, game, 0)
    assert resumed["scene"] == seen["scene"] and resumed["status"] == seen["status"]
    assert [e["text"] for e in resumed["log"]] == [e["text"] for e in seen["log"]]


def test_a_switching_move_is_previewed_on_the_seats_board(client: TestClient, store: GameStore) -> None:
    game = start(client, ["human", "medium", "medium"], seed=1)
    web = store.get(game)
    while True:  # the person draws or switches when it can, and ends its turns
        status = run_bots(client, game)
        kinds = [d["kind"] for d in table(client, game, 0)["decisions"]]
        if "move_tray" in kinds:
            break
        pick = next(
            (kinds.index(k) for k in ("choose_switch", "draw_home_office", "end_turn") if k in kinds), 0
        )
        client.post(
            f"/api/games/{game}/decide", json={"seat": 0, "number": status["number"], "decision": pick}
        )
    decisions = table(client, game, 0)["decisions"]
    move = [d for d in decisions if d["kind"] == "move_tray"][-1]
    before = frozen(store, game)
    answer = client.post(
        f"/api/games/{game}/preview", json={"seat": 0, "number": web.number, "decision": move["id"]}
    )
    assert answer.status_code == 200, answer.text
    preview = answer.json()
    assert frozen(store, game) == before
    moved = next(t for t in preview["trains"] if t["tray"] == move["tray"])
    assert moved["where"]["cell"] == move["path"][-1]
    client.post(f"/api/games/{game}/decide", json={"seat": 0, "number": web.number, "decision": move["id"]})
    office = web.state.trays[move["tray"]].office
    mine = table(client, game, 0)
    station = next(s for s in mine["scene"]["stations"] if s["office"] == office)
    assert station == preview["station"]


def test_hint_and_chances_come_from_the_seats_view(client: TestClient) -> None:
    game = start(client, ["human", "medium", "medium"])
    status = run_bots(client, game)
    seat = status["current"]
    hint = client.get(f"/api/games/{game}/hint?seat={seat}").json()
    decisions = table(client, game, seat)["decisions"]
    assert decisions[hint["decision"]]["label"] == hint["label"] and hint["reason"]
    assert client.get(f"/api/games/{game}/hint?seat={seat}&bot=nobody").status_code == 400
    chances = client.get(f"/api/games/{game}/ahead?seat={seat}").json()["chances"]
    assert len(chances) == 3 and abs(sum(chances) - 1) < 1e-9


def test_a_replay_file_opens_and_scrubs(client: TestClient) -> None:
    config = GameConfig(offices=2, days=1)
    state = new_game(config, 3)
    decisions = []
    while not state.is_terminal() and len(decisions) < 60:
        intent = state.legal_intents()[-1]
        state.apply(intent)
        decisions.append(intent)
    text = json.dumps(Replay(3, config, tuple(decisions), state.state_hash()).to_json())
    opened = client.post("/api/replays", json={"name": "demo.json", "text": text})
    assert opened.status_code == 201, opened.text
    head = opened.json()
    assert head["total"] == len(decisions) == 60 and len(head["revenue"]) == 61
    start_position = client.get(f"/api/replays/{head['id']}/at/0").json()
    assert start_position["decision"] is None and all(
        s["hand"] is None for s in start_position["scene"]["seats"]
    )
    shown = client.get(f"/api/replays/{head['id']}/at/10?reveal=1").json()
    assert shown["scene"]["seats"][1]["hand"] is not None and shown["scene"]["seats"][0]["hand"] is None
    assert shown["decision"]
    assert client.get(f"/api/replays/{head['id']}/at/61").status_code == 400
    assert client.get(f"/api/replays/{head['id']}/at/3?reveal=x").status_code == 400
    assert client.get("/api/replays/zzz/at/0").status_code == 404
    for bad in [
        "",
        "{",
        "[]",
        json.dumps({"format": "something else"}),
        text.replace('"seed": 3', '"seed": "x"'),
    ]:
        answer = client.post("/api/replays", json={"name": "bad.json", "text": bad})
        assert answer.status_code == 400 and "bad.json" in answer.json()["error"], answer.text


def test_a_games_replay_can_be_downloaded_and_opened(client: TestClient) -> None:
    game = start(client, ["medium", "medium"])
    run_bots(client, game)
    data = client.get(f"/api/games/{game}/replay").json()
    assert data["seats"] == ["medium", "medium"] and data["decisions"]
    opened = client.post(f"/api/games/{game}/open").json()
    assert opened["total"] == len(data["decisions"])
    points = client.get(f"/api/replays/{opened['id']}/chances").json()["points"]
    assert points and all(abs(sum(p["chances"]) - 1) < 1e-9 for p in points)


def test_plain_lines_name_the_reader_and_hide_rule_ids() -> None:
    labels = ["seat 0 (player)", "seat 1 (medium)"]
    assert plain_line("seat 0 passes", 0, labels) == "You pass"
    assert plain_line("seat 1 passes", 0, labels) == "Seat 1 (medium) passes"
    assert (
        plain_line("seat 0's Porters board a coach [R9.2.1: +1]", 0, labels)
        == "+1: your Porters board a coach"
    )


def test_serve_refuses_a_bad_port_or_address_with_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "0"]) == 2
    assert "--port must be 1..65535" in capsys.readouterr().err
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
    assert main(["serve", "--host", "10.255.255.1", "--port", "8899"]) == 2
    assert "cannot listen on 10.255.255.1:8899" in capsys.readouterr().err


def test_since_your_last_turn_names_each_seat_once(client: TestClient) -> None:
    game = start(client, ["human", "medium", "medium"], seed=8, days=2)
    seen: list[str] = []
    for _ in range(300):
        status = run_bots(client, game)
        if status["over"]:
            break
        view = table(client, game, status["current"])
        seen += view["since"]
        if any(line.startswith("Revenue:") for line in seen):
            break
        pick = next((d["id"] for d in view["decisions"] if d["kind"] in ("pass", "end_turn", "end_cargo")), 0)
        client.post(
            f"/api/games/{game}/decide", json={"seat": 0, "number": status["number"], "decision": pick}
        )
    revenue = [line for line in seen if line.startswith("Revenue:")]
    assert revenue, seen
    assert all("(medium) (" not in line and "seat 1 (seat" not in line for line in seen)
    assert "Seat 1 (medium)" in " ".join(seen)

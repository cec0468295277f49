"""The browser table in a real headless Chromium (Debian's ``chromium``, driven by Playwright
through ``executable_path``), against a real ``station-master serve`` process.

Without a browser these tests skip, except under CI (``CI`` set), where a missing browser is a
failure. ``SM_SCREENSHOTS=DIR`` keeps the screenshots the README shows (``make screenshots``).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents import make_bot
from sm_env.core import GameConfig, Replay, new_game

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None and not os.environ.get("CI"):
    pytest.skip(
        "no chromium on this machine (apt-get install chromium); CI requires it", allow_module_level=True
    )
sync_api = (
    pytest.importorskip("playwright.sync_api")
    if not os.environ.get("CI")
    else __import__("playwright.sync_api").sync_api
)

pytestmark = pytest.mark.slow
TIMEOUT_MS = 20_000
# The seat's card play has begun: a hand card it may use (any, since it may discard any). Not a
# wait for the text "Card play": the notes on the cards it may not use yet say "card play" too.
IN_CARD_PLAY = "[data-testid^=hand-]:not(.disabled)"
LAST_LOG_HAS = (
    "document.querySelector('#log li') && document.querySelector('#log li').textContent.includes('%s')"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    games = tmp_path_factory.mktemp("games")
    process = subprocess.Popen(
        [sys.executable, "-m", "experiments.cli", "serve", "--port", str(port), "--games", str(games)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/api/options", timeout=1).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(
                    f"the server did not start: {process.stdout.read().decode() if process.stdout else ''}"
                ) from None
            time.sleep(0.1)
    yield url
    process.terminate()
    process.wait(10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    assert CHROMIUM is not None, "CI needs Debian's chromium: apt-get install chromium"
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"the page raised: {errors}"


def pace(page: Any, value: str) -> None:
    """The bots' pace, set before the page's script reads it."""
    page.add_init_script(f"localStorage.setItem('sm-pace', '{value}')")


def shot(page: Any, name: str) -> None:
    folder = os.environ.get("SM_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / name), full_page=False)


def request(url: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    """(status, JSON answer) of a GET, or of a POST of ``body``."""
    data = None if body is None else json.dumps(body).encode()
    call = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(call, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


class Api:
    """The server's API from the test, to bring a game to a position before clicking."""

    def __init__(self, url: str) -> None:
        self.url = url

    def start(self, seats: list[str], seed: int = 1, days: int = 1) -> str:
        code, answer = request(f"{self.url}/api/games", {"seats": seats, "seed": seed, "days": days})
        assert code == 201, answer
        return str(answer["id"])

    def status(self, game: str) -> dict[str, Any]:
        return dict(request(f"{self.url}/api/games/{game}")[1])

    def table(self, game: str, seat: int) -> dict[str, Any]:
        return dict(request(f"{self.url}/api/games/{game}/table?seat={seat}")[1])

    def run_bots(self, game: str) -> dict[str, Any]:
        status = self.status(game)
        while status["bot_to_move"]:
            status = request(f"{self.url}/api/games/{game}/advance", {"number": status["number"]})[1][
                "status"
            ]
        return status

    def play_until(self, game: str, seat: int, kind: str) -> None:
        """The person draws or switches when it can and ends its turns, until ``kind`` is legal."""
        for _ in range(400):
            status = self.run_bots(game)
            kinds = [d["kind"] for d in self.table(game, seat)["decisions"]]
            if kind in kinds:
                return
            pick = next(
                (kinds.index(k) for k in ("choose_switch", "draw_home_office", "end_turn") if k in kinds), 0
            )
            request(
                f"{self.url}/api/games/{game}/decide",
                {"seat": seat, "number": status["number"], "decision": pick},
            )
        raise AssertionError(f"{kind} never became legal")


def number_of(page: Any, api: Api, game: str) -> int:
    return int(api.status(game)["number"])


def test_set_up_a_game_lay_a_card_by_clicking_and_watch_a_bot_answer(server: str, page: Any) -> None:
    api = Api(server)
    pace(page, "fast")
    page.goto(server + "/")
    page.select_option("[data-testid=offices]", "3")
    page.select_option("[data-testid=holder-0]", "human")
    page.select_option("[data-testid=holder-1]", "medium")
    page.select_option("[data-testid=holder-2]", "easy")
    page.fill("#days", "1")
    page.fill("[data-testid=seed]", "1")
    page.click("[data-testid=start]")
    page.wait_for_url("**/game/*?seat=0")
    game = page.url.split("/game/")[1].split("?")[0]
    page.wait_for_selector("text=Your decision")
    page.click("[data-testid=button-draw]")
    page.click("text=draw from the Home Office")
    page.wait_for_selector(IN_CARD_PLAY)
    cards = page.locator("[data-testid^=hand-]")
    laid = False
    for i in range(cards.count()):
        card = page.locator(f"[data-testid=hand-{i}]")
        if "disabled" in (card.get_attribute("class") or ""):
            continue
        card.click()
        if page.locator("[data-testid^=target-]").count():
            before = number_of(page, api, game)
            name = card.locator(".card-title").inner_text()
            page.locator("[data-testid^=target-]").first.click()
            page.wait_for_timeout(300)
            if page.locator("[data-testid=choices]").count():  # both ways round fit: pick one
                page.locator("#turn [data-testid^=decision-]").first.click()
            page.wait_for_function(LAST_LOG_HAS % "lay")
            assert number_of(page, api, game) == before + 1
            assert name in page.locator("[data-testid=log]").inner_text()
            laid = True
            break
    assert laid, "no card in hand could be laid"
    page.click("[data-testid=button-end]")
    # the bots answer on their own at the fast pace, and the person is asked again
    page.wait_for_selector("text=Since your last turn")
    assert "Seat 1 (medium)" in page.locator("[data-testid=since]").inner_text()


def test_a_switching_move_built_by_clicking_with_a_preview(server: str, page: Any) -> None:
    api = Api(server)
    game = api.start(["human", "medium", "medium"], seed=1)
    api.play_until(game, 0, "move_tray")
    before = api.status(game)["number"]
    pace(page, "step")
    page.goto(f"{server}/game/{game}?seat=0")
    page.wait_for_selector("text=Your decision")
    shot(page, "web-table.png")
    train = page.locator("[data-testid=station-1] .train.selectable, svg.station .train.selectable").first
    train.click()
    page.wait_for_selector("[data-testid=move-builder]")
    page.locator("[data-testid^=dest-]").last.click()
    for _ in range(12):  # answer each step the builder still asks, with its last option
        if page.locator("[data-testid=confirm-move]").count():
            break
        select = page.locator("[data-testid=move-builder] select").first
        options = select.locator("option")
        select.select_option(index=options.count() - 1)
    page.wait_for_selector("text=Your station after this Move (preview)")
    shot(page, "web-move.png")
    label = page.locator(".preview-label").inner_text()
    assert label.startswith("move No.")
    page.click("[data-testid=confirm-move]")
    page.wait_for_function(LAST_LOG_HAS % label.split(",")[0])
    assert api.status(game)["number"] == before + 1


def test_undo_then_reload_and_continue(server: str, page: Any) -> None:
    api = Api(server)
    game = api.start(["human", "medium", "medium"], seed=2)
    api.run_bots(game)
    pace(page, "fast")
    page.goto(f"{server}/game/{game}?seat=0")
    page.wait_for_selector("text=Your decision")
    start = api.status(game)["number"]
    page.click("[data-testid=button-pass]")
    page.wait_for_function(
        f"fetch('/api/games/{game}').then(r => r.json()).then(s => s.number > {start + 1})"
    )
    page.wait_for_selector("text=Your decision")
    page.click("[data-testid=undo]")
    page.wait_for_selector("text=Undone")
    assert api.status(game)["number"] == start
    hand = page.locator("[data-testid=hand]").inner_text()
    page.reload()
    page.wait_for_selector("text=Your decision")
    assert page.locator("[data-testid=hand]").inner_text() == hand
    page.click("[data-testid=button-draw]")
    page.click("text=draw from the Home Office")
    page.wait_for_selector(IN_CARD_PLAY)
    assert api.status(game)["number"] == start + 1


def test_hot_seat_covers_the_screen_between_people(server: str, page: Any) -> None:
    api = Api(server)
    game = api.start(["human", "human", "medium"], seed=4)
    pace(page, "fast")
    page.goto(f"{server}/game/{game}?seat=hotseat")
    page.wait_for_selector("[data-testid=cover]:not([hidden])")
    first = api.status(game)["current"]
    assert page.locator("#cover-title").inner_text() == f"Seat {first}'s turn"
    assert page.locator("[data-testid=hand]").count() == 0
    page.click("[data-testid=cover-ready]")
    page.wait_for_selector("text=Your decision")
    mine = page.locator("[data-testid=hand]").inner_text()
    page.click("[data-testid=button-pass]")
    other = 1 - first
    page.wait_for_selector(f"text=Seat {other}'s turn")
    # nothing of the first person's hand is left in the page behind the cover
    assert page.locator("[data-testid=hand]").count() == 0
    assert page.locator("#app").inner_html() == ""
    page.click("[data-testid=cover-ready]")
    page.wait_for_selector("text=Your decision")
    assert page.locator("[data-testid=hand]").inner_text() != mine


def test_a_stale_tab_is_refused_with_a_message(server: str, browser: Any) -> None:
    api = Api(server)
    game = api.start(["human", "medium", "medium"], seed=3)
    api.run_bots(game)
    context = browser.new_context()
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script("localStorage.setItem('sm-pace', 'step')")
    one, two = context.new_page(), context.new_page()
    for tab in (one, two):
        tab.goto(f"{server}/game/{game}?seat=0")
        tab.wait_for_selector("text=Your decision")
    number = api.status(game)["number"]
    one.click("[data-testid=button-pass]")
    one.wait_for_function(
        f"fetch('/api/games/{game}').then(r => r.json()).then(s => s.number === {number + 1})"
    )
    two.click("[data-testid=button-draw]")
    two.click("text=draw from the Home Office")
    two.wait_for_selector("text=has moved on")
    assert "moved on" in two.locator("[data-testid=message]").inner_text()
    assert api.status(game)["number"] == number + 1
    context.close()


def test_watch_bots_play(server: str, page: Any) -> None:
    api = Api(server)
    game = api.start(["medium", "hard"], seed=5)
    pace(page, "fast")
    page.goto(f"{server}/game/{game}?seat=watch")
    page.wait_for_function(f"fetch('/api/games/{game}').then(r => r.json()).then(s => s.number > 20)")
    assert page.locator("[data-testid=hand] .card-face").count() == 0


def test_a_replay_file_opened_and_scrubbed(server: str, page: Any, tmp_path: Path) -> None:
    config = GameConfig(offices=2, days=2)
    state = new_game(config, 9)
    bots = [make_bot("passenger", 1), make_bot("freight", 2)]
    decisions = []
    while not state.is_terminal():
        seat = state.current_player()
        intent = bots[seat].choose(state.view(seat))
        state.apply(intent)
        decisions.append(intent)
    path = tmp_path / "game.json"
    Replay(9, config, tuple(decisions), state.state_hash(), ("passenger", "freight")).save(path)
    page.goto(server + "/")
    page.set_input_files("[data-testid=replay-file]", str(path))
    page.wait_for_url("**/replay/*")
    page.wait_for_selector("text=Decision 0 of")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("text=Decision 1 of")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("text=Decision 2 of")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("text=Decision 1 of")
    page.locator("[data-testid=scrub]").fill(str(len(decisions)))
    page.wait_for_selector(f"text=Decision {len(decisions)} of {len(decisions)}")
    assert page.locator("[data-testid=revenue-chart] polyline").count() == 2
    assert page.locator("#hands .card-face").count() == 0
    page.check("[data-testid=reveal-1]")
    page.wait_for_function("document.querySelectorAll('#hands .card-face').length > 0")
    assert "Final revenue" in page.locator("[data-testid=revenue]").inner_text()
    page.click("[data-testid=estimate]")
    page.wait_for_selector("[data-testid=chance-chart]", timeout=120_000)
    assert page.locator("[data-testid=chance-chart] polyline").count() == 2
    page.locator("[data-testid=scrub]").fill(str(len(decisions) * 2 // 3))
    page.wait_for_selector(f"text=Decision {len(decisions) * 2 // 3} of")
    shot(page, "web-replay.png")
    data = json.loads(path.read_text())
    assert data["seats"] == ["passenger", "freight"]

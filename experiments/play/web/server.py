"""The table's web server: a Starlette app the page talks to in JSON.

Pages: ``/`` (set up a game, resume a saved one, open a replay file), ``/game/{id}?seat=N``
(a person's seat; ``seat=hotseat`` passes one screen between the people, ``seat=watch``
watches), ``/replay/{id}`` (scrub a replay). They are one page, ``static/index.html``, and its
script draws the table as SVG from ``/api/...``.

Every answer about a game is built from a seat's view (``GameState.view``) or, for a watcher,
from a view with no hand shown; a seat a bot holds is never shown to a page. Requests that
change a game carry the decision number they answer (``games.Stale`` otherwise). Bad input
gets a 4xx with ``{"error": message}`` and changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents import LEVELS, REGISTRY, WinEstimator
from experiments.play.table.notices import GOAL_TEXT, play_warning, since_last_turn, timetable_warnings
from experiments.play.table.session import HUMAN
from experiments.play.web.decisions import (
    PHASE_WORDS,
    decision_list,
    hand_reasons,
    move_preview,
    move_words,
    unavailable,
)
from experiments.play.web.games import (
    HINT_BOT,
    MAX_REPLAY_BYTES,
    Forbidden,
    GameStore,
    ReplayView,
    RequestError,
    TooLarge,
    WebGame,
    chance_curve,
    plain_line,
    seat_names,
    touched,
)
from experiments.play.web.scene import scene
from sm_env.core import (
    MAX_OFFICES,
    MIN_OFFICES,
    HouseRules,
    Mode,
    MoveTray,
    decode_json,
    event_text,
    shown_value,
)

STATIC = Path(__file__).parent / "static"
Endpoint = Callable[[Request], Awaitable[Response]]
MAX_BODY = MAX_REPLAY_BYTES + 4096
AHEAD_SAMPLES = 24
LOG_TAIL = 400  # decisions of the log sent with a table
RECENT = 6  # a watcher sees the last few decisions marked on the board
_DIGITS = re.compile(r"[0-9]+")
_INT = re.compile(r"-?[0-9]{1,11}")
_SEAT_NOTE = re.compile(r"\bseat (\d+) \([^()]*\)")  # "seat 1 (medium)": plain_line names the seat again


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object, refused (400, 413) when it is not one or too large: a body
    longer than ``MAX_BODY`` is refused by its declared length, or as soon as it grows past it."""
    declared = request.headers.get("content-length")
    if declared is not None and not _DIGITS.fullmatch(declared):
        raise RequestError(f"the request's Content-Length is not a number: {shown_value(declared)}")
    if declared is not None and (len(declared) > 18 or int(declared) > MAX_BODY):
        raise TooLarge(f"the request body is too large: more than {MAX_BODY} bytes")
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise TooLarge(f"the request body is too large: more than {MAX_BODY} bytes")
    try:
        data = decode_json(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise RequestError(f"the request body is not JSON: {err}") from None
    if not isinstance(data, dict):
        raise RequestError("the request body must be a JSON object")
    return data


def _int(data: dict[str, Any] | Any, key: str, source: str = "body") -> int:
    value = data.get(key)
    if isinstance(value, str) and _INT.fullmatch(value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"{key} must be a whole number in the {source}, got {shown_value(value)}")
    return value


def _seat_param(request: Request, game: WebGame) -> int | None:
    """The seat a page asks to see: a seat a person holds, or None (a watcher)."""
    raw = request.query_params.get("seat", "")
    if raw in ("", "watch"):
        return None
    seat = _int({"seat": raw}, "seat", "query")
    if not 0 <= seat < game.state.n:
        raise RequestError(f"there is no seat {seat}: the seats are 0..{game.state.n - 1}")
    if not game.session.is_human(seat):
        raise Forbidden(f"seat {seat} is held by a bot: a page may show only a person's seat")
    return seat


def _person_seat(request: Request, game: WebGame, what: str) -> int:
    """The seat a person holds that ``what`` is asked for (a watcher has none)."""
    seat = _seat_param(request, game)
    if seat is None:
        raise RequestError(f"{what} is for a seat a person holds: give seat=N")
    return seat


def table_payload(game: WebGame, seat: int | None, rules: bool = False) -> dict[str, Any]:
    """Everything a seat's page draws: the scene from its view, its decisions when it is to
    decide, why the rest is greyed, and the log."""
    state = game.state
    labels = game.labels()
    shown = ["You" if s == seat else labels[s][:1].upper() + labels[s][1:] for s in range(state.n)]
    view = state.view(seat if seat is not None else 0)
    board = view.board
    payload: dict[str, Any] = {
        "status": game.status(),
        "scene": scene(board, seat, shown),
        "phase_words": PHASE_WORDS[state.phase],
        "log": game.log_lines(seat, max(0, game.number - LOG_TAIL), rules),
        "setup_log": [plain_line(event_text(e, state), seat, labels) for e in game.setup_events],
        "decisions": [],
        "unavailable": {},
        "hand_reasons": {},
    }
    since = _last_turn(game, seat) if seat is not None else max(0, game.number - RECENT)
    marks: dict[str, list[Any]] = {"cells": [], "trays": []}
    for entry in game.log[since:]:
        cells, trays = touched(entry, state)
        marks["cells"] += cells
        marks["trays"] += trays
    payload["recent"] = marks
    payload["warnings"] = timetable_warnings(board)
    if seat is not None:
        events = [event for entry in game.log[since:] for event in entry.events]
        told = since_last_turn(events, board, seat, game.session.seats)
        payload["since"] = [plain_line(_SEAT_NOTE.sub(r"seat \1", line), seat, labels) for line in told]
        payload["hand_warnings"] = {
            str(card): warning
            for card in board.hands[seat]
            if (warning := play_warning(board, card)) is not None
        }
        legal = view.legal_intents()
        payload["decisions"] = decision_list(board, legal)
        payload["unavailable"] = unavailable(board, seat, shown, legal)
        payload["hand_reasons"] = {str(card): why for card, why in hand_reasons(board, seat, legal).items()}
        payload["last_turn"] = _last_turn(game, seat)
    return payload


def _last_turn(game: WebGame, seat: int) -> int:
    """The number of the seat's previous decision plus one (0 when it has made none)."""
    for entry in reversed(game.log):
        if entry.seat == seat:
            return entry.number + 1
    return 0


# ---------------------------------------------------------------------------- the app


def make_app(store: GameStore) -> Starlette:
    """The table's ASGI app over ``store``."""

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def options(request: Request) -> Response:
        levels = [{"name": level.name, "text": level.summary} for level in LEVELS]
        return JSONResponse({
            "levels": levels,
            "bots": sorted(name for name in REGISTRY if name not in {level.name for level in LEVELS}),
            "house_rules": list(HouseRules.names()),
            "modes": [mode.value for mode in Mode],
            "offices": [MIN_OFFICES, MAX_OFFICES],
            "human": HUMAN,
            "goal": GOAL_TEXT,
        })  # fmt: skip

    async def create(request: Request) -> Response:
        game = await run_in_threadpool(store.create, await _body(request))
        return JSONResponse({"id": game.id, "status": game.status()}, status_code=201)

    async def saved(request: Request) -> Response:
        return JSONResponse({"games": await run_in_threadpool(store.saved)})

    async def status(request: Request) -> Response:
        game = await run_in_threadpool(store.get, request.path_params["game"])
        with game.lock:
            return JSONResponse(game.status())

    def reading(work: Callable[[WebGame, Request], dict[str, Any]]) -> Endpoint:
        """An endpoint of one game that ``work`` answers from the request (in a thread)."""

        async def endpoint(request: Request) -> Response:
            game = await run_in_threadpool(store.get, request.path_params["game"])
            return JSONResponse(await run_in_threadpool(work, game, request))

        return endpoint

    def writing(work: Callable[[WebGame, dict[str, Any]], dict[str, Any]]) -> Endpoint:
        """An endpoint of one game that ``work`` answers from the request's JSON body."""

        async def endpoint(request: Request) -> Response:
            game = await run_in_threadpool(store.get, request.path_params["game"])
            data = await _body(request)
            return JSONResponse(await run_in_threadpool(work, game, data))

        return endpoint

    def _table(game: WebGame, request: Request) -> dict[str, Any]:
        with game.lock:
            return table_payload(game, _seat_param(request, game), request.query_params.get("rules") == "1")

    def _change(game: WebGame, data: dict[str, Any], action: str) -> dict[str, Any]:
        with game.lock:
            number = _int(data, "number")
            result: dict[str, Any] = {}
            if action == "decide":
                game.decide(_int(data, "seat"), number, _int(data, "decision"))
            elif action == "advance":
                result["moved"] = game.advance(number)
            else:
                result["taken"] = game.undo(_int(data, "seat"), number)
            seat = data.get("seat")
            shown = (
                seat
                if isinstance(seat, int) and not isinstance(seat, bool) and game.session.is_human(seat)
                else None
            )
            return {**result, **table_payload(game, shown, bool(data.get("rules")))}

    def _preview(game: WebGame, data: dict[str, Any]) -> dict[str, Any]:
        with game.lock:
            seat, number, choice = _int(data, "seat"), _int(data, "number"), _int(data, "decision")
            game.check(number)
            if not game.session.is_human(seat) or game.state.current_player() != seat:
                raise Forbidden(f"seat {seat} has nothing to decide now")
            view = game.state.view(seat)
            legal = view.legal_intents()
            move = legal[choice] if 0 <= choice < len(legal) else None
            if not isinstance(move, MoveTray):
                raise RequestError(f"decision {choice} is not a switching Move")
            return {"label": move_words(view.board, move), **move_preview(view.board, move)}

    def _hint(game: WebGame, request: Request) -> dict[str, Any]:
        with game.lock:
            seat = _person_seat(request, game, "a hint")
            return game.hint(seat, request.query_params.get("bot", HINT_BOT))

    def _ahead(game: WebGame, request: Request) -> dict[str, Any]:
        with game.lock:
            view = game.state.view(_person_seat(request, game, "the chance to win"))
            seed = game.session.seed
        chances = WinEstimator(samples=AHEAD_SAMPLES, seed=seed).for_seat(view)
        return {"chances": list(chances), "samples": AHEAD_SAMPLES}

    async def replay_file(request: Request) -> Response:
        game = await run_in_threadpool(store.get, request.path_params["game"])
        with game.lock:
            data = game.session.replay().to_json(store.catalogue)
        return JSONResponse(data, headers={"content-disposition": f'attachment; filename="{game.id}.json"'})

    async def open_replay(request: Request) -> Response:
        data = await _body(request)
        text, name = data.get("text"), data.get("name", "")
        if not isinstance(text, str) or not isinstance(name, str):
            raise RequestError('send the replay as {"name": file name, "text": the file\'s text}')
        view = await run_in_threadpool(store.open_replay, name, text)
        return JSONResponse(_replay_head(view), status_code=201)

    async def open_saved(request: Request) -> Response:
        game = await run_in_threadpool(store.get, request.path_params["game"])
        with game.lock:
            replay = game.session.replay()
        view = await run_in_threadpool(store.open, f"game {game.id}", replay)
        return JSONResponse(_replay_head(view), status_code=201)

    def _replay_labels(view: ReplayView) -> list[str]:
        replay = view.positions.replay
        return (
            seat_names(replay.seats) if replay.seats else [f"seat {s}" for s in range(replay.config.offices)]
        )

    def _replay_head(view: ReplayView) -> dict[str, Any]:
        return {
            "id": view.id,
            "name": view.name,
            "total": view.positions.total,
            "labels": _replay_labels(view),
            "revenue": [list(revenue) for revenue in view.positions.revenue],
        }

    async def replay_head(request: Request) -> Response:
        return JSONResponse(_replay_head(store.replay(request.path_params["replay"])))

    def _position(request: Request) -> dict[str, Any]:
        view = store.replay(request.path_params["replay"])
        index = _int(dict(request.path_params), "index", "path")
        if not 0 <= index <= view.positions.total:
            raise RequestError(f"there is no position {index}: the replay has 0..{view.positions.total}")
        raw = request.query_params.get("reveal", "")
        visit = view.positions.visit(index)
        state = visit.state
        try:
            reveal = {int(s) for s in raw.split(",") if s != ""}
        except ValueError:
            raise RequestError(f"reveal must list seat numbers, got {shown_value(raw)}") from None
        labels = _replay_labels(view)
        return {
            "index": index,
            "total": view.positions.total,
            "scene": scene(
                state, None, [label[:1].upper() + label[1:] for label in labels], reveal & set(range(state.n))
            ),
            "decision": plain_line(visit.decision, None, labels) if visit.decision else None,
            "seat": visit.seat,
            "events": [plain_line(event_text(e, state), None, labels) for e in visit.events],
        }

    async def position(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(_position, request))

    async def chances(request: Request) -> Response:
        view = store.replay(request.path_params["replay"])
        return JSONResponse({"points": await run_in_threadpool(chance_curve, view)})

    async def request_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestError)
        return _error(str(exc), exc.status)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return _error(str(exc.detail), exc.status_code)

    routes = [
        Route("/", page),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
        Route("/game/{game}", page),
        Route("/replay/{replay}", page),
        Route("/api/options", options),
        Route("/api/games", create, methods=["POST"]),
        Route("/api/games", saved, methods=["GET"]),
        Route("/api/games/{game}", status),
        Route("/api/games/{game}/table", reading(_table)),
        Route("/api/games/{game}/decide", writing(partial(_change, action="decide")), methods=["POST"]),
        Route("/api/games/{game}/advance", writing(partial(_change, action="advance")), methods=["POST"]),
        Route("/api/games/{game}/undo", writing(partial(_change, action="undo")), methods=["POST"]),
        Route("/api/games/{game}/preview", writing(_preview), methods=["POST"]),
        Route("/api/games/{game}/hint", reading(_hint)),
        Route("/api/games/{game}/ahead", reading(_ahead)),
        Route("/api/games/{game}/replay", replay_file),
        Route("/api/games/{game}/open", open_saved, methods=["POST"]),
        Route("/api/replays", open_replay, methods=["POST"]),
        Route("/api/replays/{replay}", replay_head),
        Route("/api/replays/{replay}/at/{index}", position),
        Route("/api/replays/{replay}/chances", chances),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(
        routes=routes, exception_handlers={RequestError: request_error, HTTPException: http_error}
    )

"""The games a table server holds: each a ``Session`` (experiments.play.table.session) with a
lock, its log and its save file in the server's games folder.

Every request that changes a game names the decision number it answers (how many decisions
the page had seen); a different number means the page is behind (another tab, a bot, an
undo) and the request is refused with ``Stale``, never applied. Everything is checked before
anything changes, so a refused request leaves the game exactly as it was.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents import REGISTRY, BotSpecError, WinEstimator, make_bot, seat_seed
from experiments.play.table.notices import notice_line
from experiments.play.table.session import HUMAN, Session
from experiments.play.table.viewer import Positions
from experiments.play.web.decisions import decision_label
from sm_env.core import (
    MAX_OFFICES,
    MIN_OFFICES,
    Catalogue,
    Event,
    GameConfig,
    GameState,
    HouseRules,
    Intent,
    Mode,
    MoveTray,
    Replay,
    ReplayError,
    StationMasterError,
    cut_line,
    decode_json,
    load_catalogue,
    load_replay,
    new_game,
    parse_replay,
    shown_value,
)

GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
HINT_BOT = "hard"
CHANCE_SAMPLES = 8  # rollouts a seat's chance to win takes at each Stage of a replay chart
MAX_REPLAY_BYTES = 20 * 1024 * 1024
MAX_NAME = 255  # a replay file's name, shown back in every answer about it
# What a server holds in memory, however many requests come: the games beyond MAX_GAMES stay
# in their save files and are read back when asked for; a game asked for within IDLE_SECONDS
# is in use and is never put away; opening a replay beyond MAX_REPLAYS closes the oldest.
MAX_GAMES = 64
MAX_REPLAYS = 8
IDLE_SECONDS = 60.0


class RequestError(ValueError):
    """A request the table refuses; ``status`` is its HTTP status (4xx), the message says why."""

    status = 400


class NotFound(RequestError):
    status = 404


class Stale(RequestError):
    status = 409


class Forbidden(RequestError):
    status = 403


class TooLarge(RequestError):
    status = 413


class Busy(RequestError):
    status = 429


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One decision in the log: its number (decisions before it), seat, who held the seat,
    what it was and the events it caused."""

    number: int
    seat: int
    holder: str
    text: str
    events: tuple[Event, ...]
    office: int  # the deciding seat's office when it decided
    intent: Intent


def plain_line(text: str, seat: int | None, labels: Sequence[str]) -> str:
    """An engine line in a person's words: seats by their names ("you" for the reader), a
    revenue line led by its amount, the rule id left out."""
    revenue = re.match(r"^(.*) \[([A-Z][\w.-]*): ([+-]\d+)\]$", text)
    if revenue:
        text = f"{revenue.group(3)}: {revenue.group(1)}"

    def name(match: re.Match[str]) -> str:
        s = int(match.group(1))
        if s == seat:
            return "your" if match.group(2) else "you"
        label = labels[s] if 0 <= s < len(labels) else f"seat {s}"
        return label + ("'s" if match.group(2) else "")

    text = _YOU_VERB.sub(lambda m: "you " + _VERBS[m.group(1)], re.sub(r"\bseat (\d+)('s)?", name, text))
    return text[:1].upper() + text[1:]


# an engine line's verbs after "seat N", as they read after "you"
_VERBS = {
    verb: verb[:-2] if verb.endswith(("shes", "ches", "sses", "xes")) else verb[:-1]
    for verb in (
        "passes", "switches", "plays", "upgrades", "discards", "finds", "puts", "sets", "ends",
        "draws", "takes", "stocks", "clears", "unjams", "lays", "chooses", "adds", "holds", "pays",
    )
}  # fmt: skip
_YOU_VERB = re.compile(r"\byou (" + "|".join(_VERBS) + r")\b")


def rule_of(text: str) -> str | None:
    found = re.search(r"\[([A-Z][\w.-]*): [+-]\d+\]$", text)
    return found.group(1) if found else None


def seat_names(seats: Sequence[str]) -> list[str]:
    return [f"seat {s} ({'player' if spec == HUMAN else spec})" for s, spec in enumerate(seats)]


class WebGame:
    """One game at the table server (see the module)."""

    def __init__(self, game_id: str, session: Session) -> None:
        self.id = game_id
        self.session = session
        self.lock = threading.RLock()
        self.log: list[LogEntry] = []
        self.setup_events: tuple[Event, ...] = ()
        self.updated = time.time()
        self.used = time.monotonic()  # when a request last asked for it (GameStore.get)
        self._rebuild_log()

    # ------------------------------------------------------------------ reading

    @property
    def number(self) -> int:
        return len(self.session.decisions)

    @property
    def state(self) -> GameState:
        return self.session.state

    def labels(self) -> list[str]:
        return seat_names(self.session.seats)

    def status(self) -> dict[str, Any]:
        """What anyone may know without a seat: who decides, the holders, the decision number."""
        state = self.state
        return {
            "id": self.id,
            "number": self.number,
            "current": state.current_player(),
            "over": state.is_terminal(),
            "seats": list(self.session.seats),
            "labels": self.labels(),
            "humans": self.session.humans(),
            "bot_to_move": not state.is_terminal() and not self.session.is_human(state.current_player()),
            "save_problem": self.session.save_problem,
        }

    def log_lines(self, seat: int | None, since: int = 0, rules: bool = False) -> list[dict[str, Any]]:
        """The log from decision ``since`` on, for ``seat`` (a face-down draw named only to its
        drawer), in plain words; ``rules`` keeps the rule ids."""
        reveal = () if seat is None else (seat,)
        labels = self.labels()
        out = []
        for entry in self.log[since:]:
            lines = []
            for event in entry.events:
                text = notice_line(event, self.state, reveal)
                lines.append(
                    {"text": plain_line(text, seat, labels), "rule": rule_of(text) if rules else None}
                )
            said = f"seat {entry.seat}" + (" " if entry.seat == seat else ": ") + entry.text
            out.append({
                "number": entry.number,
                "seat": entry.seat,
                "holder": entry.holder,
                "text": plain_line(said, seat, labels),
                "events": lines,
            })  # fmt: skip
        return out

    # ------------------------------------------------------------------ changing

    def check(self, number: int) -> None:
        if number != self.number:
            raise Stale(
                f"this page answers decision {number}, but the game is at decision {self.number}: "
                "it has moved on (another tab, a bot or an undo); the table is shown afresh"
            )

    def decide(self, seat: int, number: int, choice: int) -> None:
        """The person at ``seat`` takes legal decision ``choice`` at decision ``number``."""
        self.check(number)
        state = self.state
        if state.is_terminal():
            raise RequestError("the game is over")
        if not self.session.is_human(seat):
            raise Forbidden(f"seat {seat} is held by a bot, not by a person")
        if state.current_player() != seat:
            raise Stale(f"it is not seat {seat}'s turn: seat {state.current_player()} is deciding")
        legal = state.legal_intents()
        if not 0 <= choice < len(legal):
            raise RequestError(f"there is no decision {choice}: choose 0..{len(legal) - 1}")
        self._apply(legal[choice])

    def advance(self, number: int) -> bool:
        """One decision of the bot to move (False when a person or nobody is to decide)."""
        self.check(number)
        state = self.state
        if state.is_terminal() or self.session.is_human(state.current_player()):
            return False
        self._apply(self.session.bot_choice())
        return True

    def _apply(self, intent: Intent) -> None:
        seat = self.state.current_player()
        text = decision_label(self.state, intent)
        office = self.state.office_of_seat[seat]
        decided = self.session.decide(intent)
        self.log.append(LogEntry(self.number - 1, seat, decided.holder, text, decided.events, office, intent))
        self.updated = time.time()

    def undo(self, seat: int, number: int) -> int:
        """Back to before this person's previous decision; the decisions taken back."""
        self.check(number)
        if not self.session.is_human(seat):
            raise Forbidden(f"seat {seat} is held by a bot, not by a person")
        taken = self.session.undo()
        if taken is None:
            raise RequestError("nothing to undo: no decision of a seat a person holds has been made yet")
        del self.log[self.number :]
        self.updated = time.time()
        return taken

    def hint(self, seat: int, spec: str) -> dict[str, Any]:
        """What a bot would decide for ``seat`` here, from the seat's view, and why."""
        view = self.state.view(seat)
        if not view.legal_intents():
            raise RequestError(f"seat {seat} has nothing to decide now")
        try:
            bot = make_bot(web_bot(spec), seat_seed(self.session.seed, seat))
        except BotSpecError as err:
            raise RequestError(str(err)) from None
        intent = bot.choose(view)
        legal = view.legal_intents()
        return {
            "bot": spec,
            "decision": legal.index(intent),
            "label": decision_label(view.board, intent),
            "reason": hint_reason(view.board, intent, getattr(bot, "reason", None)),
        }

    def _rebuild_log(self) -> None:
        """The log of a resumed game, replayed from its seed."""
        state = new_game(self.session.config, self.session.seed, self.session.catalogue)
        self.setup_events = tuple(state.events)
        for number, intent in enumerate(self.session.decisions):
            state.events.clear()
            seat = intent.seat
            text = decision_label(state, intent)
            office = state.office_of_seat[seat]
            state.apply(intent)
            holder = self.session.holders[number]
            self.log.append(LogEntry(number, seat, holder, text, tuple(state.events), office, intent))


def touched(entry: LogEntry, board: GameState) -> tuple[list[dict[str, Any]], list[int]]:
    """The station cells (office, row, col) and the Crew Trays a decision acted on, to mark on
    the board."""
    intent = entry.intent
    cells: list[dict[str, Any]] = []
    trays: list[int] = []
    tray = getattr(intent, "tray", None)
    if isinstance(tray, int):
        trays.append(tray)
    if isinstance(intent, MoveTray):
        office = board.trays[intent.tray].office
        cells = [{"office": office, "cell": list(cell)} for cell in intent.path]
    else:
        cell = getattr(intent, "cell", None)
        if isinstance(cell, tuple):
            cells.append({"office": entry.office, "cell": list(cell)})
    return cells, trays


# A heuristic's reasons, in a person's words: (pattern, wording); values are its own estimates
# of the Revenue a choice leads to.
_REASONS = (
    (
        re.compile(r"^worth (-?[\d.]+), against (-?[\d.]+) for the next best \((.*)\)$"),
        "by its reckoning this brings about {0:.1f} Revenue in time, against {1:.1f} for the next best ({2})",
    ),
    (re.compile(r"^worth (-?[\d.]+)$"), "by its reckoning this brings about {0:.1f} Revenue in time"),
    (
        re.compile(r"^playing it is worth (-?[\d.]+) now$"),
        "by its reckoning, playing it now brings about {0:.1f} Revenue in time",
    ),
    (
        re.compile(r"^a plan of (\d+) Move\(s\) raises its station's score from (-?[\d.]+) to (-?[\d.]+)$"),
        "the first of {0:.0f} Moves that set your station up to earn more (its estimate: {1:.1f} to {2:.1f})",
    ),
    (
        re.compile(r"^the first step of the best order of its workers' actions \(a search of \d+ nodes\)$"),
        "the first step of the best order for your workers this Stage",
    ),
)


def hint_reason(board: GameState, intent: Intent, bot_reason: str | None) -> str:
    """A plain reason for a hint: the bot's own in words (its option values read as the
    Revenue it expects), else what the decision is for."""
    if bot_reason:
        for pattern, wording in _REASONS:
            found = pattern.match(bot_reason)
            if found:
                values = [float(v) if re.fullmatch(r"-?[\d.]+", v) else v for v in found.groups()]
                return wording.format(*values)
        return re.sub(r"\bits (station|office|workers|Porters|Laborers)\b", r"your \1", bot_reason)
    if isinstance(intent, MoveTray):
        return "it moves a train to where its cars can be worked or picked up"
    kind = intent.kind.value.replace("_", " ")
    return f"the bot judges this {kind} worth the most of what is legal now"


# ---------------------------------------------------------------------------- the store


def parse_setup(data: object) -> tuple[int, GameConfig, list[str]]:
    """A new game's settings from the setup form's JSON: seed, config and seat holders."""
    if not isinstance(data, dict):
        raise RequestError("the setup must be a JSON object")
    known = {"seed", "offices", "days", "target", "mode", "house_rules", "seats"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise RequestError(f"unknown setup field(s): {shown_value(', '.join(unknown))}")
    seats = data.get("seats")
    if not isinstance(seats, list) or not seats or not all(isinstance(s, str) and s for s in seats):
        raise RequestError("seats must be a list of holders: 'human' or a bot name, one per office")
    seed = data.get("seed")
    if seed is None:
        seed = secrets.randbelow(2**32)
    rules = data.get("house_rules", [])
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise RequestError("house_rules must be a list of house rule names")
    days, target, mode = data.get("days", 2), data.get("target"), data.get("mode", Mode.COMPETITIVE.value)
    if not isinstance(days, int) or not isinstance(target, int | None) or not isinstance(mode, str):
        raise RequestError(
            f"days must be a whole number, target a whole number or null and mode a name, "
            f"got {shown_value(days)}, {shown_value(target)} and {shown_value(mode)}"
        )
    if len(seats) > MAX_OFFICES:  # before the config: its message would repeat a long list
        raise RequestError(f"offices must be an integer {MIN_OFFICES}..{MAX_OFFICES}, got {len(seats)} seats")
    try:
        config = GameConfig(
            offices=len(seats),
            days=days,
            target_revenue=target,
            mode=Mode(mode),
            house_rules=HouseRules.from_names(rules),
        )
    except (StationMasterError, ValueError) as err:  # a mode's name may be megabytes long
        raise RequestError(cut_line(err)) from None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise RequestError(f"seed must be a whole number 0..4294967295, got {shown_value(seed)}")
    for spec in seats:
        if spec != HUMAN:
            try:
                make_bot(web_bot(spec), 0)
            except BotSpecError as err:
                raise RequestError(str(err)) from None
    return seed, config, seats


def web_bot(spec: str) -> str:
    """A bot a page may ask for: a registered name without parameters. Parameters stay with
    the command line: a page may not make the server read one of its files (``policy:path=``,
    ``mcts:net=``) or think for hours (``mcts:iterations=10000000``)."""
    if spec not in REGISTRY:
        known = ", ".join(sorted(REGISTRY))
        raise RequestError(f"unknown bot {shown_value(spec)}: a seat or a hint takes a bot by name ({known})")
    return spec


@dataclass
class ReplayView:
    """A replay opened to scrub: its positions, and the charts made for it on request."""

    id: str
    name: str
    positions: Positions
    chances: list[dict[str, Any]] | None = None


class GameStore:
    """The server's games (by id) and opened replays, with the games folder they save to; at
    most ``max_games`` games and ``max_replays`` replays in memory (see ``MAX_GAMES``)."""

    def __init__(
        self,
        folder: str | Path,
        catalogue: Catalogue | None = None,
        max_games: int = MAX_GAMES,
        max_replays: int = MAX_REPLAYS,
        idle_seconds: float = IDLE_SECONDS,
    ) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.catalogue = catalogue or load_catalogue()
        self.games: dict[str, WebGame] = {}
        self.replays: dict[str, ReplayView] = {}
        self.max_games, self.max_replays, self.idle_seconds = max_games, max_replays, idle_seconds
        self.lock = threading.Lock()

    def path_of(self, game_id: str) -> Path:
        return self.folder / f"{game_id}.json"

    def create(self, data: object) -> WebGame:
        seed, config, seats = parse_setup(data)
        with self.lock:  # room first: a refused game leaves no file behind
            self._make_room()
            game_id = secrets.token_urlsafe(6)
            session = Session(seed, config, seats, self.path_of(game_id), self.catalogue)
            session.autosave()
            game = self.games[game_id] = WebGame(game_id, session)
        return game

    def get(self, game_id: str) -> WebGame:
        if not GAME_ID.match(game_id):
            raise NotFound(f"no game {shown_value(game_id)}")
        with self.lock:
            game = self.games.get(game_id)
            if game is None:
                game = self._resume(game_id)
            game.used = time.monotonic()
            return game

    def _resume(self, game_id: str) -> WebGame:
        path = self.path_of(game_id)
        if not path.is_file():
            raise NotFound(f"no game {game_id!r}: it was never started here or its file is gone")
        try:
            session = Session.resume(
                load_replay(path, self.catalogue), save_path=path, catalogue=self.catalogue
            )
        except (ReplayError, StationMasterError, OSError, ValueError) as err:
            raise RequestError(f"the saved game {game_id} cannot be resumed: {err}") from None
        self._make_room()
        game = self.games[game_id] = WebGame(game_id, session)
        return game

    def _make_room(self) -> None:
        """With ``max_games`` in memory, put away the one asked for longest ago, if no request
        has asked for it within ``idle_seconds`` and its save file is up to date (it is read
        back when asked for); else refuse (429)."""
        if len(self.games) < self.max_games:
            return
        now = time.monotonic()
        idle = [
            game
            for game in self.games.values()
            if now - game.used >= self.idle_seconds and game.session.save_problem is None
        ]
        if not idle:
            raise Busy(f"the table holds {len(self.games)} games in play, its most: try again in a minute")
        del self.games[min(idle, key=lambda game: game.used).id]

    def saved(self) -> list[dict[str, Any]]:
        """The saved games in the folder, newest first, each with its settings and progress."""
        out = []
        for path in sorted(self.folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True):
            if not GAME_ID.match(path.stem):
                continue
            try:
                data: Any = decode_json(path.read_text(encoding="utf-8"))
                config = data["config"]
                out.append({
                    "id": path.stem,
                    "seats": data.get("seats", []),
                    "offices": config["offices"],
                    "days": config["days"],
                    "decisions": len(data["decisions"]),
                    "saved": path.stat().st_mtime,
                })  # fmt: skip
            except (OSError, ValueError, KeyError, TypeError):
                continue  # not a game of this table: left alone
        return out

    def open_replay(self, name: str, text: str) -> ReplayView:
        """A replay file's text, opened to scrub."""
        if len(text) > MAX_REPLAY_BYTES:
            raise RequestError(f"the replay file is larger than {MAX_REPLAY_BYTES // (1024 * 1024)} MB")
        if len(name) > MAX_NAME:
            raise RequestError(f"the replay file's name is longer than {MAX_NAME} characters")
        try:
            replay = parse_replay(decode_json(text), self.catalogue, name or "the file")
        except (ReplayError, StationMasterError, ValueError) as err:
            raise RequestError(f"{name or 'the file'} is not a replay this table can open: {err}") from None
        return self.open(name, replay)

    def open(self, name: str, replay: Replay) -> ReplayView:
        """A replay, opened to scrub (``ReplayError`` as a 400 when a decision is illegal)."""
        try:
            positions = Positions(replay, self.catalogue)
        except ReplayError as err:
            raise RequestError(f"{name or 'the file'} is not a replay this table can open: {err}") from None
        view = ReplayView(secrets.token_urlsafe(6), name, positions)
        with self.lock:
            while len(self.replays) >= self.max_replays:  # the oldest opened is closed
                del self.replays[next(iter(self.replays))]
            self.replays[view.id] = view
        return view

    def replay(self, replay_id: str) -> ReplayView:
        with self.lock:
            view = self.replays.get(replay_id)
        if view is None:
            raise NotFound(f"no open replay {shown_value(replay_id)}: open the file again")
        return view


def chance_curve(view: ReplayView, samples: int = CHANCE_SAMPLES) -> list[dict[str, Any]]:
    """Each seat's chance to win at each Stage end of the replay (rollouts from each seat's
    own view), made once per opened replay."""
    if view.chances is None:
        replay = view.positions.replay
        points = WinEstimator(samples=samples, seed=replay.seed).over_replay(replay)
        view.chances = [
            {"decisions": p.decisions, "stages": p.stages, "chances": list(p.chances)} for p in points
        ]
    return view.chances

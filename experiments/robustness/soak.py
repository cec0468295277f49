"""The soak: games over every configuration the engine plays, every decision checked.

Game ``i`` of a soak of seed ``S`` plays the seed ``S + i`` (mod 2**32) under configuration
``i`` of one fixed cycle (``draw``): offices follow ``i mod 6`` and days ``i mod 5``, so any 30
games in a row play every pair; the mode (competitive, competitive to a target, co-op to a
target) follows ``(i + i // 30) mod 3``, so any 3 games play every mode and 90 every triple;
the house rules and variants step through all 128 sets (``45·i mod 128``, shifted by one after
5,760 games), so each is on and off within the first few games, and games 0..11,519 play each
of the 11,520 configurations once. The target, the seats' bots (drawn from a pool, by default
``BOTS``: random and heuristic) and the decision after which the position is saved come from
the game's own seeded stream.

A game (``soak_game``), the bots deciding on their seats' views:

- ``check_invariants`` (the legal intents too) on the first position and after every decision;
- after decision ``save_at`` (or at the end, for a game that ends first) the position is
  written as JSON text and read back (``parse_position`` checks the hash); the game goes on
  from the copy read back, while the original takes the same decisions for ``SHADOW`` more,
  the two compared by hash after each;
- at the end its replay is written as JSON text, read back and verified: replayed from the
  seed, it reaches the final hash of the game played;
- a game longer than ``bound`` decisions per office and day stops (the bots play about 40).

A problem (an invariant broken, an exception, hashes that differ, the bound passed) ends that
game as a ``Failure`` carrying the replay that reproduces it: the decisions accepted, and also
the one ``apply`` raised on, so that replaying the file raises the same way.

The run (``run``) plays the games in batches over the workers (``run_all``) and after each
batch writes the journal (the games done, the totals, the failures) atomically into the output
folder, so a soak stopped anywhere goes on with ``--resume``, losing at most the batch under way.
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
import traceback
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agents import make_bot, parse_bot, seat_seed
from experiments.arena.parallel import Workers, run_all
from sm_env.core import (
    MAX_OFFICES,
    MIN_OFFICES,
    RULES_EDITION,
    GameConfig,
    GameState,
    HouseRules,
    IllegalIntent,
    Intent,
    Mode,
    Replay,
    check_invariants,
    decode_json,
    new_game,
    parse_position,
    parse_replay,
    position_to_json,
    write_atomically,
)

# The seats' bots, each as likely: the cheap ones, and the freight bot (whose planned Moves reach
# the switching rules the others seldom do) with a narrower search, at 2/5 of its cost.
BOTS = ("random", "passenger", "dispatcher", "easy", "medium", "freight:beam=2,branch=2,widen=1")
MODES = ("competitive", "target", "coop")  # competitive, competitive to a target, co-op to a target
MAX_DAYS = 5
RULES = HouseRules.names()
_OFFICE_COUNTS = MAX_OFFICES - MIN_OFFICES + 1
_CYCLE = _OFFICE_COUNTS * MAX_DAYS * len(MODES)  # games that play every offices, days and mode
_RULE_SETS = 1 << len(RULES)
_RULE_STEP = 45  # odd, so 45·i mod 128 steps through every set of house rules in 128 games
# (i mod 90, 45·i mod 128) pairs only residues of equal parity: shifting the rules by one after
# lcm(90, 128) games plays the other half.
_HALF = math.lcm(_CYCLE, _RULE_SETS)
CONFIGURATIONS = _CYCLE * _RULE_SETS

BOUND = 400  # decisions per office and day that make a game a runaway; the bots play about 40
SHADOW = 24  # decisions the never-saved original follows the copy read back
SAVE_RANGE = 36  # per office and day: the save point is drawn below this many decisions
TARGET_PER_DAY = 4  # targets are drawn in 1..4 per day (and per seat, for co-op's team total)
BATCH_SECONDS = 60.0  # a batch's length: the journal is written after each
MAX_SEED = 0xFFFFFFFF
NO_HASH = "0" * 64  # the final hash of a failure's replay when even its accepted decisions fail

JOURNAL, REPORT, FAILURES = "soak-journal.json", "soak-report.json", "failures.txt"
JOURNAL_FORMAT, JOURNAL_VERSION = "station-master-soak-journal", 1
COUNTS = ("games", "decisions", "checks", "saved", "reloaded", "shadowed", "replays")


class SoakError(ValueError):
    """Bad soak options, or an output folder whose journal cannot be gone on with."""


# ---------------------------------------------------------------------------- one game


@dataclass(frozen=True)
class Draw:
    """What game ``index`` of a soak plays: its seed, configuration, mode, seats' bots, and
    after how many decisions its position is saved and read back."""

    index: int
    seed: int
    config: GameConfig
    mode: str
    bots: tuple[str, ...]
    save_at: int

    @property
    def key(self) -> int:
        """The configuration's number, 0..CONFIGURATIONS-1 (the target's value aside)."""
        rules = sum(1 << bit for bit, name in enumerate(RULES) if getattr(self.config.house_rules, name))
        c = self.config
        spot = ((c.offices - MIN_OFFICES) * MAX_DAYS + c.days - 1) * len(MODES) + MODES.index(self.mode)
        return spot * _RULE_SETS + rules

    def text(self) -> str:
        c = self.config
        goal = {"competitive": "competitive", "target": "competitive to", "coop": "co-op to"}[self.mode]
        rules = ",".join(n for n in RULES if getattr(c.house_rules, n)) or "no house rules"
        target = f" {c.target_revenue}" if c.target_revenue is not None else ""
        return (
            f"seed {self.seed}, {c.offices} office(s), {c.days} day(s), {goal}{target}, {rules}, "
            f"bots {','.join(self.bots)}"
        )


def draw(seed: int, index: int, bots: Sequence[str] = BOTS) -> Draw:
    """Game ``index`` of the soak of ``seed``, its seats' bots drawn from ``bots`` (see the
    module's docstring)."""
    offices = MIN_OFFICES + index % _OFFICE_COUNTS
    days = 1 + index % MAX_DAYS
    mode = MODES[(index + index // (_OFFICE_COUNTS * MAX_DAYS)) % len(MODES)]
    rule_set = (_RULE_STEP * index + index // _HALF) % _RULE_SETS
    rules = HouseRules(**{name: bool(rule_set >> bit & 1) for bit, name in enumerate(RULES)})
    rng = random.Random(f"soak {seed} {index}")
    target = None
    if mode != "competitive":
        target = rng.randint(1, TARGET_PER_DAY * days * (offices if mode == "coop" else 1))
    config = GameConfig(offices, days, target, Mode.COOP if mode == "coop" else Mode.COMPETITIVE, rules)
    seated = tuple(rng.choice(bots) for _ in range(offices))
    save_at = rng.randrange(SAVE_RANGE * offices * days)
    return Draw(index, (seed + index) & MAX_SEED, config, mode, seated, save_at)


@dataclass(frozen=True)
class SoakTask:
    """Game ``index`` of the soak of ``seed`` and ``bots``, not started after ``deadline``
    (``time.time()``)."""

    seed: int
    index: int
    bots: tuple[str, ...] = BOTS
    bound: int = BOUND
    deadline: float | None = None


@dataclass(frozen=True)
class Failure:
    """What went wrong in a game: its kind (``setup``, ``bot``, ``apply``, ``invariant``,
    ``position``, ``replay``, ``bound``), after how many accepted decisions, a one-line message,
    and the replay file (as JSON) that reproduces it."""

    kind: str
    decision: int
    message: str
    replay: dict[str, Any]


@dataclass(frozen=True)
class GameResult:
    """A game's counts (``started`` is False for a game the deadline kept from starting)."""

    index: int
    started: bool = True
    decisions: int = 0
    checks: int = 0
    saved: int = 0
    reloaded: int = 0
    shadowed: int = 0
    replays: int = 0
    seconds: float = 0.0
    failure: Failure | None = None


class _Problem(Exception):
    """A check that failed, of a failure kind."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class _Game:
    """One soak game as it is played, with what it has checked so far. ``stage`` is the kind
    of failure an exception raised now would be."""

    def __init__(self, game: Draw, bound: int) -> None:
        self.draw = game
        self.limit = bound * game.config.offices * game.config.days
        self.bound = bound
        self.decisions: list[Intent] = []
        self.pending: Intent | None = None  # the decision being applied
        self.stage = "setup"
        self.checks = self.saved = self.reloaded = self.shadowed = self.replays = 0
        self.state: GameState | None = None
        self.shadow: GameState | None = None  # the never-saved original, while it follows
        self.shadow_left = 0
        self.saved_after = -1  # decisions before the position was saved and read back

    def play(self) -> None:
        game = self.draw
        agents = [make_bot(spec, seat_seed(game.seed, seat)) for seat, spec in enumerate(game.bots)]
        state = self.state = new_game(game.config, game.seed)
        self._check(state)
        while not state.is_terminal():
            if len(self.decisions) == game.save_at:
                state = self._save_and_reload(state)
            if len(self.decisions) >= self.limit:
                raise _Problem(
                    "bound", f"no end after {self.limit} decisions ({self.bound} per office and day)"
                )
            seat = state.current_player()
            self.stage = "bot"
            intent = agents[seat].choose(state.view(seat))
            self.stage, self.pending = "apply", intent
            state.apply(intent)
            self.decisions.append(intent)
            self.pending = None
            self._follow(state, intent)
            self._check(state)
        if not self.saved:
            state = self._save_and_reload(state)
        self.stage = "replay"
        replay = Replay(game.seed, game.config, tuple(self.decisions), state.state_hash(), game.bots)
        parse_replay(json.loads(json.dumps(replay.to_json())), source="the game's replay").verify()
        self.replays += 1

    def _check(self, state: GameState) -> None:
        self.stage = "invariant"
        problems = check_invariants(state, choices=True)
        self.checks += 1
        if problems:
            raise _Problem("invariant", "; ".join(problems))

    def _save_and_reload(self, state: GameState) -> GameState:
        """The state read back from its position's JSON text (``parse_position`` refuses one
        whose hash differs); the original follows it for ``SHADOW`` decisions."""
        self.stage = "position"
        text = json.dumps(position_to_json(state))
        self.saved += 1
        loaded = parse_position(
            json.loads(text), source=f"the position after {len(self.decisions)} decisions"
        )
        self.reloaded += 1
        self.saved_after = len(self.decisions)
        self.state, self.shadow, self.shadow_left = loaded, state, SHADOW
        return loaded

    def _follow(self, state: GameState, intent: Intent) -> None:
        if self.shadow is None:
            return
        self.stage = "position"
        self.shadow.apply(intent)
        self.shadowed += 1
        if self.shadow.state_hash() != state.state_hash():
            raise _Problem(
                "position",
                f"the game read back after decision {self.saved_after} and the game never saved "
                f"differ {SHADOW - self.shadow_left + 1} decision(s) later",
            )
        self.shadow_left -= 1
        if not self.shadow_left:
            self.shadow = None

    def failure(self, kind: str, message: str) -> Failure:
        """The failure, with the replay that reproduces it."""
        game = self.draw
        decisions = tuple(self.decisions)
        try:  # the position before the failure, replayed from the seed
            final = Replay(game.seed, game.config, decisions, NO_HASH).run().state_hash()
        except Exception:  # replaying fails as well: running the file shows how
            final = NO_HASH
        if kind == "apply" and self.pending is not None:
            decisions += (self.pending,)  # the file then raises where the game did
        replay = Replay(game.seed, game.config, decisions, final, game.bots).to_json()
        if 0 <= self.saved_after < len(self.decisions):
            message += f" (the game went on from its position read back after decision {self.saved_after})"
        return Failure(kind, len(self.decisions), message, replay)

    def kind_of(self, err: Exception) -> str:
        """The failure kind of an exception raised now: ``bot`` for a choice the engine
        refused that is not legal (a refusal leaves the state as it was, so it can be asked),
        ``apply`` for a legal one it refused or any other exception of ``apply``."""
        if self.stage == "apply" and isinstance(err, IllegalIntent) and self.state is not None:
            return "apply" if self.pending in self.state.legal_intents() else "bot"
        return self.stage


def soak_game(task: SoakTask) -> GameResult:
    """Play and check one game (nothing if the deadline has passed); a failure is returned,
    never raised."""
    if task.deadline is not None and time.time() > task.deadline:
        return GameResult(task.index, started=False)
    start = time.perf_counter()
    game = _Game(draw(task.seed, task.index, task.bots), task.bound)
    failure = None
    try:
        game.play()
    except _Problem as problem:
        failure = game.failure(problem.kind, str(problem))
    except Exception as err:  # a bug in a bot, the engine or a file format: this game's failure
        failure = game.failure(game.kind_of(err), _one_line(err))
    return GameResult(
        task.index,
        decisions=len(game.decisions),
        checks=game.checks,
        saved=game.saved,
        reloaded=game.reloaded,
        shadowed=game.shadowed,
        replays=game.replays,
        seconds=time.perf_counter() - start,
        failure=failure,
    )


def _one_line(err: Exception) -> str:
    """An exception as one line: its type, message, and where it was raised."""
    frames = traceback.extract_tb(err.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno} in {frames[-1].name}" if frames else ""
    return " ".join(f"{type(err).__name__}: {err}{where}".split())


# ---------------------------------------------------------------------------- the run


@dataclass(frozen=True)
class Soak:
    """A soak's options: ``games`` games from index ``first`` of the soak of ``seed``, their
    seats' bots drawn from ``bots``, the decision ``bound`` per office and day, no game started
    after ``minutes``, into ``out``."""

    games: int
    seed: int = 1
    first: int = 0
    bots: tuple[str, ...] = BOTS
    bound: int = BOUND
    minutes: float | None = None
    out: Path = Path("station-master-soak")

    def __post_init__(self) -> None:
        if self.games < 1:
            raise SoakError(f"--games must be at least 1, got {self.games}")
        if not 0 <= self.seed <= MAX_SEED:
            raise SoakError(f"--seed must be in 0..{MAX_SEED}, got {self.seed}")
        if self.first < 0:
            raise SoakError(f"--first must be at least 0, got {self.first}")
        if self.bound < 1:
            raise SoakError(f"--bound must be at least 1, got {self.bound}")
        if self.minutes is not None and not (self.minutes > 0 and math.isfinite(self.minutes)):
            raise SoakError(f"--minutes must be a number above 0, got {self.minutes}")
        if not self.bots:
            raise SoakError("--bots must name at least one bot")
        for spec in self.bots:
            parse_bot(spec)  # an unknown bot or parameter: BotSpecError, before any game

    def indices(self) -> range:
        return range(self.first, self.first + self.games)


@dataclass
class Journal:
    """What a soak has done so far, kept in its output folder: the games done (as merged
    ``[start, stop)`` ranges of indices), the totals of their counts, their failures, the
    seconds spent in batches, the sessions, the longest game (by decisions per office and
    day) and the slowest."""

    seed: int
    first: int
    games: int
    bots: tuple[str, ...]
    bound: int
    done: list[list[int]] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTS, 0))
    failures: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    sessions: int = 0
    longest: dict[str, Any] = field(default_factory=dict)
    slowest: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def start(cls, soak: Soak) -> Journal:
        return cls(soak.seed, soak.first, soak.games, soak.bots, soak.bound)

    def done_count(self) -> int:
        return sum(stop - start for start, stop in self.done)

    def done_indices(self) -> list[int]:
        return [i for start, stop in self.done for i in range(start, stop)]

    def pending(self, soak: Soak) -> list[int]:
        done = set(self.done_indices())
        return [i for i in soak.indices() if i not in done]

    def record(self, results: Sequence[GameResult], seconds: float, out: Path) -> None:
        """Add a batch's games: their counts, failures (each replay written into ``out``)."""
        for result in results:
            game = draw(self.seed, result.index, self.bots)
            self.totals["games"] += 1
            for name, value in (
                ("decisions", result.decisions),
                ("checks", result.checks),
                ("saved", result.saved),
                ("reloaded", result.reloaded),
                ("shadowed", result.shadowed),
                ("replays", result.replays),
            ):
                self.totals[name] += value
            rate = result.decisions / (game.config.offices * game.config.days)
            if not self.longest or rate > self.longest["per_office_day"]:
                self.longest = {"game": result.index, "decisions": result.decisions, "per_office_day": rate}
            if not self.slowest or result.seconds > self.slowest["seconds"]:
                self.slowest = {
                    "game": result.index,
                    "seconds": round(result.seconds, 3),
                    "config": game.text(),
                }
            if result.failure is not None:
                self.failures.append(_write_failure(out, game, result.failure))
        self.done = _merged(self.done, [r.index for r in results])
        self.seconds += seconds

    def to_json(self) -> dict[str, Any]:
        return {
            "format": JOURNAL_FORMAT,
            "version": JOURNAL_VERSION,
            "rules_edition": RULES_EDITION,
            "seed": self.seed,
            "first": self.first,
            "games": self.games,
            "bots": list(self.bots),
            "bound": self.bound,
            "done": self.done,
            "totals": self.totals,
            "failures": self.failures,
            "seconds": self.seconds,
            "sessions": self.sessions,
            "longest": self.longest,
            "slowest": self.slowest,
        }

    def save(self, out: Path) -> None:
        """The journal and the failures' lines, each written atomically."""
        write_atomically(out / FAILURES, "".join(f["line"] + "\n" for f in self.failures))
        write_atomically(out / JOURNAL, json.dumps(self.to_json(), indent=1) + "\n")


def _merged(ranges: list[list[int]], indices: Sequence[int]) -> list[list[int]]:
    out: list[list[int]] = []
    for start, stop in sorted([(a, b) for a, b in ranges] + [(i, i + 1) for i in indices]):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], stop)
        else:
            out.append([start, stop])
    return out


def _write_failure(out: Path, game: Draw, failure: Failure) -> dict[str, Any]:
    name = f"game-{game.index}.json"
    write_atomically(out / name, json.dumps(failure.replay, indent=1) + "\n")
    line = (
        f"game {game.index}: {failure.kind} after {failure.decision} decision(s): {failure.message} "
        f"[{game.text()}] -> {out / name}"
    )
    return {
        "game": game.index,
        "seed": game.seed,
        "kind": failure.kind,
        "decision": failure.decision,
        "message": failure.message,
        "replay": name,
        "line": line,
    }


def open_journal(soak: Soak, resume: bool) -> Journal:
    """The journal in ``soak.out`` to go on with (``resume``), or a new one; the folder is made.
    A journal of other options, or one found without ``resume``, is refused."""
    path = soak.out / JOURNAL
    if not path.exists():
        soak.out.mkdir(parents=True, exist_ok=True)
        journal = Journal.start(soak)
    else:
        journal = load_journal(path)
        if not resume:
            raise SoakError(
                f"{soak.out} holds a soak already ({journal.done_count()} of {journal.games} games "
                f"done, seed {journal.seed}): add --resume to go on with it, or give another --out"
            )
        for name in ("seed", "first", "games", "bots", "bound"):
            theirs, ours = getattr(journal, name), getattr(soak, name)
            if theirs != ours:
                shown = [",".join(v) if isinstance(v, tuple) else v for v in (theirs, ours)]
                raise SoakError(
                    f"{path} is a soak of --{name} {shown[0]}, not {shown[1]}: "
                    "resume it with its own options, or give another --out"
                )
    journal.sessions += 1
    return journal


def load_journal(path: Path) -> Journal:
    """A soak's journal, checked: a file that is not one raises ``SoakError`` naming why."""
    try:
        data = decode_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:  # unreadable, not UTF-8, not JSON or refused by the strict reader
        raise SoakError(f"{path}: not a readable soak journal: {err}") from None
    if not isinstance(data, dict) or data.get("format") != JOURNAL_FORMAT:
        raise SoakError(f"{path}: not a soak journal (format must be {JOURNAL_FORMAT!r})")
    if data.get("version") != JOURNAL_VERSION:
        raise SoakError(f"{path}: unsupported journal version {data.get('version')!r} (this build reads 1)")
    if data.get("rules_edition") != RULES_EDITION:
        raise SoakError(
            f"{path}: a soak of rules edition {data.get('rules_edition')!r}; this build plays "
            f"edition {RULES_EDITION}: start a new soak in another --out"
        )
    try:
        journal = Journal(
            **{name: _whole(data[name], name) for name in ("seed", "first", "games", "bound")},
            bots=tuple(_text(spec, "bots") for spec in data["bots"]),
            done=[[_whole(a, "done"), _whole(b, "done")] for a, b in data["done"]],
            totals={name: _whole(data["totals"][name], f"totals.{name}") for name in COUNTS},
            failures=[dict(f) for f in data["failures"]],
            seconds=float(data["seconds"]),
            sessions=_whole(data["sessions"], "sessions"),
            longest=dict(data["longest"]),
            slowest=dict(data["slowest"]),
        )
        for failure in journal.failures:
            if not isinstance(failure.get("line"), str):
                raise ValueError("each failure needs its line")
    except (KeyError, TypeError, ValueError) as err:
        raise SoakError(f"{path}: a broken soak journal: {type(err).__name__}: {err}") from None
    return journal


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must hold text, got {value!r}")
    return value


def _whole(value: object, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    return value


def run(
    soak: Soak,
    journal: Journal,
    workers: Workers,
    progress: bool = False,
) -> Journal:
    """Play the games the journal has not done, batch by batch, saving the journal after each;
    no game starts after ``soak.minutes``."""
    deadline = None if soak.minutes is None else time.time() + soak.minutes * 60
    pending = journal.pending(soak)
    size = max(8, workers.jobs * 8)  # the first batch: small, to measure the rate
    with tqdm(
        total=soak.games,
        initial=soak.games - len(pending),
        unit="game",
        file=sys.stderr,
        disable=not progress,
    ) as bar:
        while pending and (deadline is None or time.time() < deadline):
            batch, pending = pending[:size], pending[size:]
            start = time.perf_counter()
            results = run_all(
                soak_game, [SoakTask(soak.seed, i, soak.bots, soak.bound, deadline) for i in batch], workers
            )
            seconds = time.perf_counter() - start
            played = sorted((r for r in results if r.started), key=lambda r: r.index)
            journal.record(played, seconds, soak.out)
            journal.save(soak.out)
            bar.update(len(played))
            bar.set_postfix(failures=len(journal.failures))
            if played:
                size = max(workers.jobs * 8, round(len(played) / seconds * BATCH_SECONDS))
    return journal


# ---------------------------------------------------------------------------- the report


def report(soak: Soak, journal: Journal, jobs: int) -> dict[str, Any]:
    """The soak's figures: counts, rates over the seconds spent, coverage, failures."""
    totals = journal.totals
    seconds = journal.seconds
    coverage: dict[str, Counter[str]] = {
        name: Counter() for name in ("offices", "days", "modes", "house_rules", "bots")
    }
    configurations = set()
    for index in journal.done_indices():
        game = draw(journal.seed, index, journal.bots)
        configurations.add(game.key)
        coverage["offices"][str(game.config.offices)] += 1
        coverage["days"][str(game.config.days)] += 1
        coverage["modes"][game.mode] += 1
        coverage["house_rules"].update(n for n in RULES if getattr(game.config.house_rules, n))
        coverage["bots"].update(game.bots)

    def rate(count: int) -> float:
        return count / seconds if seconds > 0 else 0.0

    return {
        "seed": journal.seed,
        "first": journal.first,
        "games_asked": journal.games,
        "bots": list(journal.bots),
        "complete": journal.done_count() == journal.games,
        **totals,
        "failures": len(journal.failures),
        "seconds": seconds,
        "games_per_second": rate(totals["games"]),
        "decisions_per_second": rate(totals["decisions"]),
        "checks_per_second": rate(totals["checks"]),
        "configurations": len(configurations),
        "configurations_of": CONFIGURATIONS,
        "coverage": {name: dict(sorted(counts.items())) for name, counts in coverage.items()},
        "bound": journal.bound,
        "longest": journal.longest,
        "slowest": journal.slowest,
        "sessions": journal.sessions,
        "jobs": jobs,
        "rules_edition": RULES_EDITION,
        "out": str(soak.out),
        "failure_list": journal.failures,
    }


def write_report(soak: Soak, data: dict[str, Any]) -> Path:
    path = soak.out / REPORT
    write_atomically(path, json.dumps(data, indent=1) + "\n")
    return path

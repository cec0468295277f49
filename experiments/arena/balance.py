"""Balance runs: the heuristic bots play many games per office count, and the harness measures
per game-day what the rules make happen (docs/balance.md gives every definition).

    station-master balance --offices 1,3,6 --days 5 --games 30 --seed 1

Games. For each office count K, game g (0..N-1) is dealt with seed S + g; seat s gets bot
``bots[(s + g) mod len(bots)]``, so over len(bots) consecutive games every bot sits in every seat
once, and its own seed ``seat_seed(S + g, s)``. Games run in a spawned process pool like the
tournament's; results are put back in (office count, game) order, so the numbers do not depend
on ``jobs``.

Paired (``--paired``). Every deal (seed S + g, g in 0..N-1) is played once under each of the
len(bots) rotations: rotation r gives seat s bot ``bots[(s + r) mod len(bots)]``, game
``g * len(bots) + r``; so N * len(bots) games per office count, and the mean metrics below are
over all of them (every rotation). Per office count the run also reports the tournament's skill
measure from the seats' final revenue (``experiments.arena.stats.skill_share``, with the deal as
the block) and every pair of distinct bots' paired difference, the first in the list less the
second (``paired_difference``). It needs at least two distinct bots.

Resuming. With ``--journal FILE`` each finished game's record is appended to FILE as it comes
back (``experiments.arena.journal``), and ``--resume`` plays only the games it lacks: the
tables and the JSON document are those of a run that never stopped. The journal is removed
once they are printed.

Observation. A game is played by its own loop (each bot gets only its seat's view) and after
every decision the harness reads the new ``state.events`` (then clears them) and notices a new
Stage by ``(state.day, state.stage)``; the yards and cars are counted once per day, when the
``day-end`` event comes, and the ledger is read once per day. Per day (1..D) it counts:

- revenue by kind from the ledger: boarded R9.2.1, detrained R9.2.2, loaded R9.3.1, unloaded
  R9.3.2, penalties (the collision rules R8.2.3, R8.2.4, R10.1), any other rule, and the total;
- timetabled trains: an instance (card, day) is due when the Stage of its timetable slot begins
  (or when the card is played onto the slot of the Stage under way), except while an earlier
  instance of the card has not departed. It is bound to the tray of the next ``new-train`` of
  its card and departs with that tray's ``highball`` from its Division Point; on time if that
  day. An instance that does not depart on its day is held, for the last reason seen for it
  that day: no crew tray (``held``), opposing train (R8.1.3), clearance refused, made up wrong
  (R8.1.2), another hold rule by its id, previous run still out (the card was out on its last
  run when due), collision (it was lost leaving), RED FLAG (it stopped short leaving);
  late departures, runs completed and trip lengths (Stages from the Division Point highball to
  ``run-complete``) by day of completion; Extras made up and completed;
- collisions by cause, and those a seat's decision led to: switching (``arrival-track``,
  ``departure-track``: only switching Moves leave cars or trays on the Running Track), keeping
  a train on a full Office (``full-office``, when a train at that office arrived in an earlier
  Stage and the station has a siding off the Running Track that a train on the Office card can
  reach, so a Local Operations turn could have parked it there) and clearance (``mainline``,
  or a ``full-office`` one not kept, when the moving train was sent by the Superintendent's
  Clearance); an unknown cause counts as no decision; RED FLAGs played;
- at the day's end: the Division Yard (and its loaded and empty coaches), the Classification
  Yard, the cars on trains, and the idle cars (standing on station cards, in facility boxes);
  Classification-to-Division refills during the day and the cars they moved.

Aggregates: per office count, metric and day, the mean over the games with a 95% Student t
interval (``experiments.arena.stats.mean_ci``); the all-days column takes per game the total of a
count and the mean over the days of a day's-end level. Trip length: the mean over the games
that completed a run of their mean trip, and the shortest and longest trip of all games.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from agents import bot_label, bot_name, make_bot, seat_seed
from experiments.arena.journal import line_values
from experiments.arena.ledger import LEDGER_KINDS
from experiments.arena.parallel import Workers, as_workers, run_all
from experiments.arena.stats import mean_ci
from experiments.arena.tournament import Skill, skill_json, skill_of
from sm_env.core import (
    COACH,
    EMPTY,
    MAX_OFFICES,
    MIN_OFFICES,
    STAGES_PER_DAY,
    Event,
    GameConfig,
    GameState,
    HouseRules,
    car_code,
    new_game,
    reachable,
)

CONFIDENCE = 0.95
_SEED_MAX = 0xFFFFFFFF
DEFAULT_BOTS = ("passenger", "freight", "dispatcher")
COLLISION_CAUSES = ("mainline", "full-office", "arrival-track", "departure-track")
_REVENUE_KEY = {
    rule: "revenue.penalties" if kind == "collisions" else f"revenue.{kind}"
    for kind, rules in LEDGER_KINDS
    for rule in rules
}
_HOLD_KEY = {"R8.1.3": "held.opposing_train", "R8.1.2": "held.made_up_wrong"}
_LOADED_COACH, _EMPTY_COACH = car_code(COACH, True), car_code(COACH, False)


class BalanceError(ValueError):
    """Balance settings out of range."""


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    kind: str  # "count" (per day), "level" (at the day's end), "trip-mean", "trip-min", "trip-max"


def _m(key: str, label: str, kind: str = "count") -> Metric:
    return Metric(key, label, kind)


SECTIONS: tuple[tuple[str, tuple[Metric, ...]], ...] = (
    (
        "revenue",
        (
            _m("revenue.boarded", "revenue: boarded (R9.2.1)"),
            _m("revenue.detrained", "revenue: detrained (R9.2.2)"),
            _m("revenue.loaded", "revenue: loaded (R9.3.1)"),
            _m("revenue.unloaded", "revenue: unloaded (R9.3.2)"),
            _m("revenue.penalties", "penalties (R8.2.3, R8.2.4, R10.1)"),
            _m("revenue.total", "table total"),
        ),
    ),
    (
        "timetabled trains",
        (
            _m("trains.due", "trains due"),
            _m("trains.on_time", "departed on time"),
            _m("trains.held", "held (not departed that day)"),
            _m("held.no_crew_tray", "  held: no crew tray"),
            _m("held.opposing_train", "  held: opposing train (R8.1.3)"),
            _m("held.clearance_refused", "  held: clearance refused"),
            _m("held.made_up_wrong", "  held: made up wrong (R8.1.2)"),
            _m("held.previous_run_out", "  held: previous run still out"),
            _m("trains.late", "departed late (due an earlier day)"),
            _m("trains.completed", "runs completed"),
            _m("trips.mean", "trip length, mean (Stages)", "trip-mean"),
            _m("trips.min", "trip length, shortest", "trip-min"),
            _m("trips.max", "trip length, longest", "trip-max"),
            _m("extras.made_up", "Extras made up"),
            _m("extras.completed", "Extra runs completed"),
        ),
    ),
    (
        "collisions",
        (
            *(_m(f"collisions.{cause}", f"collisions: {cause}") for cause in COLLISION_CAUSES),
            _m("collisions.total", "collisions: total"),
            _m("collisions.decision", "  led to by a seat's decision"),
            _m("collisions.decision.switching", "    by switching"),
            _m("collisions.decision.clearance", "    by a clearance"),
            _m("collisions.decision.office", "    by keeping a train on a full Office"),
            _m("red_flags", "collisions averted (RED FLAG)"),
        ),
    ),
    (
        "yards at the day's end",
        (
            _m("yards.division", "Division Yard: cars", "level"),
            _m("yards.division.coach_loaded", "  loaded coaches", "level"),
            _m("yards.division.coach_empty", "  empty coaches", "level"),
            _m("yards.classification", "Classification Yard: cars", "level"),
            _m("yards.refills", "refills (Classification → Division)"),
            _m("yards.refill_cars", "  cars moved back"),
        ),
    ),
    (
        "cars at the day's end",
        (
            _m("cars.on_trains", "cars on trains", "level"),
            _m("idle.station_cards", "idle: on station cards", "level"),
            _m("idle.facility_boxes", "idle: in facility boxes", "level"),
            _m("idle.total", "idle: total", "level"),
        ),
    ),
)
METRICS: tuple[Metric, ...] = tuple(m for _, metrics in SECTIONS for m in metrics)
_TRIP_KEYS = frozenset(m.key for m in METRICS if m.kind.startswith("trip"))
_FIXED = {m.key: m for m in METRICS}
# Keys that appear only when seen (other ledger rules, other hold reasons, other collision
# causes) are listed after the last fixed key of their family.
_DYNAMIC_AFTER = {
    "revenue.": "revenue.unloaded",
    "held.": "held.previous_run_out",
    "collisions.": "collisions.departure-track",
}
_DYNAMIC_LABELS = {
    "revenue.other": "revenue: other rules",
    "held.collision": "  held: lost in a collision leaving",
    "held.red_flag": "  held: stopped by a RED FLAG leaving",
    "held.unknown": "  held: no reason seen",
}


# ---------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class Balance:
    """A balance run: ``games`` games of ``days`` days for each office count; ``paired``, ``games``
    deals each played under every rotation of the bots."""

    offices: tuple[int, ...]
    days: int = 5
    games: int = 30
    seed: int = 1
    bots: tuple[str, ...] = DEFAULT_BOTS
    house_rules: HouseRules = field(default_factory=HouseRules)
    paired: bool = False

    def __post_init__(self) -> None:
        if not self.offices:
            raise BalanceError("offices: give at least one office count")
        bad = [str(k) for k in self.offices if isinstance(k, bool) or not MIN_OFFICES <= k <= MAX_OFFICES]
        if bad:
            raise BalanceError(
                f"offices must each be an integer {MIN_OFFICES}..{MAX_OFFICES}, got {', '.join(bad)}"
            )
        repeated = sorted({k for k in self.offices if self.offices.count(k) > 1})
        if repeated:
            raise BalanceError(f"offices lists {', '.join(map(str, repeated))} more than once")
        if self.games < 1:
            raise BalanceError(f"games must be >= 1, got {self.games}")
        if not 0 <= self.seed <= _SEED_MAX - self.games + 1:
            raise BalanceError(
                f"seed must leave the game seeds seed..seed+games-1 in 0..{_SEED_MAX}, got {self.seed}"
            )
        if not self.bots:
            raise BalanceError("a balance run needs at least one bot")
        self.config(self.offices[0])  # a bad days value fails here, naming the field
        for bot in self.bots:
            make_bot(bot, 0)  # a bad spec or parameter fails here, before any game
        if self.paired and len(self.labels()) < 2:
            raise BalanceError(
                f"--paired compares bots, so it needs at least two distinct bots, got {','.join(self.bots)}"
            )

    def config(self, offices: int) -> GameConfig:
        return GameConfig(offices=offices, days=self.days, house_rules=self.house_rules)

    def seat_bots(self, offices: int, rotation: int) -> tuple[str, ...]:
        """The bots of a rotation: the list cycled over the seats, rotated by ``rotation`` (a
        game's index when not paired)."""
        k = len(self.bots)
        return tuple(self.bots[(seat + rotation) % k] for seat in range(offices))

    def schedule(self) -> list[tuple[int, int, int]]:
        """(game, deal, rotation) of every game of one office count, in game order."""
        k = len(self.bots)
        if not self.paired:
            return [(game, game, game % k) for game in range(self.games)]
        return [(deal * k + r, deal, r) for deal in range(self.games) for r in range(k)]

    def games_per_office_count(self) -> int:
        return self.games * (len(self.bots) if self.paired else 1)

    def labels(self) -> list[str]:
        """The distinct bot labels, in list order."""
        return list(dict.fromkeys(bot_label(bot) for bot in self.bots))

    def names(self) -> dict[str, str]:
        """Label -> the short name the tables show."""
        return {bot_label(bot): bot_name(bot) for bot in self.bots}

    def command(self) -> str:
        """The command line that reruns it."""
        parts = [
            "station-master balance",
            f"--offices {','.join(map(str, self.offices))}",
            f"--days {self.days}",
            f"--games {self.games}",
            f"--seed {self.seed}",
            f"--bots {','.join(self.bots)}",
            *(f"--house-rule {name}" for name in HouseRules.names() if getattr(self.house_rules, name)),
            *(["--paired"] if self.paired else []),
        ]
        return " ".join(parts)


def parse_offices(text: str) -> tuple[int, ...]:
    """``"1,3,6"`` -> (1, 3, 6); anything else is a BalanceError naming the bad item."""
    out: list[int] = []
    for item in (part.strip() for part in text.split(",")):
        try:
            out.append(int(item))
        except ValueError:
            raise BalanceError(
                f"offices must be a comma-separated list of integers {MIN_OFFICES}..{MAX_OFFICES}, "
                f"got {item!r} in {text!r}"
            ) from None
    return tuple(out)


# ---------------------------------------------------------------------------- one game


@dataclass
class _Due:
    """One due instance of a timetabled train: its card on one day."""

    card: int
    day: int
    reason: str | None = None  # the key of the last hold reason seen for it on its day
    departed: int = EMPTY  # the day it left its Division Point


@dataclass(frozen=True)
class GameRecord:
    """What one game measured: per day, counts by metric key (trip metrics apart), and the trip
    lengths of the runs completed that day."""

    offices: int
    game: int
    seed: int  # the deal
    rotation: int  # seat s got bot (s + rotation) mod len(bots)
    bots: tuple[str, ...]  # bot labels by seat
    days: tuple[dict[str, int], ...]
    trips: tuple[tuple[int, ...], ...]
    hold_why: dict[str, str]  # hold rule id -> the last ``why`` text seen with it
    anomalies: dict[str, int]  # events the harness could not place (none expected)
    revenue: tuple[int, ...]
    final_hash: str

    def value(self, day: int, key: str) -> float | None:
        """The game's number for a metric on a day (0-based); None for a trip metric without trips."""
        if key not in _TRIP_KEYS:
            return self.days[day].get(key, 0)
        trips = self.trips[day]
        if not trips:
            return None
        return fmean(trips) if key == "trips.mean" else min(trips) if key == "trips.min" else max(trips)


class Observer:
    """Watches one game through its events: ``update(state)`` after every decision,
    ``finish(state)`` at the end."""

    def __init__(self, state: GameState) -> None:
        self.cards = state.catalogue.cards
        self.n_days = state.config.days
        self.days: list[Counter[str]] = [Counter() for _ in range(self.n_days)]
        self.trips: list[list[int]] = [[] for _ in range(self.n_days)]
        self.hold_why: dict[str, str] = {}
        self.anomalies: Counter[str] = Counter()
        self.clock = (state.day, state.stage)
        self.closed = 0  # days closed so far
        self.ledger_read = 0
        self.registered: set[tuple[int, int]] = set()  # (card, day) instances made due
        self.by_day: list[list[_Due]] = [[] for _ in range(self.n_days)]
        self.unbound: dict[int, list[_Due]] = {}  # card -> instances not made up yet, oldest first
        self.at_dp: dict[int, _Due] = {}  # tray -> instance made up, not departed yet
        self.trip_start: dict[int, int] = {}  # tray -> Stage count at its Division Point highball
        self.cleared: dict[int, bool] = {}  # tray -> its departure under way was sent by a Clearance
        self.arrived: dict[int, tuple[int, int]] = {}  # tray at an office -> (office, Stage count)
        self.handlers: dict[str, Callable[[Event, GameState], None]] = {
            "play-train": self._play_train,
            "new-train": self._new_train,
            "held": self._held,
            "hold": self._hold,
            "clearance": self._clearance,
            "highball": self._highball,
            "arrive": self._arrive,
            "run-complete": self._run_complete,
            "collision": self._collision,
            "red-flag": self._red_flag,
            "yard-refill": self._yard_refill,
            "day-end": self._day_end,
        }
        self.update(state)
        self._stage_begins(state, state.day, state.stage)

    def update(self, state: GameState) -> None:
        """Read the new events (and clear them); notice a new Stage."""
        events = state.events
        if events:
            handlers = self.handlers
            for event in events:
                handler = handlers.get(event.kind)
                if handler is not None:
                    handler(event, state)
            events.clear()
        clock = (state.day, state.stage)
        if clock != self.clock:
            start = self.clock[0] * STAGES_PER_DAY + self.clock[1] + 1
            for stage in range(start, clock[0] * STAGES_PER_DAY + clock[1] + 1):
                self._stage_begins(state, *divmod(stage, STAGES_PER_DAY))
            self.clock = clock

    def finish(
        self, state: GameState, game: int = 0, seed: int = -1, bots: tuple[str, ...] = (), rotation: int = 0
    ) -> GameRecord:
        self.update(state)
        while self.closed < min(state.day + 1, self.n_days):  # a game ended before its last day-end
            self._close_day(state, self.closed)
        return GameRecord(
            offices=state.n,
            game=game,
            seed=seed,
            rotation=rotation,
            bots=bots,
            days=tuple(_complete(day) for day in self.days),
            trips=tuple(tuple(t) for t in self.trips),
            hold_why=dict(sorted(self.hold_why.items())),
            anomalies=dict(sorted(self.anomalies.items())),
            revenue=state.revenue(),
            final_hash=state.state_hash(),
        )

    # -------------------------------------------------------------- due trains

    def _stage_begins(self, state: GameState, day: int, stage: int) -> None:
        card = state.timetable[stage]
        if card != EMPTY:
            self._due(state, card, day)

    def _due(self, state: GameState, card: int, day: int) -> None:
        """Instance (card, day) is due, unless an earlier one has not departed (still held)."""
        if (card, day) in self.registered or day >= self.n_days:
            return
        if self.unbound.get(card) or any(d.card == card for d in self.at_dp.values()):
            return
        self.registered.add((card, day))
        due = _Due(card, day)
        if any(tray.train == card for tray in state.trays):  # D-run.3: one train per card
            due.reason = "held.previous_run_out"
        self.unbound.setdefault(card, []).append(due)
        self.by_day[day].append(due)
        self.days[day]["trains.due"] += 1

    def _reason(self, due: _Due | None, day: int, key: str) -> None:
        if due is not None and due.day == day:
            due.reason = key

    def _play_train(self, event: Event, state: GameState) -> None:
        if event.fields["slot"] == event.stage:  # due this very Stage: the New Train Phase follows
            self._due(state, event.fields["card"], event.day)

    def _new_train(self, event: Event, state: GameState) -> None:
        tray = event.fields["tray"]
        self.cleared[tray] = False
        if event.seat >= 0:  # an Extra, placed by the seat that played it
            self.days[event.day]["extras.made_up"] += 1
            return
        waiting = self.unbound.get(event.fields["train"])
        if not waiting:
            self.anomalies["new-train without a due instance"] += 1
            return
        self.at_dp[tray] = waiting.pop(0)

    def _held(self, event: Event, state: GameState) -> None:
        for card in event.fields["trains"]:
            waiting = self.unbound.get(card)
            if waiting:
                self._reason(waiting[0], event.day, "held.no_crew_tray")
            else:
                self.anomalies["held train without a due instance"] += 1

    def _hold(self, event: Event, state: GameState) -> None:
        tray, rule = event.fields["tray"], str(event.fields["rule"])
        self.cleared[tray] = False
        key = _HOLD_KEY.get(rule)
        if key is None:
            key = f"held.rule:{rule}"
            self.hold_why[rule] = str(event.fields.get("why", ""))
        self._reason(self.at_dp.get(tray), event.day, key)

    def _clearance(self, event: Event, state: GameState) -> None:
        tray = event.fields["tray"]
        self.cleared[tray] = bool(event.fields["clear"])
        if not event.fields["clear"]:
            self._reason(self.at_dp.get(tray), event.day, "held.clearance_refused")

    def _arrive(self, event: Event, state: GameState) -> None:
        self.arrived[event.fields["tray"]] = (
            event.fields["office"],
            event.day * STAGES_PER_DAY + event.stage,
        )

    def _highball(self, event: Event, state: GameState) -> None:
        tray = event.fields["tray"]
        self.arrived.pop(tray, None)
        self.cleared[tray] = bool(event.fields["cleared"])
        if event.fields["office"] != EMPTY:
            return
        due = self.at_dp.pop(tray, None)
        if due is not None:
            due.departed = event.day
            self.days[event.day]["trains.on_time" if due.day == event.day else "trains.late"] += 1
        if not self._extra(event.fields["train"]):
            self.trip_start[tray] = event.day * STAGES_PER_DAY + event.stage

    def _run_complete(self, event: Event, state: GameState) -> None:
        tray = event.fields["tray"]
        self.cleared.pop(tray, None)
        self.arrived.pop(tray, None)
        if self._extra(event.fields["train"]):
            self.days[event.day]["extras.completed"] += 1
            return
        start = self.trip_start.pop(tray, None)
        if start is None:
            self.anomalies["run-complete without a Division Point highball"] += 1
            return
        self.days[event.day]["trains.completed"] += 1
        self.trips[event.day].append(event.day * STAGES_PER_DAY + event.stage - start)

    def _extra(self, card: int) -> bool:
        spec = self.cards[card].train
        return spec is not None and spec.extra

    # -------------------------------------------------------------- collisions

    def _collision(self, event: Event, state: GameState) -> None:
        day, fields = self.days[event.day], event.fields
        cause, mover, struck = str(fields["cause"]), fields["tray"], fields["struck"]
        day[f"collisions.{cause}"] += 1
        day["collisions.total"] += 1
        decision = None
        if cause in ("arrival-track", "departure-track"):
            decision = "switching"
        elif cause == "full-office" and self._kept_on_office(event, state):
            decision = "office"
        elif cause in ("mainline", "full-office") and self.cleared.get(mover, False):
            decision = "clearance"
        if decision is not None:
            day["collisions.decision"] += 1
            day[f"collisions.decision.{decision}"] += 1
        for tray in (mover, struck):
            if tray == EMPTY:
                continue
            self._reason(self.at_dp.pop(tray, None), event.day, "held.collision")
            self.trip_start.pop(tray, None)
            self.cleared.pop(tray, None)
            self.arrived.pop(tray, None)

    def _kept_on_office(self, event: Event, state: GameState) -> bool:
        """A full-Office collision is the office seat's decision when a train at its office
        arrived in an earlier Stage and the station has a siding a train on the Office card
        can reach: a Local Operations turn could have parked it there."""
        now = event.day * STAGES_PER_DAY + event.stage
        office = event.fields["office"]
        if not any(at == office and when < now for at, when in self.arrived.values()):
            return False
        return any(row != 0 for row, _ in reachable(state, office))

    def _red_flag(self, event: Event, state: GameState) -> None:
        self.days[event.day]["red_flags"] += 1
        self._reason(self.at_dp.get(event.fields["tray"]), event.day, "held.red_flag")

    # -------------------------------------------------------------- yards, the day's end

    def _yard_refill(self, event: Event, state: GameState) -> None:
        day = self.days[event.day]
        day["yards.refills"] += 1
        day["yards.refill_cars"] += event.fields["cars"]

    def _day_end(self, event: Event, state: GameState) -> None:
        # The state is already at the next Stage's first decision; between the two only cards
        # move (a Home Office reshuffle) and seats change offices (Employee Rotation).
        self._close_day(state, event.day)

    def _close_day(self, state: GameState, day: int) -> None:
        if day != self.closed or day >= self.n_days:
            self.anomalies["day closed out of order"] += 1
            return
        self.closed += 1
        counts = self.days[day]
        for entry in state.ledger[self.ledger_read :]:
            if entry.day < self.n_days:
                self.days[entry.day][_REVENUE_KEY.get(entry.rule, "revenue.other")] += entry.amount
                self.days[entry.day]["revenue.total"] += entry.amount
        self.ledger_read = len(state.ledger)
        counts["yards.division"] = sum(state.division)
        counts["yards.division.coach_loaded"] = state.division[_LOADED_COACH]
        counts["yards.division.coach_empty"] = state.division[_EMPTY_COACH]
        counts["yards.classification"] = sum(state.classification)
        counts["cars.on_trains"] = sum(
            sum(1 for code in tray.consist if code >= 0) for tray in state.trays if tray.train != EMPTY
        )
        standing = sum(len(cars) for station in state.stations for cars in station.cars.values())
        boxed = sum(len(b.cars()) for station in state.stations for b in station.boxes.values())
        counts["idle.station_cards"] = standing
        counts["idle.facility_boxes"] = boxed
        counts["idle.total"] = standing + boxed
        for due in self.by_day[day]:
            if due.departed == day:
                continue
            counts["trains.held"] += 1
            counts[due.reason or "held.unknown"] += 1
        held = set(state.held)  # what the engine still means to make up; the rest will not run
        for card, waiting in self.unbound.items():
            waiting[:] = [due for due in waiting if card in held]


def _complete(day: Counter[str]) -> dict[str, int]:
    """A day's counts under every fixed key (0 if none), then the keys seen only in this game."""
    out = {m.key: day.get(m.key, 0) for m in METRICS if m.key not in _TRIP_KEYS}
    out.update(sorted((key, value) for key, value in day.items() if key not in out))
    return out


Job = tuple[int, int, int, GameConfig, tuple[str, ...], int]  # offices, game, seed, config, bots, rotation


def play_one(job: Job) -> GameRecord:
    """Play and measure one game (the pool's worker: top level, so spawn can pickle it)."""
    offices, game, seed, config, bots, rotation = job
    state = new_game(config, seed)
    agents = [make_bot(bot, seat_seed(seed, seat)) for seat, bot in enumerate(bots)]
    watch = Observer(state)
    while not state.is_terminal():
        seat = state.current_player()
        state.apply(agents[seat].choose(state.view(seat)))
        watch.update(state)
    return watch.finish(state, game, seed, tuple(bot_label(bot) for bot in bots), rotation)


def jobs_of(balance: Balance) -> list[Job]:
    return [
        (
            offices,
            game,
            balance.seed + deal,
            balance.config(offices),
            balance.seat_bots(offices, rotation),
            rotation,
        )
        for offices in balance.offices
        for game, deal, rotation in balance.schedule()
    ]


def play(
    balance: Balance,
    jobs: int | Workers = 1,
    progress: bool = False,
    done: Sequence[GameRecord] = (),
    on_result: Callable[[GameRecord], None] | None = None,
) -> list[GameRecord]:
    """Every game, in (office count, game) order whatever ``jobs`` is. The games of ``done``
    (a resumed run's) are not played again; ``on_result`` gets each game played as it finishes."""
    finished = {(r.offices, r.game) for r in done}
    tasks = [task for task in jobs_of(balance) if (task[0], task[1]) not in finished]
    order = {offices: i for i, offices in enumerate(balance.offices)}
    longest_first = sorted(tasks, key=lambda t: -t[0])  # the big tables last the longest
    played = run_all(
        play_one, longest_first if as_workers(jobs).parallel else tasks, jobs, progress, on_result
    )
    return sorted([*done, *played], key=lambda r: (order[r.offices], r.game))


def journal_header(balance: Balance) -> dict[str, Any]:
    """What decides a balance run's games, for its journal: a resumed run must match it."""
    return {
        "run": "balance",
        "offices": list(balance.offices),
        "days": balance.days,
        "games": balance.games,
        "seed": balance.seed,
        "bots": [bot_label(bot) for bot in balance.bots],
        "house_rules": balance.house_rules.to_dict(),
        "paired": balance.paired,
    }


def record_json(record: GameRecord) -> dict[str, Any]:
    return dataclasses.asdict(record)


def record_from_json(data: dict[str, Any], balance: Balance, source: str) -> GameRecord:
    """A journal line back as a ``GameRecord``; ``BalanceError`` names what does not fit."""
    values = line_values(data, GameRecord, source, BalanceError)
    offices, game = data["offices"], data["game"]
    if (
        offices not in balance.offices
        or not isinstance(game, int)
        or not 0 <= game < balance.games_per_office_count()
        or not isinstance(data["days"], list)
        or len(data["days"]) != balance.days
    ):
        raise BalanceError(f"{source}: the game ({offices!r} offices, game {game!r}) is not of this run")

    return GameRecord(**values)


# ---------------------------------------------------------------------------- aggregates


@dataclass(frozen=True)
class Cell:
    """A metric on a day over the games: the mean and the half-width of its interval (None for
    fewer than two values or a shortest/longest trip), from ``n`` values."""

    mean: float | None
    half_width: float | None
    n: int


@dataclass(frozen=True)
class OfficeSummary:
    offices: int
    metrics: tuple[Metric, ...]
    days: dict[str, tuple[Cell, ...]]  # metric key -> its cell on day 1..D
    all_days: dict[str, Cell]
    collision_decisions: dict[str, int]  # led, of, switching, clearance: over every game and day
    hold_why: dict[str, str]
    games: tuple[GameRecord, ...]
    skill: Skill | None = None  # paired runs only


def _interval(values: Sequence[float]) -> Cell:
    if not values:
        return Cell(None, None, 0)
    mean, low, high = mean_ci(values, CONFIDENCE)
    return Cell(mean, None if math.isnan(low) else (high - low) / 2, len(values))


def _extreme(values: Iterable[int], pick: Callable[[Iterable[int]], int]) -> Cell:
    pooled = list(values)
    return Cell(float(pick(pooled)), None, len(pooled)) if pooled else Cell(None, None, 0)


def metrics_of(records: Sequence[GameRecord], hold_why: dict[str, str]) -> tuple[Metric, ...]:
    """The fixed metrics, with the keys seen only in these games after their family."""
    seen = sorted({key for r in records for day in r.days for key in day if key not in _FIXED})
    out: list[Metric] = []
    for metric in METRICS:
        out.append(metric)
        for prefix, anchor in _DYNAMIC_AFTER.items():
            if metric.key == anchor:
                out += [_dynamic(key, hold_why) for key in seen if key.startswith(prefix)]
    known = {m.key for m in out}
    return (*out, *(_dynamic(key, hold_why) for key in seen if key not in known))


def _dynamic(key: str, hold_why: dict[str, str]) -> Metric:
    if key in _DYNAMIC_LABELS:
        return Metric(key, _DYNAMIC_LABELS[key], "count")
    if key.startswith("held.rule:"):
        rule = key.removeprefix("held.rule:")
        why = hold_why.get(rule)
        return Metric(key, f"  held: {rule}" + (f" ({why})" if why else ""), "count")
    if key.startswith("collisions."):
        return Metric(key, f"collisions: {key.removeprefix('collisions.')}", "count")
    return Metric(key, key, "count")


def summarize(balance: Balance, records: Sequence[GameRecord]) -> list[OfficeSummary]:
    out = []
    for offices in balance.offices:
        games = tuple(r for r in records if r.offices == offices)
        hold_why: dict[str, str] = {}
        for r in games:
            hold_why.update(r.hold_why)
        metrics = metrics_of(games, hold_why)
        days: dict[str, tuple[Cell, ...]] = {}
        all_days: dict[str, Cell] = {}
        span = range(balance.days)
        for m in metrics:
            if m.kind == "trip-mean":
                days[m.key] = tuple(_interval([fmean(r.trips[d]) for r in games if r.trips[d]]) for d in span)
                everything = [[t for day in r.trips for t in day] for r in games]
                all_days[m.key] = _interval([fmean(trips) for trips in everything if trips])
            elif m.kind in ("trip-min", "trip-max"):
                pick = min if m.kind == "trip-min" else max
                days[m.key] = tuple(_extreme((t for r in games for t in r.trips[d]), pick) for d in span)
                all_days[m.key] = _extreme((t for r in games for day in r.trips for t in day), pick)
            else:
                per_day = [[float(r.days[d].get(m.key, 0)) for r in games] for d in span]
                days[m.key] = tuple(_interval(values) for values in per_day)
                whole = [sum(values) for values in zip(*per_day, strict=True)]
                if m.kind == "level":
                    whole = [total / balance.days for total in whole]
                all_days[m.key] = _interval(whole)

        def total(key: str, games: tuple[GameRecord, ...] = games) -> int:
            return sum(day.get(key, 0) for r in games for day in r.days)

        decisions = {
            "led": total("collisions.decision"),
            "of": total("collisions.total"),
            "switching": total("collisions.decision.switching"),
            "clearance": total("collisions.decision.clearance"),
            "office": total("collisions.decision.office"),
            "red_flags": total("red_flags"),
        }
        found = skill(balance, games) if balance.paired else None
        out.append(OfficeSummary(offices, metrics, days, all_days, decisions, hold_why, games, found))
    return out


def skill(balance: Balance, records: Sequence[GameRecord]) -> Skill:
    """The tournament's skill measure over one office count's games of a paired run: a game is
    its deal (the seed) and each seat's bot label and final revenue."""
    games = [
        (r.seed, [(label, float(revenue)) for label, revenue in zip(r.bots, r.revenue, strict=True)])
        for r in records
    ]
    return skill_of(games, balance.labels(), balance.games)


def format_cell(cell: Cell) -> str:
    """``mean ± half-width``; a bare number without an interval; ``–`` without values."""
    if cell.mean is None:
        return "–"
    if cell.half_width is None:
        return f"{cell.mean:.2f}"
    return f"{cell.mean:.2f} ± {cell.half_width:.2f}"


def document(balance: Balance, summaries: Sequence[OfficeSummary]) -> dict[str, Any]:
    """The parameters, and per office count the aggregates and every game's per-day numbers,
    as plain JSON values."""

    def cell(c: Cell) -> dict[str, Any]:
        return {"mean": c.mean, "half_width": c.half_width, "n": c.n}

    # A paired run adds its keys; without --paired the document is what it was before.
    return {
        "parameters": {
            "offices": list(balance.offices),
            "days": balance.days,
            "games": balance.games,
            "seed": balance.seed,
            "bots": list(balance.bots),
            "bot_labels": [bot_label(bot) for bot in balance.bots],
            "house_rules": balance.house_rules.to_dict(),
            "confidence": CONFIDENCE,
            **({"paired": True} if balance.paired else {}),
        },
        "command": balance.command(),
        "results": [
            {
                "offices": s.offices,
                "metrics": [{"key": m.key, "label": m.label.strip(), "kind": m.kind} for m in s.metrics],
                "days": {m.key: [cell(c) for c in s.days[m.key]] for m in s.metrics},
                "all_days": {m.key: cell(s.all_days[m.key]) for m in s.metrics},
                "collision_decisions": s.collision_decisions,
                "hold_why": s.hold_why,
                **({"skill": skill_json(s.skill)} if s.skill is not None else {}),
                "games": [_game_json(balance, s.metrics, r) for r in s.games],
            }
            for s in summaries
        ],
    }


def _game_json(balance: Balance, metrics: Sequence[Metric], r: GameRecord) -> dict[str, Any]:
    return {
        "game": r.game,
        "seed": r.seed,
        **({"rotation": r.rotation} if balance.paired else {}),
        "bots": list(r.bots),
        "revenue": list(r.revenue),
        "final_hash": r.final_hash,
        "days": [{m.key: r.value(d, m.key) for m in metrics} for d in range(balance.days)],
        "trips": [list(t) for t in r.trips],
        "anomalies": r.anomalies,
    }

"""Tournaments: registered bots play each other in every seat over the same deals.

    station-master tournament --bots random,random --offices 3 --days 2 --games 20 --seed 1

Seatings. With k bot entries and n offices, the line-ups are every choice of n entries out of
the k (``itertools.combinations``, in list order); when k < n there is one line-up, the entries
repeated cyclically to n (``a,b`` for 3 offices is ``a,b,a``). Each line-up is played in all n
rotations, entry i in seat (i + r) mod n, so every entry sits in every seat equally often.
A gauntlet (``against``) has one line-up per entry instead: the entry in one seat, the fixed
opponent in all the others; its pairs are each entry less the opponent in the entry's own games.
A deal is one game seed (seed, seed+1, ...); every deal is played under every seating, so all
line-ups meet the same deals (common random numbers). Each bot gets ``seat_seed(game_seed, seat)``.

Statistics, per bot label (spec text with version and parameters; entries with the same label
are pooled), over all its seats in all games:

- mean revenue with a Student t interval taken over the per-deal means: the games of one deal
  share its cards and are not independent, the deals are (every deal holds the same number of
  the bot's seats, so the mean of those means is the plain mean);
- win rate with a Wilson score interval over its seats: a seat with the top revenue wins, a
  shared top counting as a win for each seat in it, as ``GameState.winners()`` says (D-end);
- collisions (ledger entries R8.2.3, R8.2.4, R10.1) per seat played, time per decision;
- an openskill Plackett-Luce rating from every game in (deal, seating) order, seats ranked by
  revenue, equal revenue an equal rank (``experiments.arena.stats.rate_games``). Sorted by mu - 3 sigma.

Games run in a spawned process pool (the same on every platform), so a bot must be registered
when ``agents`` is imported; ``--jobs 1`` plays in this process. Results are put back in
(deal, seating) order: the CSV is the same for the same arguments, apart from its ``*_seconds``
timing columns, which come last.

Crash safety. Each finished game is appended to a journal beside the CSV (``FILE.journal``,
``experiments.arena.journal``) as it comes back; the CSV and the plot are written whole
(atomically) at the end, and the journal stays as the run's record. A run killed at any moment
leaves the old CSV or the new one, never a part, and ``--resume`` plays only the games the
journal lacks: its CSV is row for row the one of a run that never stopped (timing columns apart).
A finished run resumed with more deals (``--games``) plays only the new ones, since deal ``i``
is game seed ``seed + i`` whatever the count.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import itertools
import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from agents import Agent, bot_label, bot_name, make_bot, play_game, seat_seed
from experiments.arena.journal import line_values
from experiments.arena.ledger import LEDGER_KINDS, tally
from experiments.arena.parallel import Workers, run_all
from experiments.arena.stats import (
    Rating,
    SeatResult,
    SkillShare,
    mean_ci,
    paired_difference,
    rate_games,
    skill_share,
    wilson,
)
from sm_env.core import GameConfig, Intent, Replay, SeatView, new_game, write_atomically

CONFIDENCE = 0.95
_SEED_MAX = 0xFFFFFFFF
_SOURCES = [(kind, rules) for kind, rules in LEDGER_KINDS if kind != "collisions"]
_COLLISIONS = dict(LEDGER_KINDS)["collisions"]


class TournamentError(ValueError):
    """Tournament settings out of range."""


@dataclass(frozen=True)
class Seating:
    index: int
    lineup: int
    rotation: int
    bots: tuple[str, ...]  # spec text of the bot in each seat


def seatings(bots: Sequence[str], offices: int, against: str = "") -> list[Seating]:
    """Every line-up of ``offices`` entries from ``bots``, each in all its rotations; with
    ``against`` (a gauntlet), one line-up per bot: that bot in one seat, ``against`` in the rest."""
    if not bots:
        raise TournamentError("a tournament needs at least one bot")
    if against:
        lineups: Iterable[Sequence[str]] = [(bot, *[against] * (offices - 1)) for bot in bots]
    else:
        pool = list(bots) if len(bots) >= offices else [bots[i % len(bots)] for i in range(offices)]
        lineups = itertools.combinations(pool, offices)
    result: list[Seating] = []
    for lineup, members in enumerate(lineups):
        for rotation in range(offices):
            seats = [""] * offices
            for i, bot in enumerate(members):
                seats[(i + rotation) % offices] = bot
            result.append(Seating(len(result), lineup, rotation, tuple(seats)))
    return result


@dataclass(frozen=True)
class Tournament:
    bots: tuple[str, ...]
    game: GameConfig
    deals: int
    seed: int
    against: str = ""  # a gauntlet's fixed opponent in every other seat (``seatings``)

    def __post_init__(self) -> None:
        if self.deals < 1:
            raise TournamentError(f"games must be >= 1, got {self.deals}")
        if not 0 <= self.seed <= _SEED_MAX - self.deals + 1:
            raise TournamentError(
                f"seed must leave the game seeds seed..seed+games-1 in 0..{_SEED_MAX}, got {self.seed}"
            )
        for bot in self.entrants():
            make_bot(bot, 0)  # a bad spec or parameter fails here, before any game
        if self.against and bot_label(self.against) in {bot_label(bot) for bot in self.bots}:
            raise TournamentError(f"--against {self.against} is also in --bots: a bot cannot face itself")

    def entrants(self) -> tuple[str, ...]:
        """Every bot that sits: ``bots``, then ``against`` in a gauntlet."""
        return (*self.bots, self.against) if self.against else self.bots

    def seatings(self) -> list[Seating]:
        return seatings(self.bots, self.game.offices, self.against)

    def labels(self) -> dict[str, str]:
        return {bot: bot_label(bot) for bot in self.entrants()}

    def names(self) -> dict[str, str]:
        """Label -> the short name tables and plots show."""
        return {bot_label(bot): bot_name(bot) for bot in self.entrants()}


@dataclass(frozen=True)
class GameResult:
    deal: int
    seating: int
    game_seed: int
    revenue: tuple[int, ...]
    winners: tuple[int, ...]
    collisions: tuple[int, ...]
    by_source: tuple[tuple[int, ...], ...]  # revenue per seat, for each of _SOURCES
    stages_played: int
    decisions: int
    seat_decisions: tuple[int, ...]
    wall_seconds: float
    decision_seconds: tuple[float, ...]


class _Timed:
    """Forwards ``choose`` to a bot, adding up its time and its decisions."""

    def __init__(self, bot: Agent) -> None:
        self.bot = bot
        self.name = bot.name
        self.seconds = 0.0
        self.decisions = 0

    def choose(self, view: SeatView) -> Intent:
        start = time.perf_counter()
        intent = self.bot.choose(view)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return intent


# deal, seating, game seed, config, bots, the folder for the game's replay file ("": none)
Job = tuple[int, int, int, GameConfig, tuple[str, ...], str]


def replay_name(game_seed: int, seating: int) -> str:
    return f"game-{game_seed}-seating-{seating}.json"


def play_one(job: Job) -> GameResult:
    """Play one game of a tournament (the pool's worker: top level, so spawn can pickle it)."""
    deal, seating, game_seed, config, bots, replays = job
    start = time.perf_counter()
    state = new_game(config, game_seed)
    timed = [_Timed(make_bot(bot, seat_seed(game_seed, seat))) for seat, bot in enumerate(bots)]
    decisions = play_game(state, timed)
    wall = time.perf_counter() - start
    if replays:
        replay = Replay(game_seed, config, tuple(decisions), state.state_hash(), bots)
        replay.save(Path(replays) / replay_name(game_seed, seating))
    seats = range(config.offices)

    return GameResult(
        deal=deal,
        seating=seating,
        game_seed=game_seed,
        revenue=state.revenue(),
        winners=state.winners(),
        collisions=tuple(tally(state, seat, _COLLISIONS)[0] for seat in seats),
        by_source=tuple(tuple(tally(state, seat, rules)[1] for seat in seats) for _, rules in _SOURCES),
        stages_played=state.stages_played,
        decisions=len(decisions),
        seat_decisions=tuple(t.decisions for t in timed),
        wall_seconds=wall,
        decision_seconds=tuple(t.seconds for t in timed),
    )


def play(
    tournament: Tournament,
    jobs: int | Workers = 1,
    progress: bool = False,
    replays: str = "",
    done: Sequence[GameResult] = (),
    on_result: Callable[[GameResult], None] | None = None,
) -> list[GameResult]:
    """Every deal under every seating, in (deal, seating) order whatever ``jobs`` is; with
    ``replays`` a folder, each game's replay file is written there too (``replay_name``).
    The games of ``done`` (a resumed run's) are not played again; ``on_result`` gets each
    game played as it finishes."""
    seating_list = tournament.seatings()
    finished = {(r.deal, r.seating) for r in done}
    tasks: list[Job] = [
        (deal, s.index, tournament.seed + deal, tournament.game, s.bots, replays)
        for deal in range(tournament.deals)
        for s in seating_list
        if (deal, s.index) not in finished
    ]
    results = [*done, *run_all(play_one, tasks, jobs, progress, on_result)]
    return sorted(results, key=lambda r: (r.deal, r.seating))


def journal_header(tournament: Tournament) -> dict[str, Any]:
    """What decides a tournament's games, for its journal: a resumed run must match it."""
    labels = tournament.labels()
    return {
        "run": "tournament",
        "bots": [labels[bot] for bot in tournament.bots],
        "against": labels[tournament.against] if tournament.against else "",
        "config": tournament.game.to_dict(),
        "house_rules": tournament.game.house_rules.to_dict(),
        "games": tournament.deals,
        "seed": tournament.seed,
    }


def result_json(result: GameResult) -> dict[str, Any]:
    return dataclasses.asdict(result)


def result_from_json(data: dict[str, Any], tournament: Tournament, source: str) -> GameResult:
    """A journal line back as a ``GameResult``; ``TournamentError`` names what does not fit."""
    values = line_values(data, GameResult, source, TournamentError)
    deal, seating = data["deal"], data["seating"]
    seats = tournament.game.offices
    if (
        not isinstance(deal, int)
        or not isinstance(seating, int)
        or not 0 <= deal < tournament.deals
        or not 0 <= seating < len(tournament.seatings())
        or data["game_seed"] != tournament.seed + deal
        or not all(
            isinstance(data[key], list) and len(data[key]) == seats
            for key in ("revenue", "collisions", "seat_decisions")
        )
    ):
        raise TournamentError(f"{source}: the game (deal {deal!r}, seating {seating!r}) is not of this run")

    return GameResult(**values)


def csv_header(offices: int) -> list[str]:
    seats = range(offices)
    return [
        "game_seed",
        "seating",
        "lineup",
        "rotation",
        *(f"seat{s}_bot" for s in seats),
        *(f"seat{s}_revenue" for s in seats),
        "winners",
        *(f"seat{s}_collisions" for s in seats),
        *(f"seat{s}_revenue_{kind}" for kind, _ in _SOURCES for s in seats),
        "stages_played",
        "decisions",
        *(f"seat{s}_decisions" for s in seats),
        "wall_seconds",
        *(f"seat{s}_decision_seconds" for s in seats),
    ]


def write_csv(
    out: IO[str], tournament: Tournament, seating_list: Sequence[Seating], results: Sequence[GameResult]
) -> None:
    """One row per game. ``winners`` lists the winning seats separated by spaces; ``wall_seconds``
    is the whole game, setup included, and ``seatN_decision_seconds`` that seat's ``choose`` calls."""
    labels = tournament.labels()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(csv_header(tournament.game.offices))
    for r in results:
        seating = seating_list[r.seating]
        writer.writerow(
            [
                r.game_seed,
                seating.index,
                seating.lineup,
                seating.rotation,
                *(labels[bot] for bot in seating.bots),
                *r.revenue,
                " ".join(map(str, r.winners)),
                *r.collisions,
                *itertools.chain.from_iterable(r.by_source),
                r.stages_played,
                r.decisions,
                *r.seat_decisions,
                f"{r.wall_seconds:.6f}",
                *(f"{seconds:.6f}" for seconds in r.decision_seconds),
            ]
        )


@dataclass(frozen=True)
class BotSummary:
    bot: str  # the label: name@version(params)
    name: str  # the short name: name@version and the parameters not at their defaults
    games: int  # games it sat in
    seat_games: int  # seats it played: twice in one game counts twice
    deals: int
    revenue: tuple[float, float, float]  # mean, low, high
    wins: int
    win_rate: tuple[float, float, float]  # p, low, high
    collisions_per_game: float
    decision_us: float | None  # mean time per decision; None if it never decided
    rating: Rating


def summarize(
    tournament: Tournament, seating_list: Sequence[Seating], results: Sequence[GameResult]
) -> list[BotSummary]:
    """Per bot label, the statistics of the module docstring, best rating first."""
    labels, names = tournament.labels(), tournament.names()
    by_deal: dict[str, defaultdict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    games: defaultdict[str, int] = defaultdict(int)
    wins: defaultdict[str, int] = defaultdict(int)
    collisions: defaultdict[str, int] = defaultdict(int)
    decisions: defaultdict[str, int] = defaultdict(int)
    seconds: defaultdict[str, float] = defaultdict(float)
    for r in results:
        seat_labels = [labels[bot] for bot in seating_list[r.seating].bots]
        for label in set(seat_labels):
            games[label] += 1
        for seat, label in enumerate(seat_labels):
            by_deal[label][r.deal].append(r.revenue[seat])
            wins[label] += seat in r.winners
            collisions[label] += r.collisions[seat]
            decisions[label] += r.seat_decisions[seat]
            seconds[label] += r.decision_seconds[seat]
    ratings = rate_games(
        [
            (labels[bot], float(revenue))
            for bot, revenue in zip(seating_list[r.seating].bots, r.revenue, strict=True)
        ]
        for r in results
    )
    summaries = []
    for label, deals in by_deal.items():
        seat_games = sum(map(len, deals.values()))
        summaries.append(
            BotSummary(
                bot=label,
                name=names[label],
                games=games[label],
                seat_games=seat_games,
                deals=len(deals),
                revenue=mean_ci([sum(v) / len(v) for v in deals.values()], CONFIDENCE),
                wins=wins[label],
                win_rate=wilson(wins[label], seat_games, CONFIDENCE),
                collisions_per_game=collisions[label] / seat_games,
                decision_us=1e6 * seconds[label] / decisions[label] if decisions[label] else None,
                rating=ratings[label],
            )
        )
    return sorted(summaries, key=lambda s: (-s.rating.ordinal, s.bot))


@dataclass(frozen=True)
class Skill:
    """Does skill matter on these deals: the bot's share of the within-deal variance, and
    every pair of bots' paired difference (the first less the second, by deal)."""

    share: SkillShare | None  # None with one bot label or one deal
    pairs: tuple[tuple[str, str, tuple[float, float, float, int]], ...]


def skill(tournament: Tournament, seating_list: Sequence[Seating], results: Sequence[GameResult]) -> Skill:
    labels = tournament.labels()
    games = [
        (
            r.deal,
            [(labels[b], float(v)) for b, v in zip(seating_list[r.seating].bots, r.revenue, strict=True)],
        )
        for r in results
    ]
    if not tournament.against:
        return skill_of(games, list(dict.fromkeys(labels[b] for b in tournament.bots)), tournament.deals)
    # a gauntlet pairs each bot with the fixed opponent in its own games only
    reference = labels[tournament.against]
    pairs = []
    for label in dict.fromkeys(labels[b] for b in tournament.bots):
        own = [game for game in games if any(seat_label == label for seat_label, _ in game[1])]
        pairs.append((label, reference, paired_difference(own, label, reference, CONFIDENCE)))
    share = skill_share(games, CONFIDENCE) if tournament.deals > 1 else None
    return Skill(share, tuple(pairs))


def skill_of(games: Sequence[tuple[int, Sequence[SeatResult]]], labels: Sequence[str], deals: int) -> Skill:
    """The skill measure of games given as (deal, (bot label, revenue) per seat): the share
    (it needs two distinct bots and two deals) and every pair of ``labels``' paired difference."""
    share = skill_share(games, CONFIDENCE) if len(labels) > 1 and deals > 1 else None
    pairs = tuple(
        (a, b, paired_difference(games, a, b, CONFIDENCE)) for a, b in itertools.combinations(labels, 2)
    )
    return Skill(share, pairs)


def skill_json(found: Skill) -> dict[str, Any]:
    def num(x: float) -> float | None:
        return None if math.isnan(x) else x

    share = found.share
    return {
        "share": None
        if share is None
        else {
            "bot": share.bot,
            "low": share.low,
            "high": share.high,
            "chance": share.chance,
            "seat": share.seat,
            "deals": share.deals,
        },
        "pairs": [
            {"a": a, "b": b, "mean": m, "low": num(lo), "high": num(hi), "deals": n}
            for a, b, (m, lo, hi, n) in found.pairs
        ],
    }


def summary_json(
    tournament: Tournament, seating_list: Sequence[Seating], summaries: Sequence[BotSummary]
) -> dict[str, Any]:
    """The config, the seatings and the summary, as plain JSON values (an undefined interval is null)."""
    labels = tournament.labels()

    def num(x: float) -> float | None:
        return None if math.isnan(x) else x

    return {
        "config": {
            "bots": list(tournament.bots),
            **({"against": tournament.against} if tournament.against else {}),
            "offices": tournament.game.offices,
            "days": tournament.game.days,
            "house_rules": tournament.game.house_rules.to_dict(),
            "games": tournament.deals,
            "seed": tournament.seed,
            "confidence": CONFIDENCE,
        },
        "seatings": [
            {
                "index": s.index,
                "lineup": s.lineup,
                "rotation": s.rotation,
                "bots": [labels[b] for b in s.bots],
            }
            for s in seating_list
        ],
        "total_games": tournament.deals * len(seating_list),
        "summary": [
            {
                "bot": s.bot,
                "name": s.name,
                "games": s.games,
                "seat_games": s.seat_games,
                "revenue": {"mean": s.revenue[0], "low": num(s.revenue[1]), "high": num(s.revenue[2])},
                "deals": s.deals,
                "wins": s.wins,
                "win_rate": {"p": s.win_rate[0], "low": s.win_rate[1], "high": s.win_rate[2]},
                "collisions_per_game": s.collisions_per_game,
                "decision_us": s.decision_us,
                "rating": {"mu": s.rating.mu, "sigma": s.rating.sigma, "ordinal": s.rating.ordinal},
            }
            for s in summaries
        ],
    }


def plot(path: str | Path, summaries: Sequence[BotSummary]) -> None:
    """Two panels per bot: rating mu ± 3 sigma, and mean revenue with its interval."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = list(reversed(summaries))  # the best on top
    y = range(len(rows))
    fig = Figure(figsize=(11, 1.5 + 0.5 * len(rows)), layout="constrained")
    FigureCanvasAgg(fig)
    rating, revenue = fig.subplots(1, 2, sharey=True)
    rating.errorbar(
        [s.rating.mu for s in rows], y, xerr=[3 * s.rating.sigma for s in rows], fmt="o", capsize=4
    )
    rating.set(title="openskill rating: mu ± 3 sigma", yticks=list(y), yticklabels=[s.name for s in rows])
    low = [0.0 if math.isnan(s.revenue[1]) else s.revenue[0] - s.revenue[1] for s in rows]
    high = [0.0 if math.isnan(s.revenue[2]) else s.revenue[2] - s.revenue[0] for s in rows]
    revenue.errorbar([s.revenue[0] for s in rows], y, xerr=[low, high], fmt="o", capsize=4)
    revenue.set(title=f"mean revenue, {CONFIDENCE:.0%} interval")
    for axes in (rating, revenue):
        axes.grid(axis="x", alpha=0.3)
    image = io.BytesIO()
    fig.savefig(image, dpi=100, format=Path(path).suffix.lstrip(".") or None)
    write_atomically(path, image.getvalue())

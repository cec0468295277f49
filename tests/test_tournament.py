"""Tournaments: the bot registry, the seatings, the statistics and the ``tournament`` command."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import pickle
import re
import time
from collections import Counter, defaultdict
from pathlib import Path
from statistics import fmean, stdev

import pytest

from agents import (
    REGISTRY,
    BotSpec,
    BotSpecError,
    RandomAgent,
    bot_label,
    bot_name,
    make_bot,
    parse_bot,
    play_game,
    register,
    seat_seed,
    split_bot_list,
)
from experiments.arena import tournament as tour
from experiments.arena.parallel import GameFailed, run_all
from experiments.arena.stats import mean_ci, rate_games, t_quantile, wilson
from experiments.cli import main
from sm_env.core.config import GameConfig
from sm_env.core.engine import new_game
from sm_env.core.errors import IllegalIntent
from sm_env.core.intents import Intent, IntentKind
from sm_env.core.replay import load_replay
from sm_env.core.state import SeatView

_REVENUE_WORK = {
    IntentKind.BOARD,
    IntentKind.DETRAIN,
    IntentKind.LABOR,
    IntentKind.STOCK_OUTBOUND,
    IntentKind.PLACE_CARD,
    IntentKind.PLAY_CARD,
}


class FirstAgent:
    """A deterministic test bot: the first legal intent, revenue work first when eager."""

    name = "first"

    def __init__(self, seed: int, eager: bool = True) -> None:
        self.eager = eager

    def choose(self, view: SeatView) -> Intent:
        legal = view.legal_intents()
        work = [i for i in legal if i.kind in _REVENUE_WORK] if self.eager else []
        return (work or legal)[0]


@pytest.fixture
def first_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registers the test bot for one test only (the real registry gets no toy bots)."""
    monkeypatch.setitem(REGISTRY, "first", BotSpec("first", 1, "test bot", FirstAgent, {"eager": True}))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


# ---------------------------------------------------------------- statistics


def test_wilson_by_hand() -> None:
    # 7/10 at 95%: z = 1.959964, z² = 3.841459, shrink = 1 + z²/n = 1.3841459;
    # centre = (0.7 + z²/20) / shrink = 0.8920729 / 1.3841459 = 0.6444935;
    # half = z·sqrt(0.7·0.3/10 + z²/400) / shrink = 1.959964·0.1749389 / 1.3841459 = 0.2477153
    p, low, high = wilson(7, 10)
    assert p == 0.7
    assert (round(low, 4), round(high, 4)) == (0.3968, 0.8922)
    # 0/5: centre = half = (z²/10) / (1 + z²/5) = 0.3841459 / 1.7682918 = 0.2172411, so (0, 0.4345)
    assert wilson(0, 5)[1] == 0.0 and round(wilson(0, 5)[2], 4) == 0.4345
    assert round(wilson(5, 5)[1], 4) == round(1 - 0.4345, 4) and wilson(5, 5)[2] == 1.0
    for bad in ((1, 0), (-1, 3), (4, 3)):
        with pytest.raises(ValueError):
            wilson(*bad)


def test_t_quantile_against_the_table() -> None:
    # df 1: tan(0.475π) = 12.7062; df 2: 0.95 / sqrt(2·0.975·0.025) = 4.3027; the rest from a t table
    assert t_quantile(0.975, 1) == pytest.approx(math.tan(0.475 * math.pi), rel=1e-9)
    assert t_quantile(0.975, 2) == pytest.approx(0.95 / math.sqrt(2 * 0.975 * 0.025), rel=1e-9)
    for df, table in ((3, 3.1824), (9, 2.2622), (30, 2.0423), (100, 1.9840)):
        assert round(t_quantile(0.975, df), 4) == table
    assert round(t_quantile(0.995, 5), 4) == 4.0321
    assert t_quantile(0.025, 4) == pytest.approx(-t_quantile(0.975, 4))
    assert t_quantile(0.975, 10**7) == pytest.approx(1.959964, abs=1e-5)  # the normal limit


def test_mean_ci_by_hand() -> None:
    # 1, 2, 3, 4: mean 2.5, s = sqrt(5/3) = 1.290994, s/sqrt(4) = 0.645497; t(0.975, 3) = 3.182446,
    # so the half width is 2.054260: (0.445740, 4.554260)
    mean, low, high = mean_ci([1, 2, 3, 4])
    assert mean == 2.5
    assert (round(low, 6), round(high, 6)) == (0.44574, 4.55426)
    assert mean_ci([5, 5, 5]) == (5, 5, 5)
    single = mean_ci([3.0])
    assert single[0] == 3.0 and math.isnan(single[1]) and math.isnan(single[2])
    with pytest.raises(ValueError):
        mean_ci([])
    with pytest.raises(ValueError):
        mean_ci([1, 2], confidence=1.0)


def test_ratings_by_hand() -> None:
    # Plackett-Luce (Weng-Lin), two new players, a wins: sigma² = (25/3)² + tau² = 69.444444 + 0.006944
    # = 69.451389; c² = 2·(sigma² + (25/6)²) = 173.625; c = 13.176684; each win probability is 1/2,
    # so mu moves by sigma² / (2c) = 2.635389; sigma'² = sigma²·(1 - (sigma/c)(sigma²/c²)/4)
    # = 69.451389·(1 - 0.632456·0.4·0.25) = 65.058766, sigma' = 8.065901
    ratings = rate_games([[("a", 3.0), ("b", 1.0)]])
    assert ratings["a"].mu == pytest.approx(27.635389, abs=1e-6)
    assert ratings["b"].mu == pytest.approx(22.364611, abs=1e-6)
    assert ratings["a"].sigma == pytest.approx(8.065901, abs=1e-6) == ratings["b"].sigma
    assert ratings["a"].ordinal == pytest.approx(27.635389 - 3 * 8.065901, abs=1e-5)
    tie = rate_games([[("a", 2.0), ("b", 2.0)]])
    assert tie["a"].mu == pytest.approx(25.0) == tie["b"].mu
    # one player in both seats: the changes cancel; a solo game rates nothing
    assert rate_games([[("a", 3.0), ("a", 1.0)]])["a"].mu == pytest.approx(25.0)
    solo = rate_games([[("a", 3.0)]])["a"]
    assert (solo.mu, solo.sigma) == pytest.approx((25.0, 25 / 3))


# ---------------------------------------------------------------- registry


def test_registry_makes_bots_from_spec_text(first_bot: None) -> None:
    bot = make_bot("random", 7)
    assert isinstance(bot, RandomAgent) and bot.name == "random"
    assert bot_label("random") == bot_label(" random: ") == "random@1"
    spec, params = parse_bot("first:eager=no")
    assert spec.name == "first" and params == {"eager": False}
    lazy = make_bot("first:eager=false", 0)
    assert isinstance(lazy, FirstAgent) and lazy.eager is False
    assert bot_label("first") == "first@1(eager=True)"
    assert bot_label("first:eager=0") == "first@1(eager=False)"


def test_a_label_gives_the_version_of_a_bot_a_parameter_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """A search's play is its prior's and its rollout heuristic's too: a new version of either
    must not resume, or be mixed with, the results of the old one under the same label."""
    freight = REGISTRY["freight"]
    label = bot_label("search:prior=freight")
    assert f"(prior=freight@{freight.version}," in label
    rolled = bot_label("search:rollout=freight")
    assert f",rollout=freight@{freight.version}," in rolled and ",rollout=," in bot_label("search")
    assert bot_name("search:prior=freight,rollouts=32") == (
        f"search@{REGISTRY['search'].version}(prior=freight@{freight.version},rollouts=32)"
    )
    monkeypatch.setitem(REGISTRY, "freight", dataclasses.replace(freight, version=freight.version + 1))
    assert bot_label("search:prior=freight") != label
    assert bot_label("search:rollout=freight") != rolled
    assert (
        "prior=passenger@" in bot_label("search")
        and bot_name("search") == f"search@{REGISTRY['search'].version}"
    )


def test_parameter_values_take_the_default_type(monkeypatch: pytest.MonkeyPatch) -> None:
    def factory(seed: int, n: int, x: float, tag: str, on: bool) -> RandomAgent:
        return RandomAgent(seed)

    monkeypatch.setitem(
        REGISTRY, "typed", BotSpec("typed", 3, "", factory, {"n": 1, "x": 0.5, "tag": "a", "on": False})
    )
    assert parse_bot("typed:n=4,x=2,tag=b,on=yes")[1] == {"n": 4, "x": 2.0, "tag": "b", "on": True}
    assert bot_label("typed:x=0.25") == "typed@3(n=1,x=0.25,tag=a,on=False)"
    for text, message in (
        ("typed:n=1.5", "n takes a int"),
        ("typed:x=fast", "x takes a float"),
        ("typed:on=maybe", "on takes a bool"),
        ("typed:n=1,n=2", "once"),
        ("typed:n", "once as n=value"),
        ("typed:speed=3", "no parameter 'speed' (known: n=1, x=0.5, tag='a', on=False)"),
    ):
        with pytest.raises(BotSpecError, match=re.escape(message)):
            parse_bot(text)


def test_unknown_bot_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown bot 'nosuch' \(known: .*random"):
        make_bot("nosuch", 1)


def test_a_factory_refusing_a_value_is_a_spec_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def factory(seed: int, weight: int) -> RandomAgent:
        if weight < 0:
            raise ValueError("weight must be >= 0")
        return RandomAgent(seed)

    monkeypatch.setitem(REGISTRY, "weighed", BotSpec("weighed", 1, "", factory, {"weight": 1}))
    with pytest.raises(BotSpecError, match="weight must be >= 0"):
        make_bot("weighed:weight=-1", 0)


def test_bot_specs_are_checked_and_registered_once() -> None:
    for bad in (
        lambda: BotSpec("Bad:name", 1, "", RandomAgent),
        lambda: BotSpec("ok", 0, "", RandomAgent),
        lambda: BotSpec("ok", 1, "", RandomAgent, {"x": [1]}),  # type: ignore[dict-item]
    ):
        with pytest.raises(BotSpecError):
            bad()
    with pytest.raises(BotSpecError, match="already registered"):
        register(REGISTRY["random"])
    with pytest.raises(TypeError):
        REGISTRY["random"].params["x"] = 1  # type: ignore[index]


def test_split_bot_list_keeps_parameters_with_their_bot() -> None:
    assert split_bot_list("random,random") == ["random", "random"]
    assert split_bot_list("first:eager=true,x=1,random, first") == ["first:eager=true,x=1", "random", "first"]
    with pytest.raises(BotSpecError):
        split_bot_list(" , ")


# ---------------------------------------------------------------- seatings


@pytest.mark.parametrize(
    ("bots", "offices", "lineups"),
    [
        ("abc", 2, 3),
        ("abcd", 3, 4),
        ("abc", 3, 1),
        ("ab", 3, 1),
        ("a", 2, 1),
        ("abc", 1, 3),
        ("abcdef", 6, 1),
    ],
)
def test_every_entry_sits_in_every_seat_equally_often(bots: str, offices: int, lineups: int) -> None:
    seats = tour.seatings(list(bots), offices)
    assert len(seats) == lineups * offices
    assert [s.index for s in seats] == list(range(len(seats)))
    per_seat = [Counter(s.bots[seat] for s in seats) for seat in range(offices)]
    assert all(counts == per_seat[0] for counts in per_seat)
    for s in seats:  # entry i of the line-up sits in seat (i + r) mod n
        first_of_lineup = seats[s.lineup * offices]
        assert all(s.bots[(i + s.rotation) % offices] == bot for i, bot in enumerate(first_of_lineup.bots))


def test_seating_rule_in_detail() -> None:
    assert [s.bots for s in tour.seatings(["a", "b", "c"], 2)] == [
        ("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b"),
    ]  # fmt: skip
    assert [s.bots for s in tour.seatings(["a", "b"], 3)] == [
        ("a", "b", "a"),
        ("a", "a", "b"),
        ("b", "a", "a"),
    ]


def test_a_gauntlet_seats_each_bot_alone_against_the_fixed_opponent() -> None:
    assert [s.bots for s in tour.seatings(["a", "b"], 3, against="x")] == [
        ("a", "x", "x"), ("x", "a", "x"), ("x", "x", "a"),
        ("b", "x", "x"), ("x", "b", "x"), ("x", "x", "b"),
    ]  # fmt: skip
    assert [s.lineup for s in tour.seatings(["a", "b"], 2, against="x")] == [0, 0, 1, 1]


def test_a_gauntlet_pairs_each_bot_with_the_opponent_in_its_own_games(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``--against``: one line-up per bot; a bot's paired difference is its revenue less the
    opponent's in the games it sat in, deal by deal, computed here from the CSV by hand."""
    path = tmp_path / "g.csv"
    argv = ("tournament", "--bots", "random,easy", "--against", "passenger", "--offices", "3", "--days", "1")
    code, out, _ = run(
        capsys, *argv, "--games", "3", "--seed", "40", "--jobs", "1", "--csv", str(path), "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["config"]["against"] == "passenger" and data["total_games"] == 3 * 6
    assert {s["bot"] for s in data["summary"]} == {bot_label(b) for b in ("random", "easy", "passenger")}
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    for bot in ("random", "easy"):
        label = bot_label(bot)
        per_deal: dict[str, list[float]] = {}
        for row in rows:
            seats = [row[f"seat{s}_bot"] for s in range(3)]
            if label in seats:
                mine = seats.index(label)
                others = [int(row[f"seat{s}_revenue"]) for s in range(3) if s != mine]
                per_deal.setdefault(row["game_seed"], []).append(
                    int(row[f"seat{mine}_revenue"]) - fmean(others)
                )
        (pair,) = [p for p in data["skill"]["pairs"] if p["a"] == label]
        assert pair["b"] == bot_label("passenger") and pair["deals"] == 3
        assert pair["mean"] == pytest.approx(fmean(fmean(v) for v in per_deal.values()))


# ---------------------------------------------------------------- tournaments


def test_a_tournament_game_is_a_plain_game_of_the_same_bots() -> None:
    config = GameConfig(offices=3, days=2)
    result = tour.play_one((0, 0, 5, config, ("random", "random", "random"), ""))
    state = new_game(config, 5)
    decisions = play_game(state, [RandomAgent(seat_seed(5, s)) for s in range(3)])
    assert result.revenue == state.revenue() and result.winners == state.winners()
    assert result.decisions == len(decisions) == sum(result.seat_decisions)
    assert result.stages_played == state.stages_played == 24
    assert all(seconds > 0 for seconds in result.decision_seconds)


def test_a_shared_top_revenue_is_a_win_for_each_tied_seat() -> None:
    match = tour.Tournament(("random",), GameConfig(offices=3), 1, 0)
    (seating,) = [s for s in match.seatings() if s.index == 0]

    def game(revenue: tuple[int, ...], winners: tuple[int, ...]) -> tour.GameResult:
        zeros = (0, 0, 0)
        return tour.GameResult(
            0, 0, 0, revenue, winners, zeros, (zeros,) * 4, 12, 3, (1, 1, 1), 0.1, (0.0,) * 3
        )

    (summary,) = tour.summarize(match, [seating], [game((4, 4, 1), (0, 1)), game((0, 2, 1), (1,))])
    assert summary.wins == 3 and summary.seat_games == 6 and summary.games == 2
    assert summary.win_rate == wilson(3, 6)
    assert summary.revenue[0] == 2.0 and math.isnan(summary.revenue[1])  # one deal: no interval


def test_summary_matches_the_csv_rows_by_hand(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, first_bot: None
) -> None:
    path = tmp_path / "t.csv"
    argv = ("tournament", "--bots", "random,first", "--offices", "2", "--days", "2", "--games", "4")
    code, out, _ = run(capsys, *argv, "--seed", "9", "--jobs", "1", "--csv", str(path), "--json")
    assert code == 0
    summary = {s["bot"]: s for s in json.loads(out)["summary"]}
    rows = read_csv(path)
    assert len(rows) == 8 and {r["game_seed"] for r in rows} == {"9", "10", "11", "12"}
    seats: defaultdict[str, list[tuple[int, int, bool, int]]] = defaultdict(list)
    for r in rows:
        winners = r["winners"].split()
        for s in range(2):
            revenue, collisions = int(r[f"seat{s}_revenue"]), int(r[f"seat{s}_collisions"])
            seats[r[f"seat{s}_bot"]].append((int(r["game_seed"]), revenue, str(s) in winners, collisions))
    assert set(seats) == set(summary) == {"random@1", "first@1(eager=True)"}
    for label, played in seats.items():
        got = summary[label]
        assert got["games"] == got["seat_games"] == len(played) == 8
        revenues = [revenue for _, revenue, _, _ in played]
        assert got["revenue"]["mean"] == pytest.approx(sum(revenues) / 8)
        per_deal = [fmean(rev for seed, rev, _, _ in played if seed == deal) for deal in range(9, 13)]
        half = 3.182446 * stdev(per_deal) / 2  # t(0.975, 3 df) · s / sqrt(4 deals)
        assert got["revenue"]["low"] == pytest.approx(fmean(per_deal) - half, abs=1e-5)
        assert got["revenue"]["high"] == pytest.approx(fmean(per_deal) + half, abs=1e-5)
        wins = sum(won for _, _, won, _ in played)
        assert got["wins"] == wins
        assert got["win_rate"] == dict(zip(("p", "low", "high"), wilson(wins, 8), strict=True))
        assert got["collisions_per_game"] == sum(c for _, _, _, c in played) / 8
    ratings = rate_games(
        [(r["seat0_bot"], float(r["seat0_revenue"])), (r["seat1_bot"], float(r["seat1_revenue"]))]
        for r in rows
    )
    for label, rating in ratings.items():
        assert summary[label]["rating"] == {"mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal}
    values = [
        int(r[f"seat{s}_{column}"]) for r in rows for s in range(2) for column in ("revenue", "collisions")
    ]
    assert min(values) < 0 < max(values), "seed 9 has revenue and a collision to count"


def _without_timing(path: Path) -> list[dict[str, str]]:
    return [{k: v for k, v in row.items() if not k.endswith("_seconds")} for row in read_csv(path)]


def test_csv_is_reproducible_and_independent_of_jobs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ("tournament", "--bots", "random,random", "--offices", "3", "--days", "2", "--games", "3")
    paths = [tmp_path / name for name in ("a.csv", "b.csv", "c.csv")]
    for path, jobs in zip(paths, ("1", "1", "2"), strict=True):
        code, out, _ = run(capsys, *argv, "--seed", "4", "--jobs", jobs, "--csv", str(path), "--json")
        assert code == 0
    first = _without_timing(paths[0])
    assert len(first) == 9  # 3 deals × 1 line-up × 3 rotations
    assert first == _without_timing(paths[1]) == _without_timing(paths[2])
    header = next(csv.reader(paths[2].open(encoding="utf-8")))
    assert header == tour.csv_header(3)
    timing = [name for name in header if name.endswith("_seconds")]
    assert (
        header[-len(timing) :] == timing == ["wall_seconds", *(f"seat{s}_decision_seconds" for s in range(3))]
    )
    assert all(sum(int(r[f"seat{s}_decisions"]) for s in range(3)) == int(r["decisions"]) for r in first)


def test_json_shape(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(
        capsys,
        "tournament", "--bots", "random", "--offices", "2", "--days", "1", "--games", "2", "--seed", "9",
        "--jobs", "1", "--csv", str(tmp_path / "t.csv"), "--house-rule", "sister_trains", "--json", "--quiet",
    )  # fmt: skip
    assert code == 0 and err == ""
    data = json.loads(out)
    assert {"config", "seatings", "total_games", "summary", "csv", "plot", "wall_seconds"} <= set(data)
    assert data["config"] == {
        "bots": ["random"],
        "offices": 2,
        "days": 1,
        "house_rules": {
            "reduced_visibility": False, "sister_trains": True, "employee_rotation": False,
            "emergency_toolbox": False, "overnight_yard": False, "yard_on_demand": False,
            "home_signals": False,
        },
        "games": 2,
        "seed": 9,
        "confidence": 0.95,
    }  # fmt: skip
    assert data["seatings"] == [
        {"index": 0, "lineup": 0, "rotation": 0, "bots": ["random@1", "random@1"]},
        {"index": 1, "lineup": 0, "rotation": 1, "bots": ["random@1", "random@1"]},
    ]
    assert data["total_games"] == 4
    (bot,) = data["summary"]
    assert bot["bot"] == "random@1" and bot["games"] == 4 and bot["seat_games"] == 8 and bot["deals"] == 2
    assert set(bot["revenue"]) == {"mean", "low", "high"} and set(bot["win_rate"]) == {"p", "low", "high"}
    assert set(bot["rating"]) == {"mu", "sigma", "ordinal"} and bot["decision_us"] > 0


def test_one_deal_has_no_revenue_interval(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ("tournament", "--bots", "random", "--offices", "1", "--games", "1", "--jobs", "1")
    code, out, _ = run(capsys, *argv, "--csv", str(tmp_path / "t.csv"), "--json")
    assert code == 0
    (bot,) = json.loads(out)["summary"]
    assert bot["revenue"]["low"] is None and bot["revenue"]["high"] is None
    code, out, _ = run(capsys, *argv, "--csv", str(tmp_path / "t.csv"))
    assert code == 0 and "(one deal)" in out


def test_a_piped_table_is_as_wide_as_its_longest_bot_label(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # off a terminal a 140-column table used to cut a long spec's figures to ellipses
    params = "w_spot=3.1,w_carry=1.3,w_deliver=2.1,w_network=1.6,w_fstock=2.6,w_fclear=2.1,w_train=1.6"
    argv = ("tournament", "--bots", f"freight:{params}", "--against", "passenger", "--days", "1", "--games=1")
    code, out, _ = run(capsys, *argv, "--jobs", "1", "--csv", str(tmp_path / "t.csv"), "--quiet")
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("│ freight@5("))
    assert f"freight@5({params})" in row and "…" not in out
    assert "(one deal)" in row and "%" in row  # its revenue and win-rate cells, whole


def test_table_and_png(capsys: pytest.CaptureFixture[str], tmp_path: Path, first_bot: None) -> None:
    path = tmp_path / "run.csv"
    argv = ("tournament", "--bots", "first,random,first:eager=false", "--offices", "2", "--games", "2")
    code, out, err = run(capsys, *argv, "--jobs", "1", "--csv", str(path))
    assert code == 0 and err == ""
    assert out.startswith("12 games: 2 deals (seeds 1..2) under 6 seatings (3 line-up(s) × 2 rotation(s))")
    assert "Tournament" in out
    # tables show name@version and only the parameters off their defaults; the CSV has them all
    assert all(label in out for label in ("random@1", "first@1 ", "first@1(eager=False)"))
    assert "first@1(eager=True)" not in out and "first@1(eager=True)" in path.read_text()
    png = tmp_path / "run.png"  # next to the CSV by default
    assert png.read_bytes().startswith(b"\x89PNG") and png.stat().st_size > 1000
    other = tmp_path / "chart.png"
    assert run(capsys, *argv, "--jobs", "1", "--csv", str(path), "--plot", str(other))[0] == 0
    assert other.read_bytes().startswith(b"\x89PNG")


def test_progress_bar_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    tour.play(tour.Tournament(("random",), GameConfig(offices=1), 2, 0), progress=True)
    assert "2/2" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--bots", "nosuch"), "unknown bot 'nosuch' (known: "),
        (("--bots", "random:speed=3"), "no parameter 'speed'"),
        (("--bots", "first:eager=maybe"), "eager takes a bool"),
        (("--bots", "random", "--games", "0"), "games must be >= 1"),
        (("--bots", "random", "--offices", "0"), "offices"),
        (("--bots", "random", "--offices", "7"), "offices"),
        (("--bots", "random", "--days", "0"), "days"),
        (("--bots", "random", "--seed", "-1"), "seed"),
        (("--bots", "random", "--seed", "4294967295", "--games", "2"), "seed"),
        (("--bots", "random,first", "--against", "random"), "a bot cannot face itself"),
        (("--bots", "random", "--against", "nosuch"), "unknown bot 'nosuch'"),
    ],
)
def test_bad_input_is_a_one_line_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, first_bot: None, argv: tuple[str, ...], message: str
) -> None:
    path = tmp_path / "t.csv"
    code, out, err = run(capsys, "tournament", *argv, "--jobs", "1", "--csv", str(path))
    assert code == 2 and out == ""
    assert err.startswith("station-master: error:") and message in err and err.count("\n") == 1
    assert not path.exists()


@pytest.mark.parametrize(
    "argv", [("--bots", "random", "--colour", "red"), ("--bots", "random", "--jobs", "0"), ("--games", "2")]
)
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["tournament", *argv])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "usage: station-master" in err and "error:" in err


def test_unwritable_files_are_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "tournament", "--bots", "random", "--csv", str(tmp_path / "no" / "t.csv"))
    assert code == 2 and err.startswith("station-master: error:")
    path = tmp_path / "t.csv"
    argv = ("tournament", "--bots", "random", "--csv", str(path), "--plot", str(tmp_path / "no" / "t.png"))
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.startswith("station-master: error: no folder") and not path.exists()


def test_a_game_failing_in_a_worker_is_reported_not_hung() -> None:
    """A worker's exception comes back as GameFailed naming the task, with the worker's
    traceback (an exception that does not pickle used to kill the pool's result thread and
    hang the run); the core's IllegalIntent pickles by its rule id and message."""
    config = GameConfig(offices=1, days=1)
    tasks: list[tour.Job] = [(0, 0, 1, config, ("random",), ""), (1, 0, 2, config, ("nosuch",), "")]
    with pytest.raises(GameFailed, match=r"(?s)task \(1, 0, 2, .*unknown bot 'nosuch'"):
        run_all(tour.play_one, tasks, jobs=2)
    error = pickle.loads(pickle.dumps(IllegalIntent("R7.4", "no car fits")))
    assert (error.rule_id, error.message, str(error)) == ("R7.4", "no car fits", "[R7.4] no car fits")


def wait_for_the_first(task: tuple[str, int]) -> int:
    """Task 0 returns at once; any other waits (20 s at most: then it returns its number
    negated) for the file the caller writes once task 0's result has come back."""
    marker, number = task
    deadline = time.monotonic() + 20
    while number and not Path(marker).exists():
        if time.monotonic() > deadline:
            return -number
        time.sleep(0.01)
    return number


def test_each_game_comes_back_as_it_finishes_not_with_a_batch(tmp_path: Path) -> None:
    """The journal and the progress bar hear of a game when it ends: a worker's games are not
    batched, or a batch of a search's slow games would hold every result back for minutes
    and lose them all at a kill. Here every game but the first waits until the first's
    result has reached the caller."""
    marker = tmp_path / "first-is-back"

    def arrived(number: int) -> None:
        if number == 0:
            marker.touch()

    tasks = [(str(marker), number) for number in range(64)]
    assert sorted(run_all(wait_for_the_first, tasks, jobs=2, on_result=arrived)) == list(range(64))


def test_replays_folder_holds_each_games_replay(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``--replays DIR``: a replay file per game, named by seed and seating, that re-runs to
    the revenue the CSV records (and opens in the replay viewer and the browser table)."""
    path, folder = tmp_path / "t.csv", tmp_path / "replays"
    argv = ("--bots", "random,passenger", "--offices", "2", "--games", "2", "--seed", "40")
    code, _, err = run(
        capsys, "tournament", *argv, "--jobs", "1", "--csv", str(path), "--replays", str(folder)
    )
    assert code == 0, err
    rows = list(csv.DictReader(path.open()))
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        tour.replay_name(int(r["game_seed"]), int(r["seating"])) for r in rows
    )
    for row in rows:
        replay = load_replay(folder / tour.replay_name(int(row["game_seed"]), int(row["seating"])))
        state = replay.verify()
        assert list(state.revenue()) == [int(row["seat0_revenue"]), int(row["seat1_revenue"])]
        assert list(replay.seats) == [row[f"seat{s}_bot"].split("@")[0] for s in range(2)]

"""The balance harness: what it counts per game-day adds up, matches the ledger, the yards and
the engine's own due trains, does not depend on the job count, and the ``balance`` command."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from conftest import lay_siding

from agents import bot_label, bot_name, make_bot, seat_seed
from experiments.arena import balance as bal
from experiments.arena.stats import paired_difference
from experiments.cli import main
from sm_env.core import engine
from sm_env.core.catalogue import load_catalogue
from sm_env.core.config import GameConfig
from sm_env.core.phases import Step
from sm_env.core.pieces import EMPTY
from sm_env.core.state import Event, GameState

TINY = bal.Balance(offices=(1, 3), days=2, games=2, seed=4)
TINY_ARGV = ("balance", "--offices", "1,3", "--days", "2", "--games", "2", "--seed", "4")
PAIRED = bal.Balance(offices=(3,), days=1, games=3, seed=4, bots=("passenger", "random"), paired=True)
PAIRED_ARGV = (
    "balance", "--offices", "3", "--days", "1", "--games", "3", "--seed", "4",
    "--bots", "passenger,random", "--paired",
)  # fmt: skip
COLLISION_RULES = dict((kind, rules) for kind, rules in bal.LEDGER_KINDS)["collisions"]


@dataclass
class Played:
    record: bal.GameRecord
    state: GameState
    engine_due: list[tuple[int, str]]  # per New Train Phase with a card in its slot: (day, case)


def play_watched(job: bal.Job, monkeypatch: pytest.MonkeyPatch) -> Played:
    """One game by the documented loop, with the engine's New Train Phase spied on: for the
    card in the Stage's slot, is it new, out on its previous run, at its Division Point or held."""
    offices, game, seed, config, bots, rotation = job
    state = engine.new_game(config, seed)
    cases: list[tuple[int, str]] = []
    begin = engine.STEPS[Step.NEW_TRAIN]

    def spy(s: GameState) -> object:
        card = s.timetable[s.stage]
        if s is state and card != EMPTY:  # not the bots' rollouts on their own copies
            trays = [t for t in s.trays if t.train == card]
            case = "held" if card in s.held else "at-dp" if any(t.at_dp for t in trays) else "out"
            cases.append((s.day, case if trays or card in s.held else "new"))
        return begin(s)

    monkeypatch.setitem(engine.STEPS, Step.NEW_TRAIN, spy)
    agents = [make_bot(bot, seat_seed(seed, seat)) for seat, bot in enumerate(bots)]
    watch = bal.Observer(state)
    while not state.is_terminal():
        seat = state.current_player()
        state.apply(agents[seat].choose(state.view(seat)))
        watch.update(state)
    record = watch.finish(state, game, seed, tuple(bot_label(bot) for bot in bots), rotation)
    monkeypatch.undo()
    return Played(record, state, cases)


@pytest.fixture(scope="module")
def played() -> Iterator[list[Played]]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield [play_watched(job, monkeypatch) for job in bal.jobs_of(TINY)]


@pytest.fixture(scope="module")
def summaries(played: list[Played]) -> list[bal.OfficeSummary]:
    return bal.summarize(TINY, [p.record for p in played])


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- what a game counts


def test_every_metric_is_there_for_every_day(summaries: list[bal.OfficeSummary]) -> None:
    assert [s.offices for s in summaries] == [1, 3]
    for summary in summaries:
        keys = [m.key for m in summary.metrics]
        assert {m.key for m in bal.METRICS} <= set(keys)
        for key in keys:
            assert len(summary.days[key]) == TINY.days and key in summary.all_days
        assert len(summary.games) == TINY.games
    doc = bal.document(TINY, summaries)
    for result in doc["results"]:
        keys = {m["key"] for m in result["metrics"]}
        for game in result["games"]:
            assert len(game["days"]) == TINY.days and all(set(day) == keys for day in game["days"])


def test_the_counts_add_up_every_day(played: list[Played]) -> None:
    supply = sum(load_catalogue().car_supply())
    for p in played:
        for day in p.record.days:
            assert day["trains.due"] == day.get("trains.on_time", 0) + day.get("trains.held", 0), day
            reasons = sum(v for k, v in day.items() if k.startswith("held."))
            assert reasons == day.get("trains.held", 0)
            kinds = sum(v for k, v in day.items() if k.startswith("revenue.") and k != "revenue.total")
            assert kinds == day.get("revenue.total", 0)
            causes = [f"collisions.{c}" for c in bal.COLLISION_CAUSES]
            assert sum(day.get(c, 0) for c in causes) == day.get("collisions.total", 0)
            assert day.get("revenue.penalties", 0) == -5 * day.get("collisions.total", 0)
            split = sum(day.get(f"collisions.decision.{d}", 0) for d in ("switching", "clearance", "office"))
            assert split == day.get("collisions.decision", 0) <= day.get("collisions.total", 0)
            cars = day["yards.division"] + day["yards.classification"] + day["cars.on_trains"]
            assert cars + day["idle.total"] == supply
            assert day["idle.total"] == day["idle.station_cards"] + day["idle.facility_boxes"]
            assert (
                day["yards.division.coach_loaded"] + day["yards.division.coach_empty"]
                <= day["yards.division"]
            )
        trips = [t for day in p.record.trips for t in day]
        assert len(trips) == sum(day.get("trains.completed", 0) for day in p.record.days)
        assert all(t > 0 for t in trips)
        assert p.record.anomalies == {}
    assert any(day.get("trains.due") for p in played for day in p.record.days)


def test_revenue_is_the_ledger_day_by_day(played: list[Played]) -> None:
    kinds = {rule: kind for kind, rules in bal.LEDGER_KINDS for rule in rules}
    for p in played:
        for d, day in enumerate(p.record.days):
            entries = [e for e in p.state.ledger if e.day == d]
            assert day.get("revenue.total", 0) == sum(e.amount for e in entries)
            for kind in ("boarded", "detrained", "loaded", "unloaded"):
                expected = sum(e.amount for e in entries if kinds.get(e.rule) == kind)
                assert day.get(f"revenue.{kind}", 0) == expected
            penalties = [e for e in entries if e.rule in COLLISION_RULES]
            assert day.get("revenue.penalties", 0) == sum(e.amount for e in penalties)
            assert day.get("collisions.total", 0) == len(penalties)
        assert sum(day.get("revenue.total", 0) for day in p.record.days) == sum(p.state.revenue())
        assert p.record.revenue == p.state.revenue() and p.record.final_hash == p.state.state_hash()


def test_due_trains_are_the_engines(played: list[Played]) -> None:
    """A due instance each time the engine's New Train Phase meets a card in its slot that is
    new or out on its previous run; none when the card waits at its Division Point or is held.
    A card out on its previous run runs another section (D-run.3), so "previous run still out"
    is never the reason a train is held."""
    sections = 0
    for p in played:
        for d, day in enumerate(p.record.days):
            cases = Counter(case for when, case in p.engine_due if when == d)
            assert day.get("trains.due", 0) == cases["new"] + cases["out"]
            assert day.get("held.previous_run_out", 0) == 0
            sections += cases["out"]
    assert sections > 0


def test_every_bot_sits_in_every_seat_equally_often() -> None:
    run3 = bal.Balance(offices=(1, 3, 6), games=3)
    for offices in run3.offices:
        for seat in range(offices):
            assert sorted(run3.seat_bots(offices, g)[seat] for g in range(3)) == sorted(bal.DEFAULT_BOTS)
    assert run3.seat_bots(3, 1) == ("freight", "dispatcher", "passenger")
    assert [job[2] for job in bal.jobs_of(TINY)] == [4, 5, 4, 5]


def test_without_paired_game_g_is_deal_g_at_rotation_g() -> None:
    """The jobs of a run without --paired are those of before it existed: game g has seed S + g
    and seat s bot (s + g) mod len(bots); the rotation only says so."""
    bots = bal.DEFAULT_BOTS
    assert bal.jobs_of(TINY) == [
        (k, g, 4 + g, TINY.config(k), tuple(bots[(s + g) % 3] for s in range(k)), g % 3)
        for k in (1, 3)
        for g in range(2)
    ]
    assert "--paired" not in TINY.command()


def test_paired_plays_every_rotation_of_every_deal() -> None:
    one, other = ("passenger", "random", "passenger"), ("random", "passenger", "random")
    assert bal.jobs_of(PAIRED) == [
        (3, 2 * deal + r, 4 + deal, PAIRED.config(3), (one, other)[r], r)
        for deal in range(3)
        for r in range(2)
    ]
    assert PAIRED.games_per_office_count() == 6
    assert PAIRED.command().split() == ["station-master", *PAIRED_ARGV]


@pytest.mark.parametrize("bots", [("passenger",), ("passenger", "passenger")])
def test_paired_needs_two_distinct_bots(bots: tuple[str, ...]) -> None:
    with pytest.raises(bal.BalanceError, match="needs at least two distinct bots"):
        bal.Balance(offices=(3,), bots=bots, paired=True)


def test_a_full_office_collision_is_the_seats_decision_when_a_train_stood_there_a_stage() -> None:
    """D-collision.1: a train arriving at a full Office strikes a train that arrived there in an
    earlier Stage, in a station with a siding: the seat had a Local Operations turn to park it
    there, so the collision counts as its decision ("office"). With no siding, or struck by a
    train that arrived in the same Mainline Phase, it counts as no decision, unless the mover
    was sent by a clearance."""
    cases = (
        ((0, 3), True, False, "office"),
        ((0, 3), False, False, None),
        ((0, 4), True, False, None),
        ((0, 4), True, True, "clearance"),
    )
    for (day, stage), siding, cleared, decision in cases:
        state = engine.new_game(GameConfig(offices=2, days=1), 5)
        if siding:
            lay_siding(state, 1)
        watch = bal.Observer(state)
        card = load_catalogue().train_by_number[1]
        state.events += [
            Event(0, 3, "arrive", 1, {"train": card, "tray": 0, "office": 1}),
            Event(
                0, 4, "highball", 0, {"train": card, "tray": 1, "office": 0, "line": 1, "cleared": cleared}
            ),
            Event(day, stage, "arrive", 1, {"train": card, "tray": 2, "office": 1}),
            Event(
                0,
                4,
                "collision",
                1,
                {"cause": "full-office", "rule": "R8.2.3", "tray": 1, "struck": 0, "office": 1},
            ),
            Event(0, 11, "day-end", -1, {"revenue": [0, 0]}),
        ]
        if (day, stage) == (0, 4):  # only the struck train stood there, and it arrived this Stage
            state.events[0] = Event(0, 4, "arrive", 1, {"train": card, "tray": 0, "office": 1})
        watch.update(state)
        counts = watch.finish(state, 0, 5).days[0]
        assert counts["collisions.full-office"] == 1
        assert counts.get("collisions.decision", 0) == (decision is not None)
        for kind in ("office", "clearance", "switching"):
            assert counts.get(f"collisions.decision.{kind}", 0) == (kind == decision), (kind, decision)


def test_unknown_hold_rules_and_collision_causes_are_counted_by_name() -> None:
    """The rules may grow: a hold rule or a collision cause the harness does not know is
    recorded under its own name (no decision for the cause), never an error."""
    state = engine.new_game(GameConfig(offices=2, days=1), 5)
    watch = bal.Observer(state)
    card = load_catalogue().train_by_number[1]
    state.events += [
        Event(0, 0, "play-train", 0, {"card": card, "roll": 1, "slot": 0}),
        Event(0, 0, "new-train", -1, {"train": card, "tray": 0, "east": False}),
        Event(0, 0, "section", -1, {"train": card}),  # a kind it has never heard of
        Event(0, 0, "hold", -1, {"train": card, "tray": 0, "why": "no room ahead", "rule": "X-future.1"}),
        Event(0, 0, "collision", 1, {"cause": "signal-box", "rule": "X-future.2", "tray": 2, "struck": -1}),
        Event(0, 11, "day-end", -1, {"revenue": [0, 0]}),
    ]
    watch.update(state)
    record = watch.finish(state, 0, 5)
    day = record.days[0]
    assert day["trains.due"] == day["trains.held"] == day["held.rule:X-future.1"] == 1
    assert day["collisions.signal-box"] == day["collisions.total"] == 1
    assert day["collisions.decision"] == 0
    metrics = {m.key: m for m in bal.metrics_of([record], record.hold_why)}
    assert metrics["held.rule:X-future.1"].label.strip() == "held: X-future.1 (no room ahead)"
    keys = list(metrics)
    assert (
        keys.index("held.previous_run_out") < keys.index("held.rule:X-future.1") < keys.index("trains.late")
    )
    assert keys.index("collisions.departure-track") < keys.index("collisions.signal-box")
    assert keys.index("collisions.signal-box") < keys.index("collisions.total")


def test_two_jobs_give_the_same_games(played: list[Played]) -> None:
    assert bal.play(TINY, jobs=2) == [p.record for p in played]


# ---------------------------------------------------------------- the command


def test_json_is_reproducible_and_holds_the_parameters(
    capsys: pytest.CaptureFixture[str], summaries: list[bal.OfficeSummary]
) -> None:
    code, out, err = run(capsys, *TINY_ARGV, "--jobs", "1", "--json", "--quiet")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc == json.loads(json.dumps(bal.document(TINY, summaries)))  # the same games, played apart
    assert doc["parameters"] == {
        "offices": [1, 3], "days": 2, "games": 2, "seed": 4,
        "bots": ["passenger", "freight", "dispatcher"],
        "bot_labels": [bot_label(bot) for bot in bal.DEFAULT_BOTS],
        "house_rules": {
            "reduced_visibility": False, "sister_trains": False, "employee_rotation": False,
            "emergency_toolbox": False, "overnight_yard": False, "yard_on_demand": False,
            "home_signals": False,
        },
        "confidence": 0.95,
    }  # fmt: skip
    assert doc["command"].split() == ["station-master", *TINY_ARGV, "--bots", "passenger,freight,dispatcher"]
    three = doc["results"][1]
    assert three["offices"] == 3 and [g["seed"] for g in three["games"]] == [4, 5]
    assert "skill" not in three and "rotation" not in three["games"][0]  # --paired only
    cell = three["days"]["trains.due"][0]
    assert set(cell) == {"mean", "half_width", "n"} and cell["n"] == 2
    assert set(three["collision_decisions"]) == {"led", "of", "switching", "clearance", "office", "red_flags"}


def test_table_per_office_count(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("balance", "--offices", "1", "--days", "2", "--games", "3", "--house-rule", "sister_trains")
    code, out, err = run(capsys, *argv, "--jobs", "1")
    assert code == 0 and err == ""
    assert out.startswith("3 games: 3 per office count 1 (seeds 1..3), 2 day(s)")
    assert "house rules: sister_trains" in out
    assert "1 office(s), 2 day(s), 3 game(s)" in out and "±" in out
    for text in ("Day 1", "Day 2", "all days", "table total", "held: no crew tray", "trip length, mean"):
        assert text in out
    assert "Division Yard: cars" in out and "idle: total" in out
    assert "collisions led to by a seat's decision:" in out and "3 games in" in out
    assert "skill:" not in out and "paired by deal" not in out
    code, out, _ = run(capsys, *argv, "--jobs", "1", "--json", "--quiet")
    doc = json.loads(out)
    assert (
        doc["parameters"]["house_rules"]["sister_trains"] and "--house-rule sister_trains" in doc["command"]
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--offices", "0,7"), "offices must each be an integer 1..6, got 0, 7"),
        (("--offices", "3,x"), "got 'x' in '3,x'"),
        (("--offices", "3,3"), "offices lists 3 more than once"),
        (("--games", "0"), "games must be >= 1, got 0"),
        (("--days", "0"), "days must be an integer >= 1, got 0"),
        (("--seed", "-1"), "seed"),
        (("--bots", "nobody"), "unknown bot 'nobody'"),
        (("--bots", "passenger:speed=3"), "no parameter 'speed'"),
        (("--bots", "passenger", "--paired"), "--paired compares bots, so it needs at least two distinct"),
    ],
)
def test_bad_options_are_a_one_line_error(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    code, out, err = run(capsys, "balance", "--offices", "1", "--games", "1", *argv, "--jobs", "1")
    assert code == 2 and out == ""
    assert err.startswith("station-master: error:") and message in err and err.count("\n") == 1


def test_a_paired_run_reports_the_skill_measure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, *PAIRED_ARGV, "--jobs", "1", "--json", "--quiet")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["parameters"]["paired"] is True and doc["command"].split() == ["station-master", *PAIRED_ARGV]
    (three,) = doc["results"]
    games = three["games"]
    assert [(g["seed"], g["rotation"]) for g in games] == [(4 + d, r) for d in range(3) for r in range(2)]
    assert three["days"]["trains.due"][0]["n"] == 6  # the means are over every rotation
    share = three["skill"]["share"]
    assert share["deals"] == 3 and 0 <= share["low"] <= share["high"] <= 1
    assert 0 <= share["bot"] <= 1 and 0 <= share["chance"] <= 1 and 0 <= share["seat"] <= 1
    passenger, random_bot = bot_label("passenger"), bot_label("random")
    (pair,) = three["skill"]["pairs"]
    assert (pair["a"], pair["b"], pair["deals"]) == (passenger, random_bot, 3)
    seats = [(g["seed"], list(zip(g["bots"], map(float, g["revenue"]), strict=True))) for g in games]
    assert pair["mean"] == pytest.approx(paired_difference(seats, passenger, random_bot)[0])
    assert pair["low"] <= pair["mean"] <= pair["high"]

    code, out, _ = run(capsys, *PAIRED_ARGV, "--jobs", "1")
    assert code == 0
    assert out.startswith("6 games: 3 deals × 2 rotations per office count 3 (seeds 4..6)")
    assert "3 office(s), 1 day(s), 3 deal(s) × 2 rotations" in out
    assert "skill: the bot explains" in out and "over 3 deals" in out
    assert f"paired by deal: {bot_name('passenger')} - {bot_name('random')} = " in out


def test_jobs_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["balance", "--jobs", "0"])
    assert info.value.code == 2
    assert "usage: station-master balance" in capsys.readouterr().err

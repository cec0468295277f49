"""The soak (``station-master soak``): a short one through the CLI (the one CI runs), the
consistency of its report and journal, the configuration drawer's reach, failures written as
replay files that reproduce them, ``--minutes`` and ``--resume``, and bad options refused."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from agents import split_bot_list
from experiments.cli import main
from experiments.command import Terminated
from experiments.robustness import soak as sk
from sm_env.core import (
    RULES_EDITION,
    GameState,
    HouseRules,
    Intent,
    Mode,
    Replay,
    SeatView,
    check_invariants,
    load_replay,
    parse_replay,
    position_to_json,
)
from sm_env.core import engine as core_engine
from sm_env.core.phases import Step

SHORT = 30  # games 0..29: every office count with every day count, every mode, 30 sets of house rules
RANDOM = ("--bots", "random")  # the quickest games, for the tests of the soak's machinery
SHORT_BOTS = "random,passenger,easy"  # quick bots: the default pool costs 3 times the CPU


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def report_of(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / sk.REPORT).read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def short_soak(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[str, Any], Path]:
    """The short soak CI runs: two worker processes, the report on stdout."""
    out = tmp_path_factory.mktemp("soak")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = main(
            ["soak", "--games", str(SHORT), "--jobs", "2", "--seed", "3", "--bots", SHORT_BOTS]
            + ["--out", str(out), "--json"]
        )
    return code, json.loads(printed.getvalue()), out


# ---------------------------------------------------------------------------- the short soak


def test_short_soak_passes_and_its_counts_agree(short_soak: tuple[int, dict[str, Any], Path]) -> None:
    code, data, out = short_soak
    assert code == 0
    assert data == report_of(out)  # the report printed is the one written
    assert data["games"] == data["games_asked"] == SHORT and data["complete"]
    assert data["failures"] == 0 and data["failure_list"] == []
    # one check of the first position and one after every decision
    assert data["checks"] == data["decisions"] + data["games"]
    assert data["decisions"] > 40 * SHORT  # 30 games of 1..6 offices and 1..5 days
    assert data["saved"] == data["reloaded"] == data["replays"] == data["games"]
    assert 0 < data["shadowed"] <= sk.SHADOW * data["games"]
    assert data["seconds"] > 0
    assert data["decisions_per_second"] == pytest.approx(data["decisions"] / data["seconds"])
    assert data["checks_per_second"] == pytest.approx(data["checks"] / data["seconds"])
    assert data["games_per_second"] == pytest.approx(data["games"] / data["seconds"])
    assert data["longest"]["per_office_day"] < data["bound"]
    assert data["sessions"] == 1 and data["jobs"] == 2 and data["bots"] == SHORT_BOTS.split(",")


def test_short_soak_covers_every_office_count_day_count_and_mode(
    short_soak: tuple[int, dict[str, Any], Path],
) -> None:
    _, data, _ = short_soak
    coverage = data["coverage"]
    assert data["configurations"] == SHORT
    assert coverage["offices"] == {str(k): SHORT // 6 for k in range(1, 7)}
    assert coverage["days"] == {str(d): SHORT // 5 for d in range(1, 6)}
    assert coverage["modes"] == dict.fromkeys(sorted(sk.MODES), SHORT // 3)
    assert set(coverage["house_rules"]) == set(HouseRules.names())
    assert all(0 < n < SHORT for n in coverage["house_rules"].values())
    assert sum(coverage["bots"].values()) == SHORT // 6 * sum(range(1, 7))  # one bot a seat


def test_short_soak_journal_holds_what_the_report_says(short_soak: tuple[int, dict[str, Any], Path]) -> None:
    _, data, out = short_soak
    journal = sk.load_journal(out / sk.JOURNAL)
    assert journal.done == [[0, SHORT]]
    assert journal.totals == {name: data[name] for name in sk.COUNTS}
    assert (out / sk.FAILURES).read_text(encoding="utf-8") == ""
    assert not list(out.glob("game-*.json"))


# ---------------------------------------------------------------------------- the drawer


def test_every_option_is_on_and_off_within_the_first_games() -> None:
    games = [sk.draw(1, i) for i in range(90)]
    assert {g.config.offices for g in games[:30]} == set(range(1, 7))
    assert {g.config.days for g in games[:30]} == set(range(1, 6))
    assert {(g.config.offices, g.config.days) for g in games[:30]} == {
        (k, d) for k in range(1, 7) for d in range(1, 6)
    }
    assert {g.mode for g in games[:3]} == set(sk.MODES)
    assert len({(g.config.offices, g.config.days, g.mode) for g in games}) == 90
    for name in HouseRules.names():
        assert {getattr(g.config.house_rules, name) for g in games[:8]} == {True, False}, name
    assert {bot for g in games for bot in g.bots} == set(sk.BOTS)
    assert tuple(split_bot_list(",".join(sk.BOTS))) == sk.BOTS  # the CLI's default --bots


def test_the_modes_are_competitive_with_and_without_a_target_and_coop_with_one() -> None:
    for game in (sk.draw(5, i) for i in range(60)):
        config = game.config
        if game.mode == "competitive":
            assert config.mode is Mode.COMPETITIVE and config.target_revenue is None
        elif game.mode == "target":
            assert config.mode is Mode.COMPETITIVE and config.target_revenue is not None
        else:
            assert config.mode is Mode.COOP and config.target_revenue is not None
        assert len(game.bots) == config.offices
        assert 0 <= game.save_at < sk.SAVE_RANGE * config.offices * config.days


def test_a_full_cycle_plays_every_configuration_once() -> None:
    keys = [sk.draw(1, i).key for i in range(sk.CONFIGURATIONS)]
    assert sorted(keys) == list(range(sk.CONFIGURATIONS))
    assert 6 * 5 * 3 * 2 ** len(HouseRules.names()) == sk.CONFIGURATIONS


def test_a_game_is_fixed_by_the_seed_and_its_index() -> None:
    assert sk.draw(7, 123) == sk.draw(7, 123)
    assert sk.draw(7, 123).seed == 130
    assert sk.draw(0xFFFFFFFF, 1).seed == 0
    other = sk.draw(8, 123)
    assert other.key == sk.draw(7, 123).key  # the cycle is the same for every seed ...
    assert other.seed != sk.draw(7, 123).seed  # ... its games are not
    assert {"dispatcher", sk.BOTS[-1]} <= set(sk.draw(7, 1).bots)  # the default pool's slow bots
    first = sk.soak_game(sk.SoakTask(7, 1))
    again = sk.soak_game(sk.SoakTask(7, 1))
    assert first.failure is None
    assert (first.decisions, first.checks, first.shadowed) == (again.decisions, again.checks, again.shadowed)


# ---------------------------------------------------------------------------- failures


def test_a_broken_invariant_writes_the_replay_that_reaches_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = check_invariants
    flagged: list[str] = []

    def validator(state: GameState, *, choices: bool = False) -> list[str]:
        problems = real(state, choices=choices)
        if not flagged and state.stages_played == 2:
            flagged.append(state.state_hash())
            return ["trays[0]: injected problem"]
        return problems

    monkeypatch.setattr(sk, "check_invariants", validator)
    code, out, _ = run(
        capsys, "soak", "--games", "3", "--jobs", "1", *RANDOM, "--out", str(tmp_path), "--quiet"
    )
    assert code == 1  # failures make the exit code non-zero
    data = report_of(tmp_path)
    assert data["games"] == 3 and data["failures"] == 1  # the run went on after the failure
    assert data["replays"] == 2
    (failure,) = data["failure_list"]
    assert failure["kind"] == "invariant" and failure["game"] == 0
    assert "trays[0]: injected problem" in failure["message"]
    lines = (tmp_path / sk.FAILURES).read_text(encoding="utf-8").splitlines()
    assert lines == [failure["line"]]
    assert "game 0: invariant after" in out and str(tmp_path / "game-0.json") in out
    replay = load_replay(tmp_path / "game-0.json")
    assert len(replay.decisions) == failure["decision"]
    assert replay.verify().state_hash() == flagged[0]  # the replay reaches the flagged position
    assert replay.seats == ("random",)


def test_an_engine_exception_writes_a_replay_that_raises_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = core_engine.STEPS[Step.STAGE_END]

    def broken(state: GameState) -> Any:
        if state.stages_played == 1:
            raise RuntimeError("injected engine bug")
        return real(state)

    monkeypatch.setitem(core_engine.STEPS, Step.STAGE_END, broken)
    code, _, _ = run(
        capsys, "soak", "--games", "2", "--jobs", "1", *RANDOM, "--out", str(tmp_path), "--quiet"
    )
    assert code == 1
    failures = report_of(tmp_path)["failure_list"]
    assert [f["kind"] for f in failures] == ["apply", "apply"]
    assert all("RuntimeError: injected engine bug" in f["message"] for f in failures)
    replay = load_replay(tmp_path / "game-1.json")
    assert len(replay.decisions) == failures[1]["decision"] + 1  # the decision that raised, too
    with pytest.raises(RuntimeError, match="injected engine bug"):
        replay.run()
    before = Replay(replay.seed, replay.config, replay.decisions[:-1], replay.final_hash)
    assert before.verify().stages_played == 1  # the position the failing decision was taken in


def test_a_bot_that_raises_is_a_failure_of_its_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Broken:
        name = "broken"

        def __init__(self) -> None:
            self.calls = 0

        def choose(self, view: SeatView) -> Intent:
            self.calls += 1
            if self.calls == 5:
                raise ValueError("injected bot bug")
            return view.legal_intents()[0]

    monkeypatch.setattr(sk, "make_bot", lambda spec, seed: Broken())
    code, _, _ = run(
        capsys, "soak", "--games", "1", "--jobs", "1", *RANDOM, "--out", str(tmp_path), "--quiet"
    )
    assert code == 1
    (failure,) = report_of(tmp_path)["failure_list"]
    assert (failure["kind"], failure["decision"]) == ("bot", 4)
    assert "ValueError: injected bot bug" in failure["message"]
    assert load_replay(tmp_path / "game-0.json").verify().current_player() == 0


def test_a_position_read_back_wrong_and_a_replay_that_misses_are_failures(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_position, real_replay = position_to_json, parse_replay

    def wrong_hash(state: GameState) -> dict[str, Any]:
        return {**real_position(state), "hash": "f" * 64}

    def one_decision_short(data: object, source: str = "replay") -> Replay:
        replay = real_replay(data, source=source)
        return Replay(replay.seed, replay.config, replay.decisions[:-1], replay.final_hash)

    monkeypatch.setattr(sk, "position_to_json", wrong_hash)
    code, _, _ = run(
        capsys, "soak", "--games", "1", "--jobs", "1", *RANDOM, "--out", str(tmp_path / "a"), "--quiet"
    )
    (failure,) = report_of(tmp_path / "a")["failure_list"]
    assert code == 1 and failure["kind"] == "position" and "position hash mismatch" in failure["message"]
    monkeypatch.setattr(sk, "position_to_json", real_position)
    monkeypatch.setattr(sk, "parse_replay", one_decision_short)
    code, _, _ = run(
        capsys, "soak", "--games", "1", "--jobs", "1", *RANDOM, "--out", str(tmp_path / "b"), "--quiet"
    )
    (failure,) = report_of(tmp_path / "b")["failure_list"]
    assert code == 1 and failure["kind"] == "replay" and "final state hash mismatch" in failure["message"]
    load_replay(tmp_path / "b" / "game-0.json").verify()  # the game itself replays


def test_a_game_past_the_decision_bound_is_a_failure(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, _ = run(
        capsys,
        "soak",
        "--games",
        "2",
        "--jobs",
        "1",
        *RANDOM,
        "--bound",
        "3",
        "--out",
        str(tmp_path),
        "--quiet",
    )
    assert code == 1
    failures = report_of(tmp_path)["failure_list"]
    assert [(f["kind"], f["decision"]) for f in failures] == [("bound", 3), ("bound", 3 * 2 * 2)]
    assert "no end after 12 decisions (3 per office and day)" in failures[1]["message"]
    replay = load_replay(tmp_path / "game-1.json")
    assert len(replay.decisions) == 12 and not replay.verify().is_terminal()


# ---------------------------------------------------------------------------- --minutes, --resume


class Clock:
    """``time`` for the soak, whose ``time()`` moves 10 s on at each call."""

    def __init__(self) -> None:
        self.now = 0.0
        import time

        self.perf_counter = time.perf_counter

    def time(self) -> float:
        self.now += 10.0
        return self.now


def soak_args(out: Path, *more: str) -> list[str]:
    return [
        "soak",
        "--games",
        "6",
        "--seed",
        "2",
        "--jobs",
        "1",
        *RANDOM,
        "--out",
        str(out),
        "--quiet",
        *more,
    ]


def test_minutes_stops_starting_games_and_resume_finishes_the_same_soak(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    straight = tmp_path / "straight"
    assert run(capsys, *soak_args(straight))[0] == 0
    stopped = tmp_path / "stopped"
    with monkeypatch.context() as patch:
        patch.setattr(sk, "time", Clock())
        # deadline at 10 + 30 s; the games ask the clock at 30, 40 (started) and 50 (not)
        code, _, err = run(capsys, *soak_args(stopped, "--minutes", "0.5"))
    assert code == 0
    assert "stopped with 2 of 6 games done" in err and "--resume" in err
    partial = report_of(stopped)
    assert partial["games"] == 2 and not partial["complete"]
    assert sk.load_journal(stopped / sk.JOURNAL).done == [[0, 2]]
    code, _, err = run(capsys, *soak_args(stopped, "--resume"))
    assert code == 0 and err == ""
    resumed, whole = report_of(stopped), report_of(straight)
    assert resumed["complete"] and resumed["sessions"] == 2
    for name in (*sk.COUNTS, "configurations", "coverage", "longest", "failures"):
        assert resumed[name] == whole[name], name
    code, out, _ = run(capsys, *soak_args(stopped, "--resume"))  # nothing left: the report again
    assert code == 0 and "6 of 6 games" in out


def test_a_soak_stopped_by_sigterm_reports_what_it_did_and_exits_143(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM (``Terminated``) stops a soak as Ctrl-C does, report and all, but its exit code
    says which signal it was, as every other command's does."""

    def terminated(*args: object, **kwargs: object) -> None:
        raise Terminated

    monkeypatch.setattr(sk, "run", terminated)
    code, _, err = run(capsys, *soak_args(tmp_path / "stopped"))
    assert code == 143
    assert "stopped with 0 of 6 games done" in err and "--resume" in err
    assert report_of(tmp_path / "stopped")["games"] == 0


def test_a_soak_in_a_folder_is_gone_on_with_only_by_resume_and_its_own_options(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert (
        run(capsys, "soak", "--games", "1", "--jobs", "1", *RANDOM, "--out", str(tmp_path), "--quiet")[0] == 0
    )
    journal = (tmp_path / sk.JOURNAL).read_bytes()
    code, _, err = run(capsys, "soak", "--games", "1", "--jobs", "1", *RANDOM, "--out", str(tmp_path))
    assert code == 2
    assert err == (
        f"station-master: error: {tmp_path} holds a soak already (1 of 1 games done, seed 1): "
        "add --resume to go on with it, or give another --out\n"
    )
    code, _, err = run(
        capsys, "soak", "--games", "2", "--jobs", "1", *RANDOM, "--out", str(tmp_path), "--resume"
    )
    assert code == 2 and "is a soak of --games 1, not 2" in err and err.count("\n") == 1
    code, _, err = run(
        capsys, "soak", "--games", "1", "--bots", "random,easy", "--out", str(tmp_path), "--resume"
    )
    assert code == 2 and "is a soak of --bots random, not random,easy" in err
    assert (tmp_path / sk.JOURNAL).read_bytes() == journal  # refused: nothing written


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{", "not a readable soak journal"),
        ('{"format": "something else"}', "not a soak journal"),
        (
            json.dumps({"format": sk.JOURNAL_FORMAT, "version": 1, "rules_edition": 1}),
            "a soak of rules edition 1",
        ),
        (
            json.dumps({"format": sk.JOURNAL_FORMAT, "version": 1, "rules_edition": RULES_EDITION}),
            "a broken soak journal: KeyError",
        ),
    ],
)
def test_a_broken_journal_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, why: str
) -> None:
    (tmp_path / sk.JOURNAL).write_text(text, encoding="utf-8")
    code, _, err = run(capsys, "soak", "--games", "1", "--out", str(tmp_path), "--resume")
    assert code == 2 and why in err and err.startswith("station-master: error: ") and err.count("\n") == 1
    assert (tmp_path / sk.JOURNAL).read_text(encoding="utf-8") == text


# ---------------------------------------------------------------------------- bad options


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--games", "0", "--games must be at least 1, got 0"),
        ("--minutes", "0", "--minutes must be a number above 0, got 0.0"),
        ("--minutes", "nan", "--minutes must be a number above 0, got nan"),
        ("--seed", "-1", "--seed must be in 0..4294967295, got -1"),
        ("--first", "-3", "--first must be at least 0, got -3"),
        ("--bound", "0", "--bound must be at least 1, got 0"),
    ],
)
def test_bad_options_are_refused_in_one_line_before_anything_is_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, option: str, value: str, message: str
) -> None:
    out = tmp_path / "soak"
    argv = {"--games": "1", option: value}
    code, stdout, err = run(capsys, "soak", *[x for kv in argv.items() for x in kv], "--out", str(out))
    assert (code, stdout, err) == (2, "", f"station-master: error: {message}\n")
    assert not out.exists()


def test_an_unknown_bot_is_refused_in_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "soak"
    code, _, err = run(capsys, "soak", "--games", "1", "--bots", "random,nobody", "--out", str(out))
    assert code == 2 and err.startswith("station-master: error: unknown bot 'nobody' (known: ")
    assert err.count("\n") == 1 and not out.exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--games", "1", "--speed", "9"], "unrecognized arguments: --speed 9"),
        ([], "the following arguments are required: --games"),
        (["--games", "many"], "argument --games: invalid int value: 'many'"),
        (["--games", "1", "--jobs", "0"], "argument --jobs: must be >= 1, got 0"),
    ],
)
def test_options_argparse_refuses(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["soak", *argv])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err

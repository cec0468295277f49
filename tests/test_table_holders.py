"""A seat that changes hands mid-game: the session records who made each decision, the save
file keeps it, resume and undo keep it, and the replay viewer credits each decision to its
holder. Files written before holders were recorded load and resume as they did."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from agents import RandomAgent, bot_name
from experiments.play.table.session import HUMAN, Session
from experiments.play.table.viewer import Positions, run_viewer
from sm_env.core import GameConfig, Replay, load_replay, parse_replay

DATA = Path(__file__).parent / "data" / "table"


def play(session: Session, person: RandomAgent, count: int) -> None:
    for _ in range(count):
        seat = session.current()
        if session.is_human(seat):
            session.decide(person.choose(session.view(seat)))
        else:
            session.decide(session.bot_choice())


def handed_over(tmp_path: Path) -> Session:
    """Seat 0 is a person's, then a passenger bot's, then a person's again; seat 1 a random bot's."""
    session = Session(7, GameConfig(offices=2, days=1), ["human", "random"], tmp_path / "game.json")
    person = RandomAgent(4)
    play(session, person, 12)
    session.set_seat(0, "passenger")
    play(session, person, 12)
    session.set_seat(0, HUMAN)
    play(session, person, 12)
    return session


def expected_holders(session: Session, first: int = 12, second: int = 24) -> list[str]:
    out = []
    for i, decision in enumerate(session.decisions):
        if decision.seat == 1:
            out.append("random")
        else:
            out.append("passenger" if first <= i < second else HUMAN)
    return out


def test_each_decision_is_saved_with_its_holder(tmp_path: Path) -> None:
    session = handed_over(tmp_path)
    holders = expected_holders(session)
    assert session.holders == holders and "passenger" in holders
    assert session.by_person == [h == HUMAN for h in holders]
    assert [d.holder for d in session.history] == holders
    data = json.loads((tmp_path / "game.json").read_text(encoding="utf-8"))
    assert data["seats"] == ["human", "random"] and data["holders"] == holders
    replay = load_replay(tmp_path / "game.json")
    assert [replay.holder(i) for i in range(len(replay.decisions))] == holders
    resumed = Session.resume(replay, None, tmp_path / "game.json")
    assert resumed.holders == holders and resumed.by_person == session.by_person
    assert resumed.state.state_hash() == session.state.state_hash()
    # Handed to other seats on resume, the decisions made keep their holders.
    other = Session.resume(replay, ["random", "human"], tmp_path / "other.json")
    assert other.holders == holders


def test_undo_keeps_the_holders_of_the_decisions_before(tmp_path: Path) -> None:
    session = handed_over(tmp_path)
    holders = list(session.holders)
    taken = session.undo()
    assert taken is not None
    assert session.holders == holders[: len(session.decisions)]
    assert load_replay(tmp_path / "game.json").holders == tuple(session.holders)


def test_a_game_that_never_changed_hands_writes_no_holders(tmp_path: Path) -> None:
    session = Session(7, GameConfig(offices=2, days=1), ["human", "random"], tmp_path / "game.json")
    play(session, RandomAgent(4), 20)
    assert "holders" not in json.loads((tmp_path / "game.json").read_text(encoding="utf-8"))
    resumed = Session.resume(load_replay(tmp_path / "game.json"))
    assert resumed.holders == session.holders


def test_files_without_holders_load_and_resume_as_before() -> None:
    """The saved games of tests/data/table predate holders: each parses to the same JSON it
    holds, and a resumed game credits every decision to its seat's recorded holder."""
    for path in sorted(DATA.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        replay = parse_replay(data)
        assert replay.holders == () and replay.to_json() == data
        session = Session.resume(replay)
        assert session.holders == [replay.seats[d.seat] for d in replay.decisions]
        assert session.by_person == [replay.seats[d.seat] == HUMAN for d in replay.decisions]


def test_the_viewer_credits_each_decision_to_its_holder(tmp_path: Path) -> None:
    session = handed_over(tmp_path)
    replay = load_replay(tmp_path / "game.json")
    positions = Positions(replay)
    for index in range(1, positions.total + 1):
        assert positions.visit(index).holder == session.holders[index - 1]
    handed = session.holders.index("passenger")
    assert positions.holders_at(handed + 1)[0] == "passenger"
    assert positions.holders_at(0)[0] == HUMAN and positions.holders_at(positions.total)[0] == HUMAN
    unlabelled = Positions(Replay(replay.seed, replay.config, replay.decisions, replay.final_hash))
    assert unlabelled.visit(1).holder is None and unlabelled.holders_at(1) == [None, None]

    out = io.StringIO()
    console = Console(file=out, width=200, highlight=False, color_system=None)
    by_person = session.holders.index(HUMAN)
    typed = iter([f"g {handed + 1}", f"g {by_person + 1}", "q"])
    run_viewer(positions, console, "game.json", read=lambda prompt: next(typed))
    text = out.getvalue()
    assert f"Decision {handed + 1}: seat 0 ({bot_name('passenger')}): " in text
    assert f"Decision {by_person + 1}: seat 0 (person): " in text

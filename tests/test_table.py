"""The table's parts that need no terminal: the decision menu, the Move picker, the event
filter, the session (undo, save, resume) and the replay viewer's positions; and the terminal
app driven by a scripted keyboard."""

from __future__ import annotations

import functools
import io
import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from agents import BotSpecError, RandomAgent, make_bot, seat_seed
from experiments.play.table.app import TableApp
from experiments.play.table.builder import MovePicker
from experiments.play.table.events import event_line, is_hidden_draw
from experiments.play.table.menu import GROUPS, Menu, MenuError, TrayChoice
from experiments.play.table.session import SaveError, SeatError, Session, check_save_target
from experiments.play.table.viewer import Positions, run_viewer
from sm_env.core.config import GameConfig
from sm_env.core.engine import new_game
from sm_env.core.errors import IllegalIntent, ReplayError
from sm_env.core.intents import (
    ChooseSwitch,
    Clearance,
    DrawDepartment,
    DrawHomeOffice,
    EndTurn,
    Intent,
    MoveTray,
    Pass,
    PlayCard,
    RedFlag,
)
from sm_env.core.phases import Phase
from sm_env.core.replay import Replay, load_replay
from sm_env.core.state import GameState
from sm_env.core.text import car_label, event_text

GROUP_ORDER = [name for name, _ in GROUPS]


def positions(seed: int, offices: int = 2, bots: str = "random") -> Iterator[tuple[GameState, list[Intent]]]:
    """Every decision point of one game of bots, with the decisions before it (the live state
    and list: read them, don't keep them)."""
    state = new_game(GameConfig(offices=offices, days=1), seed)
    agents = [make_bot(bots, seat_seed(seed, s)) for s in range(offices)]
    decisions: list[Intent] = []
    while not state.is_terminal():
        yield state, decisions
        seat = state.current_player()
        intent = agents[seat].choose(state.view(seat))
        state.apply(intent)
        decisions.append(intent)


@functools.cache
def switching_positions(count: int) -> list[tuple[GameState, Replay]]:
    """Copies of positions where a seat has switching Moves to choose from, each with a replay
    (seats unnamed) that leads there. Shared between tests: don't change them."""
    found: list[tuple[GameState, Replay]] = []
    for seed in range(1, 200):
        for bots in ("random", "freight"):
            for state, decisions in positions(seed, 2, bots):
                if any(isinstance(i, MoveTray) for i in state.legal_intents()):
                    replay = Replay(seed, state.config, tuple(decisions), state.state_hash())
                    found.append((state.clone(), replay))
                if len(found) >= count:
                    return found
    return found


# Saved games stopped where a Move has a choice of route (two-routes*) or of tray (two-trays*):
# the first decisions of games of freight bots, 1-2 offices, 3 days. Recorded (seeds and
# stopping rule there) by ``python -m experiments.devtools.record_table_fixtures``.
SPECIAL = Path(__file__).parent / "data" / "table"


@functools.cache
def special_positions() -> list[GameState]:
    out = []
    for path in sorted(SPECIAL.glob("*.json")):
        state = load_replay(path).verify()
        assert any(isinstance(i, MoveTray) for i in state.legal_intents()), path
        out.append(state)
    assert len(out) == 4
    return out


def follow(picker: MovePicker, move: MoveTray) -> list[tuple[str, str]]:
    """Take the options that lead to ``move``; the (step key, label) of each step asked."""
    asked = []
    while (step := picker.step()) is not None:
        position = len(picker.choices)
        want = (move.tray, move.path[-1], move.path)[position] if position < 3 else None
        if step.key == "drop":
            want = move.drops[position - 3]
        elif step.key == "push":
            want = move.push
        (option,) = [o for o in step.options if o.value == want]
        asked.append((step.key, option.label))
        picker.choose(step.options.index(option))
    assert picker.move() == move
    return asked


def reachable(factory: type[MovePicker], board: GameState, moves: list[MoveTray], tray: int | None) -> set:
    """Every Move a person can build by walking all the picker's options."""
    out: set[MoveTray] = set()

    def walk(choices: list[int]) -> None:
        picker = factory(board, moves, tray)
        for index in choices:
            picker.choose(index)
        step = picker.step()
        if step is None:
            move = picker.move()
            assert move is not None and move in moves
            out.add(move)
            return
        assert step.options, "a step always has an option"
        for index in range(len(step.options)):
            walk([*choices, index])

    walk([])
    return out


# ---------------------------------------------------------------------------- the menu


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_menu_lists_every_legal_intent_once_in_group_order(seed: int) -> None:
    for state, _ in positions(seed):
        view = state.view(state.current_player())
        legal = view.legal_intents()
        menu = Menu.of(view.board, legal)
        assert Counter(menu.intents()) == Counter(legal)
        assert [e.number for e in menu.entries] == list(range(1, len(menu.entries) + 1))
        groups = [name for name, _ in menu.groups()]
        assert groups == sorted(groups, key=GROUP_ORDER.index)
        assert len(groups) == len(set(groups))
        for entry in menu.entries:
            assert entry.label and not entry.label.startswith("seat ")
            if isinstance(entry.action, TrayChoice):
                assert entry.action.moves and all(m.tray == entry.action.tray for m in entry.action.moves)


def _local_ops() -> GameState:
    state = new_game(GameConfig(offices=2, days=1), 2)
    assert state.phase is Phase.LOCAL_OPS
    return state


def test_menu_picks_by_number_and_by_name() -> None:
    state = _local_ops()
    seat = state.current_player()
    view = state.view(seat)
    menu = Menu.of(view.board, view.legal_intents())
    assert menu.pick("1").action == Pass(seat)
    assert menu.pick(" pass ").action == Pass(seat)
    assert menu.pick("draw").action == DrawHomeOffice(seat)
    assert menu.pick("take 1").action == DrawDepartment(seat, 1)
    assert menu.pick("department 2").action == DrawDepartment(seat, 2)
    assert menu.pick("Take the top of department 0").action == DrawDepartment(seat, 0)
    for bad, message in (
        ("0", "no decision 0"),
        ("99", "no decision 99"),
        ("take", "ambiguous"),
        ("xyzzy", "no decision or command matches"),
        ("?!", "type a number"),
    ):
        with pytest.raises(MenuError, match=message):
            menu.pick(bad)


def test_menu_end_and_play_in_the_card_play_step() -> None:
    for state, _ in positions(4):
        legal = state.legal_intents()
        if state.phase is Phase.CARD_PLAY and any(isinstance(i, EndTurn) for i in legal):
            break
    else:
        pytest.fail("no card-play step found")
    seat = state.current_player()
    menu = Menu.of(state.view(seat).board, legal)
    assert menu.pick("end").action == EndTurn(seat)
    assert menu.entries[-1].action == EndTurn(seat), "the step's end comes last in its group"
    with pytest.raises(MenuError, match="ambiguous"):
        menu.pick("discard")


def test_menu_red_flag_clearance_and_tray_aliases() -> None:
    board = _local_ops()
    flags = Menu.of(board, [RedFlag(0, True), RedFlag(0, False)])
    assert flags.pick("play").action == RedFlag(0, True)
    assert flags.pick("red flag").action == RedFlag(0, True)
    assert flags.pick("no").action == RedFlag(0, False)
    assert flags.pick("do not").action == RedFlag(0, False)
    assert [name for name, _ in flags.groups()] == ["RED FLAG"]
    clear = Menu.of(board, [Clearance(0, True), Clearance(0, False)])
    assert clear.pick("clear").action == Clearance(0, True)
    assert clear.pick("hold").action == Clearance(0, False)
    state = switching_positions(80)[0][0]
    seat = state.current_player()
    menu = Menu.of(state.view(seat).board, state.legal_intents())
    trays = [e for e in menu.entries if isinstance(e.action, TrayChoice)]
    assert trays and all(e.group == "Switching Moves" for e in trays)
    assert menu.pick(f"tray {trays[0].action.tray}") == trays[0]
    if len(trays) == 1:
        assert menu.pick("move") == trays[0]
    assert menu.pick("end").action.kind.value == "end_switching"


def test_menu_entry_of_finds_a_moves_tray() -> None:
    state = switching_positions(80)[0][0]
    seat = state.current_player()
    menu = Menu.of(state.view(seat).board, state.legal_intents())
    move = next(i for i in state.legal_intents() if isinstance(i, MoveTray))
    entry = menu.entry_of(move)
    assert entry is not None and isinstance(entry.action, TrayChoice) and entry.action.tray == move.tray
    assert menu.entry_of(PlayCard(seat, 0)) is None


# ---------------------------------------------------------------------------- the Move picker


def test_move_picker_builds_exactly_the_legal_moves() -> None:
    """For many positions: the Moves reachable through the picker are list_moves' Moves, from the
    first step and from each tray's menu entry; every route choice and push is exercised."""
    states = [state for state, _ in switching_positions(80)[:40]] + special_positions()
    steps_seen: Counter[str] = Counter()
    for state in states:
        seat = state.current_player()
        board = state.view(seat).board
        moves = [i for i in state.legal_intents() if isinstance(i, MoveTray)]
        assert reachable(MovePicker, board, moves, None) == set(moves)
        for tray in {m.tray for m in moves}:
            own = [m for m in moves if m.tray == tray]
            assert reachable(MovePicker, board, own, tray) == set(own)
        for move in moves:
            for key, _ in follow(MovePicker(board, moves), move):
                steps_seen[key] += 1
    assert all(steps_seen[key] for key in ("tray", "destination", "route", "drop", "push")), steps_seen


def test_move_picker_back_and_labels() -> None:
    for state, _ in switching_positions(80):
        moves = [i for i in state.legal_intents() if isinstance(i, MoveTray)]
        tray = moves[0].tray
        own = [m for m in moves if m.tray == tray]
        if len({m.path[-1] for m in own}) > 1:
            break
    else:
        pytest.fail("no tray with two destinations")
    board = state.view(state.current_player()).board
    picker = MovePicker(board, own, tray)
    first = picker.step()
    assert first is not None and first.key == "destination"
    assert not picker.started() and not picker.back(), "the tray came from the menu: back leaves"
    for option in first.options:
        assert str(option.value) in option.label  # the cell, then the card's name
    picker.choose(0)
    assert picker.started()
    assert picker.back()
    assert picker.step() == first
    with pytest.raises(IndexError):
        picker.choose(len(first.options))
    with pytest.raises(ValueError):
        MovePicker(board, [])


def test_drop_labels_name_the_cars_left() -> None:
    """A drop option names the cars the Move leaves on the tray's card; carried out, the Move
    leaves exactly those there (beside what stood there before)."""
    checked = 0
    for state, _ in switching_positions(80):
        seat = state.current_player()
        board = state.view(seat).board
        moves = [i for i in state.legal_intents() if isinstance(i, MoveTray)]
        for move in [m for m in moves if m.drops[0] > 0][:4]:
            asked = dict(follow(MovePicker(board, moves), move))
            if "drop" not in asked:
                continue
            after = state.clone()
            after.apply(move)
            office = state.office_of_seat[seat]
            standing = after.stations[office].cars[move.path[0]]
            east = move.path[1][1] > move.path[0][1]
            left = standing[len(standing) - move.drops[0] :] if east else standing[: move.drops[0]]
            labels = " ".join(car_label(c) for c in left)
            asked_labels = [label for key, label in follow(MovePicker(board, moves), move) if key == "drop"]
            assert f"({labels})" in asked_labels[0]
            checked += 1
    assert checked >= 3


# ---------------------------------------------------------------------------- hidden information


@pytest.mark.parametrize("seed", [1, 5])
def test_event_filter_never_names_another_seats_face_down_draw(seed: int) -> None:
    state = new_game(GameConfig(offices=3, days=1), seed)
    agents = [RandomAgent(seat_seed(seed, s)) for s in range(3)]
    draws = 0
    while not state.is_terminal():
        seat = state.current_player()
        state.apply(agents[seat].choose(state.view(seat)))
        for event in state.events:
            for viewer in range(3):
                line = event_line(event, state, (viewer,))
                if is_hidden_draw(event) and event.seat != viewer:
                    draws += 1
                    assert line == f"seat {event.seat} draws a card from the Home Office"
                    assert state.catalogue.cards[event.fields["card"]].name not in line
                else:
                    assert line == event_text(event, state)
        state.events.clear()
    assert draws, "the random bots draw from the Home Office"


# ---------------------------------------------------------------------------- the session


def _session(tmp_path: Path | None = None, seats: tuple[str, ...] = ("human", "random")) -> Session:
    path = tmp_path / "game.json" if tmp_path is not None else None
    return Session(7, GameConfig(offices=len(seats), days=1), seats, path)


def _play(session: Session, person: RandomAgent, decisions: int) -> list[tuple[int, str]]:
    """Play, the person choosing at random; (decisions so far, hash) before each person's turn."""
    before: list[tuple[int, str]] = []
    while len(session.decisions) < decisions and not session.state.is_terminal():
        seat = session.current()
        if session.is_human(seat):
            before.append((len(session.decisions), session.state.state_hash()))
            session.decide(person.choose(session.view(seat)))
        else:
            session.decide(session.bot_choice())
    return before


def test_undo_rebuilds_the_identical_state_step_by_step() -> None:
    session = _session()
    before = _play(session, RandomAgent(3), 60)
    assert len(before) >= 5
    for count, state_hash in reversed(before):
        taken = session.undo()
        assert taken is not None and len(session.decisions) == count
        assert session.state.state_hash() == state_hash
        assert session.is_human(session.current())
    assert session.undo() is None
    assert session.state.state_hash() == new_game(session.config, session.seed).state_hash()


def test_undo_skips_seats_no_longer_held_by_a_person() -> None:
    session = _session()
    _play(session, RandomAgent(3), 20)
    session.set_seat(0, "passenger")
    assert session.undo_point() is None and session.undo() is None


def test_save_after_every_decision_and_resume(tmp_path: Path) -> None:
    session = _session(tmp_path)
    path = tmp_path / "game.json"
    session.save()
    assert load_replay(path).decisions == ()
    person = RandomAgent(5)
    for _ in range(25):
        seat = session.current()
        intent = person.choose(session.view(seat)) if session.is_human(seat) else session.bot_choice()
        session.decide(intent)
        replay = load_replay(path)
        assert replay.decisions == tuple(session.decisions)
        assert replay.final_hash == session.state.state_hash()
        assert replay.seats == ("human", "random")
    resumed = Session.resume(load_replay(path), None, path)
    assert resumed.state.state_hash() == session.state.state_hash()
    assert resumed.seats == session.seats and resumed.decisions == session.decisions
    assert resumed.by_person == session.by_person
    assert load_replay(path).verify().state_hash() == session.state.state_hash()
    other = Session.resume(load_replay(path), ["random", "human"], tmp_path / "other.json")
    assert other.seats == ["random", "human"] and other.state.state_hash() == session.state.state_hash()


def test_resume_refuses_a_replay_that_does_not_reproduce_its_hash(tmp_path: Path) -> None:
    session = _session(tmp_path)
    _play(session, RandomAgent(1), 10)
    replay = session.replay()
    bad = Replay(replay.seed, replay.config, replay.decisions, "0" * 64, replay.seats)
    with pytest.raises(ReplayError, match="hash mismatch"):
        Session.resume(bad)
    with pytest.raises(SeatError, match="--seats"):
        Session.resume(Replay(replay.seed, replay.config, (), replay.final_hash))


def test_an_illegal_decision_changes_nothing(tmp_path: Path) -> None:
    session = _session(tmp_path)
    session.save()
    path = tmp_path / "game.json"
    text, state_hash = path.read_text(), session.state.state_hash()
    with pytest.raises(IllegalIntent):
        session.decide(ChooseSwitch(session.current()))  # no Crew Tray in the station at the start
    with pytest.raises(IllegalIntent):
        session.decide(Pass(1 - session.current()))  # not that seat's turn
    assert session.state.state_hash() == state_hash and session.decisions == []
    assert path.read_text() == text


def test_a_failed_save_is_reported_and_the_game_goes_on(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    session = Session(7, GameConfig(offices=2, days=1), ["human", "random"], folder / "game.json")
    session.autosave()
    (folder / "game.json").unlink()
    folder.rmdir()
    session.decide(session.state.legal_intents()[0])
    assert session.save_problem is not None and "could not save" in session.save_problem
    assert len(session.decisions) == 1
    keys = Keyboard(["1", "quit"])
    app, out = _app(session, keys)
    app.run()
    assert "the game goes on unsaved" in out.getvalue() and "The last save failed" in out.getvalue()
    folder.mkdir()
    session.decide(
        session.state.legal_intents()[0] if session.is_human(session.current()) else session.bot_choice()
    )
    assert session.save_problem is None and load_replay(folder / "game.json").decisions == tuple(
        session.decisions
    )


def test_seats_are_checked() -> None:
    with pytest.raises(SeatError, match="one holder per seat"):
        Session(1, GameConfig(offices=3), ["human", "random"])
    with pytest.raises(BotSpecError, match="unknown bot 'nobody'"):
        Session(1, GameConfig(offices=2), ["human", "nobody"])
    session = _session()
    with pytest.raises(SeatError, match="no seat 5"):
        session.set_seat(5, "random")
    with pytest.raises(BotSpecError):
        session.set_seat(1, "passenger:nope=1")
    session.set_seat(1, "human")
    assert session.humans() == [0, 1]


def test_save_targets(tmp_path: Path) -> None:
    check_save_target(tmp_path / "new.json")
    foreign = tmp_path / "notes.json"
    foreign.write_text(json.dumps({"hello": "world"}))
    with pytest.raises(SaveError, match="not a Station Master replay"):
        check_save_target(foreign)
    garbage = tmp_path / "notes.txt"
    garbage.write_text("not json at all")
    with pytest.raises(SaveError):
        check_save_target(garbage)
    with pytest.raises(SaveError, match="not a file"):
        check_save_target(tmp_path)
    with pytest.raises(SaveError, match="no folder"):
        check_save_target(tmp_path / "missing" / "game.json")
    saved = _session(tmp_path)
    saved.save()
    check_save_target(tmp_path / "game.json")


# ---------------------------------------------------------------------------- the replay viewer


def test_viewer_positions_match_the_game() -> None:
    session = _session(seats=("random", "random"))
    hashes = [session.state.state_hash()]
    while not session.state.is_terminal():
        session.decide(session.bot_choice())
        hashes.append(session.state.state_hash())
    positions_ = Positions(session.replay())
    assert positions_.total == len(hashes) - 1 > 64, "the game passes a checkpoint"
    for index in (0, 1, 63, 64, 65, positions_.total):
        assert positions_.state_at(index).state_hash() == hashes[index]
        visit = positions_.visit(index)
        assert visit.state.state_hash() == hashes[index]
        assert (visit.decision is None) == (index == 0)
    assert "setup" in [event.kind for event in positions_.visit(0).events]
    with pytest.raises(IndexError):
        positions_.state_at(positions_.total + 1)


def test_viewer_goes_where_each_command_says() -> None:
    """Next and previous stop at the ends, go-to takes only a decision of the game, start, end
    and board go there, help and unknown commands stay put, quit ends the loop."""
    session = _session(seats=("random", "random"))
    for _ in range(3):
        session.decide(session.bot_choice())
    positions_ = Positions(session.replay())
    total = positions_.total
    typed = ["", "p", "p", "g 2", f"g {total + 1}", "g x", "e", "n", "s", "b", "h", "what", "q"]
    keyboard = Keyboard(typed)
    out = io.StringIO()
    console = Console(file=out, width=160, highlight=False, color_system=None)
    assert run_viewer(positions_, console, "game.json", read=keyboard) == 0
    at = [int(prompt.split()[1].split("/")[0]) for prompt in keyboard.prompts]
    assert at == [0, 1, 0, 0, 2, 2, 2, total, total, 0, 0, 0, 0]
    text = out.getvalue()
    for said in ("this is the start", f"write: g N, with N from 0 to {total}", "that was the last decision"):
        assert said in text
    assert "unknown command 'what'" in text


# ---------------------------------------------------------------------------- the app, scripted


class Keyboard:
    """Types the given lines, then the person's choice by ``fallback`` (or EOF)."""

    def __init__(self, lines: list[str], fallback: str | None = None) -> None:
        self.lines = list(lines)
        self.fallback = fallback
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.lines:
            return self.lines.pop(0)
        if self.fallback is None:
            raise EOFError
        return self.fallback


def _app(session: Session, keyboard: Keyboard) -> tuple[TableApp, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=160, highlight=False, color_system=None)
    return TableApp(session, console, pace=0, read=keyboard), out


def test_app_plays_a_game_to_the_end_without_showing_hidden_cards(tmp_path: Path) -> None:
    session = Session(11, GameConfig(offices=2, days=1), ["human", "random"], tmp_path / "g.json")
    app, out = _app(session, Keyboard(["hint", "ahead", "log", "board"], fallback="1"))
    assert app.run() == 0
    text = out.getvalue()
    assert "chance to win, judged from your seat" in text
    assert re.search(r"seat 0 \(you\): \d+%, revenue 0", text)
    assert re.search(r"seat 1 \(random@\d+\): \d+%", text)
    assert session.state.is_terminal() and "Game over" in text and "Final revenue" in text
    assert re.search(r"seat 1 \(random@\d+\):", text)
    assert "Unchanged since last shown: the stations of office" in text
    hidden = [e for e in session.log if is_hidden_draw(e) and e.seat == 1]
    assert hidden, "the bot drew face down"
    for event in hidden:
        assert event_text(event, session.state) not in text
    assert "seat 1 draws a card from the Home Office" in text
    assert load_replay(tmp_path / "g.json").verify().state_hash() == session.state.state_hash()


def test_app_undo_seat_and_quit(tmp_path: Path) -> None:
    session = Session(11, GameConfig(offices=2, days=1), ["human", "random"], tmp_path / "g.json")
    keys = Keyboard(
        ["undo", "1", "1", "undo", "seat 9 random", "seat 1 bogus", "seat 1 human", "", "1", "quit"]
    )
    app, out = _app(session, keys)
    assert app.run() == 0
    text = out.getvalue()
    assert "nothing to undo" in text and "undone:" in text
    assert "there is no seat 9" in text and "unknown bot 'bogus'" in text
    assert "seat 1 is now held by you" in text
    assert any("pass the keyboard to seat" in p for p in keys.prompts)
    assert "Game saved to" in text and "--resume" in text
    assert load_replay(tmp_path / "g.json").seats == ("human", "human")


def test_app_builds_a_move_step_by_step(tmp_path: Path) -> None:
    state, replay = switching_positions(80)[0]
    seat = state.current_player()
    seats = ["random", "random"]
    seats[seat] = "human"
    session = Session.resume(replay, seats, tmp_path / "g.json")
    keys = Keyboard(["move", "back", "move", *["1"] * 8, "quit"])
    app, out = _app(session, keys)
    app.run()
    text = out.getvalue()
    assert "Building a Move of tray" in text and "back to the decisions" in text
    assert f"seat {seat} moves tray" in text

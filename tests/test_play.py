"""``station-master play`` and ``replay`` driven as a person would, in a pseudo-terminal.

Each test spawns ``python -m experiments.cli`` with ``PYTHONPATH`` at this repository's root,
types at its prompts and reads what it prints. Games are small (1-2 offices, 1 day) and
``--fast``; every wait has a bounded timeout.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from agents import make_bot, seat_seed
from sm_env.core.config import GameConfig
from sm_env.core.engine import new_game
from sm_env.core.intents import MoveTray
from sm_env.core.replay import Replay, load_replay

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 30  # seconds for any one wait; a whole 1-day game of bots takes well under one


def spawn(*args: str, cwd: Path, term: str = "dumb") -> pexpect.spawn:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path, "TERM": term, "NO_COLOR": "1", "COLUMNS": "200", "LINES": "60"}
    return pexpect.spawn(
        sys.executable,
        ["-m", "experiments.cli", *args],
        cwd=str(cwd),
        env=env,
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(60, 200),
    )


def finish(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    status = child.exitstatus
    assert isinstance(status, int)
    return status


def prompt(child: pexpect.spawn, seat: int) -> None:
    """Wait for seat ``seat``'s decision prompt."""
    child.expect_exact(f"seat {seat}> ")


DATA = Path(__file__).parent / "data" / "table"


def fixture(name: str, tmp_path: Path) -> Path:
    """A copy (resuming writes to it) of a saved game of ``tests/data/table``: the first
    decisions of a game of freight bots, stopped where seat 0, held by a person, switches."""
    path = tmp_path / f"{name}.json"
    path.write_text((DATA / f"{name}.json").read_text(encoding="utf-8"), encoding="utf-8")
    return path


def bot_game(offices: int, seed: int, count: int) -> Replay:
    """The replay of the first ``count`` decisions of a 1-day game of passenger bots, with
    seat 0 recorded as a person's."""
    state = new_game(GameConfig(offices=offices, days=1), seed)
    bots = [make_bot("passenger", seat_seed(seed, s)) for s in range(offices)]
    decisions = []
    for _ in range(count):
        seat = state.current_player()
        decisions.append(bots[seat].choose(state.view(seat)))
        state.apply(decisions[-1])
    seats = ("human",) + ("passenger",) * (offices - 1)
    return Replay(seed, state.config, tuple(decisions), state.state_hash(), seats)


# ---------------------------------------------------------------------------- a game at the table


def test_play_hint_undo_hand_over_quit_resume_and_finish(tmp_path: Path) -> None:
    child = spawn(
        "play", "--seats", "human,random", "--seed", "3", "--fast", "--save", "game.json", cwd=tmp_path
    )
    child.expect_exact("saved after every decision to game.json")
    prompt(child, 0)
    child.sendline("undo")
    child.expect_exact("nothing to undo")
    prompt(child, 0)
    child.sendline("pass")
    child.expect_exact("seat 0 (you): pass")
    child.expect(r"seat 1 \(random@\d+\): ")  # the bot answers, one line a decision
    for _ in range(3):
        prompt(child, 0)
        child.sendline("1")
        child.expect_exact("seat 0 (you): ")
    prompt(child, 0)
    child.sendline("hint")
    child.expect(r"dispatcher@\d+ would \S")
    prompt(child, 0)
    child.sendline("hint passenger")
    child.expect(r"passenger@\d+ would \S")
    prompt(child, 0)
    child.sendline("undo")
    child.expect_exact("undone: ")
    prompt(child, 0)
    child.sendline("log")
    child.expect(r"Day 1 Stage \d+: seat ")
    prompt(child, 0)
    decided = len(load_replay(tmp_path / "game.json").decisions)
    # Take the bot's seat over, then hand ours to a bot: the person now plays seat 1.
    child.sendline("seat 1 human")
    child.expect_exact("seat 1 is now held by you")
    prompt(child, 0)
    child.sendline("seat 0 random")
    child.expect(r"seat 0 is now held by random@\d+")
    child.expect(r"seat 0 \(random@\d+\): ")
    prompt(child, 1)
    child.sendline("1")
    child.expect_exact("seat 1 (you): ")
    prompt(child, 1)
    child.sendline("quit")
    child.expect_exact("Resume it with: station-master play --resume game.json")
    assert finish(child) == 0
    replay = load_replay(tmp_path / "game.json")
    assert replay.seats == ("random", "human")
    assert len(replay.decisions) > decided
    replay.verify()

    child = spawn("play", "--resume", "game.json", "--fast", cwd=tmp_path)
    child.expect_exact(f"Resumed after {len(replay.decisions)} decision(s)")
    prompt(child, 1)
    child.sendline("seat 1 random")
    child.expect_exact("the bots play on to the end")
    child.expect_exact("Game over")
    child.expect_exact("Final revenue")
    assert finish(child) == 0
    final = load_replay(tmp_path / "game.json")
    assert final.verify().is_terminal()
    assert final.seats == ("random", "random")

    child = spawn("play", "--resume", "game.json", "--fast", cwd=tmp_path)  # a finished game: the table
    child.expect_exact("Game over")
    assert finish(child) == 0
    assert load_replay(tmp_path / "game.json") == final


def test_the_goal_the_first_mover_and_what_happened_since_your_turn(tmp_path: Path) -> None:
    """The intro says who moves first as the game has it; ``help`` begins with the goal and
    how revenue is earned; after the bot's decisions the next prompt is preceded by what
    they did."""
    child = spawn(
        "play", "--seats", "random,human", "--seed", "3", "--fast", "--save", "g.json", cwd=tmp_path
    )
    child.expect(r"Superintendent roll, a D12 each: seat 0 \d+, seat 1 \d+\. Seat (\d)")
    fedora = int(child.match.group(1))
    child.expect(r"Seat (\d) \((you|random@\d+)\) moves first\.")
    assert int(child.match.group(1)) == fedora == new_game(GameConfig(offices=2, days=1), 3).current_player()
    prompt(child, 1)
    if fedora == 0:
        assert "Since the game began:" in child.before
    child.sendline("help")
    child.expect_exact("The goal. Competitive (the default)")
    child.expect_exact("+1  a Porter boards passengers")
    child.expect_exact("Commands, at any prompt:")
    prompt(child, 1)
    child.sendline("pass")
    child.expect_exact("seat 1 (you): pass")
    child.expect(r"seat 0 \(random@\d+\): ")
    child.expect_exact("Since your last turn:")
    child.expect_exact("Seat 1 (you) to decide")
    prompt(child, 1)
    child.sendline("quit")
    assert finish(child) == 0


def test_a_switching_move_built_step_by_step(tmp_path: Path) -> None:
    """Two Crew Trays in the station: pick one, its card, drops, push."""
    load = fixture("two-trays", tmp_path)
    child = spawn("play", "--resume", str(load), "--fast", cwd=tmp_path)
    prompt(child, 0)
    child.sendline("move")
    child.expect_exact("'move' is ambiguous")
    prompt(child, 0)
    child.sendline("tray 1")
    child.expect_exact("Where should tray 1 go?")
    child.expect_exact("(0, 1) Right-hand Turnout, to the east")
    child.expect_exact("seat 0 · move> ")
    child.sendline("back")
    child.expect_exact("back to the decisions")
    prompt(child, 0)
    child.sendline("2")  # the second tray entry, tray 1
    child.expect_exact("Where should tray 1 go?")
    child.expect_exact("seat 0 · move> ")
    child.sendline("9")
    child.expect_exact("there is no choice 9")
    child.expect_exact("seat 0 · move> ")
    child.sendline("right")  # by the card's name
    child.expect_exact("Cars to push off the leading, east end onto (0, 1) Right-hand Turnout?")
    child.expect_exact("seat 0 · move> ")
    child.sendline("1")
    child.expect_exact("seat 0 moves tray 1 (0, 0) -> (0, 1)")
    prompt(child, 0)
    child.sendline("end")
    child.expect_exact("seat 0 (you): end switching")
    prompt(child, 0)
    child.sendline("quit")
    assert finish(child) == 0
    replay = load_replay(load)
    assert replay.decisions[91] == MoveTray(0, 1, ((0, 0), (0, 1)), (0, 0), 0)
    assert replay.decisions[92].kind.value == "end_switching"


def test_a_move_with_a_choice_of_route(tmp_path: Path) -> None:
    load = fixture("two-routes", tmp_path)
    child = spawn("play", "--resume", str(load), "--fast", cwd=tmp_path)
    prompt(child, 0)
    child.sendline("move")
    child.expect_exact("(0, 2) Limits, to the east, 2 routes")
    child.expect_exact("seat 0 · move> ")
    child.sendline("(0, 2)")
    child.expect_exact("Which route to (0, 2) Limits?")
    child.expect_exact("via (1, 0) Junction, (0, 1) Plain Left-hand Turnout")
    child.expect_exact("seat 0 · move> ")
    child.sendline("junction")
    while child.expect([r"seat 0 moves tray 0 \(0, -1\) -> \(0, 2\)", "seat 0 · move> "]) == 1:
        child.sendline("1")
    prompt(child, 0)
    child.sendline("quit")
    assert finish(child) == 0
    move = load_replay(load).decisions[76]
    assert isinstance(move, MoveTray) and move.path[1] == (1, 0) and move.path[-1] == (0, 2)


@pytest.mark.parametrize("stop", ["interrupt", "eof"])
def test_ctrl_c_and_ctrl_d_at_a_prompt_quit_saved(tmp_path: Path, stop: str) -> None:
    child = spawn("play", "--offices", "1", "--seed", "4", "--fast", cwd=tmp_path)
    child.expect_exact("saved after every decision to station-master-game.json")
    prompt(child, 0)
    child.sendline("1")
    prompt(child, 0)
    if stop == "interrupt":
        child.sendintr()
    else:
        child.sendeof()
    child.expect_exact("Game saved to station-master-game.json")
    assert finish(child) == 0
    assert len(load_replay(tmp_path / "station-master-game.json").decisions) >= 1
    # The next game does not overwrite it: it takes the next free name.
    child = spawn("play", "--offices", "1", "--seed", "4", "--fast", cwd=tmp_path)
    child.expect_exact("saved after every decision to station-master-game-2.json")
    prompt(child, 0)
    child.sendline("quit")
    assert finish(child) == 0


COVER = r"Seat (\d)'s turn: pass the keyboard to seat \1's player and press Enter"


def test_hot_seat_shows_each_seats_hand_only_on_its_turn(tmp_path: Path) -> None:
    child = spawn("play", "--seats", "human,human", "--seed", "3", "--fast", "--save", "g.json", cwd=tmp_path)
    handovers = 0
    for _ in range(6):
        index = child.expect([COVER, r"seat (\d)> "])
        seat = int(child.match.group(1))
        if index == 0:
            handovers += 1
            child.sendline("")
            child.expect_exact(f"seat {seat}> ")
            assert f"Hand of seat {seat} (you)" in child.before
            assert f"Hand of seat {1 - seat}" not in child.before
        child.sendline("1")
    assert handovers >= 2
    child.sendline("quit")
    assert finish(child) == 0


def test_hot_seat_clears_the_screen_and_the_scrollback_between_people(tmp_path: Path) -> None:
    """On a terminal that can be cleared, every change of the person deciding erases the
    screen and the scrollback before the cover line (the first cover has nothing to hide);
    consecutive decisions of one seat are not covered."""
    child = spawn(
        "play",
        "--seats",
        "human,human",
        "--seed",
        "3",
        "--fast",
        "--save",
        "g.json",
        cwd=tmp_path,
        term="xterm",
    )
    last = None
    covers = 0
    for _ in range(8):
        index = child.expect([COVER, r"seat (\d)> "])
        seat = int(child.match.group(1))
        if index == 0:
            covers += 1
            assert seat != last
            cleared = "\x1b[2J" in child.before and "\x1b[3J" in child.before
            assert cleared == (last is not None), child.before[-300:]
            if last is not None:
                after = child.before.rsplit("\x1b[3J", 1)[1]
                assert "Hand of seat" not in after and "draws" not in after
            child.sendline("")
            child.expect_exact(f"seat {seat}> ")
            assert f"Hand of seat {1 - seat}" not in child.before
            last = seat
        else:
            assert seat == last, "the same seat decides again: no cover"
        child.sendline("1")
    assert covers >= 3
    child.sendline("quit")
    assert finish(child) == 0


# ---------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("fly", "no decision or command matches 'fly'"),
        ("99", "there is no decision 99"),
        ("0", "there is no decision 0"),
        ("take", "'take' is ambiguous"),
        ("xyzzy plugh", "no decision or command matches"),
        ("seat 7 random", "there is no seat 7"),
        ("seat 1 nobody", "unknown bot 'nobody'"),
        ("seat", "write: seat N BOT"),
        ("hint nobody", "unknown bot 'nobody'"),
        ("save", "write: save FILE"),
    ],
)
def test_bad_input_at_a_prompt_gets_a_message_and_the_game_goes_on(
    tmp_path: Path, typed: str, message: str
) -> None:
    child = spawn(
        "play", "--seats", "human,random", "--seed", "3", "--fast", "--save", "g.json", cwd=tmp_path
    )
    prompt(child, 0)
    child.sendline(typed)
    child.expect_exact(message)
    prompt(child, 0)
    child.sendline("1")
    child.expect_exact("seat 0 (you): ")
    prompt(child, 0)
    child.sendline("quit")
    assert finish(child) == 0
    assert len(load_replay(tmp_path / "g.json").decisions) >= 1


def test_save_refuses_a_file_that_is_not_a_saved_game(tmp_path: Path) -> None:
    notes = tmp_path / "notes.json"
    notes.write_text('{"shopping": ["milk"]}\n', encoding="utf-8")
    child = spawn("play", "--offices", "1", "--seed", "2", "--fast", "--save", "g.json", cwd=tmp_path)
    prompt(child, 0)
    child.sendline("save notes.json")
    child.expect_exact("notes.json exists and is not a Station Master replay: it was not overwritten")
    prompt(child, 0)
    child.sendline("save copy.json")
    child.expect_exact("saved to copy.json (the game keeps saving to g.json)")
    prompt(child, 0)
    child.sendline("quit")
    assert finish(child) == 0
    assert notes.read_text(encoding="utf-8") == '{"shopping": ["milk"]}\n'
    assert load_replay(tmp_path / "copy.json").decisions == load_replay(tmp_path / "g.json").decisions


def _good_replay(tmp_path: Path) -> Path:
    path = tmp_path / "good.json"
    bot_game(1, 2, 13).save(path)
    return path


@pytest.mark.parametrize("kind", ["corrupt", "foreign", "tampered", "missing-seats-count"])
@pytest.mark.parametrize("command", ["play", "replay"])
def test_a_bad_file_for_resume_or_replay_exits_2_and_is_left_alone(
    tmp_path: Path, kind: str, command: str
) -> None:
    path = tmp_path / "bad.json"
    if kind == "corrupt":
        text = '{"format": "station-master-replay", "decisions": [\n'
    elif kind == "foreign":
        text = json.dumps({"name": "a spreadsheet", "rows": [1, 2, 3]})
    else:
        data = json.loads(_good_replay(tmp_path).read_text(encoding="utf-8"))
        if kind == "tampered":
            data["final_hash"] = "0" * 64
        else:
            data["seats"] = ["human", "random"]
        text = json.dumps(data)
    path.write_text(text, encoding="utf-8")
    args = ("play", "--resume", "bad.json", "--fast") if command == "play" else ("replay", "bad.json")
    child = spawn(*args, cwd=tmp_path)
    child.expect_exact("station-master: error: ")
    if kind == "tampered":
        child.expect_exact("hash mismatch")
    if kind == "foreign":
        child.expect_exact("not a Station Master replay")
    assert finish(child) == 2
    assert path.read_text(encoding="utf-8") == text
    assert {p.name for p in tmp_path.iterdir()} <= {"bad.json", "good.json"}, "nothing else written"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--seats", "human,nobody"), "unknown bot 'nobody'"),
        (("--seats", "human,random", "--offices", "3"), "3 office(s) but --seats names 2 seat(s)"),
        (("--offices", "0"), "offices must be an integer 1..6"),
        (("--seed", "-1"), "seed"),
        (("--offices", "9"), "offices must be an integer 1..6"),
        (("--resume", "x.json", "--days", "2"), "--days: the saved game fixes these"),
        (("--save", "notes.json"), "notes.json exists and is not a Station Master replay"),
        (("--pace", "-1"), "--pace must be >= 0"),
    ],
)
def test_bad_play_options_exit_2(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    notes = tmp_path / "notes.json"
    notes.write_text("[]", encoding="utf-8")
    child = spawn("play", "--fast", *args, cwd=tmp_path)
    child.expect_exact(message)
    assert finish(child) == 2
    assert notes.read_text(encoding="utf-8") == "[]"
    assert not (tmp_path / "station-master-game.json").exists()


# ---------------------------------------------------------------------------- the replay viewer


def test_replay_viewer_steps_forward_and_back(tmp_path: Path) -> None:
    path = _good_replay(tmp_path)
    total = len(load_replay(path).decisions)
    child = spawn("replay", "good.json", cwd=tmp_path)
    child.expect_exact(f"Replay of good.json: decision 0 of {total}")
    child.expect_exact("every seat's hand")
    child.expect_exact(f"replay 0/{total}> ")
    child.sendline("")
    child.expect_exact(f"decision 1 of {total}")
    child.expect_exact("Decision 1: seat 0 (person): ")
    child.expect_exact(f"replay 1/{total}> ")
    child.sendline("n")
    child.expect_exact(f"replay 2/{total}> ")
    child.sendline("p")
    child.expect_exact(f"Replay of good.json: decision 1 of {total}")
    child.expect_exact(f"replay 1/{total}> ")
    child.sendline("g 5")
    child.expect_exact(f"replay 5/{total}> ")
    child.sendline("e")
    child.expect_exact(f"replay {total}/{total}> ")
    child.sendline("n")
    child.expect_exact("that was the last decision")
    child.sendline("s")
    child.expect_exact(f"replay 0/{total}> ")
    child.sendline("p")
    child.expect_exact("this is the start")
    child.sendline("g 999")
    child.expect_exact(f"write: g N, with N from 0 to {total}")
    child.sendline("jump")
    child.expect_exact("unknown command 'jump'")
    child.sendline("q")
    assert finish(child) == 0


def test_the_replay_viewer_credits_a_handed_over_seats_decisions(tmp_path: Path) -> None:
    """A person plays seat 0, hands it to a bot, and quits: the viewer names the person for
    the first decisions and the bot for the later ones."""
    child = spawn(
        "play", "--seats", "human,random", "--seed", "3", "--fast", "--save", "g.json", cwd=tmp_path
    )
    prompt(child, 0)
    child.sendline("pass")
    prompt(child, 0)
    child.sendline("seat 0 passenger")
    child.expect(r"seat 0 \(passenger@\d+\): ")
    child.sendintr()
    child.expect_exact("Game saved to g.json")
    assert finish(child) == 0
    replay = load_replay(tmp_path / "g.json")
    mine = next(i for i, d in enumerate(replay.decisions) if d.seat == 0)
    handed = replay.holders.index("passenger")
    assert replay.seats == ("passenger", "random") and replay.holders[mine] == "human" and handed > mine
    child = spawn("replay", "g.json", cwd=tmp_path)
    child.expect_exact(f"replay 0/{len(replay.decisions)}> ")
    child.sendline(f"g {mine + 1}")
    child.expect_exact(f"Decision {mine + 1}: seat 0 (person): pass")
    child.sendline(f"g {handed + 1}")
    child.expect(rf"Decision {handed + 1}: seat 0 \(passenger@\d+\): ")
    child.sendline("q")
    assert finish(child) == 0


def test_replay_verify_and_the_summary_off_a_terminal_still_work(tmp_path: Path) -> None:
    path = _good_replay(tmp_path)
    child = spawn("replay", "good.json", "--verify", cwd=tmp_path)
    child.expect_exact(f"verified: 13 decisions reproduce final state hash {load_replay(path).final_hash}")
    assert finish(child) == 0
    child = spawn("replay", "good.json", "--summary", cwd=tmp_path)
    child.expect_exact("replayed 13 decisions: revenue")
    assert finish(child) == 0

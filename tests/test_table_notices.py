"""The table's plain-word notices (experiments/play/table/notices.py): the goal and scoring
text, the opening rolls, trains that will not run, and "since your last turn"; and the terminal
app printing them. Claims about the rules are checked by playing the game on."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator

import pytest
from rich.console import Console

from agents import RandomAgent, make_bot, seat_seed
from experiments.play.table.app import HELP, TableApp, seat_labels
from experiments.play.table.events import is_hidden_draw
from experiments.play.table.notices import (
    GOAL_TEXT,
    SINCE_LINES,
    late_play,
    opening_lines,
    play_warning,
    since_last_turn,
    timetable_warnings,
)
from experiments.play.table.render import full_table
from experiments.play.table.session import Session
from sm_env.core import (
    CLOCK,
    COLLISION_PENALTY,
    EMPTY,
    CardKind,
    Event,
    GameConfig,
    GameState,
    Phase,
    PlayCard,
    event_text,
    force_rolls,
    new_game,
    train_label,
)

LABELS = ["you", "random", "random"]
LOCAL_OPS = (Phase.LOCAL_OPS, Phase.SWITCHING, Phase.CARD_PLAY)  # before a Stage's New Train Phase


def games(seeds: range, offices: int = 2, days: int = 1) -> Iterator[GameState]:
    """Every decision point of games of random bots (the live state: read it, don't keep it)."""
    for seed in seeds:
        state = new_game(GameConfig(offices=offices, days=days), seed)
        bots = [RandomAgent(seat_seed(seed, s)) for s in range(offices)]
        while not state.is_terminal():
            yield state
            seat = state.current_player()
            state.apply(bots[seat].choose(state.view(seat)))


def runs_after(state: GameState, seed: int = 0) -> set[int]:
    """The timetabled train cards made up from ``state`` on to the end of the game (a copy
    played by random bots)."""
    state = state.clone()
    state.events.clear()
    bots = [RandomAgent(seed + s) for s in range(state.n)]
    made: set[int] = set()
    while not state.is_terminal():
        seat = state.current_player()
        state.apply(bots[seat].choose(state.view(seat)))
        made |= {e.fields["train"] for e in state.events if e.kind == "new-train" and e.seat < 0}
        state.events.clear()
    return made


def train_plays(state: GameState) -> list[PlayCard]:
    return [
        i
        for i in state.legal_intents()
        if isinstance(i, PlayCard) and state.catalogue.cards[i.card].kind is CardKind.TRAIN
    ]


# ---------------------------------------------------------------------------- the goal


def test_help_begins_with_the_goal_and_scoring() -> None:
    assert HELP.startswith(GOAL_TEXT)
    for words in ("most revenue", "Co-op", "target", "Porter boards", "Laborers unload", "collision"):
        assert words in GOAL_TEXT
    assert f"-{COLLISION_PENALTY}  a collision" in GOAL_TEXT
    assert GOAL_TEXT.count("+1  ") == 4


def test_goal_text_names_every_source_of_revenue() -> None:
    """What GOAL_TEXT claims: +1 for each boarding, detraining, load and unload, minus the
    collision penalty, and nothing else (R2.4.7). Every ledger entry of some games says so."""
    rules = set()
    for seed in range(1, 9):
        state = new_game(GameConfig(offices=3, days=1), seed)
        bots = [make_bot("passenger", seat_seed(seed, s)) for s in range(3)]
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(bots[seat].choose(state.view(seat)))
        for entry in state.ledger:
            rules.add(entry.rule)
            if entry.amount > 0:
                assert entry.amount == 1 and entry.rule in ("R9.2.1", "R9.2.2", "R9.3.1", "R9.3.2")
            else:
                assert entry.amount == -COLLISION_PENALTY, entry
    assert {"R9.2.1", "R9.2.2"} <= rules, "the passenger bots earn by boarding and detraining"


# ---------------------------------------------------------------------------- the opening


@pytest.mark.parametrize("offices", [1, 3])
def test_opening_lines_agree_with_who_moves_first(offices: int) -> None:
    ties = 0
    for seed in range(1, 40):
        state = new_game(GameConfig(offices=offices, days=1), seed)
        labels = [f"bot{s}" for s in range(offices)]
        lines = opening_lines(state.events, state, labels)
        first = state.current_player()
        assert first == state.fedora
        assert lines[-1] == f"Seat {first} (bot{first}) moves first."
        if offices == 1:
            assert not any("roll" in line for line in lines)
            continue
        seating, superintendent = lines[0], lines[1]
        east = state.seat_of_office[offices - 1]
        assert seating.startswith("Seating roll, a D12 each: seat 0 ")
        assert f"seat {east} (bot{east})" in seating.lower()
        assert seating.endswith(f"holds the easternmost office, office {offices - 1}.")
        assert f"seat {first} (bot{first})" in superintendent.lower()
        assert superintendent.endswith("takes the Fedora: the Superintendent acts first in each phase.")
        ties += "tie; the lowest" in seating + superintendent
    if offices > 1:
        assert ties, "some seed ties a roll-off (D-seat.2)"


# ---------------------------------------------------------------------------- the timetable


def test_a_train_played_into_a_passed_slot_on_the_last_day_never_runs() -> None:
    """For positions where a train card may be played late on the last day: each roll is
    forced in turn; the rolls that put the card in a slot already passed are exactly as many
    as ``play_warning`` says, and, played on, such a train is never made up; ``late_play``
    says so of its event."""
    checked = 0
    for state in games(range(1, 12)):
        plays = train_plays(state)
        if not plays or state.stage == 0:
            continue
        play = plays[0]
        late = 0
        for roll in range(1, 13):
            after = state.clone()
            after.events.clear()
            force_rolls(after, [roll])
            after.apply(play)
            (event,) = [e for e in after.events if e.kind == "play-train"]
            slot = after.timetable.index(play.card)
            note = late_play(event, after)
            if slot < state.stage:
                late += 1
                assert note is not None and note.endswith(
                    f"{train_label(state.catalogue, play.card)} will never run"
                )
                assert play.card not in runs_after(after, roll)
            else:
                assert note is None
        warning = play_warning(state.view(play.seat).board, play.card)
        if late == 0:
            assert warning is None
        elif late == 12:
            assert warning is not None and "will never run" in warning
        else:
            assert warning is not None and f"{late} of the 12 rolls" in warning
        checked += 1
    assert checked >= 5


def test_on_an_earlier_day_a_passed_slot_runs_tomorrow() -> None:
    for state in games(range(1, 12), days=2):
        plays = train_plays(state)
        if state.day == 0 and plays and state.stage > 0:
            break
    else:
        pytest.fail("no train card to play after the first Stage of day 1")
    play = plays[0]
    assert play_warning(state.view(play.seat).board, play.card) is None
    after = state.clone()
    after.events.clear()
    force_rolls(after, [1])
    after.apply(play)
    slot = after.timetable.index(play.card)
    (event,) = [e for e in after.events if e.kind == "play-train"]
    assert late_play(event, after) == (
        f"Stage {slot + 1} ({CLOCK[slot]}) has passed today: "
        f"{train_label(after.catalogue, play.card)} is first due on Day 2"
    )
    assert timetable_warnings(after) == []


def test_timetable_warnings_name_the_trains_with_no_run_left() -> None:
    """On the last day, a train whose slot has passed and which is neither held nor on the
    line is warned of, and played on it is indeed never made up again; other days warn of
    nothing."""
    warned = 0
    for state in games(range(1, 12)):
        warnings = timetable_warnings(state)
        passed = [
            card
            for slot, card in enumerate(state.timetable)
            if card != EMPTY
            and card not in state.held
            and all(t.train != card for t in state.trays)
            and (slot < state.stage or (slot == state.stage and state.phase not in LOCAL_OPS))
        ]
        assert [w.split(" has no run left")[0] for w in warnings] == [
            train_label(state.catalogue, c) for c in passed
        ]
        if warnings and warned < 6:
            warned += 1
            assert not set(passed) & runs_after(state, warned)
            text = _render(state)
            assert all(f"warning: {w}" in text for w in warnings)
    assert warned >= 3
    for state in games(range(1, 4), days=2):
        if state.day == 0:
            assert timetable_warnings(state) == []


def _render(state: GameState) -> str:
    out = io.StringIO()
    Console(file=out, width=300, color_system=None).print(full_table(state, LABELS[: state.n], ()))
    return re.sub(r"\s+", " ", out.getvalue())


# ---------------------------------------------------------------------------- since your last turn


def ev(kind: str, seat: int, **fields: object) -> Event:
    return Event(0, 3, kind, seat, dict(fields))


def test_since_last_turn_masks_draws_merges_repeats_and_sums_revenue() -> None:
    state = new_game(GameConfig(offices=3, days=1), 1)
    card = state.home_office[-1]
    events = [
        ev("draw", 1, card=card),
        ev("pass", 2),
        ev("pass", 2),
        ev("pass", 2),
        ev("revenue", 1, amount=1, rule="R9.2.1", text="seat 1's Porter boards passengers on tray 0"),
        ev("revenue", 2, amount=-COLLISION_PENALTY, rule="R10.2", text="COLLISION"),
        ev("revenue", 1, amount=1, rule="R9.2.2", text="seat 1's Porter helps passengers off tray 0"),
    ]
    lines = since_last_turn(events, state, 0, LABELS)
    assert lines[0] == f"revenue: seat 1 (random) +2, seat 2 (random) -{COLLISION_PENALTY}"
    assert lines[1] == "seat 1 draws a card from the Home Office"
    assert lines[2] == "seat 2 passes (x3)"
    assert len(lines) == 6
    assert state.catalogue.cards[card].name not in " ".join(lines)
    own = since_last_turn(events, state, 1, LABELS)
    assert own[1] == event_text(events[0], state), "a seat is told its own draw"


def test_since_last_turn_keeps_to_its_limit() -> None:
    state = new_game(GameConfig(offices=3, days=1), 1)
    routine = [ev("labor", 1, car=3, slot=k % 3, cell=(0, 1)) for k in range(30)]
    plain = [ev("discard", 2, card=state.home_office[k], department=k % 3) for k in range(5)]
    lines = since_last_turn(routine + plain, state, 0, LABELS)
    assert len(lines) == 6 and lines[-1] == "... and 30 more ('log' lists the last events)"
    assert all("discards" in line for line in lines[:5]), "the routine steps make way first"
    many = [ev("discard", 2, card=state.home_office[k], department=k % 3) for k in range(40)]
    lines = since_last_turn(many, state, 0, LABELS)
    assert len(lines) == SINCE_LINES
    assert lines[-1] == f"... and {40 - (SINCE_LINES - 1)} more ('log' lists the last events)"
    assert since_last_turn([], state, 0, LABELS) == []


def test_session_since_turn_is_what_came_between_a_seats_decisions() -> None:
    session = Session(5, GameConfig(offices=3, days=1), ["human", "random", "random"])
    person = RandomAgent(2)
    checked = 0
    while not session.state.is_terminal():
        seat = session.current()
        if not session.is_human(seat):
            session.decide(session.bot_choice())
            continue
        since = session.since_turn(0)
        mine = [i for i, d in enumerate(session.history) if d.seat == 0]
        start = mine[-1] + 1 if mine else 0
        assert since == session.history[start:]
        assert all(d.seat != 0 for d in since)
        if mine and mine[-1] == len(session.history) - 1:
            assert since == [], "consecutive decisions of one seat: nothing in between"
            checked += 1
        session.decide(person.choose(session.view(seat)))
    assert checked, "the person made two decisions in a row"


class Typist:
    """Answers every prompt with ``1`` and writes the prompt into the output, so the output
    shows where each decision was asked."""

    def __init__(self, out: io.StringIO) -> None:
        self.out = out

    def __call__(self, prompt: str) -> str:
        self.out.write(f"<<{prompt}<<\n")
        return "1"


def test_the_app_tells_what_happened_before_each_turn_and_only_then() -> None:
    session = Session(11, GameConfig(offices=3, days=1), ["human", "random", "random"])
    out = io.StringIO()
    console = Console(file=out, width=160, highlight=False, color_system=None)
    TableApp(session, console, pace=0, read=Typist(out)).run()
    labels = seat_labels(session.seats)
    segments = re.split(r"<<[^<]*<<\n", out.getvalue())[:-1]
    told = 0
    for segment in segments:
        bots_decided = re.search(r"^  seat [12] \(random@\d+\): ", segment, re.M) is not None
        heading = re.search(r"^Since (your last turn|the game began):\n", segment, re.M)
        assert (heading is not None) == bots_decided, segment[-2000:]
        if heading is not None:
            told += 1
            section = segment[heading.end() :].split("Seat 0 (you) to decide")[0]
            assert 1 <= len(section.strip().splitlines()) <= SINCE_LINES
    assert told > 10
    assert labels[0] == "you"
    hidden = [e for e in session.log if is_hidden_draw(e) and e.seat != 0]
    assert hidden and all(event_text(e, session.state) not in out.getvalue() for e in hidden)

"""What the table tells a person in plain words, with no terminal: the goal and how revenue is
earned (``GOAL_TEXT``), the seating and Superintendent rolls (``opening_lines``), trains that
will not run (``timetable_warnings``, ``play_warning``, ``late_play``) and what happened since
the person's last turn (``since_last_turn``). The terminal table prints them and the browser
table shows the same words.

The timetable (R7.2, D-run.3, docs/rules.md): a played train card is rolled into one of the
twelve slots and runs at that slot's Stage every day; rolled into a slot whose Stage has
passed today, it first runs tomorrow. So only on the game's last day is a passed slot lost:
the train will not run again before the game ends.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence

from experiments.play.table.events import event_line  # terminal-free: the one rule for hidden draws
from sm_env.core import (
    CLOCK,
    COLLISION_PENALTY,
    EMPTY,
    STAGES_PER_DAY,
    CardKind,
    Event,
    GameState,
    Phase,
    free_slot,
    train_label,
)

GOAL_TEXT = f"""\
The goal. Competitive (the default): when the game ends, the seats with the most revenue win
(a tie shares the win). The game ends after Stage {STAGES_PER_DAY} of its last day or, with a
target revenue, at the end of the first Stage in which a seat has reached the target. Co-op:
the team wins when the seats' revenue together reaches the target by the end of the last day;
else nobody wins.

Revenue is earned by your station's Porters and Laborers, each working once a Stage in the
Cargo phase, and lost in collisions:
   +1  a Porter boards passengers: a loaded coach from the office's green box takes the
       place of an empty coach on a train standing at the office
   +1  a Porter helps passengers off: a train's loaded coach goes to the office's red box
   +1  Laborers load freight: a load from a facility's green box, moved over MEN, AT and
       WORK (a Laborer a step), replaces an empty car of its kind on the facility's track
   +1  Laborers unload freight: a loaded car on a facility's track, moved over WORK, AT and
       MEN into its red box
   -{COLLISION_PENALTY}  a collision: within your Limits it is charged to you; on the Mainline, to the
       seat that was Superintendent when the moving train was cleared
Nothing else scores (not a train's run, not a card laid), and revenue may go below 0.
Your Freight Agent stocks green boxes with loads, trains bring coaches and cars, and
switching Moves set cars out on a facility's track."""

SINCE_LINES = 12  # at most this many lines in "since your last turn"

_OPENING = frozenset({"setup", "seating", "superintendent"})  # told once, at the start
# Kinds left out of "since your last turn" first when it runs long: steps of something
# another line tells (a Move, a car added, a Laborer's step, a train holding).
_ROUTINE = frozenset(
    {"move", "add-car", "no-car", "labor", "end-cargo", "switch", "hold", "train-ready", "department-refill"}
)
_BEFORE_NEW_TRAIN = frozenset({Phase.LOCAL_OPS, Phase.SWITCHING, Phase.CARD_PLAY})


# ---------------------------------------------------------------------------- the start


def opening_lines(events: Sequence[Event], board: GameState, labels: Sequence[str]) -> list[str]:
    """The setup events (the seating roll, the Superintendent roll, the Division) in plain
    words, then who moves first, as ``board`` (the game at its start) has it."""
    lines = []
    for event in events:
        if event.kind == "seating":
            office = board.office_of_seat[event.seat]
            lines.append(
                _roll_line("Seating roll", event, labels)
                + f" and holds the easternmost office, office {office}."
            )
        elif event.kind == "superintendent":
            lines.append(
                _roll_line("Superintendent roll", event, labels)
                + " and takes the Fedora: the Superintendent acts first in each phase."
            )
        else:
            lines.append(event_line(event, board, ()))
    first = board.current_player()
    if first >= 0:
        lines.append(f"Seat {first} ({labels[first]}) moves first.")
    return lines


def _roll_line(what: str, event: Event, labels: Sequence[str]) -> str:
    """A roll-off (D-seat.2: the lowest seat tied for highest wins) in words."""
    rolls: list[int] = event.fields["rolls"]
    shown = ", ".join(f"seat {seat} {roll}" for seat, roll in enumerate(rolls))
    tied = [seat for seat, roll in enumerate(rolls) if roll == max(rolls)]
    won = f"seat {event.seat} ({labels[event.seat]})"
    if len(tied) > 1:
        names = ", ".join(str(seat) for seat in tied)
        return f"{what}, a D12 each: {shown}. Seats {names} tie; the lowest, {won}, wins the tie"
    return f"{what}, a D12 each: {shown}. {won[0].upper()}{won[1:]} rolled highest"


# ---------------------------------------------------------------------------- the timetable


def _slot_passed(board: GameState, slot: int) -> bool:
    """Whether today's New Train Phase of ``slot`` is over (R7.1: it begins after Local
    Operations)."""
    return slot < board.stage or (slot == board.stage and board.phase not in _BEFORE_NEW_TRAIN)


def _last_day(board: GameState) -> bool:
    return not board.is_terminal() and board.day == board.config.days - 1


def _stage_name(slot: int) -> str:
    return f"Stage {slot + 1} ({CLOCK[slot]})"


def timetable_warnings(board: GameState) -> list[str]:
    """A warning for each timetabled train that has no run left in the game: on the last
    day, its slot has passed and it is neither held for a Crew Tray nor on the line. (On any
    other day a passed slot comes round again tomorrow.)"""
    if not _last_day(board):
        return []
    running = {tray.train for tray in board.trays}
    out = []
    for slot, card in enumerate(board.timetable):
        if card == EMPTY or card in board.held or card in running or not _slot_passed(board, slot):
            continue
        out.append(
            f"{train_label(board.catalogue, card)} has no run left: its slot, {_stage_name(slot)}, "
            "has passed on the game's last day"
        )
    return out


def play_warning(board: GameState, card: int) -> str | None:
    """Before a train card is played: on the last day, how many of the D12's twelve rolls put
    it in a slot already passed, where it would never run (R7.2); None when none does."""
    if board.catalogue.cards[card].kind is not CardKind.TRAIN or not _last_day(board):
        return None
    slots = [free_slot(board, roll) for roll in range(STAGES_PER_DAY)]
    late = sum(1 for slot in slots if slot != EMPTY and _slot_passed(board, slot))
    if not late:
        return None
    label = train_label(board.catalogue, card)
    if late == STAGES_PER_DAY:
        return (
            f"played now, {label} will never run: every free slot is before "
            f"{_stage_name(board.stage)} and this is the game's last day"
        )
    return (
        f"on the game's last day, {late} of the 12 rolls put {label} in a slot already passed, "
        "where it would never run"
    )


def late_play(event: Event, board: GameState) -> str | None:
    """What a ``play-train`` event means when its roll landed in a slot already passed that
    day (R7.2: it runs from the next day), or None."""
    if event.kind != "play-train":
        return None
    slot, card = event.fields["slot"], event.fields["card"]
    if slot >= event.stage:
        return None
    label = train_label(board.catalogue, card)
    if event.day >= board.config.days - 1:
        return f"{_stage_name(slot)} has passed and this is the game's last day: {label} will never run"
    return f"{_stage_name(slot)} has passed today: {label} is first due on Day {event.day + 2}"


def notice_line(event: Event, board: GameState, reveal: Collection[int]) -> str:
    """``event_line`` (a face-down draw named only to the seats in ``reveal``), with a late
    train card's warning."""
    line = event_line(event, board, reveal)
    late = late_play(event, board)
    return f"{line}: {late}" if late else line


# ---------------------------------------------------------------------------- between turns


def since_last_turn(
    events: Sequence[Event],
    board: GameState,
    viewer: int,
    labels: Sequence[str],
    limit: int = SINCE_LINES,
) -> list[str]:
    """What happened between ``viewer``'s turns, told to that seat (another seat's face-down
    draw unnamed): the revenue each seat gained or lost, then the events, repeats merged. At
    most ``limit`` lines: past that the routine steps are left out first, then the last
    lines, and "... and N more" counts what was left out."""
    revenue: Counter[int] = Counter()
    lines: list[tuple[str, bool]] = []  # (text, routine)
    counts: list[int] = []
    for event in events:
        if event.kind in _OPENING:
            continue
        if event.kind == "revenue":
            revenue[event.seat] += event.fields["amount"]
        text = notice_line(event, board, (viewer,))
        if lines and lines[-1][0] == text:
            counts[-1] += 1
            continue
        lines.append((text, event.kind in _ROUTINE))
        counts.append(1)
    out = []
    if revenue:
        changes = ", ".join(
            f"seat {seat} ({labels[seat]}) {amount:+d}" for seat, amount in sorted(revenue.items())
        )
        out.append(f"revenue: {changes}")
    told = [text if n == 1 else f"{text} (x{n})" for (text, _), n in zip(lines, counts, strict=True)]
    room = limit - len(out)
    if len(told) <= room:
        return out + told
    kept = [text for text, (_, routine) in zip(told, lines, strict=True) if not routine][: max(room - 1, 0)]
    return [*out, *kept, f"... and {len(told) - len(kept)} more ('log' lists the last events)"]

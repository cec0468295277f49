"""Stepping through a recorded game, forward and back: ``station-master replay FILE``.

``Positions`` holds a replay's positions: position ``k`` is the game after its first ``k``
decisions (0 is the start). It replays every decision once when made (so a bad file fails at
once, with ``ReplayError``; with ``verify`` also when the final hash is not the recorded
one), keeps a copy of the state every ``CHECKPOINT`` decisions and
rebuilds any position from the nearest copy before it. ``run_viewer`` is the terminal loop.
A viewer of a recorded game is nobody's seat: it shows every hand. Each decision is credited
to whoever made it (``Replay.holder``), and the seats are labelled by who held them there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text

from agents import BotSpecError, bot_name
from experiments.play.table.render import full_table
from experiments.play.table.session import HUMAN
from sm_env.core import (
    CLOCK,
    Catalogue,
    Event,
    GameState,
    IllegalIntent,
    Replay,
    ReplayError,
    describe,
    event_text,
    load_catalogue,
    new_game,
)

CHECKPOINT = 64

HELP = """\
  n or Enter   the next decision          p   the previous one
  g N          go to decision N           s   the start      e   the end
  b            draw the table again       q   quit (also Ctrl-C, Ctrl-D)"""


@dataclass(frozen=True, slots=True)
class Visit:
    """Position ``index``: the state there, the decision that led to it (read before it was
    applied), who made it (None when the file does not say) and the events it caused; the
    setup events at position 0."""

    index: int
    state: GameState
    decision: str | None
    seat: int
    events: tuple[Event, ...]
    holder: str | None = None


class Positions:
    def __init__(self, replay: Replay, catalogue: Catalogue | None = None, verify: bool = False) -> None:
        self.replay = replay
        self.catalogue = catalogue or load_catalogue()
        self.total = len(replay.decisions)
        state = new_game(replay.config, replay.seed, self.catalogue)
        self.setup_events = tuple(state.events)
        state.events.clear()
        self._copies: dict[int, GameState] = {0: state.clone()}
        self.revenue: list[tuple[int, ...]] = [tuple(state.revenue_by_seat)]  # each position's, per seat
        for i, decision in enumerate(replay.decisions):
            try:
                state.apply(decision)
            except IllegalIntent as err:
                raise ReplayError(f"decision {i} ({describe(state, decision)}) is illegal: {err}") from None
            state.events.clear()
            self.revenue.append(tuple(state.revenue_by_seat))
            if (i + 1) % CHECKPOINT == 0:
                self._copies[i + 1] = state.clone()
        self.final = state
        if verify and state.state_hash() != replay.final_hash:
            raise ReplayError(
                f"final state hash mismatch: the file records {replay.final_hash}, "
                f"the replay gives {state.state_hash()}"
            )

    def state_at(self, index: int) -> GameState:
        """The game after its first ``index`` decisions (a fresh copy)."""
        if not 0 <= index <= self.total:
            raise IndexError(f"position {index} of 0..{self.total}")
        start = index - index % CHECKPOINT
        state = self._copies[start].clone()
        for decision in self.replay.decisions[start:index]:
            state.apply(decision)
        state.events.clear()
        return state

    def visit(self, index: int) -> Visit:
        if index == 0:
            return Visit(0, self.state_at(0), None, -1, self.setup_events)
        state = self.state_at(index - 1)
        decision = self.replay.decisions[index - 1]
        text = describe(state, decision)
        state.apply(decision)
        events = tuple(state.events)
        state.events.clear()
        return Visit(index, state, text, decision.seat, events, self.replay.holder(index - 1))

    def holders_at(self, index: int) -> list[str | None]:
        """Who held each seat at position ``index``: the holder of its last decision up to
        there, else of its next one, else its holder at the end (None: not recorded)."""
        replay = self.replay
        held: list[str | None] = list(replay.seats) or [None] * replay.config.offices
        if replay.holders:
            found: set[int] = set()
            for i in [*range(index - 1, -1, -1), *range(index, self.total)]:
                seat = replay.decisions[i].seat
                if seat not in found:
                    found.add(seat)
                    held[seat] = replay.holders[i]
        return held


def holder_label(holder: str | None, seat: int) -> str:
    """A seat's holder as the viewer names it: ``person``, the bot's short name, or ``seat N``
    when the file does not say."""
    if holder is None:
        return f"seat {seat}"
    if holder == HUMAN:
        return "person"
    try:
        return bot_name(holder)
    except BotSpecError:
        return holder


def run_viewer(positions: Positions, console: Console, name: str, read: Callable[[str], str] = input) -> int:
    """Step through the game at the keyboard (see ``HELP``)."""
    total = positions.total
    index = 0

    def show(visit: Visit) -> None:
        board = visit.state
        labels = [holder_label(h, seat) for seat, h in enumerate(positions.holders_at(visit.index))]
        console.rule(Text(f"Replay of {name}: decision {visit.index} of {total}"))
        console.print(Text("A viewer of a recorded game sees every seat's hand.", style="dim"))
        console.print(full_table(board, labels, range(board.n)))
        _show_visit(console, visit, board)

    console.print(
        Text(
            f"Replay of {name}: seed {positions.replay.seed}, {positions.replay.config.offices} office(s), "
            f"{total} decision(s){'; the game is over' if positions.final.is_terminal() else '; unfinished'}",
            style="bold",
        )
    )
    console.print(Text(HELP))
    show(positions.visit(0))
    while True:
        try:
            text = read(f"replay {index}/{total}> ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            console.print()
            return 0
        target = _target(text, index, total)
        if target is None:
            return 0
        if isinstance(target, Text):
            console.print(target)
            continue
        index = target
        show(positions.visit(index))


def _target(text: str, index: int, total: int) -> int | Text | None:
    """Where a typed command (see ``HELP``) goes from decision ``index`` of ``total``: the
    decision to show, a message to print instead, or None to quit."""
    command, _, rest = text.partition(" ")
    if command in ("", "n", "next"):
        if index + 1 > total:
            return Text("that was the last decision ('p' goes back, 'q' quits)")
        return index + 1
    if command in ("p", "prev", "previous"):
        if index - 1 < 0:
            return Text("this is the start ('n' goes on)")
        return index - 1
    if command in ("g", "go", "goto"):
        if not rest.isdigit() or int(rest) > total:
            return Text(f"write: g N, with N from 0 to {total}", style="red")
        return int(rest)
    if command in ("s", "start"):
        return 0
    if command in ("e", "end"):
        return total
    if command in ("b", "board"):
        return index
    if command in ("h", "help", "?"):
        return Text(HELP)
    if command in ("q", "quit", "exit"):
        return None
    return Text(f"unknown command {text!r}:\n{HELP}", style="red")


def _show_visit(console: Console, visit: Visit, board: GameState) -> None:
    if visit.decision is None:
        console.print(Text(f"The start (0 of the game's decisions); Stage 1, {CLOCK[0]}", style="bold"))
    else:
        what = visit.decision.split(": ", 1)[1]
        by = holder_label(visit.holder, visit.seat)
        console.print(Text(f"Decision {visit.index}: seat {visit.seat} ({by}): {what}", style="bold"))
    for event in visit.events:
        console.print(Text(f"    {event_text(event, board)}", style="dim"))
    if visit.index and not visit.events:
        console.print(Text("    (no events)", style="dim"))

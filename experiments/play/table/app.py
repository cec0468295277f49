"""The terminal table of ``station-master play``: a person's prompts, the bots' turns, commands.

``TableApp(session, console, pace).run()`` plays the session to its end or until the person
quits. At a person's decision it draws the table from that seat's view (the full table when
the turn comes round, the seat's own station between its own decisions), lists the legal
decisions (``Menu``) and reads a number, a name or a command. A bot's decision is one line,
with the events it caused, ``pace`` seconds apart; before a person's decision, what happened
since that seat's last one (``notices.since_last_turn``). Nothing hidden is printed: the table
comes from a seat view, a hand is listed only for the seat a person holds (with several, only
the one deciding), and a face-down draw is named only to its seat (``events.event_line``,
through ``notices.notice_line``).
With several seats held by people (hot-seat), the screen and the terminal's scrollback are
cleared and a cover line waits for Enter whenever the deciding person's seat changes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from agents import BotSpecError, WinEstimator, bot_name, make_bot, seat_seed
from experiments.play.table.builder import MovePicker
from experiments.play.table.menu import Entry, Menu, MenuError, TrayChoice, intent_label, pick_by_name
from experiments.play.table.notices import (
    GOAL_TEXT,
    notice_line,
    opening_lines,
    play_warning,
    since_last_turn,
)
from experiments.play.table.render import full_table, seat_table, station_signature
from experiments.play.table.session import HUMAN, Decided, SaveError, SeatError, Session, check_save_target
from sm_env.core import CLOCK, Event, HouseRules, IllegalIntent, Intent, MoveTray, PlayCard

DEFAULT_HINT_BOT = "dispatcher"
AHEAD_SAMPLES = 24  # rollouts behind ``ahead``: about a second at 3 offices
LOG_LINES = 20
CLEAR_SCROLLBACK = "\x1b[3J"  # xterm's "erase saved lines": Console.clear() leaves the scrollback

HELP = f"""\
{GOAL_TEXT}

Pick a decision by its number or by a short name: a word or two of it is enough when only one
decision matches (pass, draw, end, switch, play mine, take 1, lay straight 0 1, clear, hold).
A switching Move is built step by step: pick the tray's entry, then the card to go to, the
route if several lead there, then how many cars to leave on each card and to push off at the
end. At every step: a number, a name, or 'back' for the step before.

Commands, at any prompt:
  help            this text
  board           draw the whole table again
  log             the last 20 events
  hint [BOT]      what a bot (default: dispatcher) would do here, and why when it says
  ahead           each seat's chance to win, as your seat can judge it
  undo            take back your last decision (and the bots' after it); again to go further
  seat N BOT      hand seat N to a bot (random, passenger, freight, dispatcher, NAME:K=V)
  seat N human    take seat N over yourself (hot-seat: each seat's hand shows only on its turn)
  save FILE       write the game to FILE too (never over a file that is not a saved game)
  quit            stop here; the game is saved (Ctrl-C and Ctrl-D do the same)"""


class Quit(Exception):
    """The person stops; the game is already saved."""


class _Changed(Exception):
    """A command changed the game or its seats: the decision is asked again from the top."""


def seat_labels(seats: Sequence[str]) -> list[str]:
    """How the seats are called at the table: ``you`` for a seat a person holds (hot-seat:
    whoever holds it is at the keyboard on its turn), else the bot's short name."""
    return ["you" if s == HUMAN else bot_name(s) for s in seats]


class TableApp:
    """The terminal loop over a ``Session`` (see the module). ``read`` reads a line after a
    prompt (``input``; tests script it), ``sleep`` paces the bots."""

    def __init__(
        self,
        session: Session,
        console: Console,
        pace: float = 0.5,
        read: Callable[[str], str] = input,
        sleep: Callable[[float], None] = time.sleep,
        resumed: bool = False,
    ) -> None:
        self.session = session
        self.console = console
        self.pace = pace
        self.read = read
        self.sleep = sleep
        self.resumed = resumed
        self.need_full = True
        self.last_person: int | None = None  # the person's seat whose view was drawn last
        self.summarised: tuple[int, int] | None = None  # (seat, decisions) of the last "since" section
        self.heading: tuple[int, int] | None = None
        self.bots_alone_told = False
        self.legend_shown = False
        self.save_problem: str | None = None
        self.drawn: dict[int, str] = {}  # office -> the signature of its station when last drawn

    # ------------------------------------------------------------------ the loop

    def run(self) -> int:
        self._intro()
        try:
            while not self.session.state.is_terminal():
                seat = self.session.current()
                if self.session.is_human(seat):
                    self._person_turn(seat)
                else:
                    self._bot_turn(seat)
        except (Quit, KeyboardInterrupt, EOFError):
            self._quit()
            return 0
        self._finish()
        return 0

    def _say(self, text: str, style: str | None = None) -> None:
        self.console.print(Text(text, style=style or ""))

    def _intro(self) -> None:
        s = self.session
        config = s.config
        rules = ", ".join(n for n in HouseRules.names() if getattr(config.house_rules, n)) or "none"
        target = f", target revenue {config.target_revenue}" if config.target_revenue is not None else ""
        self._say(
            f"Station Master — seed {s.seed}, {config.offices} office(s), {config.days} day(s), "
            f"{config.mode.value}{target}, house rules: {rules}",
            "bold",
        )
        labels = seat_labels(s.seats)
        self._say("Seats: " + ", ".join(f"{seat} {label}" for seat, label in enumerate(labels)))
        if s.save_path is not None:
            self._say(
                f"The game is saved after every decision to {s.save_path} "
                f"(resume with: station-master play --resume {s.save_path})"
            )
        if self.resumed or s.decisions:
            board = s.state
            self._say(
                f"Resumed after {len(s.decisions)} decision(s): Day {board.day + 1}, Stage {board.stage + 1} "
                f"({board.clock()})"
            )
        else:
            for line in opening_lines(list(s.log), s.state, labels):
                self._say(f"    {line}", "dim")
        self._say("Type 'help' at a prompt for the goal, how revenue is earned and the commands.", "dim")

    def _quit(self) -> None:
        path = self.session.save_path
        self.console.print()
        if self.session.save_problem is not None:
            self._say(f"The last save failed ({self.session.save_problem}).", "bold red")
        elif path is not None:
            self._say(f"Game saved to {path}. Resume it with: station-master play --resume {path}", "bold")
        else:
            self._say("Stopped (no save file).", "bold")

    def _finish(self) -> None:
        s = self.session
        humans = s.humans()
        viewer = humans[0] if humans else 0
        board = s.view(viewer).board
        labels = seat_labels(s.seats)
        self.console.rule("Game over")
        self.console.print(full_table(board, labels, humans[:1] if len(humans) == 1 else (), humans))
        table = Table(title="Final revenue")
        for name in ("seat", "held by", "revenue", ""):
            table.add_column(name)
        winners = s.state.winners()
        for seat, revenue in enumerate(s.state.revenue()):
            table.add_row(str(seat), labels[seat], str(revenue), "winner" if seat in winners else "")
        self.console.print(table)
        if winners:
            names = ", ".join(f"seat {w} ({labels[w]})" for w in winners)
            self._say(f"Won by {names}.", "bold")
        else:
            self._say("Nobody won: the team missed its target.", "bold")
        if s.save_path is not None:
            self._say(
                f"The game is saved in {s.save_path}; "
                f"step through it with: station-master replay {s.save_path}"
            )

    # ------------------------------------------------------------------ bots

    def _bot_turn(self, seat: int) -> None:
        s = self.session
        if not s.humans() and not self.bots_alone_told:
            self.bots_alone_told = True
            self._say(
                "No seat is held by a person: the bots play on to the end (Ctrl-C stops, saved).", "bold"
            )
        intent = s.bot_choice()
        try:
            decided = s.decide(intent)
        except IllegalIntent as err:
            self._say(
                f"the bot of seat {seat} chose an illegal decision ({err}); hand the seat to another bot"
            )
            raise Quit from None
        self._show_decided(decided)
        self.need_full = True
        if self.pace > 0:
            self.sleep(self.pace)

    # ------------------------------------------------------------------ output

    def _heading(self, event: Event) -> None:
        if event.kind in ("setup", "seating", "superintendent"):
            return
        if self.heading != (event.day, event.stage):
            self.heading = (event.day, event.stage)
            self.console.rule(
                f"Day {event.day + 1} · Stage {event.stage + 1} · {CLOCK[event.stage]}", style="dim"
            )

    def _show_events(self, events: Sequence[Event], reveal: Collection[int]) -> None:
        for event in events:
            self._heading(event)
            self._say(f"    {notice_line(event, self.session.state, reveal)}", "dim")

    def _show_decided(self, decided: Decided) -> None:
        problem = self.session.save_problem
        if problem != self.save_problem:
            self.save_problem = problem
            if problem is None:
                self._say(f"saving to {self.session.save_path} works again", "bold")
            else:
                self._say(f"{problem}; the game goes on unsaved ('save FILE' saves elsewhere)", "bold red")
        labels = seat_labels(self.session.seats)
        text = decided.text.split(": ", 1)[1]
        for event in decided.events[:1]:
            self._heading(event)
        self._say(
            f"  seat {decided.seat} ({labels[decided.seat]}): {text}", "bold" if decided.by_person else None
        )
        self._show_events(decided.events, (decided.seat,) if decided.by_person else ())

    def _show_table(self, seat: int, full: bool, everything: bool = False) -> None:
        """The table from ``seat``'s view: ``full`` with the stations that changed since they
        were last drawn (and the seat's own), ``everything`` with all of them and the legend."""
        s = self.session
        board = s.view(seat).board
        labels = seat_labels(s.seats)
        if full:
            legend = everything or not self.legend_shown
            self.legend_shown = True
            signatures = {office: station_signature(board, office) for office in range(board.n)}
            own = {board.office_of_seat[seat]}
            stations = {o for o, sig in signatures.items() if everything or self.drawn.get(o) != sig} | own
            self.drawn.update(signatures)
            self.console.print(full_table(board, labels, (seat,), s.humans(), legend, stations))
        else:
            self.console.print(seat_table(board, seat, labels, show_hand=True))

    def _show_menu(self, seat: int, menu: Menu) -> None:
        labels = seat_labels(self.session.seats)
        board = self.session.view(seat).board
        self._say(
            f"Seat {seat} ({labels[seat]}) to decide — a number or a name; 'help' for the commands", "bold"
        )
        for group, entries in menu.groups():
            self._say(f" {group}", "underline")
            for entry in entries:
                self._say(f"  {entry.number:>3}  {entry.label}")
                action = entry.action
                warning = play_warning(board, action.card) if isinstance(action, PlayCard) else None
                if warning:
                    self._say(f"       warning: {warning}", "yellow")

    def _show_since(self, seat: int) -> None:
        """What happened since the seat's last decision, unless nothing did or it was told."""
        s = self.session
        records = s.since_turn(seat)
        if not records or self.summarised == (seat, len(s.decisions)):
            return
        self.summarised = (seat, len(s.decisions))
        events = [event for record in records for event in record.events]
        labels = seat_labels(s.seats)
        heading = "Since your last turn:" if len(records) < len(s.decisions) else "Since the game began:"
        self._say(heading, "bold")
        for line in since_last_turn(events, s.state, seat, labels):
            self._say(f"  {line}")

    def _cover(self, seat: int) -> None:
        """Hot-seat: clear the screen and its scrollback (the last person's hand and draws),
        then wait for the next person (``quit`` there stops too)."""
        if self.last_person is not None and self.console.is_terminal and not self.console.is_dumb_terminal:
            self.console.clear()
            self.console.file.write(CLEAR_SCROLLBACK)
            self.console.file.flush()
            self.drawn.clear()  # the stations drawn before are gone from the screen
            self.heading = None
        typed = self.read(f"Seat {seat}'s turn: pass the keyboard to seat {seat}'s player and press Enter ")
        if typed.strip().lower() in ("quit", "exit"):
            raise Quit

    # ------------------------------------------------------------------ a person's decision

    def _person_turn(self, seat: int) -> None:
        s = self.session
        if seat != self.last_person:
            if len(s.humans()) > 1:
                self._cover(seat)
            self.need_full = True
        self.last_person = seat
        self._show_table(seat, self.need_full)
        self.need_full = False
        self._show_since(seat)
        view = s.view(seat)
        menu = Menu.of(view.board, view.legal_intents())
        self._show_menu(seat, menu)
        while True:
            text = self.read(f"seat {seat}> ").strip()
            try:
                if not text:
                    self._show_menu(seat, menu)
                    continue
                if self._command(text, seat, menu):
                    continue
                entry = menu.pick(text)
                intent = self._intent_of(entry, seat)
                if intent is None:
                    self._show_menu(seat, menu)
                    continue
                decided = s.decide(intent)
            except MenuError as err:
                self._say(str(err), "red")
                continue
            except IllegalIntent as err:
                self._say(
                    f"that decision is not legal now: {err.message} ({err.rule_id}); nothing changed", "red"
                )
                continue
            except _Changed:
                return
            self._show_decided(decided)
            return

    def _intent_of(self, entry: Entry, seat: int) -> Intent | None:
        """The intent an entry stands for: a Move is built step by step (None: backed out)."""
        action = entry.action
        if not isinstance(action, TrayChoice):
            return action
        view = self.session.view(seat)
        picker = MovePicker(view.board, action.moves, action.tray)
        return self._pick_move(seat, picker)

    def _pick_move(self, seat: int, picker: MovePicker) -> MoveTray | None:
        self._say(
            f"Building a Move of tray {picker.tray}: a number or a name at each step, 'back' to go back",
            "bold",
        )
        while True:
            step = picker.step()
            if step is None:
                return picker.move()
            self._say(f" {step.question}", "underline")
            for i, option in enumerate(step.options, 1):
                self._say(f"  {i:>3}  {option.label}")
            while True:
                text = self.read(f"seat {seat} · move> ").strip()
                if text.lower() in ("back", "b"):
                    if not picker.back():
                        self._say("back to the decisions")
                        return None
                    break
                if not text:
                    break
                try:
                    if self._command(text, seat, None):
                        continue
                    if text.isdigit():
                        index = int(text) - 1
                        if not 0 <= index < len(step.options):
                            raise MenuError(
                                f"there is no choice {text}: choose 1..{len(step.options)}, or 'back'"
                            )
                    else:
                        option = pick_by_name(
                            text, step.options, lambda o: o.label, lambda o: (), "choice or command"
                        )
                        index = step.options.index(option)
                except MenuError as err:
                    self._say(str(err), "red")
                    continue
                picker.choose(index)
                break

    # ------------------------------------------------------------------ commands

    def _command(self, text: str, seat: int, menu: Menu | None) -> bool:
        """Carry out a command; False when ``text`` is none (it picks a decision). Raises
        ``_Changed`` when the game or its seats changed, ``Quit`` to stop."""
        name, _, rest = text.partition(" ")
        name, rest = name.lower(), rest.strip()
        if name in ("help", "?"):
            self._say(HELP)
        elif name == "board":
            self._show_table(seat, full=True, everything=True)
        elif name == "log":
            self._log(seat)
        elif name == "hint":
            self._hint(seat, rest or DEFAULT_HINT_BOT, menu)
        elif name == "ahead":
            self._ahead(seat)
        elif name == "undo":
            self._undo()
        elif name == "seat":
            self._seat(rest)
        elif name == "save":
            self._save(rest)
        elif name in ("quit", "exit"):
            raise Quit
        else:
            return False
        return True

    def _log(self, seat: int) -> None:
        events = list(self.session.log)[-LOG_LINES:]
        if not events:
            self._say("nothing has happened yet")
        for event in events:
            where = f"Day {event.day + 1} Stage {event.stage + 1}"
            self._say(f"  {where}: {notice_line(event, self.session.state, (seat,))}")

    def _hint(self, seat: int, spec: str, menu: Menu | None) -> None:
        s = self.session
        try:
            bot = make_bot(spec, seat_seed(s.seed, seat))
        except BotSpecError as err:
            self._say(str(err), "red")
            return
        view = s.view(seat)
        intent = bot.choose(view)
        text = intent_label(view.board, intent)
        where = ""
        entry = menu.entry_of(intent) if menu is not None else None
        if entry is not None:
            where = f" (decision {entry.number}" + (
                ", then the steps of the Move)" if isinstance(intent, MoveTray) else ")"
            )
        self._say(f"{bot_name(spec)} would {text}{where}", "bold")
        reason = getattr(bot, "reason", None)
        if reason:
            self._say(f"  why: {reason}")

    def _ahead(self, seat: int) -> None:
        s = self.session
        chances = WinEstimator(samples=AHEAD_SAMPLES, seed=s.seed).for_seat(s.view(seat))
        revenue = s.state.revenue()
        self._say("chance to win, judged from your seat (the rest played out by passenger bots):", "bold")
        for other, (label, chance) in enumerate(zip(seat_labels(s.seats), chances, strict=True)):
            self._say(f"  seat {other} ({label}): {chance:.0%}, revenue {revenue[other]}")

    def _undo(self) -> None:
        taken = self.session.undo()
        if taken is None:
            self._say("nothing to undo: no decision of a seat you hold has been made yet", "red")
            return
        board = self.session.state
        self._say(
            f"undone: {taken} decision(s) taken back; back at Day {board.day + 1}, Stage {board.stage + 1} "
            f"({board.clock()}), seat {board.current_player()} to decide",
            "bold",
        )
        self.need_full = True
        raise _Changed

    def _seat(self, rest: str) -> None:
        number, _, spec = rest.partition(" ")
        spec = spec.strip()
        if not number.lstrip("-").isdigit() or not spec:
            self._say("write: seat N BOT (a bot spec) or seat N human", "red")
            return
        try:
            self.session.set_seat(int(number), spec)
        except (SeatError, BotSpecError) as err:
            self._say(str(err), "red")
            return
        labels = seat_labels(self.session.seats)
        self._say(f"seat {int(number)} is now held by {labels[int(number)]}", "bold")
        self.need_full = True
        raise _Changed

    def _save(self, rest: str) -> None:
        if not rest:
            self._say("write: save FILE", "red")
            return
        path = Path(rest)
        try:
            check_save_target(path)
            self.session.save(path)
        except SaveError as err:
            self._say(str(err), "red")
            return
        except OSError as err:
            self._say(f"could not save to {path}: {err}", "red")
            return
        also = f" (the game keeps saving to {self.session.save_path})" if self.session.save_path else ""
        self._say(f"saved to {path}{also}", "bold")

"""One game at the table: who holds each seat, the decisions so far, and the save file.

A seat is held by ``"human"`` (a person) or a bot spec of the registry (``"passenger"``,
``"freight:beam=4"``). ``Session.decide`` applies one decision (an ``IllegalIntent`` leaves
everything as it was), records it and writes the replay file at once, atomically
(``Replay.save``): a crash loses at most the decision being made. A save that fails is
reported in ``save_problem`` and the game goes on. ``undo`` goes back to a
person's previous decision by replaying the seed and the decisions before it: the game is
deterministic, so the state is the one the person saw. ``Session.resume`` rebuilds a saved
game from its replay and checks the hash it records.

A seat may change hands during a game (``set_seat``), so each decision is recorded with its
holder (``holders``), and the replay file keeps them where a seat changed hands: a replay
credits each decision to whoever made it.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agents import Agent, make_bot, seat_seed
from sm_env.core import (
    REPLAY_FORMAT,
    Catalogue,
    Event,
    GameConfig,
    GameState,
    IllegalIntent,
    Intent,
    Replay,
    ReplayError,
    SeatView,
    describe,
    load_catalogue,
    new_game,
)

HUMAN = "human"
LOG_SIZE = 200  # events kept for the ``log`` command


class SeatError(ValueError):
    """A seat number or a seat's holder that does not fit the game."""


class SaveError(OSError):
    """A file the table refuses to write over."""


def check_save_target(path: str | Path) -> None:
    """Refuse ``path`` when it exists and is not a Station Master replay (``SaveError``)."""
    target = Path(path)
    if not target.exists():
        if not target.parent.is_dir():
            raise SaveError(f"{target}: there is no folder {target.parent} to save in")
        return
    if not target.is_file():
        raise SaveError(f"{target} is not a file: nothing was written")
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        data = None
    if not isinstance(data, dict) or data.get("format") != REPLAY_FORMAT:
        raise SaveError(f"{target} exists and is not a Station Master replay: it was not overwritten")


def seat_label(spec: str) -> str:
    return spec.strip()


@dataclass(frozen=True, slots=True)
class Decided:
    """One accepted decision: the seat, what (``text``, read before it was applied), the
    events it caused, and who made it (``holder``: ``"human"`` or a bot spec)."""

    seat: int
    intent: Intent
    text: str
    events: tuple[Event, ...]
    holder: str

    @property
    def by_person(self) -> bool:
        return self.holder == HUMAN


class Session:
    """A game, its seats, its decisions and its save file (see the module)."""

    def __init__(
        self,
        seed: int,
        config: GameConfig,
        seats: Sequence[str],
        save_path: str | Path | None = None,
        catalogue: Catalogue | None = None,
    ) -> None:
        if len(seats) != config.offices:
            raise SeatError(
                f"{len(seats)} seat(s) given for {config.offices} office(s): give one holder per seat"
            )
        self.seed = seed
        self.config = config
        self.catalogue = catalogue or load_catalogue()
        self.seats = [seat_label(s) for s in seats]
        for spec in self.seats:
            if spec != HUMAN:
                make_bot(spec, 0)  # BotSpecError names an unknown bot or parameter
        self.save_path = Path(save_path) if save_path is not None else None
        self.decisions: list[Intent] = []
        self.holders: list[str] = []  # who made each decision
        self.by_person: list[bool] = []
        self.history: list[Decided] = []  # each decision with its events
        self.log: deque[Event] = deque(maxlen=LOG_SIZE)
        self.save_problem: str | None = None  # why the last save to the save file failed
        self._bots: dict[int, Agent] = {}
        self.state = self._fresh()

    # ------------------------------------------------------------------ making and resuming

    def _fresh(self) -> GameState:
        self.log.clear()
        state = new_game(self.config, self.seed, self.catalogue)
        self.log.extend(state.events)
        state.events.clear()
        return state

    @classmethod
    def resume(
        cls,
        replay: Replay,
        seats: Sequence[str] | None = None,
        save_path: str | Path | None = None,
        catalogue: Catalogue | None = None,
    ) -> Session:
        """The game a replay holds, with its recorded seats unless ``seats`` is given, each
        decision credited to its recorded holder (a file that records none: the seat's
        holder now). The replay must reproduce its recorded hash (``ReplayError`` otherwise)."""
        chosen = list(seats) if seats is not None else list(replay.seats)
        if not chosen:
            raise SeatError("the saved game does not say who held each seat: give --seats")
        session = cls(replay.seed, replay.config, chosen, save_path, catalogue)
        for i, decision in enumerate(replay.decisions):
            holder = replay.holder(i) or session.seats[decision.seat]
            try:
                session._record(decision, holder)
            except IllegalIntent as err:
                raise ReplayError(f"decision {i} is illegal: {err}") from None
        actual = session.state.state_hash()
        if actual != replay.final_hash:
            raise ReplayError(
                f"final state hash mismatch: the file records {replay.final_hash}, the replay gives {actual}"
            )
        return session

    # ------------------------------------------------------------------ seats

    def is_human(self, seat: int) -> bool:
        return self.seats[seat] == HUMAN

    def humans(self) -> list[int]:
        return [s for s, spec in enumerate(self.seats) if spec == HUMAN]

    def bot(self, seat: int) -> Agent:
        """The bot holding ``seat``, made once with the seat's own seed."""
        agent = self._bots.get(seat)
        if agent is None:
            agent = self._bots[seat] = make_bot(self.seats[seat], seat_seed(self.seed, seat))
        return agent

    def set_seat(self, seat: int, spec: str) -> None:
        """Hand ``seat`` to a bot spec or to ``"human"``; takes effect at the next decision."""
        if not 0 <= seat < self.config.offices:
            raise SeatError(f"there is no seat {seat}: the seats are 0..{self.config.offices - 1}")
        spec = seat_label(spec)
        if spec != HUMAN:
            make_bot(spec, 0)
        self.seats[seat] = spec
        self._bots.pop(seat, None)
        self.autosave()

    # ------------------------------------------------------------------ playing

    def current(self) -> int:
        return self.state.current_player()

    def view(self, seat: int) -> SeatView:
        return self.state.view(seat)

    def decide(self, intent: Intent) -> Decided:
        """Apply the deciding seat's ``intent``, record it and save. ``IllegalIntent``
        changes nothing."""
        seat = self.current()
        if seat < 0:
            raise IllegalIntent("D-end", "the game is over")
        decided = self._record(intent, self.seats[seat])
        self.autosave()
        return decided

    def _record(self, intent: Intent, holder: str) -> Decided:
        """Apply ``intent`` (``IllegalIntent`` changes nothing) and record it as ``holder``'s."""
        text = describe(self.state, intent)
        self.state.events.clear()
        self.state.apply(intent)
        events = tuple(self.state.events)
        self.state.events.clear()
        decided = Decided(intent.seat, intent, text, events, holder)
        self.decisions.append(intent)
        self.holders.append(holder)
        self.by_person.append(decided.by_person)
        self.history.append(decided)
        self.log.extend(events)
        return decided

    def since_turn(self, seat: int) -> list[Decided]:
        """The decisions made since ``seat``'s last one (all of them if it has made none):
        what happened between its turns."""
        for i in range(len(self.history) - 1, -1, -1):
            if self.history[i].seat == seat:
                return self.history[i + 1 :]
        return list(self.history)

    def bot_choice(self) -> Intent:
        """What the bot of the deciding seat decides, from that seat's view."""
        seat = self.current()
        return self.bot(seat).choose(self.state.view(seat))

    def undo_point(self) -> int | None:
        """The index of the last decision a person made for a seat a person still holds."""
        for i in range(len(self.decisions) - 1, -1, -1):
            if self.by_person[i] and self.is_human(self.decisions[i].seat):
                return i
        return None

    def undo(self) -> int | None:
        """Back to just before the person's previous decision (see ``undo_point``), replayed
        from the seed; the number of decisions taken back, or None when there is none."""
        point = self.undo_point()
        if point is None:
            return None
        taken = len(self.decisions) - point
        self.rebuild(point)
        self.autosave()
        return taken

    def rebuild(self, count: int) -> None:
        """The game after its first ``count`` decisions, replayed from the seed, each still
        credited to its holder."""
        kept = list(zip(self.decisions[:count], self.holders[:count], strict=True))
        self.state = self._fresh()
        self.decisions.clear()
        self.holders.clear()
        self.by_person.clear()
        self.history.clear()
        for decision, holder in kept:
            self._record(decision, holder)

    # ------------------------------------------------------------------ saving

    def replay(self) -> Replay:
        return Replay(
            self.seed,
            self.config,
            tuple(self.decisions),
            self.state.state_hash(),
            tuple(self.seats),
            tuple(self.holders),
        )

    def autosave(self) -> None:
        """Save to the save file; a failure (a full disk, a folder gone) is kept in
        ``save_problem`` for the table to report, and the game goes on."""
        try:
            self.save()
        except OSError as err:
            self.save_problem = f"could not save to {self.save_path}: {err}"
        else:
            self.save_problem = None

    def save(self, path: str | Path | None = None) -> Path | None:
        """Write the replay to ``path`` (default: the save file); the path written, if any."""
        target = Path(path) if path is not None else self.save_path
        if target is None:
            return None
        self.replay().save(target, self.catalogue)
        return target

"""Journals: a long run's finished games, one JSON line each, so that a run killed at any
moment goes on where it stopped (``--resume``).

The first line is the run's header: every setting that decides a game's result (the bots'
labels carry their versions, and the rules edition is added). Each further line is one finished
game, appended and flushed as it comes back, so a killed process loses at most the line it was
writing. On resuming, a torn last line (no newline: the process died writing it) is dropped and
its game played again; any other line that does not parse, or a header that is not the run's,
is a ``JournalError`` naming the line. The journal is rewritten whole (atomically) before it is
appended to again, so a torn line never has a game glued after it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from sm_env.core import RULES_EDITION, decode_json, write_atomically

FORMAT = "station-master-journal"
VERSION = 1


class JournalError(ValueError):
    """A journal that cannot be resumed from: another run's, or damaged before its last line."""


def journal_path(output: Path) -> Path:
    """The journal beside a run's output file: ``FILE.journal``."""
    return output.with_name(output.name + ".journal")


class Journal:
    """An open journal, appended to as games finish (``append``); a run that needs it no
    more once its output is written removes it (``finish``)."""

    def __init__(self, path: Path, header: dict[str, Any], items: list[dict[str, Any]]) -> None:
        self.path = path
        self.header = {"format": FORMAT, "version": VERSION, "rules_edition": RULES_EDITION, **header}
        self.items = items  # the games finished before this run started
        lines = [self.header, *items]
        write_atomically(path, "".join(json.dumps(line) + "\n" for line in lines))
        self._out: IO[str] = path.open("a", encoding="utf-8")

    @classmethod
    def start(cls, path: Path, header: dict[str, Any]) -> Journal:
        """A new journal (an old one at ``path`` is replaced)."""
        return cls(path, header, [])

    @classmethod
    def resume(cls, path: Path, header: dict[str, Any], grows: str = "") -> Journal:
        """The journal at ``path`` with the games it holds (``items``); a new one when there is
        none. ``JournalError`` when it is another run's or damaged. ``grows`` names a count in
        the header that the run may raise over the journal's (more deals of a finished run):
        the journal is then the run's, its header rewritten with the new count."""
        if not path.exists():
            return cls.start(path, header)
        lines = list(_lines(path))
        if not lines:
            raise JournalError(f"{path}: the journal is empty; delete it to start the run afresh")
        want = {"format": FORMAT, "version": VERSION, "rules_edition": RULES_EDITION, **header}
        if grows and _grown(lines[0], want, grows):
            want = {**want, grows: lines[0][grows]}
        if lines[0] != want:
            differ = sorted(
                key for key in want.keys() | _keys(lines[0]) if _get(lines[0], key) != want.get(key)
            )
            raise JournalError(
                f"{path}: the journal is of another run ({', '.join(differ)} differ); "
                "give the same options, or delete it to start afresh"
            )
        items: list[dict[str, Any]] = []
        for number, line in enumerate(lines[1:], start=2):
            if not isinstance(line, dict):
                raise JournalError(f"{path}: line {number} is not a JSON object")
            items.append(line)
        return cls(path, header, items)

    def append(self, item: dict[str, Any]) -> None:
        """Record one finished game, flushed to the operating system at once."""
        self._out.write(json.dumps(item) + "\n")
        self._out.flush()

    def close(self) -> None:
        self._out.close()

    def finish(self) -> None:
        """The run's output is written: the journal is no longer needed."""
        self.close()
        self.path.unlink(missing_ok=True)


def as_tuples(value: Any) -> Any:
    """A JSON value with its lists as tuples, as the records' frozen fields hold them."""
    return tuple(as_tuples(v) for v in value) if isinstance(value, list) else value


def line_values(data: dict[str, Any], kind: type[Any], source: str, error: type[Exception]) -> dict[str, Any]:
    """A game's journal line as the fields of the dataclass ``kind`` (lists as tuples);
    ``error`` when its keys are not exactly those fields."""
    fields = [f.name for f in dataclasses.fields(kind)]
    if sorted(data) != sorted(fields):
        raise error(f"{source}: a game's line must have the keys {', '.join(fields)}")
    return {key: as_tuples(data[key]) for key in fields}


def _lines(path: Path) -> Iterator[Any]:
    """Every whole line's JSON; a last line without its newline (torn) is dropped."""
    text = path.read_bytes()
    whole, _, _torn = text.rpartition(b"\n")
    for number, raw in enumerate(whole.split(b"\n") if whole else [], start=1):
        try:
            yield decode_json(raw.decode("utf-8"))
        except ValueError as err:  # not UTF-8, not JSON, or JSON the strict reader refuses
            raise JournalError(f"{path}: line {number} is not JSON ({err})") from None


def _grown(old: Any, new: dict[str, Any], key: str) -> bool:
    """Whether ``old``'s count ``key`` is a whole number no larger than ``new``'s."""
    count = _get(old, key)
    return isinstance(count, int) and not isinstance(count, bool) and 0 <= count <= new[key]


def _keys(data: Any) -> set[str]:
    return set(data) if isinstance(data, dict) else set()


def _get(data: Any, key: str) -> Any:
    return data.get(key) if isinstance(data, dict) else None

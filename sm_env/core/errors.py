"""Errors raised by the rules core. Every message says what was wrong."""

from __future__ import annotations


def shown_value(value: object, limit: int = 60) -> str:
    """A value of a file or a request quoted in a message, cut to a line: bad input may hold
    megabytes, a number too long to print or nesting too deep to walk."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return "a value too large to show"
    return cut_line(text, limit)


def cut_line(text: object, limit: int = 300) -> str:
    """A message (perhaps quoting bad input) cut to ``limit`` characters."""
    line = str(text)
    return line if len(line) <= limit else line[: limit - 3] + "..."


class StationMasterError(Exception):
    """Base class for every error the rules core raises on bad input."""


class CatalogueError(StationMasterError):
    """The card catalogue file is malformed."""


class ConfigError(StationMasterError):
    """A game configuration is malformed or out of range."""


class ReplayError(StationMasterError):
    """A replay file is malformed, or does not replay."""


class SnapshotError(StationMasterError):
    """A state snapshot is malformed or inconsistent; the message names the place in it."""


class IllegalIntent(StationMasterError):
    """An intent the rules forbid. The state is left exactly as it was."""

    def __init__(self, rule_id: str, message: str) -> None:
        super().__init__(f"[{rule_id}] {message}")
        self.rule_id = rule_id
        self.message = message

    def __reduce__(self) -> tuple[type[IllegalIntent], tuple[str, str]]:
        # pickled by its two arguments: a worker process can send it back
        return (IllegalIntent, (self.rule_id, self.message))

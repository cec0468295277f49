"""Editing a position by hand, the one way: ``with edit(state) as s: ...``.

Tests build situations, the curriculum scenarios set up starting positions and the benchmarks
grow busy stations by writing a state's fields directly. Such an edit changes the decision,
so on leaving the block the state's derived caches (its listed legal intents) are dropped, to
be listed afresh, and the position is checked (``check_invariants`` by default). An edit whose
position breaks an invariant, or whose block raises, is rolled back: the state is put back as
it was on entering (from a clone taken then, its events kept), and ``PositionError`` names the
first problem, e.g. ``edit refused, the state is as it was: revenue[0]: 5 is not the sum of
seat 0's ledger entries, 4 (R2.4.7)``; an exception of the block itself is raised again.

``check`` chooses the test: ``check_conservation`` for a situation outside the rules' layouts
that still keeps every card and car in one place (a test's station without Limits), None for
a fixture that knowingly leaves the rules (a benchmark's bare engines) and wants only the caches
dropped. An edit inside another edit of the same state is part of it: only the outermost one
takes the clone, checks and rolls back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sm_env.core.errors import StationMasterError
from sm_env.core.fields import SLOTS
from sm_env.core.invariants import check_invariants
from sm_env.core.state import Event, GameState

Checker = Callable[[GameState], list[str]]

_OPEN: set[int] = set()  # the states being edited, by id: an inner edit is part of the outer one


class PositionError(StationMasterError):
    """A hand edit made a position that breaks an invariant; the state is as it was before
    the edit. ``problems`` lists every check's first problem."""

    def __init__(self, problems: list[str]) -> None:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(f"edit refused, the state is as it was: {problems[0]}{more}")
        self.problems = problems


@contextmanager
def edit(state: GameState, check: Checker | None = check_invariants) -> Iterator[GameState]:
    """Edit ``state`` by hand inside the block; on leaving it, its caches are dropped and
    ``check`` (when given) must find no problem, else the edit is rolled back and
    ``PositionError`` raised. Yields the state itself."""
    if id(state) in _OPEN:
        yield state
        return
    before = state.clone()
    events = state.events[:]  # a clone's events start empty: these are put back on a rollback
    _OPEN.add(id(state))
    try:
        yield state
        state.legal_cache = None  # the position changed: its choices are listed afresh
        problems = _problems(state, check)
    except BaseException:
        _restore(state, before, events)
        raise
    finally:
        _OPEN.discard(id(state))
    if problems:
        _restore(state, before, events)
        raise PositionError(problems)


def _problems(state: GameState, check: Checker | None) -> list[str]:
    if check is None:
        return []
    try:
        return check(state)
    except (LookupError, TypeError, ValueError, AttributeError) as err:  # fields of the wrong shape
        return [f"the position cannot be checked: {type(err).__name__}: {err}"]


def _restore(state: GameState, before: GameState, events: list[Event]) -> None:
    """Every field of ``state`` back to its value in ``before`` (a clone it alone holds), and
    its events to ``events``, in the list readers of the events already hold."""
    log = state.events
    for name in SLOTS:
        setattr(state, name, getattr(before, name))
    log[:] = events
    state.events = log


__all__ = ["PositionError", "edit"]

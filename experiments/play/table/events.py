"""The events a person may read: every event as the demo prints it, except that a card drawn
face down from the Home Office is named only to the seat that drew it."""

from __future__ import annotations

from collections.abc import Collection

from sm_env.core import Event, GameState, event_text


def is_hidden_draw(event: Event) -> bool:
    """A face-down draw: a ``draw`` event without a ``department`` names the drawn card."""
    return event.kind == "draw" and "department" not in event.fields


def event_line(event: Event, state: GameState, reveal: Collection[int]) -> str:
    """The text of ``event`` for a person who may see the hands of the seats in ``reveal``."""
    if is_hidden_draw(event) and event.seat not in reveal:
        return f"seat {event.seat} draws a card from the Home Office"
    return event_text(event, state)

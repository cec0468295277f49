"""Trains as pieces: what a Crew Tray's train card says and where its cars sit (R2.2, R2.3).

The Division runs West DP - Mainline 0 - office 0 - Mainline 1 - ... - office n-1 -
Mainline n - East DP: Mainline card ``k`` lies between office ``k-1`` and office ``k``, and its
regions are numbered west to east. A train is a Crew Tray with a train card, in exactly one
place: its origin Division Point, a Mainline region, or a station cell (``pieces.Tray``).
The New Train and Mainline rules order and make up trains with these; what a train card
says, its cars and where it stands are board queries (``queries``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sm_env.core.catalogue import Catalogue
from sm_env.core.pieces import EMPTY, Tray
from sm_env.core.queries import spec_of

if TYPE_CHECKING:
    from sm_env.core.state import GameState


def seniority(catalogue: Catalogue, tray: Tray) -> tuple[int, bool]:
    """R8.0.1: lower number first; a timetabled train before the Extra of the same number."""
    spec = spec_of(catalogue, tray.train)
    return (spec.number, spec.extra)


def free_tray(state: GameState) -> int:
    """The first free Crew Tray, or EMPTY (C-trays.2)."""
    for i, tray in enumerate(state.trays):
        if tray.train == EMPTY:
            return i
    return EMPTY


def front_to_back(tray: Tray) -> list[int]:
    """The consist from the end facing the train's direction to the other end."""
    consist = list(tray.consist)
    return consist[::-1] if tray.direction > 0 else consist


def set_front_to_back(tray: Tray, order: list[int]) -> None:
    tray.consist = tuple(order[::-1] if tray.direction > 0 else order)

"""Chance in one place: every D12 roll and every shuffle of the game goes through
``roll_d12`` and ``shuffle`` (C-rng.1), drawing from the state's stream.

The stream is the state's ``rng``: the seeded ``Rng`` in play and in replays, or a
``ForcedRolls`` that a test or a search puts in its place to force the next D12 results
(``force_rolls``) before the seeded stream takes over again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from sm_env.core.rng import Chance

if TYPE_CHECKING:
    from sm_env.core.state import GameState


def roll_d12(state: GameState) -> int:
    """One roll of the D12, 1..12."""
    return state.rng.d12()


def shuffle(state: GameState, items: list[Any]) -> None:
    """Shuffle a deck in place (Fisher-Yates, C-rng.1)."""
    state.rng.shuffle(items)


class ForcedRolls:
    """A stream whose next D12 results are given; after them, and for every shuffle, the
    wrapped stream draws as usual."""

    __slots__ = ("rolls", "stream")

    def __init__(self, rolls: Iterable[int], stream: Chance) -> None:
        self.rolls = list(rolls)
        bad = [roll for roll in self.rolls if type(roll) is not int or not 1 <= roll <= 12]
        if bad:
            raise ValueError(f"a D12 shows 1..12; cannot force {bad}")
        self.stream = stream

    @property
    def state(self) -> int:
        return self.stream.state

    def copy(self) -> ForcedRolls:
        return ForcedRolls(self.rolls, self.stream.copy())

    def __reduce__(self) -> tuple[type[ForcedRolls], tuple[list[int], Chance]]:
        return (ForcedRolls, (self.rolls, self.stream))  # copies and pickles (compiled too)

    def d12(self) -> int:
        return self.rolls.pop(0) if self.rolls else self.stream.d12()

    def shuffle(self, items: list[Any]) -> None:
        self.stream.shuffle(items)


def force_rolls(state: GameState, rolls: Iterable[int]) -> None:
    """The next D12 rolls of ``state`` will show ``rolls``, in order."""
    state.rng = ForcedRolls(rolls, state.rng)

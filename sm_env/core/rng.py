"""The game's one random stream (C-rng.1): a 32-bit seeded generator of our own.

Mulberry32: a 32-bit state advanced by a Weyl step and mixed. It is tiny, fast in pure
Python, passes the usual statistical batteries well enough for dice and shuffles, and its
whole state is one int, so cloning a game copies it for free.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from mypy_extensions import i64  # mypyc's native 64-bit int; a plain int when interpreted

_MASK = 0xFFFFFFFF
_T = TypeVar("_T")


class Chance(Protocol):
    """What a game draws its chance from: ``Rng``, or ``sm_env.core.chance.ForcedRolls``."""

    @property
    def state(self) -> int: ...

    def copy(self) -> Chance: ...

    def d12(self) -> int: ...

    def shuffle(self, items: list[Any]) -> None: ...


class Rng:
    __slots__ = ("state",)

    def __init__(self, seed: object) -> None:  # any object: anything but a u32 is refused here
        if type(seed) is int and 0 <= seed <= _MASK:  # the common case, checked first
            self.state = seed
            return
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= _MASK:
            raise ValueError(f"seed must be an integer in 0..{_MASK}, got {seed!r}")
        self.state = seed

    def copy(self) -> Rng:
        return Rng(self.state)

    def __reduce__(self) -> tuple[type[Rng], tuple[int]]:
        return (Rng, (self.state,))  # copies and pickles (the compiled class too)

    def next_u32(self) -> int:
        self.state = z = (self.state + 0x6D2B79F5) & _MASK
        z = ((z ^ (z >> 15)) * (z | 1)) & _MASK
        z ^= (z + ((z ^ (z >> 7)) * (z | 61))) & _MASK
        return (z ^ (z >> 14)) & _MASK

    def below(self, n: int) -> int:
        """Uniform int in [0, n), without modulo bias (rejection sampling)."""
        if n <= 0:
            raise ValueError(f"below() needs n >= 1, got {n}")
        limit = 0x100000000 - 0x100000000 % n
        while True:  # next_u32, inlined: the hot path of every roll and shuffle
            self.state = z = (self.state + 0x6D2B79F5) & 0xFFFFFFFF
            z = ((z ^ (z >> 15)) * (z | 1)) & 0xFFFFFFFF
            z ^= (z + ((z ^ (z >> 7)) * (z | 61))) & 0xFFFFFFFF
            x = (z ^ (z >> 14)) & 0xFFFFFFFF
            if x < limit:
                return x % n

    def d12(self) -> int:
        """One roll of the D12: 1..12 (C-rng.1)."""
        return self.below(12) + 1

    def shuffle(self, items: list[_T]) -> None:
        """Fisher-Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def skip_shuffle(self, n: int) -> None:
        """Move on exactly as ``shuffle`` of ``n`` items would: its draws (``below(i)`` for i
        from n down to 2), none of its swaps. ``below``'s steps, inlined on native ints: the
        compiled build multiplies in 64 bits, wrapping (mypyc compiles with CPython's -fwrapv),
        and keeps the low 32 bits as the exact product does here; about 100 times faster a draw
        than ``below`` there. For ``SeatView.skip_determinize``, which the freight bot calls at
        every placement it tries."""
        state: i64 = self.state
        i: i64
        for i in range(n, 1, -1):
            limit: i64 = 0x100000000 - 0x100000000 % i
            z: i64
            while True:
                state = (state + 0x6D2B79F5) & 0xFFFFFFFF
                z = ((state ^ (state >> 15)) * (state | 1)) & 0xFFFFFFFF
                z ^= (z + ((z ^ (z >> 7)) * (z | 61))) & 0xFFFFFFFF
                if (z ^ (z >> 14)) & 0xFFFFFFFF < limit:
                    break
        self.state = state

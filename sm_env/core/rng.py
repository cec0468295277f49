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
        """Uniform int in [0, n), without modulo bias (rejection sampling).

        ``next_u32`` inlined on native ints, the hot path of every roll and shuffle: compiled,
        they are 64-bit and the products wrap (mypyc compiles with CPython's -fwrapv), keeping
        the low 32 bits as the exact products do when interpreted."""
        if not 0 < n <= 0x100000000:  # beyond 2**32 every draw would be rejected
            raise ValueError(f"below() needs n in 1..2**32, got {n}")
        span: i64 = n
        limit: i64 = 0x100000000 - 0x100000000 % span
        state: i64 = self.state
        z: i64
        while True:
            state = (state + 0x6D2B79F5) & 0xFFFFFFFF
            z = ((state ^ (state >> 15)) * (state | 1)) & 0xFFFFFFFF
            z ^= (z + ((z ^ (z >> 7)) * (z | 61))) & 0xFFFFFFFF
            z = (z ^ (z >> 14)) & 0xFFFFFFFF
            if z < limit:
                self.state = state
                return z % span

    def d12(self) -> int:
        """One roll of the D12: 1..12 (C-rng.1)."""
        return self.below(12) + 1

    def shuffle(self, items: list[_T]) -> None:
        """Fisher-Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

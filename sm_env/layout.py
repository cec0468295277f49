"""What both versions' spaces are built from: the blocks an action layout is cut into, the
index of the station cells, the sections of an observation vector, and the error a bad action
raises. Light (no NumPy, no RL framework): the bots' encoders import it too."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from sm_env.core import CELLS

CELL_INDEX = MappingProxyType({cell: i for i, cell in enumerate(CELLS)})


class IllegalActionError(ValueError):
    """An action the mask forbids, or one outside the action space."""


@dataclass(frozen=True, slots=True)
class Block:
    """One block of a layout: actions ``start .. start + size - 1``, a grid of ``dims``."""

    name: str
    start: int
    dims: tuple[int, ...]

    @property
    def size(self) -> int:
        size = 1
        for d in self.dims:
            size *= d
        return size

    def index(self, *params: int) -> int:
        offset = 0
        for value, dim in zip(params, self.dims, strict=True):
            if not 0 <= value < dim:
                raise ValueError(f"{self.name}: parameter {value} out of range {dim}")
            offset = offset * dim + value
        return self.start + offset

    def params(self, action: int) -> tuple[int, ...]:
        offset = action - self.start
        out = []
        for dim in reversed(self.dims):
            out.append(offset % dim)
            offset //= dim
        return tuple(reversed(out))


def lay_out(sizes: list[tuple[str, int]]) -> tuple[dict[str, slice], int]:
    """The sections of an observation vector, in order, from their sizes; and its length."""
    sections: dict[str, slice] = {}
    start = 0
    for name, size in sizes:
        sections[name] = slice(start, start + size)
        start += size
    return sections, start


__all__ = ["CELL_INDEX", "Block", "IllegalActionError", "lay_out"]

"""A switching Move chosen as a person thinks of it: the tray, the card to go to, the route if
several lead there, then how many cars to leave on each card of the route and to push off
at the end.

``MovePicker`` holds the legal Moves (``MoveTray`` intents from the legal list) and the
choices made so far. Each step offers only the values that some remaining legal Move has, so
every choice leads to at least one legal Move and the last one to exactly one of them; the
picker never builds a Move of its own. A step with a single value is taken at once (and
skipped again by ``back``).

Steps, in order: ``tray`` -> ``destination`` (the last cell of the path) -> ``route`` (the
whole path) -> ``drop`` once per cell of the path (``drops[i]``) -> ``push``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace

from sm_env.core import (
    ENGINE,
    OFFICE_CELL,
    Cell,
    GameState,
    IllegalIntent,
    MoveTray,
    apply_move,
    car_label,
    card_name,
    consist_label,
    train_label,
)


@dataclass(frozen=True, slots=True)
class Option:
    value: Hashable
    label: str


@dataclass(frozen=True, slots=True)
class Step:
    key: str  # "tray", "destination", "route", "drop" or "push"
    question: str
    options: tuple[Option, ...]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


class MovePicker:
    """The legal Moves still possible after the choices made so far (see the module)."""

    def __init__(self, board: GameState, moves: Sequence[MoveTray], tray: int | None = None) -> None:
        if not moves:
            raise ValueError("a Move picker needs at least one legal Move")
        self.board = board
        self.moves = tuple(moves)
        self.choices: list[tuple[Hashable, bool]] = []  # (value, typed by the person)
        if tray is not None:
            if not any(m.tray == tray for m in self.moves):
                raise ValueError(f"tray {tray} has no legal Move")
            self.choices.append((tray, False))
        self._advance()

    # ------------------------------------------------------------------ the steps

    def _key(self, position: int, move: MoveTray) -> Hashable:
        if position == 0:
            return move.tray
        if position == 1:
            return move.path[-1]
        if position == 2:
            return move.path
        if position < 3 + len(move.path):
            return move.drops[position - 3]
        return move.push

    def _steps(self, move: MoveTray) -> int:
        return 4 + len(move.path)

    def candidates(self) -> list[MoveTray]:
        out = list(self.moves)
        for position, (value, _) in enumerate(self.choices):
            out = [m for m in out if self._key(position, m) == value]
        return out

    def _values(self) -> tuple[int, list[Hashable]]:
        """The position of the next step and the values it may take, in the legal order."""
        position = len(self.choices)
        values: list[Hashable] = []
        for move in self.candidates():
            if position < self._steps(move):
                value = self._key(position, move)
                if value not in values:
                    values.append(value)
        return position, values

    def _advance(self) -> None:
        """Take every step that has a single value."""
        while True:
            _, values = self._values()
            if len(values) != 1:
                return
            self.choices.append((values[0], False))

    def done(self) -> bool:
        return not self._values()[1]

    def move(self) -> MoveTray | None:
        """The Move built, once every step is taken."""
        if not self.done():
            return None
        (only,) = self.candidates()
        return only

    def step(self) -> Step | None:
        """The step the person is asked now, or None once the Move is built."""
        position, values = self._values()
        if not values:
            return None
        candidates = self.candidates()
        if position == 0:
            return Step("tray", "Which Crew Tray?", tuple(self._tray_option(v, candidates) for v in values))
        if position == 1:
            options = tuple(self._destination_option(v, candidates) for v in values)
            return Step("destination", f"Where should tray {self.tray} go?", options)
        if position == 2:
            return Step(
                "route",
                f"Which route to {self._cell_name(candidates[0].path[-1])}?",
                tuple(self._route_option(v) for v in values),
            )
        sample = candidates[0]
        if position < 3 + len(sample.path):
            index = position - 3
            return self._drop_step(sample, index, values)
        return self._push_step(candidates, values)

    def choose(self, index: int) -> None:
        """Take option ``index`` (0-based) of the current step."""
        position, values = self._values()
        if not 0 <= index < len(values):
            raise IndexError(f"option {index} of {len(values)}")
        self.choices.append((values[index], True))
        self._advance()

    def back(self) -> bool:
        """Undo the last choice the person made (and the steps taken with it); False when
        there is none, i.e. backing out of the picker."""
        typed = [i for i, (_, by_person) in enumerate(self.choices) if by_person]
        if not typed:
            return False
        del self.choices[typed[-1] :]
        return True

    def started(self) -> bool:
        return any(by_person for _, by_person in self.choices)

    # ------------------------------------------------------------------ labels

    @property
    def tray(self) -> int:
        value = self.choices[0][0] if self.choices else None
        assert isinstance(value, int)
        return value

    def _cell_name(self, cell: Cell) -> str:
        office = self.board.office_of_seat[self.moves[0].seat]
        placed = self.board.stations[office].grid.get(cell)
        name = card_name(self.board.catalogue, placed[0]) if placed else "?"
        return f"{cell} {name}" + (" (the office)" if cell == OFFICE_CELL else "")

    def _standing(self, cell: Cell) -> str:
        office = self.board.office_of_seat[self.moves[0].seat]
        cars = self.board.stations[office].cars.get(cell, ())
        trays = [f"tray {i}" for i, t in enumerate(self.board.trays) if t.office == office and t.cell == cell]
        parts = ([" ".join(car_label(c) for c in cars)] if cars else []) + trays
        return f" [{', '.join(parts)}]" if parts else ""

    def _tray_option(self, tray: Hashable, candidates: list[MoveTray]) -> Option:
        assert isinstance(tray, int)
        t = self.board.trays[tray]
        count = sum(1 for m in candidates if m.tray == tray)
        label = (
            f"tray {tray}: {train_label(self.board.catalogue, t.train)} "
            f"[{consist_label(t.consist, t.facing)}] on {self._cell_name(t.cell or OFFICE_CELL)}, "
            f"{_plural(count, 'Move')}"
        )
        return Option(tray, label)

    def _destination_option(self, cell: Hashable, candidates: list[MoveTray]) -> Option:
        assert isinstance(cell, tuple)
        here = [m for m in candidates if m.path[-1] == cell]
        routes = len({m.path for m in here})
        start = here[0].path[0]
        heading = "east" if cell[1] > start[1] else "west"
        via = f", {routes} routes" if routes > 1 else ""
        label = f"{self._cell_name(cell)}{self._standing(cell)}, to the {heading}{via}"
        return Option(cell, label)

    def _route_option(self, path: Hashable) -> Option:
        assert isinstance(path, tuple)
        inner = path[1:-1]
        via = ", ".join(self._cell_name(c) for c in inner) if inner else "straight there"
        return Option(path, f"via {via}")

    def _trailing(self, move: MoveTray) -> list[int]:
        """The cars behind the engine, the outermost first: drops take them in this order."""
        consist = self.board.trays[move.tray].consist
        engine = consist.index(ENGINE)
        east = move.path[1][1] > move.path[0][1]
        return list(consist[:engine]) if east else list(consist[engine + 1 :])[::-1]

    def _drop_step(self, sample: MoveTray, index: int, values: list[Hashable]) -> Step:
        east = sample.path[1][1] > sample.path[0][1]
        trailing = self._trailing(sample)
        taken = sum(sample.drops[:index])
        cell = sample.path[index]
        where = "where the tray starts" if index == 0 else f"card {index} of the route"
        if index == len(sample.path) - 1:
            where = "the destination"
        options = []
        for value in values:
            assert isinstance(value, int)
            cars = trailing[taken : taken + value]
            shown = " ".join(car_label(c) for c in (cars if east else cars[::-1]))
            label = f"leave {_plural(value, 'car')}" + (f" ({shown})" if value else "")
            options.append(Option(value, label))
        end = "west" if east else "east"
        return Step(
            "drop",
            f"Cars to leave on {self._cell_name(cell)}, {where} (off the trailing, {end} end)?",
            tuple(options),
        )

    def _push_step(self, candidates: list[MoveTray], values: list[Hashable]) -> Step:
        sample = candidates[0]
        east = sample.path[1][1] > sample.path[0][1]
        leading = self._leading(replace(sample, push=0))
        options = []
        for value in values:
            assert isinstance(value, int)
            cars = leading[:value] if leading is not None else []
            shown = " ".join(car_label(c) for c in (cars[::-1] if east else cars))
            label = f"push {_plural(value, 'car')}" + (f" ({shown})" if shown else "") + " off the front"
            options.append(Option(value, label))
        end = "east" if east else "west"
        return Step(
            "push",
            f"Cars to push off the leading, {end} end onto {self._cell_name(sample.path[-1])}?",
            tuple(options),
        )

    def _leading(self, move: MoveTray) -> list[int] | None:
        """The cars ahead of the engine at the destination, the outermost first (from the
        Move carried out on a copy of the board; None if that fails)."""
        board = self.board.clone()
        try:
            apply_move(board, move)
        except IllegalIntent:
            return None
        consist = board.trays[move.tray].consist
        engine = consist.index(ENGINE)
        east = move.path[1][1] > move.path[0][1]
        return list(consist[engine + 1 :])[::-1] if east else list(consist[:engine])

"""The mutable pieces on the table: facility boxes, station areas and Crew Trays.

Each has a hand-written ``copy()`` that copies only what mutates, for cheap state clones,
through its constructor (whose arguments default to a new, empty piece), so the classes
compile as they are (mypyc) as well as run as Python.
"""

from __future__ import annotations

from sm_env.core.intents import Cell

EMPTY = -1
WORK_SLOTS = 3  # MEN, AT, WORK
OFFICE_CELL: Cell = (0, 0)


class Boxes:
    """A facility's cargo areas (R9.1): green outbound box, red inbound box and the
    MEN|AT|WORK track (EMPTY where a slot holds no load; ``unloading`` tells which loads are
    on their way to the red box rather than into a car, R9.1.7)."""

    __slots__ = ("outbound", "inbound", "work", "unloading")

    def __init__(
        self,
        outbound: list[int] | None = None,
        inbound: list[int] | None = None,
        work: list[int] | None = None,
        unloading: list[bool] | None = None,
    ) -> None:
        self.outbound: list[int] = [] if outbound is None else outbound
        self.inbound: list[int] = [] if inbound is None else inbound
        self.work: list[int] = [EMPTY] * WORK_SLOTS if work is None else work
        self.unloading: list[bool] = [False] * WORK_SLOTS if unloading is None else unloading

    def copy(self) -> Boxes:
        return Boxes(self.outbound[:], self.inbound[:], self.work[:], self.unloading[:])

    def cars(self) -> list[int]:
        return self.outbound + self.inbound + [c for c in self.work if c != EMPTY]


class Station:
    """One office's station area (D-grid.1): placed cards by (row, col), row 0 being the
    Running Track; facility boxes by cell; cars standing on cards, west to east; Modifier
    cards by cell, with the facility each serves, and those whose effect a facility has used
    this Stage (R9.0.3). ``survey`` keeps what laying cards needs to know of the grid, derived
    from it (``sm_env.core.grid.survey_of``): not part of the game."""

    __slots__ = ("grid", "boxes", "cars", "modifiers", "modifiers_used", "survey")

    def __init__(
        self,
        grid: dict[Cell, tuple[int, bool]] | None = None,
        boxes: dict[Cell, Boxes] | None = None,
        cars: dict[Cell, tuple[int, ...]] | None = None,
        modifiers: dict[Cell, Cell] | None = None,
        modifiers_used: set[Cell] | None = None,
        survey: object = None,
    ) -> None:
        self.grid: dict[Cell, tuple[int, bool]] = {} if grid is None else grid  # cell -> (card, rotated 180°)
        self.boxes: dict[Cell, Boxes] = {} if boxes is None else boxes
        self.cars: dict[Cell, tuple[int, ...]] = {} if cars is None else cars  # left-to-right order (RA.3.3)
        self.modifiers: dict[Cell, Cell] = {} if modifiers is None else modifiers  # modifier -> facility cell
        self.modifiers_used: set[Cell] = set() if modifiers_used is None else modifiers_used  # of this Stage
        self.survey: object = survey  # a grid.Survey, or None

    def copy(self) -> Station:
        return Station(
            self.grid.copy(),
            {cell: boxes.copy() for cell, boxes in self.boxes.items()},
            self.cars.copy(),
            self.modifiers.copy(),
            self.modifiers_used.copy(),
            self.survey,
        )


class Tray:
    """A Crew Tray (C-trays.1). A free tray has ``train`` EMPTY. A train is in exactly one
    place: at its origin Division Point (``at_dp``), on region ``region`` of Mainline card
    ``line``, or in station ``office`` on ``cell`` with ``consist`` (car codes west to east,
    ENGINE marking the engine); ``split`` of the cars standing on its card are west of it,
    the rest east. ``direction`` is where the train runs (+1 east, -1 west); ``cleared_by``
    is the Superintendent at its last highball (R10.1)."""

    __slots__ = (
        "office", "cell", "consist", "facing", "train", "split",
        "direction", "line", "region", "at_dp", "cleared_by",
    )  # fmt: skip

    office: int
    cell: Cell | None
    consist: tuple[int, ...]
    facing: int  # +1 engine faces east, -1 west
    train: int
    split: int
    direction: int
    line: int
    region: int
    at_dp: bool
    cleared_by: int

    def __init__(
        self,
        office: int = EMPTY,
        cell: Cell | None = None,
        consist: tuple[int, ...] = (),
        facing: int = 1,
        train: int = EMPTY,
        split: int = 0,
        direction: int = 0,
        line: int = EMPTY,
        region: int = 0,
        at_dp: bool = False,
        cleared_by: int = EMPTY,
    ) -> None:
        """A free tray (as ``free`` leaves it), unless told otherwise (``copy``)."""
        self.office = office
        self.cell = cell
        self.consist = consist
        self.facing = facing
        self.train = train
        self.split = split
        self.direction = direction
        self.line = line
        self.region = region
        self.at_dp = at_dp
        self.cleared_by = cleared_by

    def copy(self) -> Tray:
        return Tray(
            self.office, self.cell, self.consist, self.facing, self.train, self.split,
            self.direction, self.line, self.region, self.at_dp, self.cleared_by,
        )  # fmt: skip

    def free(self) -> None:
        """Back to the pool (D-run.2, D-collision.2); the caller has taken the cars off."""
        self.office = EMPTY
        self.cell = None
        self.consist = ()
        self.facing = 1
        self.train = EMPTY
        self.split = 0
        self.direction = 0
        self.line = EMPTY
        self.region = 0
        self.at_dp = False
        self.cleared_by = EMPTY

    def snapshot(self) -> list[object]:
        return [
            self.office, self.cell and list(self.cell), list(self.consist), self.facing, self.train,
            self.split, self.direction, self.line, self.region, self.at_dp, self.cleared_by,
        ]  # fmt: skip

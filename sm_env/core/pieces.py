"""The mutable pieces on the table: facility boxes, station areas and Crew Trays.

Each has a hand-written ``copy()`` that copies only what mutates, for cheap state clones.
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

    def __init__(self) -> None:
        self.outbound: list[int] = []
        self.inbound: list[int] = []
        self.work: list[int] = [EMPTY] * WORK_SLOTS
        self.unloading: list[bool] = [False] * WORK_SLOTS

    def copy(self) -> Boxes:
        other = Boxes.__new__(Boxes)
        other.outbound = self.outbound[:]
        other.inbound = self.inbound[:]
        other.work = self.work[:]
        other.unloading = self.unloading[:]
        return other

    def cars(self) -> list[int]:
        return self.outbound + self.inbound + [c for c in self.work if c != EMPTY]


class Station:
    """One office's station area (D-grid.1): placed cards by (row, col), row 0 being the
    Running Track; facility boxes by cell; cars standing on cards, west to east; Modifier
    cards by cell, with the facility each serves, and those whose effect a facility has used
    this Stage (R9.0.3). ``survey`` keeps what laying cards needs to know of the grid, derived
    from it (``sm_env.core.grid.survey_of``): not part of the game."""

    __slots__ = ("grid", "boxes", "cars", "modifiers", "modifiers_used", "survey")

    def __init__(self) -> None:
        self.grid: dict[Cell, tuple[int, bool]] = {}  # cell -> (card type, rotated 180°)
        self.boxes: dict[Cell, Boxes] = {}
        self.cars: dict[Cell, tuple[int, ...]] = {}  # left-to-right order (RA.3.3)
        self.modifiers: dict[Cell, Cell] = {}  # modifier cell -> facility cell
        self.modifiers_used: set[Cell] = set()  # emptied at the end of every Stage
        self.survey: object = None  # a grid.Survey, or None

    def copy(self) -> Station:
        other = Station.__new__(Station)
        other.grid = self.grid.copy()
        other.boxes = {cell: boxes.copy() for cell, boxes in self.boxes.items()}
        other.cars = self.cars.copy()
        other.modifiers = self.modifiers.copy()
        other.modifiers_used = self.modifiers_used.copy()
        other.survey = self.survey
        return other


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

    def __init__(self) -> None:
        self.free()

    def copy(self) -> Tray:
        other = Tray.__new__(Tray)
        other.office = self.office
        other.cell = self.cell
        other.consist = self.consist
        other.facing = self.facing
        other.train = self.train
        other.split = self.split
        other.direction = self.direction
        other.line = self.line
        other.region = self.region
        other.at_dp = self.at_dp
        other.cleared_by = self.cleared_by
        return other

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

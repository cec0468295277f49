"""Potential-based reward shaping for the single-agent environments (docs/signals.md).

A potential ``Φ(board, seat) -> float`` values a position for one seat in Revenue points. The
environments add ``scale * (gamma * Φ(s') - Φ(s))`` to the revenue reward between the
learner's successive decision points, with ``Φ = 0`` once the episode has terminated (Ng,
Harada & Russell, 1999): with ``gamma = 1`` an episode's shaped return is its revenue return
minus ``scale * Φ(s0)``, so every policy is ranked as by revenue and the game is unchanged.

The potentials read only what the seat may see: the board, the trains and the timetable, all
face up (D-view.1); never a hand or the Home Office deck. ``Φ(state, seat)`` equals
``Φ(state.view(seat).board, seat)``, and is the same for any two states that differ only in
hidden cards. They are cheap: a few tens of microseconds, at every learner step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from sm_env.core import (
    COACH,
    COLLISION_PENALTY,
    EMPTY,
    FLIPPED,
    OFFICE_CELL,
    STAGES_PER_DAY,
    ConfigError,
    GameState,
    ad_tracks,
    capacity_bonus,
    car_type,
    eta,
    room,
    trays_at,
)

Potential = Callable[[GameState, int], float]

DISCOUNT = 0.8  # per Mainline Phase a train is still away
DETRAIN = 0.9  # a loaded coach on a train on the Office card (R9.2.2)
BOARD = 0.9  # a loaded coach in the green box with an empty coach on a train there (R9.2.1)
BOARD_WAITING = 0.3  # a loaded coach in the green box, no empty coach coming yet
LOAD_PATH = (0.5, 0.65, 0.8, 0.95)  # an outbound load, an empty car to take it: green, MEN, AT, WORK
LOAD_WAITING = 0.2  # an outbound load without an empty car spotted for it (R9.3.1)
SPOTTED_EMPTY = 0.1  # an empty car of an outbound type spotted at the industry, nothing to load
UNLOAD_PATH = (0.5, 0.65, 0.8, 0.95)  # an inbound load: on the track, WORK, AT, MEN (R9.3.2)
INBOUND_ON_TRAIN = 0.3  # a loaded car of a type an industry here unloads, on a train at or bound here
RED_BOX_FULL = 0.5  # factor on what must reach a full red box (R9.1.3: the Freight Agent clears it)
_EMPTY_COACH, _LOADED_COACH = COACH * 2, COACH * 2 + 1


def _coming(board: GameState, office: int) -> list[tuple[int, float]]:
    """(tray, weight) of the trains at or bound for ``office`` that get there before the game
    ends: ``DISCOUNT ** eta``."""
    left = (board.config.days - board.day) * STAGES_PER_DAY - board.stage
    out = []
    for i in range(len(board.trays)):
        when = eta(board, i, office)
        if when is not None and when < left:
            out.append((i, DISCOUNT**when))
    return out


def exposure(board: GameState, seat: int) -> float:
    """Minus the collision penalty the seat risks (R8.2.3, R8.2.4, R10.2): for each side of its
    Office with cars or a train standing on the Running Track there (Limits included), -5 times
    the weight (``DISCOUNT ** eta``) of the nearest train that would run into them: one
    arriving from that side, or one on the Office card leaving towards it; and, when every A/D
    track of the Office is taken, -5 times the weight of the nearest other arrival."""
    office = board.office_of_seat[seat]
    station = board.stations[office]
    west = east = False
    for (row, col), cars in station.cars.items():
        if row == 0 and col != 0 and cars:
            west, east = west or col < 0, east or col > 0
    blockers: set[int] = set()
    for i, t in enumerate(board.trays):
        if t.office == office and t.cell is not None and t.cell[0] == 0 and t.cell[1] != 0:
            west, east = west or t.cell[1] < 0, east or t.cell[1] > 0
            blockers.add(i)
    full = len(trays_at(board, office)) >= ad_tracks(board, office)
    if not (west or east or full):
        return 0.0
    risk_west = risk_east = risk_full = 0.0
    for i, weight in _coming(board, office):
        if i in blockers:
            continue
        t = board.trays[i]
        on_office = t.office == office
        # Eastbound trains arrive from the west and leave eastward; westbound the other way.
        if t.direction > 0:
            if west and not on_office:
                risk_west = max(risk_west, weight)
            elif full and not on_office:
                risk_full = max(risk_full, weight)
            if east and on_office:
                risk_east = max(risk_east, weight)
        else:
            if east and not on_office:
                risk_east = max(risk_east, weight)
            elif full and not on_office:
                risk_full = max(risk_full, weight)
            if west and on_office:
                risk_west = max(risk_west, weight)
    return -COLLISION_PENALTY * (risk_west + risk_east + risk_full)


def prospects(board: GameState, seat: int) -> float:
    """The Revenue the seat's position can still earn soon, less its penalty exposure.

    Passengers (R9.2; its office must have Porters): each loaded, unflipped coach on a train at
    or bound for its office (``DETRAIN``, halved while the red box is full), each loaded coach
    in the green box matched to an empty coach on such a train (``BOARD``; unmatched
    ``BOARD_WAITING``), each weighted ``DISCOUNT ** eta`` by the train's arrival. Freight (R9.3),
    per facility: each outbound load by how far along green, MEN, AT, WORK it is (``LOAD_PATH``)
    when an empty car of its type stands on the industry track for it, else ``LOAD_WAITING``;
    each empty car of an outbound type left over ``SPOTTED_EMPTY``; each inbound load by its
    place on the track, WORK, AT, MEN (``UNLOAD_PATH``); and each loaded car of a type an
    industry of the station unloads on a train at or bound for the office
    (``INBOUND_ON_TRAIN * DISCOUNT ** eta``). Plus ``exposure``. Every term is below the point
    it may earn, so earning it raises the shaped reward."""
    office = board.office_of_seat[seat]
    station = board.stations[office]
    cat = board.catalogue
    value = 0.0
    coming = _coming(board, office) if station.boxes else []
    unloads: set[int] = set()
    for cell, boxes in station.boxes.items():
        spec = cat.cards[station.grid[cell][0]].facility
        assert spec is not None
        if cell == OFFICE_CELL:  # passengers
            red_full = room(spec, boxes, False, capacity_bonus(board, station, cell)) <= 0
            waiting = boxes.outbound.count(_LOADED_COACH)
            for i, weight in coming:
                consist = board.trays[i].consist
                loaded = consist.count(_LOADED_COACH)
                value += loaded * DETRAIN * weight * (RED_BOX_FULL if red_full else 1.0)
                take = min(waiting, consist.count(_EMPTY_COACH))
                value += take * BOARD * weight
                waiting -= take
            value += waiting * BOARD_WAITING
            continue
        unloads.update(spec.inbound)
        cars = station.cars.get(cell, ())
        empties = {t: cars.count(t * 2) for t in spec.outbound}
        full = bool(spec.inbound) and room(spec, boxes, False, capacity_bonus(board, station, cell)) <= 0
        red_factor = RED_BOX_FULL if full else 1.0
        for slot in (2, 1, 0):  # the loads nearest their car take the empty cars first
            code = boxes.work[slot]
            if code == EMPTY:
                continue
            if boxes.unloading[slot]:
                value += UNLOAD_PATH[3 - slot] * red_factor
            elif empties.get(car_type(code), 0) > 0:
                empties[car_type(code)] -= 1
                value += LOAD_PATH[slot + 1]
            else:
                value += LOAD_WAITING
        for code in boxes.outbound:
            kind = car_type(code)
            if empties.get(kind, 0) > 0:
                empties[kind] -= 1
                value += LOAD_PATH[0]
            else:
                value += LOAD_WAITING
        value += SPOTTED_EMPTY * sum(empties.values())
        for code in cars:
            if code & 1 and not code & FLIPPED and car_type(code) in spec.inbound:
                value += UNLOAD_PATH[0] * red_factor
    if unloads:
        for i, weight in coming:
            for code in board.trays[i].consist:
                if code >= 0 and code & 1 and not code & FLIPPED and car_type(code) in unloads:
                    value += INBOUND_ON_TRAIN * weight
    return value + exposure(board, seat)


REGISTRY: Mapping[str, Potential] = MappingProxyType(
    {
        "prospects": prospects,
        "exposure": exposure,
    }
)


def potential(name: str) -> Potential:
    """The potential of that name; ConfigError names the known ones."""
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        raise ConfigError(f"unknown shaping potential {name!r} (known: {', '.join(REGISTRY)})") from None


class Shaper:
    """Shaping between successive decision points: ``reset`` at the first, then ``step`` at
    each next one gives ``scale * (gamma * Φ(s') - Φ(s))``, with ``Φ(s') = 0`` when
    ``terminal``."""

    __slots__ = ("name", "phi", "gamma", "scale", "last")

    def __init__(self, name: str, gamma: float = 1.0, scale: float = 1.0) -> None:
        self.name = name
        self.phi = potential(name)
        self.gamma = float(gamma)
        self.scale = float(scale)
        self.last = 0.0

    def reset(self, board: GameState, seat: int) -> float:
        self.last = self.phi(board, seat)
        return self.last

    def step(self, board: GameState, seat: int, terminal: bool) -> float:
        now = 0.0 if terminal else self.phi(board, seat)
        term = self.scale * (self.gamma * now - self.last)
        self.last = now
        return term

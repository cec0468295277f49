"""Every text the game shows a person, in one place: a reading of an intent (``describe``),
of an event (``event_text``), and the renderings of a station, the Division and the whole
table (``board_text``). The CLI and the environments use these; the rules never do, but for
the station drawn into an illegal Move's error message."""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from dataclasses import fields as dataclass_fields
from functools import partial
from typing import TYPE_CHECKING, Any

from sm_env.core.cars import CABOOSE, ENGINE, car_name, is_flipped, unflipped
from sm_env.core.grid import END_NAMES, geometry_for, is_locked
from sm_env.core.intents import Cell, Intent
from sm_env.core.pieces import EMPTY, OFFICE_CELL, Tray
from sm_env.core.queries import train_label, tray_on_region
from sm_env.core.state import CLOCK, Event

if TYPE_CHECKING:
    from sm_env.core.catalogue import Catalogue
    from sm_env.core.state import GameState


# ---------------------------------------------------------------------------- intents and events


class _Formatter(string.Formatter):
    """Formats a template with game values. Format specs: ``card`` a card's name, ``car`` a
    car's name, ``train`` a train's label, ``trains`` a list of them, ``name`` an enum's
    name, ``top`` the top card of a Department (in brackets), ``path`` a Move's cells,
    ``list`` a tuple as a list, ``clock``/``stageno`` a timetable slot; ``yes|no`` picks by
    truth. Anything else is Python's own format spec."""

    def __init__(self, catalogue: Catalogue, departments: Sequence[list[int]] = ()) -> None:
        self.catalogue = catalogue
        self.departments = departments

    def format_field(self, value: Any, format_spec: str) -> str:
        if "|" in format_spec:
            yes, no = format_spec.split("|", 1)
            return yes if value else no
        render = _SPECS.get(format_spec)
        if render is not None:
            return render(self, value)
        return str(super().format_field(value, format_spec))

    def card(self, card: int) -> str:
        return card_name(self.catalogue, card)

    def top(self, department: int) -> str:
        if (
            type(department) is int
            and 0 <= department < len(self.departments)
            and self.departments[department]
        ):
            return f" ({self.card(self.departments[department][-1])})"
        return ""


def card_name(catalogue: Catalogue, card: object) -> str:
    """A card's name; ``card #N`` for a value that is no card of the catalogue."""
    cards = catalogue.cards
    return cards[card].name if type(card) is int and 0 <= card < len(cards) else f"card #{card}"


_SPECS: dict[str, Callable[[_Formatter, Any], str]] = {
    "card": _Formatter.card,
    "car": lambda f, code: car_name(code),
    "train": lambda f, card: train_label(f.catalogue, card),
    "trains": lambda f, cards: ", ".join(train_label(f.catalogue, card) for card in cards),
    "name": lambda f, value: value.name,
    "top": _Formatter.top,
    "path": lambda f, path: " -> ".join(str(cell) for cell in path),
    "list": lambda f, values: str(list(values)),
    "clock": lambda f, slot: CLOCK[slot],
    "stageno": lambda f, slot: str(slot + 1),
    "slot": lambda f, slot: ("MEN", "AT", "WORK")[slot],
}


def describe(state: GameState, intent: Intent) -> str:
    """A one-line, human reading of an intent (without hidden outcomes), from its template."""
    values = {f.name: getattr(intent, f.name) for f in dataclass_fields(intent)}
    return f"seat {intent.seat}: " + _Formatter(state.catalogue, state.departments).format(
        intent.text, **values
    )


_EVENT_TEXT: dict[str, str] = {
    "seating": "seating rolls {rolls}: seat {seat} highest",
    "superintendent": "superintendent rolls {rolls}: seat {seat} highest",
    "pass": "seat {seat} passes",
    "switch": "seat {seat} switches with {moves} Moves",
    "department-refill": "Department {department} refilled with {card:card}",
    "reshuffle": "Home Office reshuffled: {cards} cards, Departments re-dealt",
    "yard-refill": "Division Yard empty: {cars} cars return from the Classification Yard",
    "yard-refill-overnight": "overnight, {cars} cars return from the Classification Yard (V-yards.1)",
    "yard-refill-on-demand": "a car asked for is not in the Division Yard: {cars} cars return (V-yards.2)",
    "play-extra": "seat {seat} plays {card:card}; it runs when a Crew Tray is free",
    "play-train": (
        "seat {seat} plays {card:card}: rolled {roll}, departs at {slot:clock} (stage {slot:stageno})"
    ),
    "upgrade": "seat {seat} upgrades its {old:card} to a {card:card}",
    "discard": "seat {seat} discards {card:card} onto Department {department}",
    "revenue": "{text} [{rule}: {amount:+d}]",
    "fedora": "{clock} shift change: the Fedora passes from seat {old} to seat {seat}",
    "day-end": "day {dayno} ends; revenue {revenue}",
    "rotation": "employee rotation: seat -> office {offices}",
    "held": "no free Crew Tray: {trains:trains} held (C-trays.2)",
    "no-car": "seat {seat} finds no car for {train:train}",
    "add-car": "seat {seat} puts a car on {train:train}: {car:car}",
    "hold": "{train:train} holds: {why} ({rule})",
    "hold-at": "{train:train} holds: {why}, office {office} ({rule})",
    "arrive": "{train:train} arrives at office {office} for orders",
    "run-complete": "{train:train} completes its run at the {east:East|West} Division Point",
    "clearance": "the Superintendent (seat {seat}) {clear:clears|holds} following {train:train}",
    "collision": "the collision's cause: {cause} ({rule})",
    "red-flag": "seat {seat} plays a RED FLAG: {train:train} stops short, no collision {where}",
    "end-cargo": "seat {seat} ends its Cargo turn",
    "labor": "seat {seat}'s Laborers move a {car:car} to {slot:slot} at {cell}",
    "draw": "seat {seat} draws {card:card} from the Home Office",
    "draw-department": "seat {seat} takes {card:card} from Department {department}",
    "stock": "seat {seat} stocks a {car:car} on a green box",
    "clear": "seat {seat} clears a {car:car} from a red box",
    "unjam": "seat {seat} unjams a {car:car}",
    "place": "seat {seat} lays {card:card}{rotated: turned 180°|} at {cell}",
    "place-modifier": "seat {seat} lays {card:card} at {cell}, serving {facility}",
    "new-train": "{train:train} is made up at the {east:East|West} Division Point",
    "new-extra": "seat {seat} sets {train:train} at the {east:East|West} Division Point",
    "game-over-target": "game over: the revenue target is reached; revenue {revenue}",
    "game-over-days": "game over: {days} day(s) played; revenue {revenue}",
    "highball": "{train:train} highballs from office {office} onto Mainline {line}",
    "highball-dp": "{train:train} highballs from its Division Point onto Mainline {line}",
}


def _template(event: Event) -> str:
    """The template of an event: most kinds have one; a few read one of their fields."""
    kind, fields = event.kind, event.fields
    if kind == "draw" and "department" in fields:
        return "draw-department"
    if kind == "freight-agent":
        return str(fields["action"])
    if kind == "place" and "facility" in fields:
        return "place-modifier"
    if kind == "new-train" and event.seat >= 0:
        return "new-extra"
    if kind == "hold" and "office" in fields:
        return "hold-at"
    if kind == "yard-refill" and fields.get("overnight"):
        return "yard-refill-overnight"
    if kind == "yard-refill" and fields.get("on_demand"):
        return "yard-refill-on-demand"
    if kind == "game-over":
        return f"game-over-{fields['why']}"
    if kind == "highball" and fields["office"] == EMPTY:
        return "highball-dp"
    return kind


def event_text(event: Event, state: GameState) -> str:
    """The line an event reads as (the demo's log)."""
    fields = event.fields
    if event.kind == "setup":
        return chain_text(state.catalogue, fields["mainline"], fields["seat_of_office"])
    if event.kind == "move":
        dropped = f", leaving {fields['left']} car(s)" if fields["left"] else ""
        return (
            f"seat {event.seat} moves tray {fields['tray']} {fields['start']} -> {fields['end']}"
            f"{dropped} ({fields['moves']} Moves left)"
        )
    if event.kind == "train-ready":
        label = consist_label(fields["consist"], fields["facing"])
        return f"{train_label(state.catalogue, fields['train'])} is ready: [{label}]"
    extra = {
        "seat": event.seat,
        "clock": CLOCK[event.stage],
        "dayno": event.day + 1,
        "days": state.config.days,
    }
    return _Formatter(state.catalogue).format(_EVENT_TEXT[_template(event)], **extra, **fields)


def chain_text(catalogue: Catalogue, mainline: Sequence[int], seat_of_office: Sequence[int]) -> str:
    """The Division west to east (R4.3): WDP, Mainline, office, ..., Mainline, EDP."""
    parts = ["West Division Point"]
    for office, seat in enumerate(seat_of_office):
        parts.append(f"[{catalogue.cards[mainline[office]].regions}-region Mainline]")
        parts.append(f"office {office} (seat {seat})")
    parts.append(f"[{catalogue.cards[mainline[-1]].regions}-region Mainline]")
    parts.append("East Division Point")
    return " - ".join(parts)


# ---------------------------------------------------------------------------- the table


_CAR_LETTERS = ("co", "bx", "ho", "rf", "tk", "cb")


def car_label(code: int) -> str:
    """Two letters a car: upper case loaded (coloured), lower case empty (white); CB caboose;
    a trailing ^ marks a car flipped onto its roof (R9.3.4)."""
    if code == ENGINE:
        return "E"
    flip = "^" if is_flipped(code) else ""
    code = unflipped(code)
    letters = _CAR_LETTERS[code >> 1]
    return (letters.upper() if code & 1 or code >> 1 == CABOOSE else letters) + flip


def consist_label(consist: tuple[int, ...], facing: int) -> str:
    parts = [car_label(c) for c in consist]
    engine = consist.index(ENGINE)
    parts[engine] = "<E" if facing < 0 else "E>"
    return " ".join(parts)


def render_station(state: GameState, office: int, width: int = 20) -> str:
    """The station as a grid of cards, north row first, one box per card.

    A box gives the card id (``o`` marks Operational Rail), its ends, the cars standing on it
    west to east, and any Crew Tray on it (``T2[<E BX co]``: tray 2, engine facing west, a
    loaded boxcar, an empty coach). The office shows its A/D tracks held/available.
    """
    cat = state.catalogue
    geo = geometry_for(cat)
    station = state.stations[office]
    rows = sorted({r for r, _ in station.grid}, reverse=True)
    cols = range(min(c for _, c in station.grid), max(c for _, c in station.grid) + 1)
    trays: dict[Cell, list[str]] = {}
    for i, tray in enumerate(state.trays):
        if tray.office == office and tray.cell is not None:
            trays.setdefault(tray.cell, []).append(f"T{i}[{consist_label(tray.consist, tray.facing)}]")
    lines = [f"office {office} (seat {state.seat_of_office[office]})"]
    lines.append("col   " + "".join(f"{c:^{width}}" for c in cols))
    for r in rows:
        boxes: list[list[str] | None] = []
        for c in cols:
            placed = station.grid.get((r, c))
            if placed is None:
                boxes.append(None)
                continue
            card, rotated = placed
            mask = geo.ends[card][rotated]
            ends = "-".join(END_NAMES[e] for e in range(6) if mask >> e & 1)
            if (r, c) in station.modifiers:
                ends = f"serves {station.modifiers[(r, c)]}"
            status = " ".join(trays.get((r, c), []))
            if (r, c) == OFFICE_CELL:
                held = sum(1 for t in state.trays if t.office == office and t.cell == OFFICE_CELL)
                status = f"A/D {held}/{geo.ad_tracks[card]} {status}".strip()
            if is_locked(station, (r, c)):
                status = f"LOCKED {status}".strip()
            cars = " ".join(car_label(x) for x in station.cars.get((r, c), ()))
            boxes.append([cat.cards[card].id + (" o" if geo.wheel[card] else ""), ends, cars, status])
        for line in range(4):
            label = f"row {r:>2}" if line == 0 else ""
            text = "".join(
                " " * width if box is None else f"[{box[line][: width - 2]:<{width - 2}}]" for box in boxes
            )
            lines.append(f"{label:<6}{text}".rstrip())
    return "\n".join(lines)


def _in_office(office: int, tray: Tray) -> bool:
    return tray.office == office


def render_division(state: GameState) -> str:
    """The Division west to east: each Mainline card's regions with the trains on them,
    trains at each office and Division Point, the timetable and the held trains."""
    cat = state.catalogue
    lines = []

    def tag(tray: Tray) -> str:
        arrow = ">" if tray.direction > 0 else "<"
        return f"{train_label(cat, tray.train)}{arrow}[{consist_label(tray.consist, tray.facing)}]"

    def at(predicate: Callable[[Tray], bool]) -> str:
        found = [tag(t) for t in state.trays if t.train != EMPTY and predicate(t)]
        return ", ".join(found) if found else "-"

    lines.append(f"West Division Point: {at(lambda t: t.at_dp and t.direction > 0)}")
    for line, card in enumerate(state.mainline):
        cells = []
        for region in range(cat.cards[card].regions):
            tray = tray_on_region(state, line, region)
            cells.append(tag(state.trays[tray]) if tray != EMPTY else ".")
        lines.append(f"  Mainline {line}: | " + " | ".join(cells) + " |")
        if line < state.n:
            office_card = cat.cards[state.stations[line].grid[OFFICE_CELL][0]]
            cp = ", Control Point" if state.is_control_point(line) else ""
            trains = at(partial(_in_office, line))
            lines.append(
                f"office {line} ({office_card.name}{cp}, seat {state.seat_of_office[line]}): {trains}"
            )
    lines.append(f"East Division Point: {at(lambda t: t.at_dp and t.direction < 0)}")
    board = [f"{s + 1}:{train_label(cat, c)}" for s, c in enumerate(state.timetable) if c != EMPTY]
    lines.append("Timetable: " + (", ".join(board) if board else "empty"))
    lines.extend(waiting_lines(state))
    return "\n".join(lines)


def waiting_lines(state: GameState) -> list[str]:
    """The held trains, the Extras waiting for a tray and the free Crew Trays, a line each."""
    cat = state.catalogue
    lines = []
    if state.held:
        lines.append("Held (no free Crew Tray): " + ", ".join(train_label(cat, c) for c in state.held))
    if state.pending_extras:
        lines.append(
            "Extras waiting: "
            + ", ".join(f"{train_label(cat, c)} (seat {s})" for c, s in state.pending_extras)
        )
    free = sum(1 for t in state.trays if t.train == EMPTY)
    lines.append(f"Crew Trays free: {free} of {len(state.trays)}")
    return lines


def board_text(state: GameState, names: Sequence[str] | None = None) -> str:
    """The whole public table as text: clock, seats and revenue, the Division and its trains,
    the timetable, every station, the yards and the decks. ``names`` label the seats."""
    labels = list(names) if names is not None else [f"seat {s}" for s in range(state.n)]
    lines = [
        f"Day {state.day + 1}, stage {state.stage + 1} ({state.clock()}); {state.phase.value}; "
        f"Superintendent: {labels[state.fedora]}",
    ]
    for seat, label in enumerate(labels):
        office, revenue = state.office_of_seat[seat], state.revenue_by_seat[seat]
        cards = len(state.hands[seat])
        lines.append(f"  {label} (seat {seat}, office {office}): revenue {revenue}, {cards} card(s) in hand")
    lines.append(render_division(state))
    for office in range(state.n):
        lines.append(render_station(state, office))
    lines.append(f"Division Yard: {yard_text(state.division)}")
    lines.append(f"Classification Yard: {yard_text(state.classification)}")
    tops = ", ".join(state.catalogue.cards[d[-1]].name if d else "-" for d in state.departments)
    lines.append(
        f"Home Office: {len(state.home_office)} cards; Departments: {tops}; Salvage: {len(state.salvage)}"
    )
    return "\n".join(lines)


def yard_text(counts: list[int]) -> str:
    parts = [f"{count} {car_name(code)}" for code, count in enumerate(counts) if count]
    return ", ".join(parts) if parts else "empty"

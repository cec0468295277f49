"""The table drawn with rich: the clock, the seats and their revenue, the Division with its
trains, the timetable, each station grid with its cards, cars, trays and boxes, the yards and
decks, and the hands a viewer may see.

Everything is drawn from a ``GameState`` given by the caller: for a person, a seat view's
``board`` (``state.view(seat).board``: the other hands and the Home Office are ``HIDDEN``),
for the replay viewer the full state. Only the hands of the seats in ``hands`` are listed;
the others show their sizes. Text is built as ``rich.text.Text`` (no markup), so names and
consists in brackets print as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from functools import partial

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from experiments.play.table.notices import timetable_warnings
from sm_env.core import (
    CLOCK,
    EMPTY,
    END_NAMES,
    HIDDEN,
    OFFICE_CELL,
    STAGES_PER_DAY,
    GameState,
    Tray,
    car_label,
    card_name,
    consist_label,
    geometry_for,
    is_locked,
    train_label,
    tray_on_region,
    waiting_lines,
    yard_text,
)

PHASE_NAMES = {
    "local_operations": "Local Operations",
    "switching": "Local Operations: switching",
    "card_play": "Local Operations: cards",
    "new_train": "New Train",
    "extra_division_point": "New Train: an Extra's Division Point",
    "extra_consist": "New Train: an Extra's cars",
    "clearance": "Mainline: clearance",
    "red_flag": "Mainline: RED FLAG",
    "cargo": "Cargo",
    "game_over": "game over",
}

LEGEND = (
    "Cars: co coach, bx boxcar, ho hopper, rf reefer, tk tank (lower case empty, UPPER CASE loaded), "
    "CB caboose, ^ loaded this visit; E> / <E the engine facing east / west; -> / <- the way a "
    "train runs; o after a card: Operational Rail (a train may stop there). Boxes: green = "
    "outbound loads, red = inbound, MAW = the MEN|AT|WORK slots."
)


def _texts(*cells: str) -> list[Text]:
    """Table cells as plain text: ``[co co E>]`` is a consist, not markup."""
    return [Text(cell) for cell in cells]


def clock_line(board: GameState, labels: Sequence[str]) -> Text:
    """Day, Stage, clock, phase, the Fedora, and who decides."""
    seat = board.current_player()
    phase = PHASE_NAMES.get(board.phase.value, board.phase.value)
    text = Text()
    text.append(
        f"Day {board.day + 1} of {board.config.days} · Stage {board.stage + 1} of {STAGES_PER_DAY} "
        f"({board.clock()}) · {phase}",
        style="bold",
    )
    text.append(f" · Fedora (Superintendent): seat {board.fedora} ({labels[board.fedora]})")
    if seat >= 0:
        text.append(f" · to decide: seat {seat} ({labels[seat]})", style="bold")
    if board.config.target_revenue is not None:
        text.append(f" · target revenue {board.config.target_revenue} ({board.config.mode.value})")
    if board.phase.value == "switching":
        text.append(f" · {board.moves_left} Moves left")
    return text


def seats_table(board: GameState, labels: Sequence[str]) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, title="Seats", title_justify="left", pad_edge=False)
    for name, justify in (
        ("seat", "right"),
        ("held by", "left"),
        ("office", "left"),
        ("revenue", "right"),
        ("cards", "right"),
        ("", "left"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    deciding = board.current_player()
    for seat, label in enumerate(labels):
        office = board.office_of_seat[seat]
        office_card = board.catalogue.cards[board.stations[office].grid[OFFICE_CELL][0]]
        marks = []
        if seat == board.fedora:
            marks.append("Fedora")
        if seat == deciding:
            marks.append("deciding")
        if seat in board.winners():
            marks.append("winner")
        table.add_row(
            *_texts(
                str(seat),
                label,
                f"{office} ({office_card.name})",
                str(board.revenue_by_seat[seat]),
                str(len(board.hands[seat])),
                ", ".join(marks),
            )
        )
    return table


def train_tag(board: GameState, tray: Tray) -> str:
    arrow = "->" if tray.direction > 0 else "<-"
    return f"{train_label(board.catalogue, tray.train)} {arrow} [{consist_label(tray.consist, tray.facing)}]"


def _in_office(office: int, tray: Tray) -> bool:
    return tray.office == office


def division_table(board: GameState) -> Table:
    """West to east: the Division Points, each Mainline card's regions, each office."""
    cat = board.catalogue
    table = Table(
        box=box.SIMPLE_HEAD,
        show_edge=False,
        title="The Division, west to east",
        title_justify="left",
        pad_edge=False,
    )
    table.add_column("where")
    table.add_column("trains")

    def trains(predicate: Callable[[Tray], bool]) -> str:
        found = [train_tag(board, t) for t in board.trays if t.train != EMPTY and predicate(t)]
        return ", ".join(found) if found else "-"

    table.add_row(*_texts("West Division Point", trains(lambda t: t.at_dp and t.direction > 0)))
    for line, card in enumerate(board.mainline):
        regions = cat.cards[card].regions
        cells = []
        for region in range(regions):
            tray = tray_on_region(board, line, region)
            cells.append(train_tag(board, board.trays[tray]) if tray != EMPTY else ".")
        name = f"  Mainline {line} ({regions} region{'s' if regions > 1 else ''})"
        table.add_row(*_texts(name, " | ".join(cells)))
        if line < board.n:
            office_card = cat.cards[board.stations[line].grid[OFFICE_CELL][0]]
            cp = ", Control Point" if board.is_control_point(line) else ""
            where = f"office {line}: {office_card.name}{cp}, seat {board.seat_of_office[line]}"
            table.add_row(*_texts(where, trains(partial(_in_office, line))))
    table.add_row(*_texts("East Division Point", trains(lambda t: t.at_dp and t.direction < 0)))
    return table


def timetable_table(board: GameState) -> RenderableType:
    """The twelve Stages, their clocks and the timetabled train due at each; the current Stage
    marked. Then held trains, Extras waiting, free Crew Trays, and a warning for each train
    that has no run left in the game."""
    cat = board.catalogue
    table = Table(
        box=box.SIMPLE_HEAD, show_edge=False, title="Timetable", title_justify="left", pad_edge=False
    )
    table.add_column("", no_wrap=True)
    for slot in range(STAGES_PER_DAY):
        mark = ">" if slot == board.stage else ""
        table.add_column(f"{mark}{slot + 1}", justify="center")
    table.add_row(*_texts("clock", *(c.replace(":00", "") for c in CLOCK)))
    table.add_row(*_texts("train", *(train_label(cat, c) if c != EMPTY else "." for c in board.timetable)))
    warnings = [Text(f"warning: {w}", style="yellow") for w in timetable_warnings(board)]
    return Group(table, Text("\n".join(waiting_lines(board))), *warnings)


def _boxes_text(board: GameState, office: int, cell: tuple[int, int]) -> list[str]:
    boxes = board.stations[office].boxes.get(cell)
    if boxes is None:
        return []
    green = " ".join(car_label(c) for c in boxes.outbound) or "-"
    red = " ".join(car_label(c) for c in boxes.inbound) or "-"
    out = [f"green: {green}", f"red: {red}"]
    if any(c != EMPTY for c in boxes.work) or _has_work_track(board, office, cell):
        slots = " ".join(car_label(c) if c != EMPTY else "." for c in boxes.work)
        out.append(f"MAW: {slots}")
    return out


def _has_work_track(board: GameState, office: int, cell: tuple[int, int]) -> bool:
    facility = board.catalogue.cards[board.stations[office].grid[cell][0]].facility
    return facility is not None and facility.men_at_work


def station_table(board: GameState, office: int, title: str) -> Group:
    """The station grid, north row first: per card its name, ends, cars, trays and boxes."""
    cat = board.catalogue
    geo = geometry_for(cat)
    station = board.stations[office]
    rows = sorted({r for r, _ in station.grid}, reverse=True)
    cols = list(range(min(c for _, c in station.grid), max(c for _, c in station.grid) + 1))
    table = Table(box=box.SQUARE, show_lines=True, pad_edge=False)
    table.add_column("row", justify="right", no_wrap=True)
    for c in cols:
        table.add_column(f"col {c}", min_width=10)
    trays: dict[tuple[int, int], list[str]] = {}
    for i, tray in enumerate(board.trays):
        if tray.office == office and tray.cell is not None:
            label = train_label(cat, tray.train) if tray.train != EMPTY else "no train"
            trays.setdefault(tray.cell, []).append(
                f"T{i} {label} [{consist_label(tray.consist, tray.facing)}]"
            )
    for r in rows:
        cells: list[RenderableType] = [Text(f"{r}", style="dim")]
        for c in cols:
            placed = station.grid.get((r, c))
            if placed is None:
                cells.append(Text(""))
                continue
            card, rotated = placed
            text = Text()
            text.append(cat.cards[card].name, style="bold")
            if geo.wheel[card]:
                text.append(" o")
            if rotated:
                text.append(" (turned)")
            if (r, c) in station.modifiers:
                text.append(f"\nserves {station.modifiers[(r, c)]}", style="dim")
            else:
                mask = geo.ends[card][rotated]
                ends = "-".join(END_NAMES[e] for e in range(6) if mask >> e & 1)
                if ends:
                    text.append(f"\n{ends}", style="dim")
            if (r, c) == OFFICE_CELL:
                held = sum(1 for t in board.trays if t.office == office and t.cell == OFFICE_CELL)
                text.append(f"\nA/D {held}/{geo.ad_tracks[card]}")
            if is_locked(station, (r, c)):
                text.append("\nLOCKED", style="bold red")
            cars = station.cars.get((r, c), ())
            if cars:
                text.append("\ncars: " + " ".join(car_label(x) for x in cars), style="yellow")
            for tag in trays.get((r, c), []):
                text.append(f"\n{tag}", style="bold cyan")
            for line in _boxes_text(board, office, (r, c)):
                colour = "green" if line.startswith("green") else "red" if line.startswith("red") else ""
                text.append(f"\n{line}", style=colour)
            cells.append(text)
        table.add_row(*cells)
    return Group(Text(title, style="bold"), table)


def hand_table(board: GameState, seat: int, title: str) -> Table:
    """A seat's hand, card by card (never a hidden card's name)."""
    cat = board.catalogue
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, title=title, title_justify="left", pad_edge=False)
    table.add_column("card", no_wrap=True)
    table.add_column("kind")
    table.add_column("what it does")
    for card in board.hands[seat]:
        if card == HIDDEN:
            table.add_row(*_texts("(hidden)", "", ""))
            continue
        spec = cat.cards[card]
        table.add_row(*_texts(spec.name, spec.kind.value.replace("_", " "), spec.text))
    if not board.hands[seat]:
        table.add_row(*_texts("(no cards)", "", ""))
    return table


def yards_text(board: GameState) -> Text:
    tops = ", ".join(
        f"{d}: {card_name(board.catalogue, dept[-1]) if dept else '-'}"
        for d, dept in enumerate(board.departments)
    )
    return Text(
        f"Division Yard: {yard_text(board.division)}\n"
        f"Classification Yard: {yard_text(board.classification)}\n"
        f"Home Office: {len(board.home_office)} cards face down · Departments (top card): {tops} · "
        f"Salvage Yard: {len(board.salvage)}"
    )


def station_title(board: GameState, office: int, labels: Sequence[str], mine: Collection[int]) -> str:
    seat = board.seat_of_office[office]
    office_card = board.catalogue.cards[board.stations[office].grid[OFFICE_CELL][0]]
    yours = ": your station" if seat in mine else ""
    return f"Station of office {office}: {office_card.name}, seat {seat} ({labels[seat]}){yours}"


def full_table(
    board: GameState,
    labels: Sequence[str],
    hands: Collection[int],
    mine: Collection[int] = (),
    legend: bool = False,
    stations: Collection[int] | None = None,
) -> Group:
    """The whole table: clock, seats, Division, timetable, the stations (``stations``: the
    offices to draw, default all; a line names the others), yards, hands."""
    parts: list[RenderableType] = [
        clock_line(board, labels),
        seats_table(board, labels),
        division_table(board),
        timetable_table(board),
    ]
    shown = range(board.n) if stations is None else sorted(stations)
    for office in shown:
        parts.append(station_table(board, office, station_title(board, office, labels, mine)))
    skipped = [office for office in range(board.n) if office not in shown]
    if skipped:
        names = ", ".join(f"office {o} (seat {board.seat_of_office[o]})" for o in skipped)
        parts.append(
            Text(f"Unchanged since last shown: the stations of {names}; 'board' draws them.", style="dim")
        )
    parts.append(yards_text(board))
    for seat in sorted(hands):
        parts.append(hand_table(board, seat, f"Hand of seat {seat} ({labels[seat]})"))
    if legend:
        parts.append(Text(LEGEND, style="dim"))
    return Group(*parts)


def station_signature(board: GameState, office: int) -> str:
    """What a station's drawing shows, as text: equal signatures draw the same."""
    snapshot = board.snapshot()
    trays = [t for t in snapshot["trays"] if t[0] == office]
    return repr((snapshot["stations"][office], trays, board.seat_of_office[office]))


def seat_table(board: GameState, seat: int, labels: Sequence[str], show_hand: bool) -> Group:
    """A seat's own corner: the clock, its station and its hand (between its own decisions)."""
    office = board.office_of_seat[seat]
    parts: list[RenderableType] = [
        clock_line(board, labels),
        station_table(board, office, station_title(board, office, labels, (seat,))),
    ]
    if show_hand:
        parts.append(hand_table(board, seat, f"Hand of seat {seat} ({labels[seat]})"))
    return Group(*parts)

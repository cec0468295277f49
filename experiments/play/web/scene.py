"""The table as the page draws it: a board read into plain JSON-able data.

``scene(board, seat, labels)`` reads a seat's view (``SeatView.board``: the other hands are
``HIDDEN``), so nothing the seat may not see can reach the page. A replay opened with hands
shown passes the true state and the seats whose hands may be shown (``reveal``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from experiments.arena.ledger import LEDGER_KINDS
from sm_env.core import (
    CAR_TYPES,
    CLOCK,
    EMPTY,
    END_NAMES,
    ENGINE,
    HIDDEN,
    OFFICE_CELL,
    STAGES_PER_DAY,
    CardType,
    GameState,
    Mode,
    Tray,
    ad_tracks,
    car_label,
    car_name,
    geometry_for,
    is_locked,
    limits_cols,
    porters,
    train_label,
    workers,
    yard_text,
)

PENALTY_KIND = "collisions"


def card_info(board: GameState, card: int) -> dict[str, Any]:
    """A card face: its id, name, kind and rules text (a train card's also the cars it takes)."""
    kind = board.catalogue.cards[card]
    text = kind.text
    if kind.train is not None:
        text += " " + takes_text(kind)
    return {"card": card, "id": kind.id, "name": kind.name, "kind": kind.kind.value, "text": text}


def takes_text(train_card: CardType) -> str:
    """The cars a train card takes, in words (R7.4)."""
    assert train_card.train is not None
    consist = train_card.train.consist
    kinds = [f"{count} {CAR_TYPES[kind]}{_plural(CAR_TYPES[kind], count)}" for kind, count in consist.allowed]
    caboose = {"required": "a caboose required", "permitted": "a caboose allowed", "forbidden": "no caboose"}
    return (
        f"Takes up to {consist.max_cars} cars, a caboose counted: at most {', '.join(kinds) or 'none'}; "
        f"{caboose.get(consist.caboose, consist.caboose)}."
    )


def _plural(word: str, count: int) -> str:
    return "" if count == 1 else "es" if word.endswith("ch") else "s"


def car_info(code: int) -> dict[str, Any]:
    return {"code": code, "label": car_label(code), "name": "engine" if code == ENGINE else car_name(code)}


def train_info(board: GameState, index: int, tray: Tray) -> dict[str, Any]:
    """A train on its Crew Tray: number, direction, where it is and its cars west to east."""
    if tray.at_dp:
        where = {"at": "division_point", "east": tray.direction < 0}
    elif tray.cell is not None:
        where = {"at": "office", "office": tray.office, "cell": list(tray.cell)}
    else:
        where = {"at": "mainline", "line": tray.line, "region": tray.region}
    return {
        "tray": index,
        "label": train_label(board.catalogue, tray.train),
        "card": card_info(board, tray.train),
        "direction": "east" if tray.direction > 0 else "west",
        "facing": "east" if tray.facing > 0 else "west",
        "consist": [car_info(code) for code in tray.consist],
        "where": where,
    }


def revenue_breakdown(board: GameState, seat: int) -> dict[str, int]:
    """A seat's revenue by source (boardings, detrainings, loads, unloads, penalties)."""
    kind_of = {rule: kind for kind, rules in LEDGER_KINDS for rule in rules}
    totals = {kind: 0 for kind, _ in LEDGER_KINDS}
    totals["other"] = 0
    for entry in board.ledger:
        if entry.seat == seat:
            totals[kind_of.get(entry.rule, "other")] += entry.amount
    totals["penalties"] = totals.pop(PENALTY_KIND)
    return totals


def station_info(board: GameState, office: int) -> dict[str, Any]:
    """One station as track: every card with its ends, cars, boxes and trains."""
    geo = geometry_for(board.catalogue)
    station = board.stations[office]
    trays_on: dict[tuple[int, int], list[int]] = {}
    for index, tray in enumerate(board.trays):
        if tray.train != EMPTY and tray.office == office and tray.cell is not None:
            trays_on.setdefault(tray.cell, []).append(index)
    cells = []
    for (row, col), (card, rotated) in sorted(station.grid.items()):
        cell = (row, col)
        mask = geo.ends[card][rotated]
        entry: dict[str, Any] = {
            "row": row,
            "col": col,
            **card_info(board, card),
            "rotated": rotated,
            "ends": [END_NAMES[e] for e in range(6) if mask >> e & 1],
            "cars": [car_info(code) for code in station.cars.get(cell, ())],
            "trays": trays_on.get(cell, []),
            "locked": is_locked(station, cell),
            "office": cell == OFFICE_CELL,
        }
        boxes = station.boxes.get(cell)
        if boxes is not None:
            entry["boxes"] = {
                "green": [car_info(code) for code in boxes.outbound],
                "red": [car_info(code) for code in boxes.inbound],
                "work": [None if code == EMPTY else car_info(code) for code in boxes.work],
                "unloading": list(boxes.unloading),
                "workers": workers(board, station, cell),
            }
        if cell in station.modifiers:
            entry["serves"] = list(station.modifiers[cell])
        cells.append(entry)
    west, east = limits_cols(geo, station)
    office_card = board.catalogue.cards[station.grid[OFFICE_CELL][0]]
    held = sum(1 for tray in board.trays if tray.office == office and tray.cell == OFFICE_CELL)
    laborers = 0
    for cell in station.boxes:
        facility = board.catalogue.cards[station.grid[cell][0]].facility
        if facility is not None and facility.category == "freight":
            laborers += workers(board, station, cell)
    return {
        "office": office,
        "seat": board.seat_of_office[office],
        "name": office_card.name,
        "control_point": board.is_control_point(office),
        "limits": [west, east],
        "ad_tracks": {"used": held, "total": ad_tracks(board, office)},
        "porters": porters(board, office),
        "laborers": laborers,
        "cells": cells,
    }


def division_info(board: GameState) -> dict[str, Any]:
    """The railway west to east: Division Points, each Mainline card's regions, the offices."""
    occupied: dict[tuple[int, int], int] = {}
    for index, tray in enumerate(board.trays):
        if tray.train != EMPTY and not tray.at_dp and tray.cell is None:
            occupied[(tray.line, tray.region)] = index
    lines = []
    for line, card in enumerate(board.mainline):
        regions = board.catalogue.cards[card].regions
        lines.append(
            {
                "line": line,
                "card": card_info(board, card),
                "regions": [occupied.get((line, r)) for r in range(regions)],
            }
        )
    return {"lines": lines}


def timetable_info(board: GameState) -> list[dict[str, Any]]:
    """Each timetabled train with its slot (a Stage of the day)."""
    return [
        {"slot": slot, "stage_no": slot + 1, "clock": CLOCK[slot], "train": card_info(board, card),
         "label": train_label(board.catalogue, card)}
        for slot, card in enumerate(board.timetable)
        if card != EMPTY
    ]  # fmt: skip


def hand_info(board: GameState, seat: int) -> list[dict[str, Any]]:
    return [card_info(board, card) for card in board.hands[seat] if card != HIDDEN]


def scene(
    board: GameState, seat: int | None, labels: Sequence[str], reveal: Collection[int] = ()
) -> dict[str, Any]:
    """The table for ``seat`` (None: a spectator) from ``board``; hands are listed for the
    seat and the seats in ``reveal`` only, and only where ``board`` holds them."""
    shown = set(reveal) | ({seat} if seat is not None else set())
    seats = []
    for s in range(board.n):
        seats.append({
            "seat": s,
            "label": labels[s],
            "office": board.office_of_seat[s],
            "revenue": board.revenue_by_seat[s],
            "breakdown": revenue_breakdown(board, s),
            "hand_count": len(board.hands[s]),
            "hand": hand_info(board, s) if s in shown else None,
        })  # fmt: skip
    departments = []
    for d, pile in enumerate(board.departments):
        top = card_info(board, pile[-1]) if pile else None
        departments.append({"department": d, "size": len(pile), "top": top})
    total_stages = board.config.days * STAGES_PER_DAY
    return {
        "seat": seat,
        "offices": board.n,
        "clock": {
            "day": board.day + 1,
            "days": board.config.days,
            "stage": board.stage + 1,
            "time": board.clock(),
            "phase": board.phase.value,
            "fedora": board.fedora,
            "stages_played": board.stages_played,
            "total_stages": total_stages,
            "over": board.is_terminal(),
        },
        "mode": board.config.mode.value,
        "coop": board.config.mode is Mode.COOP,
        "target": board.config.target_revenue,
        "current": board.current_player(),
        "seats": seats,
        "departments": departments,
        "home_office": len(board.home_office),
        "salvage": len(board.salvage),
        "stations": [station_info(board, office) for office in range(board.n)],
        "division": division_info(board),
        "trains": [train_info(board, i, tray) for i, tray in enumerate(board.trays) if tray.train != EMPTY],
        "building": None if board.building == EMPTY else board.building,
        "crew_trays": {"free": sum(1 for t in board.trays if t.train == EMPTY), "total": len(board.trays)},
        "timetable": timetable_info(board),
        "held": [train_label(board.catalogue, card) for card in board.held],
        "extras": [
            {"label": train_label(board.catalogue, card), "seat": owner}
            for card, owner in board.pending_extras
        ],
        "yards": {"division": yard_text(board.division), "classification": yard_text(board.classification)},
        "winners": list(board.winners()) if board.is_terminal() else [],
    }

"""Named starting scenarios: a freshly dealt game (``engine.new_game``) turned, before its first
decision, into another position the same rules allow, for a curriculum (docs/signals.md).

A scenario is a function ``(state, seat) -> None``. It only moves cards and pieces the way the
rules themselves would (an office card played over the Whistle Post, track and facility cards
laid at cells the placement rules accept, train cards put on the timetable by R7.2's slot
mechanics), so every card is still in exactly one place and the result keeps every invariant
(``apply_scenarios`` applies them as one position edit, which checks it). It draws nothing
from the random stream: the same seed, config, scenarios and seat give the same state, bit for
bit. ``apply_scenarios`` applies several in order.

Cards come from where they lie: the top-most copy in the Home Office deck, else a copy in a
hand (the seat's own first), which then takes the top card of the Home Office in its place,
so every hand keeps its size (R4.6).
"""

from __future__ import annotations

from bisect import insort
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from sm_env.core.card_play import _bring_in_sister, _upgrade_office, play_problem, schedule
from sm_env.core.catalogue import CardKind
from sm_env.core.chance import ForcedRolls
from sm_env.core.editing import edit
from sm_env.core.errors import ConfigError
from sm_env.core.grid import (
    END_OFFSET,
    E,
    W,
    geometry_for,
    place,
    placement_problem,
)
from sm_env.core.intents import Cell
from sm_env.core.pieces import OFFICE_CELL
from sm_env.core.queries import reachable

if TYPE_CHECKING:
    from sm_env.core.state import GameState

Scenario = Callable[["GameState", int], None]


# ---------------------------------------------------------------------------- taking cards


def _available(state: GameState, card: int) -> int:
    """Copies of ``card`` a scenario may take: in the Home Office deck or in a hand."""
    return state.home_office.count(card) + sum(hand.count(card) for hand in state.hands)


def _take(state: GameState, card: int, seat: int) -> None:
    """Take one copy of ``card`` out of the Home Office deck (its top-most copy), else out of a
    hand (the seat's own first), that hand drawing the Home Office's top card in its place."""
    deck = state.home_office
    for i in range(len(deck) - 1, -1, -1):  # the top of a deck is the end of its list
        if deck[i] == card:
            del deck[i]
            return
    for s in [seat, *(s for s in range(state.n) if s != seat)]:
        hand = state.hands[s]
        if card in hand and deck:
            hand.remove(card)
            insort(hand, deck.pop())
            return
    name = state.catalogue.cards[card].id
    raise ConfigError(f"scenario: no {name!r} card left in the Home Office deck or a hand to take")


# ---------------------------------------------------------------------------- upgraded_office


def upgraded_office(state: GameState, seat: int) -> None:
    """The seat's office is one tier up (D-play.3): the lowest-tier office card above it,
    taken from where it lies, replaces it on (0, 0); a Whistle Post goes to the set-aside
    cards, an older office card to the Salvage Yard; boxes, Porters, A/D tracks and Control
    Point status (R2.1.5, R8.0.2) are the new card's."""
    cat = state.catalogue
    station = state.stations[state.office_of_seat[seat]]
    current = cat.cards[station.grid[OFFICE_CELL][0]].office
    assert current is not None
    offers = sorted(
        (spec.office.tier, spec.index)
        for spec in cat.cards
        if spec.kind is CardKind.OFFICE and spec.office is not None and spec.office.tier > current.tier
    )
    for _tier, card in offers:
        if _available(state, card) and play_problem(state, seat, card) is None:
            _take(state, card, seat)
            _upgrade_office(state, seat, card)
            return
    raise ConfigError("scenario upgraded_office: the office cannot be upgraded further")


# ---------------------------------------------------------------------------- built_spur


def _spur_layout(state: GameState, seat: int) -> list[tuple[int, Cell, bool]] | None:
    """The first layout, in catalogue order, of a plain track card and a turnout laid into the
    Running Track on one side (D-grid.7), a track card on Secondary Track joined to the
    turnout's diverging end, and a facility at the end of it, each placement legal when made
    (D-grid.6) and the facility reachable from the Office (D-grid.4); None if there is none."""
    cat = state.catalogue
    geo = geometry_for(cat)
    office = state.office_of_seat[seat]
    tracks = [c.index for c in cat.cards if c.kind is CardKind.TRACK and _available(state, c.index)]
    facilities = [c.index for c in cat.cards if c.kind is CardKind.FACILITY and _available(state, c.index)]
    plain = [c for c in tracks if geo.ends[c][0] == (1 << W) | (1 << E)]
    turnouts = [c for c in tracks if geo.ends[c][0] & ~((1 << W) | (1 << E))]
    for east in (True, False):
        for first in plain[:1]:
            for second in turnouts:
                for rot in geo.turns[second]:
                    trial = state.clone()
                    layout: list[tuple[int, Cell, bool]] = []
                    for card, turn in ((first, False), (second, rot)):
                        col = (
                            max(c for r, c in trial.stations[office].grid if r == 0)
                            if east
                            else min(c for r, c in trial.stations[office].grid if r == 0)
                        )
                        if placement_problem(trial, seat, card, (0, col), turn) is not None:
                            break
                        place(trial, card, (0, col), turn, office)
                        layout.append((card, (0, col), turn))
                    if len(layout) < 2:
                        continue
                    found = _branch(trial, seat, layout[1][1], second, rot, tracks, facilities)
                    if found is not None and all(
                        n <= _available(state, card)
                        for card, n in Counter(c for c, _, _ in layout + found).items()
                    ):
                        return layout + found
    return None


def _branch(
    trial: GameState, seat: int, at: Cell, turnout: int, rot: bool, tracks: list[int], facilities: list[int]
) -> list[tuple[int, Cell, bool]] | None:
    """A connector card off the diverging end of the turnout at ``at`` and a facility beside
    it, reachable from the Office, on ``trial`` (which is left as it was)."""
    geo = geometry_for(trial.catalogue)
    office = trial.office_of_seat[seat]
    mask = geo.ends[turnout][int(rot)]
    for end in range(2, 6):  # the diagonal ends: NW, NE, SW, SE
        if not mask >> end & 1:
            continue
        cell = (at[0] + END_OFFSET[end][0], at[1] + END_OFFSET[end][1])
        for connector in tracks:
            for turn in (False, True):
                if placement_problem(trial, seat, connector, cell, turn) is not None:
                    continue
                step = trial.clone()
                place(step, connector, cell, turn, office)
                for facility in facilities:
                    for beside in ((cell[0], cell[1] - 1), (cell[0], cell[1] + 1)):
                        for frot in (False, True):
                            if placement_problem(step, seat, facility, beside, frot) is not None:
                                continue
                            final = step.clone()
                            place(final, facility, beside, frot, office)
                            if beside in reachable(final, office):
                                return [(connector, cell, turn), (facility, beside, frot)]
    return None


def built_spur(state: GameState, seat: int) -> None:
    """An industry on a spur at the seat's station: a plain track card and a turnout laid into
    the Running Track at one Limits (D-grid.7, the Limits moving out), a track card on the
    Secondary Track off the turnout's diverging end and a freight facility at its end
    (D-grid.6), reachable from the Office by Moves (D-grid.4), with its empty boxes (R9.1)."""
    layout = _spur_layout(state, seat)
    if layout is None:
        raise ConfigError("scenario built_spur: no legal spur layout with the cards left to take")
    office = state.office_of_seat[seat]
    for card, cell, rotated in layout:
        problem = placement_problem(state, seat, card, cell, rotated)
        assert problem is None, problem
        _take(state, card, seat)
        place(state, card, cell, rotated, office)
        state.log("place", seat, card=card, cell=cell, rotated=rotated)


# ---------------------------------------------------------------------------- early_trains


def early_trains(state: GameState, seat: int) -> None:
    """Two timetabled trains due in the first two Stages, one each way: the lowest-numbered
    westbound (odd) and eastbound (even) train cards taken from where they lie and put on the
    timetable as R7.2 places a played train, the D12 showing 1 then 2 (a slot already taken
    works down the column). With Sister Trains (RB.2) the odd train's even sister comes in with
    it, as when the odd one is played. The slot-1 train is built in this Stage's New Train Phase
    (R7.2, R7.1), the other in the next; both run every day at their slot (D-run.3)."""
    cat = state.catalogue
    sisters = state.config.house_rules.sister_trains
    chosen: list[int] = []
    for direction in ("west", "east") if not sisters else ("west",):
        for spec in sorted(
            (c for c in cat.cards if c.kind is CardKind.TRAIN and c.train is not None),
            key=lambda c: c.train.number if c.train else 0,
        ):
            train = spec.train
            assert train is not None
            if train.direction == direction and _available(state, spec.index):
                if sisters and cat.train_by_number.get(train.number + 1) not in state.set_aside:
                    continue
                chosen.append(spec.index)
                break
    if not chosen:
        raise ConfigError("scenario early_trains: no timetabled train card left to take")
    stream = state.rng
    state.rng = ForcedRolls([1, 2], stream)
    try:
        for card in chosen:
            _take(state, card, seat)
            schedule(state, card, seat)
            train = cat.cards[card].train
            if sisters and train is not None and train.number % 2 == 1:
                _bring_in_sister(state, train.number + 1, seat)
    finally:
        state.rng = stream  # the forced rolls are spent: the seeded stream drew nothing


# ---------------------------------------------------------------------------- registry

REGISTRY: Mapping[str, tuple[Scenario, str]] = MappingProxyType(
    {
        "upgraded_office": (upgraded_office, "the seat's office one tier up (a Depot over the Whistle Post)"),
        "built_spur": (
            built_spur,
            "a spur (two Running Track cards, one Secondary) and a freight facility laid",
        ),
        "early_trains": (early_trains, "a westbound and an eastbound timetabled train due in Stages 1 and 2"),
    }
)


def scenario_names(value: str | Iterable[str] | None) -> tuple[str, ...]:
    """One name, several, or None as a tuple of known names; ConfigError names the known ones."""
    if value is None:
        return ()
    names = (value,) if isinstance(value, str) else tuple(value)
    for name in names:
        if not isinstance(name, str) or name not in REGISTRY:
            raise ConfigError(f"unknown scenario {name!r} (known: {', '.join(REGISTRY)})")
    return names


def apply_scenarios(state: GameState, names: str | Iterable[str] | None, seat: int) -> None:
    """Apply the named scenarios, in order, to ``seat`` of a game before its first decision,
    as one position edit (``sm_env.core.editing.edit``)."""
    if not 0 <= seat < state.n:
        raise ConfigError(f"scenario: seat {seat} is not a seat of this game (0..{state.n - 1})")
    # One edit: the choices are listed afresh, the position checked; a failing scenario
    # (a ConfigError) or a broken position (PositionError) leaves the state as it was.
    with edit(state):
        for name in scenario_names(names):
            REGISTRY[name][0](state, seat)

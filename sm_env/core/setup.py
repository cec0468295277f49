"""Setting the table up (R4, D-seat, C-fedora.2, C-trays.1, C-stock, RB.2, RB.4).

The random stream is used in this order (C-rng.3): the Mainline deck's shuffle, the seating
roll, the Superintendent roll, then the Home Office deck's shuffle.
"""

from __future__ import annotations

from bisect import insort

from sm_env.core.cars import N_CAR_CODES
from sm_env.core.catalogue import CardKind, Catalogue, Deck
from sm_env.core.chance import roll_d12, shuffle
from sm_env.core.config import GameConfig
from sm_env.core.errors import ConfigError
from sm_env.core.phases import Next, Step
from sm_env.core.pieces import EMPTY, OFFICE_CELL, Station, Tray
from sm_env.core.rng import Rng
from sm_env.core.state import DEPARTMENTS, EXTRA_TRAYS, STAGES_PER_DAY, GameState, Rules

HAND_SIZE = 3  # R4.6


def set_up(config: GameConfig, seed: int, catalogue: Catalogue, rules: Rules) -> tuple[GameState, Next]:
    """A new game's state as section 4 sets it, and the first step of play."""
    if not isinstance(config, GameConfig):
        raise ConfigError(f"config must be a GameConfig, got {type(config).__name__}")
    state = GameState()
    state.config = config
    state.catalogue = cat = catalogue
    state.rules = rules
    state.n = n = config.offices
    try:
        state.rng = Rng(seed)
    except ValueError as err:
        raise ConfigError(str(err)) from None
    state.day = state.stage = state.stages_played = state.turn = 0
    state.events = []
    state.revenue_by_seat = [0] * n
    state.moves_left = 0
    state.salvage = []
    state.set_aside = []
    state.timetable = [EMPTY] * STAGES_PER_DAY
    state.pending_extras = []
    state.held = []
    state.actor = state.building = state.build_owner = EMPTY
    state.build_turn = 0
    state.mainline_queue = []
    state.collision = None
    state.workers_used = {}
    state.ledger = []
    state.legal_cache = None
    red_flags = cat.of_kind(CardKind.RED_FLAG)
    state.red_flag_card = red_flags[0] if red_flags else EMPTY

    # R4.2: a Mainline card drawn at random between neighbours and at both ends.
    mainline_deck = cat.deck(Deck.MAINLINE)
    if len(mainline_deck) < n + 1:
        raise ConfigError(f"{n} offices need {n + 1} Mainline cards; the catalogue has {len(mainline_deck)}")
    shuffle(state, mainline_deck)
    state.mainline = tuple(mainline_deck.pop() for _ in range(n + 1))
    state.set_aside.extend(mainline_deck)

    # R4.3 / D-seat.1: the highest seating roll holds the easternmost office; going west
    # along the chain goes leftward round the table, so the seat to his right is westernmost.
    east = _roll_off(state, "seating") if n > 1 else 0
    state.seat_of_office = [(east + n - 1 - k) % n for k in range(n)]
    state.office_of_seat = [0] * n
    for office, seat in enumerate(state.seat_of_office):
        state.office_of_seat[seat] = office

    # R4.4 / C-fedora.2: the highest Superintendent roll takes the Fedora.
    state.fedora = _roll_off(state, "superintendent") if n > 1 else 0

    # R4.1: Whistle Post between two Limits; the rest of the setup cards set aside.
    whistle_posts = [i for i in cat.deck(Deck.SETUP) if cat.cards[i].kind is CardKind.OFFICE]
    limits = [i for i in cat.deck(Deck.SETUP) if cat.cards[i].kind is CardKind.LIMITS]
    if len(whistle_posts) < n or len(limits) < 2 * n:
        raise ConfigError(f"{n} offices need {n} Whistle Posts and {2 * n} Limits cards")
    state.stations = []
    for _ in range(n):
        station = Station()
        station.grid[(0, -1)] = (limits.pop(), False)
        station.grid[OFFICE_CELL] = (whistle_posts.pop(), False)
        station.grid[(0, 1)] = (limits.pop(), False)
        state.stations.append(station)
    state.set_aside.extend(whistle_posts + limits)
    state.set_aside.extend(i for i in cat.deck(Deck.SETUP) if cat.cards[i].kind is CardKind.DIVISION_POINT)

    # R4.5: the Home Office deck, shuffled (RB.2: even trains set aside with Sister Trains).
    deck = cat.deck(Deck.HOME_OFFICE)
    if config.house_rules.sister_trains:
        sisters = [i for i in deck if _is_even_timetabled(cat, i)]
        deck = [i for i in deck if not _is_even_timetabled(cat, i)]
        state.set_aside.extend(sisters)
    needed = HAND_SIZE * n + DEPARTMENTS
    if len(deck) < needed:
        raise ConfigError(f"the Home Office deck holds {len(deck)} cards; {n} offices need {needed} to deal")
    shuffle(state, deck)
    state.home_office = deck

    # R4.6: from the Superintendent leftward, three cards each; then the Departments.
    state.hands = [[] for _ in range(n)]
    for i in range(n):
        seat = (state.fedora + i) % n
        state.hands[seat] = sorted(deck.pop() for _ in range(HAND_SIZE))
    state.departments = [[deck.pop()] for _ in range(DEPARTMENTS)]

    # RB.4: Emergency Toolbox: a RED FLAG each, on top of the three.
    toolbox = cat.deck(Deck.TOOLBOX)
    if config.house_rules.emergency_toolbox:
        if len(toolbox) < n:
            raise ConfigError(
                f"the Emergency Toolbox needs {n} RED FLAG cards; the catalogue has {len(toolbox)}"
            )
        for seat in range(n):
            insort(state.hands[seat], toolbox.pop())
    state.set_aside.extend(toolbox)
    state.set_aside.sort()

    # R4.8 / C-stock.1: every car in the Division Yard; players + 3 free trays.
    state.division = list(cat.car_supply())
    state.division_total = sum(state.division)
    state.classification = [0] * N_CAR_CODES
    state.trays = [Tray() for _ in range(n + EXTRA_TRAYS)]

    state.log("setup", -1, mainline=state.mainline, seat_of_office=list(state.seat_of_office))
    return state, Step.LOCAL_TURN


def _roll_off(state: GameState, what: str) -> int:
    """Each seat rolls the D12 in seat order; the first seat tied for highest wins."""
    rolls = [roll_d12(state) for _ in range(state.n)]
    winner = rolls.index(max(rolls))
    state.log(what, winner, rolls=rolls)
    return winner


def _is_even_timetabled(catalogue: Catalogue, card: int) -> bool:
    spec = catalogue.cards[card].train
    return spec is not None and not spec.extra and spec.number % 2 == 0

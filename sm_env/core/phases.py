"""What the game is waiting for, and the automatic steps between decisions (R5.1).

``Phase`` names the decision due (one enum drives what is legal). ``Step`` names an
automatic part of the turn. Every rules function that ends a decision or an automatic part
returns what comes next (``Next``): another ``Step`` for the engine to run, or ``Due`` — the
decision now due, in which phase and by which seat. Only the engine writes ``state.phase``.
"""

from __future__ import annotations

import enum
from typing import NamedTuple


class Phase(enum.Enum):
    LOCAL_OPS = "local_operations"  # the seat picks switch, draw, Freight Agent or pass
    SWITCHING = "switching"  # the seat spends its Moves
    CARD_PLAY = "card_play"  # after a draw: play, discard, then end the turn
    NEW_TRAIN = "new_train"  # a seat adds one car to a timetabled train (R7.4)
    EXTRA_SIDE = "extra_division_point"  # an Extra's owner picks its Division Point (R7.5)
    EXTRA_CONSIST = "extra_consist"  # an Extra's owner adds cars or stops (R7.5)
    CLEARANCE = "clearance"  # the Superintendent clears or holds a following train (R8.1.4)
    RED_FLAG = "red_flag"  # the seat to be charged a collision may play a RED FLAG (D-redflag.1)
    CARGO = "cargo"  # the seat's Laborers and Porters work, one action at a time (R9)
    GAME_OVER = "game_over"

    __hash__ = object.__hash__  # members are singletons: hash by identity, in C (hot path)


# Phases in which the seats act in turn from the Superintendent (R5.0.1); in the others the
# deciding seat is ``GameState.actor``.
SEAT_TURN_PHASES = frozenset({Phase.LOCAL_OPS, Phase.SWITCHING, Phase.CARD_PLAY, Phase.CARGO})


class Step(enum.Enum):
    """The automatic parts of a Stage, in the order they come (R5.1)."""

    LOCAL_TURN = "local_turn"  # a seat's Local Operations turn begins (D-deck.3)
    END_CHOICE = "end_choice"  # the seat's choice is made: card play if over the hand limit
    NEXT_TURN = "next_turn"  # the next seat's turn, or the New Train Phase after the last
    NEW_TRAIN = "new_train"  # the due train joins the held trains (R7.1, D-run.3)
    BUILD_TRAINS = "build_trains"  # trains are made up while Crew Trays are free (R7)
    MAINLINE = "mainline"  # every train is queued by seniority (R8.0.1)
    RUN_MAINLINE = "run_mainline"  # the queued trains act (R8)
    CARGO = "cargo"  # the Cargo Phase begins (R9.0.1)
    NEXT_CARGO_SEAT = "next_cargo_seat"  # the next seat with work to do, or the Stage's end
    STAGE_END = "stage_end"  # Shift Change, the clock, the game's end (R5.0.2, R5.1.5)

    __hash__ = object.__hash__  # members are singletons: hash by identity, in C (hot path)


class Due(NamedTuple):
    """A decision is due: in ``phase``, by ``actor`` (EMPTY in the seat-by-seat phases,
    whose seat comes from ``turn``)."""

    phase: Phase
    actor: int


Next = Step | Due

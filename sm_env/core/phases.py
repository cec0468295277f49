"""What the game is waiting for: one enum drives which decisions are legal (R5.1)."""

from __future__ import annotations

import enum


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


# Phases in which the seats act in turn from the Superintendent (R5.0.1); in the others the
# deciding seat is ``GameState.actor``.
SEAT_TURN_PHASES = frozenset({Phase.LOCAL_OPS, Phase.SWITCHING, Phase.CARD_PLAY, Phase.CARGO})

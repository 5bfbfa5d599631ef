"""Where a hand is: the phases in the order of play."""

from __future__ import annotations

from enum import IntEnum


class Phase(IntEnum):
    """Where the hand is; the order is the order of play."""

    PREDRAW_BETTING = 1
    DRAW = 2
    POSTDRAW_BETTING = 3
    OVER = 4

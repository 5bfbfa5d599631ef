"""Where a hand is, the order of play as data, and what the seat to act may do.

:data:`PHASE_ORDER` is the one place the order of play is written: :class:`Hand`
enters each phase in turn from this table (no phase starts the next one), and the
tests read it. :class:`LegalActions` lives here, below the hand and the seat view,
so that every layer (the protocol, the SDK) can use it without importing the hand.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from arena.engine._records import DRAW_STARTED, POSTDRAW_STARTED, PREDRAW_STARTED, RoundStarted


class Phase(IntEnum):
    """Where the hand is; the order is the order of play."""

    PREDRAW_BETTING = 1
    DRAW = 2
    POSTDRAW_BETTING = 3
    OVER = 4


#: The order of play (R10, R15, R19): each phase, the event that opens it, and the
#: street it bets on (0 for the draw and the end). A hand leaves a phase early only
#: for the end (everyone else folded, R18; nobody opened, R28).
PHASE_ORDER: tuple[tuple[Phase, RoundStarted | None, int], ...] = (
    (Phase.PREDRAW_BETTING, PREDRAW_STARTED, 1),
    (Phase.DRAW, DRAW_STARTED, 0),
    (Phase.POSTDRAW_BETTING, POSTDRAW_STARTED, 2),
    (Phase.OVER, None, 0),
)

#: The phase after each phase, read from :data:`PHASE_ORDER`.
NEXT_PHASE: dict[Phase, Phase] = {
    phase: PHASE_ORDER[k + 1][0] for k, (phase, _, _) in enumerate(PHASE_ORDER[:-1])
}


class LegalActions(NamedTuple):
    """What the seat to act may do, with exact amounts.

    Betting: ``call_amount`` is the chips a call adds (0 means checking is free;
    a short stack calls all-in for less, R14). A bet or raise *to* any amount in
    ``min_raise_to..max_raise_to`` is legal when ``can_raise``. Draw: discard
    0..``max_discard`` cards held.
    """

    seat: int
    phase: Phase
    can_fold: bool = False
    can_check: bool = False
    call_amount: int = 0
    min_raise_to: int = 0
    max_raise_to: int = 0
    max_discard: int = 0

    @property
    def can_call(self) -> bool:
        return self.call_amount > 0

    @property
    def can_raise(self) -> bool:
        return self.max_raise_to > 0

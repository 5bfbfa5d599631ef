"""What the match runner keeps per seat, and the deck each hand is dealt from.

Apart from the runner so that a table (:mod:`arena.dealer._match`) and a duplicate
match's rotations (:mod:`arena.dealer._duplicate`) name the same pieces.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.dealer._answers import IssuedIds
from arena.dealer._seat import BotDriver, SeatConnection
from arena.engine import Hand


class SeatRecord:
    """The dealer's bookkeeping for one seat: its bot, stream, clock and faults.

    Whether the seat is out is the table's to say (``_MatchRunner._is_out``): the
    runner sits it out, or has it leave for good on a forfeit, at the table itself.
    """

    def __init__(self, index: int, driver: BotDriver) -> None:
        self.index = index
        self.driver = driver
        self.name = driver.name
        self.connection: SeatConnection | None = None
        self.bank = 0.0
        self.wall_left = 0.0  # what is left of the wall budget (set when the seats open)
        self.wall_spent = False  # a decision ran out of it: out for the match
        self.faults = 0
        self.issued = IssuedIds()  # the decision ids this seat was asked (stale answers' ids)
        self.failed_reconnects = 0
        self.wants_hand_start = False
        self.past_limit = False
        self.next_reconnect = 0


HandObserver = Callable[[int, Hand, Sequence[int], Sequence[str]], None]
"""Called after each hand with (hand number, the hand, seat of each player, names)."""

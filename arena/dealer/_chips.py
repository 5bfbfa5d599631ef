"""The match's chip count across deals: payoffs by seat, checked, and carried antes.

Chips never appear or vanish (R26): after every deal the payoffs must add up to what
the carried pot gave out. A dead Jackpots deal (R28) leaves its antes in the pot for
the next deal; this ledger remembers whose antes wait there, so a match that ends on
dead deals can give them back to the players who paid them.
"""

from __future__ import annotations

from arena.dealer._settings import MatchResult
from arena.engine import HandSettlement


class ChipLedger:
    """Payoffs per deal and the antes each seat has in a carried Jackpots pot (R26, R28)."""

    def __init__(self, seats: int) -> None:
        self._seats = seats
        self._carried_by = [0] * seats  # each seat's antes in a carried Jackpots pot
        self._carried_in = 0  # the carried pot the running deal started with

    def deal_starts(self, carried_pot: int) -> None:
        """Note the carried pot the next deal starts with (0 unless the last deal was dead)."""
        self._carried_in = carried_pot

    def payoffs(self, settlement: HandSettlement, *, dead: bool, hand_number: int) -> list[int]:
        """The deal's payoffs by table seat, checked to add up (R26).

        Raises AssertionError when they do not: the dealer would have lost chips.
        """
        payoffs = [0] * self._seats
        for table_seat, payoff in settlement.payoffs:
            payoffs[table_seat] = payoff
        if sum(payoffs) != self._carried_in - settlement.carried_pot:
            raise AssertionError(f"hand {hand_number}: payoffs {payoffs} do not add up (R26)")
        if dead:  # R28: these antes wait in the pot; refunded if the match ends first
            for table_seat in range(self._seats):
                self._carried_by[table_seat] -= payoffs[table_seat]
        else:
            self._carried_by = [0] * self._seats
        return payoffs

    def refund(self, result: MatchResult) -> None:
        """The match ended on dead deals: give the waiting antes back (R26), in the totals
        and in the last hand's payoffs."""
        if not any(self._carried_by):
            return
        for index, chips in enumerate(self._carried_by):
            result.chips_won[index] += chips
        if result.payoffs:
            result.payoffs[-1] = [
                a + b for a, b in zip(result.payoffs[-1], self._carried_by, strict=True)
            ]
        self._carried_by = [0] * self._seats

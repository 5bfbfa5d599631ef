"""Side pots (R14) and splitting them with odd chips (R19): pure functions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


class Pot(NamedTuple):
    """``amount`` chips that only the ``eligible`` seats can win."""

    amount: int
    eligible: tuple[int, ...]


def build_pots(committed: Sequence[int], folded: Sequence[bool], dead_money: int = 0) -> list[Pot]:
    """Layer everyone's contributions into a main pot and side pots.

    Each all-in level among live players closes a pot that players who put in less
    cannot win. Folded chips count toward the levels they reach but make nobody
    eligible. ``dead_money`` (a carried Jackpots pot) joins the main pot.
    """
    live_levels = sorted({committed[i] for i in range(len(committed)) if not folded[i]})
    pots: list[Pot] = []
    previous = 0
    for level in live_levels:
        amount = 0
        for chips in committed:
            if chips > previous:
                amount += (level if chips > level else chips) - previous
        eligible = tuple(i for i, chips in enumerate(committed) if not folded[i] and chips >= level)
        if amount or not pots:
            pots.append(Pot(amount, eligible))
        previous = level
    # Chips above every live level (a folded seat that had put in more) go to the top pot.
    overflow = sum(chips - previous for chips in committed if chips > previous)
    if dead_money or overflow:
        if not pots:
            raise ValueError("no live player to award the pot to")
        main = pots[0]
        pots[0] = Pot(main.amount + dead_money, main.eligible)
        top = pots[-1]
        pots[-1] = Pot(top.amount + overflow, top.eligible)
    return pots


def split_pot(amount: int, winners_in_order: Sequence[int]) -> list[tuple[int, int]]:
    """Split evenly; odd chips go one each to the first winners in the given order.

    Pass winners ordered clockwise from the button's left (R19).
    """
    share, odd = divmod(amount, len(winners_in_order))
    return [(seat, share + (1 if k < odd else 0)) for k, seat in enumerate(winners_in_order)]

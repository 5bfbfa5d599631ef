"""The end of a hand (R18, R19, R29): who wins which pot, who shows, the openers' proof.

Plain functions with no state of their own: the :class:`Hand` passes in what they read,
they append the events they cause and return the pots and awards, and the hand settles
the chips (R26). Nothing here writes a field of anything.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine._cards import Card
from arena.engine._eval import evaluate
from arena.engine._openers import openers_proof
from arena.engine._pots import Pot, build_pots, split_pot
from arena.engine._records import Event, HandMucked, HandShown, PotAwarded


def award_uncontested(
    folded: Sequence[bool], contributions: tuple[list[int], int], events: list[Event]
) -> tuple[list[Pot], dict[int, int]]:
    """R18: the last player wins every pot and shows nothing; returns (pots, awards)."""
    winner = list(folded).index(False)
    committed, dead_money = contributions
    pots = build_pots(committed, folded, dead_money)
    total = sum(pot.amount for pot in pots)
    events.append(PotAwarded(winner, total, 0))
    return pots, {winner: total}


def showdown(
    holes: Sequence[Sequence[Card]],
    folded: Sequence[bool],
    clockwise: Sequence[int],
    joker: str | None,
    reveal_all: bool,
    contributions: tuple[list[int], int],
    aggressor: int | None,
    events: list[Event],
) -> tuple[list[Pot], dict[int, tuple[Card, ...]], dict[int, int]]:
    """R19: show in order, cards speak, split ties, odd chips clockwise from the button's left.

    ``clockwise`` is every seat from the button's left; ``aggressor`` the last to bet
    or raise in the second round, who shows first. Returns (pots, shown cards, awards).
    """
    live = [seat for seat in clockwise if not folded[seat]]
    if joker is None:
        ranks = {seat: evaluate(holes[seat]) for seat in live}
    else:
        ranks = {seat: evaluate(holes[seat], joker) for seat in live}
    committed, dead_money = contributions
    level = committed[live[0]]
    single = max(committed) == level
    if single:
        for seat in live:  # a loop, not all(): this runs every showdown
            if committed[seat] != level:
                single = False
                break
    pot_winners: list[list[int]]
    if single:  # no side pots: the common case
        pots = [Pot(sum(committed) + dead_money, tuple(live))]
        best = max(ranks.values())
        pot_winners = [[seat for seat in live if ranks[seat] == best]]
    else:
        pots = build_pots(committed, folded, dead_money)
        pot_winners = []
        for pot in pots:
            eligible = pot.eligible
            best = max(ranks[seat] for seat in eligible)
            # eligible seats come in table order; winners must be in clockwise order
            pot_winners.append([seat for seat in live if seat in eligible and ranks[seat] == best])
    order = _showdown_order(len(folded), folded, aggressor, clockwise[0])
    shown = _reveal(order, holes, ranks, pot_winners, reveal_all, events)
    awards: dict[int, int] = {}
    for index, pot in enumerate(pots):
        winners = pot_winners[index]
        if len(winners) == 1:
            shares = [(winners[0], pot.amount)]
        else:
            shares = split_pot(pot.amount, winners)
        for seat, amount in shares:
            if amount:
                events.append(PotAwarded(seat, amount, index))
                awards[seat] = awards.get(seat, 0) + amount
    return pots, shown, awards


def _reveal(
    order: Sequence[int],
    holes: Sequence[Sequence[Card]],
    ranks: dict[int, int],
    pot_winners: list[list[int]],
    reveal_all: bool,
    events: list[Event],
) -> dict[int, tuple[Card, ...]]:
    """Show hands in ``order`` (R19); in muck mode a hand that cannot win may be mucked."""
    shown: dict[int, tuple[Card, ...]] = {}
    if reveal_all:
        for seat in order:
            cards = tuple(holes[seat])
            shown[seat] = cards
            events.append(HandShown(seat, cards, ranks[seat]))
        return shown
    must_show = {seat for winners in pot_winners for seat in winners}
    best_shown = -1
    for k, seat in enumerate(order):
        rank = ranks[seat]
        if k == 0 or rank >= best_shown or seat in must_show:
            cards = tuple(holes[seat])
            shown[seat] = cards
            events.append(HandShown(seat, cards, rank))
            if rank > best_shown:
                best_shown = rank
        else:
            events.append(HandMucked(seat))
    return shown


def prove_openers(
    opener: int | None, opener_hand: Sequence[Card], joker: str | None, events: list[Event]
) -> None:
    """R29: the opener's openers are shown at the end, even after a fold.

    Only the cards that prove jacks or better (see :mod:`._openers`): the rest of
    the opener's original hand stays hidden (R18).
    """
    if opener is not None:
        cards, rank = openers_proof(opener_hand, joker)
        events.append(HandShown(opener, cards, rank, openers=True))


def _showdown_order(
    n: int, folded: Sequence[bool], aggressor: int | None, left_of_button: int
) -> list[int]:
    """R19: the last aggressor of the second round first, else the button's left; clockwise."""
    start = aggressor if aggressor is not None else left_of_button
    return [(start + k) % n for k in range(n) if not folded[(start + k) % n]]

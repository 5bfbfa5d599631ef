"""Proving openers (R29): the fewest of the opener's cards that show it held jacks or better.

R29 shows the opener's *openers*, and R18 keeps every other unshown card hidden, so the
proof is the smallest part of the original five that makes jacks or better on its own,
whatever the hidden cards are:

* a pair of Jacks or better: those two cards (the highest such pair);
* else three of a kind: those three (four of a kind shows three);
* else two pair: those four;
* else (a straight, a flush, a straight flush, or a hand the bug completes): all five.

The joker counts as the table plays it (R2): wild, it pairs the highest card of Jacks or
better it is held with (``Jk Qd``) or makes three of a kind with a pair (``Jk 5d 5h``);
the bug pairs only an Ace. A natural pair or set is preferred to one made with the joker.

The proof's rank is the weakest hand those cards make (for a pair of Jacks, J-J-4-3-2),
so :func:`~arena.engine.describe` names what was proven ("One pair, Jacks") and the rank
says nothing about the hidden cards.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine._cards import JOKER_VALUE, Card
from arena.engine._eval import evaluate

_JACK = 9  # rank index: 2..A is 0..12
_ACE = 12


def openers_proof(cards: Sequence[int], joker: str | None = None) -> tuple[tuple[Card, ...], int]:
    """(the cards to show, the rank they prove) for an opener's original five (R29).

    ``joker`` is the table's joker option, as for :func:`~arena.engine.evaluate`. The
    cards come in the order they are held. A hand that does not qualify (never the case
    for an opener) is shown whole, with its own rank.
    """
    held = tuple(Card(card) for card in cards)
    chosen = _proof(held, joker if joker in ("bug", "wild") else None)
    if chosen is None:
        return held, evaluate(held, joker)
    groups, shown = chosen
    return tuple(card for card in held if card in shown), _weakest(groups)


def _proof(held: tuple[Card, ...], joker: str | None) -> tuple[list[int], set[Card]] | None:
    """The rank groups proven and the cards that prove them, or None: show all five."""
    by_rank: dict[int, list[Card]] = {}
    has_joker = False
    for card in held:
        if card == JOKER_VALUE:
            has_joker = joker is not None
        else:
            by_rank.setdefault(card.rank, []).append(card)
    ranks = sorted(by_rank, reverse=True)
    jk = Card(JOKER_VALUE)
    for rank in ranks:  # a natural pair of Jacks or better
        if rank >= _JACK and len(by_rank[rank]) >= 2:
            return [rank, rank], set(by_rank[rank][:2])
    if has_joker:  # the joker pairs a card of Jacks or better (the bug: only an Ace)
        for rank in ranks:
            if rank >= _JACK and (joker == "wild" or rank == _ACE):
                return [rank, rank], {jk, by_rank[rank][0]}
    for rank in ranks:  # three of a kind
        if len(by_rank[rank]) >= 3:
            return [rank] * 3, set(by_rank[rank][:3])
    if has_joker and joker == "wild":
        for rank in ranks:
            if len(by_rank[rank]) >= 2:
                return [rank] * 3, {jk, *by_rank[rank][:2]}
    pairs = [rank for rank in ranks if len(by_rank[rank]) >= 2]
    if len(pairs) >= 2:
        high, low = pairs[0], pairs[1]
        return [high, high, low, low], {*by_rank[high][:2], *by_rank[low][:2]}
    return None


def _weakest(groups: list[int]) -> int:
    """The rank of the weakest five-card hand holding these rank groups (lowest kickers)."""
    ranks = list(groups)
    kicker = 0
    while len(ranks) < 5:
        if kicker not in groups:
            ranks.append(kicker)
        kicker += 1
    # Suits in turn: four suits over five cards, so never a flush; a pair is never a straight.
    return evaluate([Card.of(rank, k % 4) for k, rank in enumerate(ranks)])

"""Simple policies: a decision from the acting seat's view, nothing else.

A policy receives an engine :class:`SeatView` with ``legal`` set: the engine's own
(``hand.view(seat)``, in-process: hand indices) or one read from a DecisionRequest by
:func:`arena.protocol.read_decision` (over the wire and in :class:`PolicyBot`: table
seats). These read only ``legal``, ``hole_cards`` and ``pot``, which an SDK ``Decision``
has too, so the example bots pass theirs straight through.

They are the demo's players, the benchmarks' drivers and the brains of the example
bots. Each is graded as an opponent: random < calling station < rule-based.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from arena.engine import (
    CALL,
    CHECK,
    FOLD,
    Action,
    BetRaise,
    Card,
    Discard,
    HandCategory,
    Phase,
    SeatView,
    category,
    evaluate,
)


class Policy(Protocol):
    """Anything that picks an action for the seat whose turn it is, from its view."""

    name: str

    def decide(self, view: SeatView) -> Action: ...


def sensible_discards(cards: Sequence[Card], max_draw: int) -> tuple[Card, ...]:
    """Keep what makes the hand (pairs, trips, four to a flush); draw to the rest.

    Made straights, flushes and full houses stand pat. With nothing, keep the
    highest card. Never discards more than ``max_draw``.
    """
    real = [card for card in cards if not card.is_joker]
    if len(real) == 5 and category(evaluate(cards)) >= HandCategory.STRAIGHT:
        return ()
    by_rank = Counter(card.rank for card in real)
    keep = {card for card in real if by_rank[card.rank] >= 2}
    keep.update(card for card in cards if card.is_joker)
    if not keep:
        by_suit = Counter(card.suit for card in real)
        suit, count = by_suit.most_common(1)[0]
        if count >= 4:
            keep = {card for card in real if card.suit == suit}
        else:
            keep = {max(real, key=lambda card: card.rank)}
    discards = sorted((card for card in cards if card not in keep), key=lambda c: c.rank)
    return tuple(discards[:max_draw])


class RandomPolicy:
    """Uniform over the legal kinds of action; a random legal amount; random discards."""

    name = "random"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def decide(self, view: SeatView) -> Action:
        legal = view.legal
        assert legal is not None, "decide() is only asked of the seat to act"
        rng = self.rng
        if legal.phase is Phase.DRAW:
            count = rng.randint(0, legal.max_discard)
            return Discard(tuple(rng.sample(view.hole_cards, count)))
        options: list[Action] = []
        if legal.can_fold:
            options.append(FOLD)
        options.append(CALL if legal.can_call else CHECK)
        if legal.can_raise:
            options.append(BetRaise(rng.randint(legal.min_raise_to, legal.max_raise_to)))
        return rng.choice(options)


class CallingStation:
    """Never folds, never raises; draws sensibly."""

    name = "calling-station"

    def decide(self, view: SeatView) -> Action:
        legal = view.legal
        assert legal is not None, "decide() is only asked of the seat to act"
        if legal.phase is Phase.DRAW:
            return Discard(sensible_discards(view.hole_cards, legal.max_discard))
        return CALL if legal.can_call else CHECK


class RuleBased:
    """Bets its made hands, calls with a pair, folds junk to a bet; draws sensibly."""

    name = "rule-based"

    def decide(self, view: SeatView) -> Action:
        legal = view.legal
        assert legal is not None, "decide() is only asked of the seat to act"
        if legal.phase is Phase.DRAW:
            return Discard(sensible_discards(view.hole_cards, legal.max_discard))
        strength = evaluate(view.hole_cards) if not any(c.is_joker for c in view.hole_cards) else 0
        made = category(strength) if strength else HandCategory.ONE_PAIR
        before_draw = legal.phase is Phase.PREDRAW_BETTING
        strong = made >= HandCategory.TWO_PAIR or (
            before_draw and made == HandCategory.ONE_PAIR and strength >= _PAIR_OF_JACKS
        )
        playable = made >= HandCategory.ONE_PAIR or (before_draw and _has_four_flush(view))
        if strong and legal.can_raise:
            return BetRaise(legal.min_raise_to)
        if legal.can_call:
            pot_odds_ok = legal.call_amount * 4 <= view.pot
            return CALL if playable or pot_odds_ok else FOLD
        return CHECK


def _has_four_flush(view: SeatView) -> bool:
    suits = Counter(card.suit for card in view.hole_cards if not card.is_joker)
    return max(suits.values(), default=0) >= 4


_PAIR_OF_JACKS = evaluate(
    tuple(
        Card.of(rank, suit)
        for rank, suit in ((9, 0), (9, 1), (0, 2), (1, 3), (2, 0))  # Jc Jd 2h 3s 4c
    )
)

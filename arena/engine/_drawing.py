"""The draw (R15-R17, R29): discards, replacements and the reshuffle of an exhausted stub.

:class:`Draw` is the state of the draw of one hand: who draws in which order and who is
next. The :class:`Hand` creates it and hands it the cards (hands, deck, muck, the
opener's set-aside cards) and the draw counts, which it changes in place; every field it
writes is declared in its ``__slots__`` below. The discard rule is one method,
:meth:`Draw.verify_discard`, used by ``Hand.verify`` and before each discard.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine._cards import Card
from arena.engine._deck import Deck
from arena.engine._errors import EngineInvariantError, IllegalActionError, Reason
from arena.engine._records import CardsDrawn, Event, StubReshuffled


class Draw:
    """The draw between the two betting rounds, in order from the button's left (R15)."""

    __slots__ = (
        "deck",
        "draw_counts",
        "events",
        "holes",
        "keeper",
        "max_draw",
        "muck",
        "order",
        "pos",
        "set_aside",
    )

    def __init__(
        self,
        max_draw: int,
        holes: list[list[Card]],
        deck: Deck,
        muck: list[tuple[int, Card]],
        set_aside: list[Card],
        draw_counts: list[int | None],
        events: list[Event],
        order: list[int],
        keeper: int | None,
    ) -> None:
        """The draw begins: ``order`` is the live seats from the button's left (R15), the
        first of them draws first; ``keeper`` is the Jackpots opener, whose discards are
        set aside to prove openers (R29), or None."""
        self.max_draw = max_draw
        self.holes = holes
        self.deck = deck
        self.muck = muck
        self.set_aside = set_aside
        self.draw_counts = draw_counts
        self.events = events
        self.order = order
        self.pos = 0
        self.keeper = keeper

    def verify_discard(self, seat: int, discarded: Sequence[Card]) -> None:
        """At most ``max_draw`` distinct cards, each held by ``seat`` (R15)."""
        if len(discarded) > self.max_draw:
            raise IllegalActionError(
                Reason.TOO_MANY_DISCARDS,
                f"{len(discarded)} discards; at most {self.max_draw} may be drawn (R15)",
            )
        hole = self.holes[seat]
        for card in discarded:
            if card not in hole:
                raise IllegalActionError(Reason.CARD_NOT_HELD, f"{card!s} is not in this hand")
        if len(discarded) > 1 and len(set(discarded)) != len(discarded):
            raise IllegalActionError(Reason.DUPLICATE_CARD, "the same card is discarded twice")

    def discard(self, seat: int, discarded: tuple[Card, ...]) -> int | None:
        """Discard ``discarded`` (verified) and draw as many (R15, R17); the next to draw or None."""
        count = len(discarded)
        if count:
            kept = self.holes[seat].copy()
            for card in discarded:  # held and distinct (verified); fewer steps than a comprehension
                kept.remove(card)
            deck = self.deck
            drawn = deck.deal_own(seat, count)  # a seat_stacks deck: its own stack first
            rest = count - len(drawn)
            if rest:
                if len(deck) <= rest:
                    deck.merge_stacks()  # R17's stub is every undealt card
                more = deck.deal(rest) if len(deck) > rest else self._deal_replacements(seat, rest)
                drawn = drawn + more if drawn else more
            kept += drawn
            self.holes[seat] = kept
            if seat == self.keeper:
                self.set_aside.extend(discarded)  # R29: kept to prove openers
            else:
                self.muck.extend(zip([seat] * count, discarded, strict=True))  # (owner, card)
            self.events.append(CardsDrawn(seat, discarded, tuple(drawn)))
        else:
            self.events.append(CardsDrawn(seat, (), ()))
        self.draw_counts[seat] = count
        self.pos += 1
        if self.pos < len(self.order):
            return self.order[self.pos]
        return None

    def _deal_replacements(self, seat: int, count: int) -> list[Card]:
        """R17: deal from the stub; if it runs short, deal it down to its last card, then
        shuffle that card with every discard and folded hand except this seat's own."""
        deck = self.deck
        first = deck.deal(len(deck) - 1) if len(deck) > 1 else []
        pool = list(deck.remaining)
        muck = self.muck
        pool.extend(card for owner, card in muck if owner != seat)
        muck[:] = [(owner, card) for owner, card in muck if owner == seat]
        deck.replace_stub(pool)
        self.events.append(StubReshuffled(seat, len(first), len(pool)))
        rest = count - len(first)
        if len(deck) - 1 < rest:
            raise EngineInvariantError(f"R17 reshuffle left {len(deck)} cards for {rest} needed")
        return first + deck.deal(rest)

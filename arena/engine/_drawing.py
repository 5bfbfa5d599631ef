"""The draw (R15-R17, R29): discards, replacements and the reshuffle of an exhausted stub.

Part of :class:`~arena.engine.Hand`; the state lives on the hand (see ``Hand.__slots__``).
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine._cards import Card
from arena.engine._config import ForcedBets
from arena.engine._errors import EngineInvariantError, IllegalActionError, Reason
from arena.engine._phase import Phase
from arena.engine._records import (
    DRAW_STARTED,
    POSTDRAW_STARTED,
    CardsDrawn,
    Event,
    StubReshuffled,
)

_DRAW = Phase.DRAW


class _Draw:
    """The draw between the two betting rounds."""

    __slots__ = ()

    def discard(self, cards: Sequence[Card] = ()) -> list[Event]:
        """Discard ``cards`` (none: stand pat) and draw as many (R15, R17)."""
        seat = self._require_actor()
        discarded = tuple(cards)
        self._verify_discard(seat, discarded)
        events = self.events
        mark = len(events)
        count = len(discarded)
        if count:
            hole = self.holes[seat]
            kept = [card for card in hole if card not in discarded]
            deck = self.deck
            drawn = deck.deal(count) if len(deck) > count else self._deal_replacements(seat, count)
            kept += drawn
            self.holes[seat] = kept
            if self._jacks and seat == self.opener:
                self._set_aside.extend(discarded)  # R29: kept to prove openers
            else:
                self._muck += [(seat, card) for card in discarded]
            events.append(CardsDrawn(seat, discarded, tuple(drawn)))
        else:
            events.append(CardsDrawn(seat, (), ()))
        self.draw_counts[seat] = count
        self._draw_pos += 1
        if self._draw_pos < len(self._draw_order):
            self.actor = self._draw_order[self._draw_pos]
        else:
            self._start_postdraw()
        return self.events[mark:]

    def _verify_discard(self, seat: int, discarded: Sequence[Card]) -> None:
        if self.phase is not _DRAW:
            raise IllegalActionError(Reason.WRONG_PHASE, "discards are only made at the draw")
        if len(discarded) > self.config.max_draw:
            raise IllegalActionError(
                Reason.TOO_MANY_DISCARDS,
                f"{len(discarded)} discards; at most {self.config.max_draw} may be drawn (R15)",
            )
        hole = self.holes[seat]
        for card in discarded:
            if card not in hole:
                raise IllegalActionError(Reason.CARD_NOT_HELD, f"{card!s} is not in this hand")
        if len(discarded) > 1 and len(set(discarded)) != len(discarded):
            raise IllegalActionError(Reason.DUPLICATE_CARD, "the same card is discarded twice")

    def _start_draw(self) -> None:
        self.phase = _DRAW
        folded = self.folded
        self._draw_order = [seat for seat in self._clockwise if not folded[seat]]
        self._draw_pos = 0
        self.events.append(DRAW_STARTED)
        self.actor = self._draw_order[0]

    def _deal_replacements(self, seat: int, count: int) -> list[Card]:
        """R17: deal from the stub; if it runs short, deal it down to its last card, then
        shuffle that card with every discard and folded hand except this seat's own."""
        deck = self.deck
        first = deck.deal(len(deck) - 1) if len(deck) > 1 else []
        pool = list(deck.remaining)
        pool.extend(card for owner, card in self._muck if owner != seat)
        self._muck = [(owner, card) for owner, card in self._muck if owner == seat]
        deck.replace_stub(pool)
        self.events.append(StubReshuffled(seat, len(first), len(pool)))
        rest = count - len(first)
        if len(deck) - 1 < rest:
            raise EngineInvariantError(f"R17 reshuffle left {len(deck)} cards for {rest} needed")
        return first + deck.deal(rest)

    def _start_postdraw(self) -> None:
        self.phase = Phase.POSTDRAW_BETTING
        self._street = 2
        self.events.append(POSTDRAW_STARTED)
        n = self.n
        first = (self.button + 1) % n
        if self.config.forced_bets is ForcedBets.ANTES and self._aggressor_round1 is not None:
            first = self._aggressor_round1  # R27: the last raiser, else the opener
        self.actor = None
        self._start_round(first)

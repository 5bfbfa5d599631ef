"""The deck (R4) and the draw's reshuffle (R17).

A :class:`Deck` is either shuffled from a random source or *stacked* in an exact
order (replays, tests). Shuffling is lazy Fisher-Yates: each dealt card is picked
uniformly from the cards not yet dealt, so a hand that deals 14 cards costs 14
random numbers, not 52, and the result is a uniform shuffle all the same.

The engine never creates randomness itself: the caller passes ``random.Random``
(seeded, for reproducible matches) or ``random.SystemRandom`` (the CSPRNG, the
default for real matches) and the engine only calls ``rng.random()``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from arena.engine._cards import FULL_DECK, STANDARD_DECK, Card


class DeckExhaustedError(RuntimeError):
    """More cards were asked for than the deck can ever supply (an engine bug)."""


class Deck:
    """An ordered stub of cards; deals from the top.

    ``rng`` also shuffles the cards gathered under R17 when the stub runs short, for
    stacked decks too (pass a seeded ``random.Random`` to make that reproducible).
    """

    __slots__ = ("_cards", "_lazy", "_rng", "_top")

    def __init__(
        self,
        cards: Sequence[Card],
        *,
        rng: random.Random | None = None,
        shuffle: bool = False,
    ) -> None:
        self._cards: list[Card] = list(cards)
        self._top = 0
        self._rng = rng if rng is not None else random.Random(0)
        self._lazy = shuffle

    @classmethod
    def shuffled(cls, rng: random.Random | None = None, *, joker: bool = False) -> Deck:
        """A freshly shuffled deck; the CSPRNG when no ``rng`` is given (R4)."""
        source = FULL_DECK if joker else STANDARD_DECK
        return cls(source, rng=rng if rng is not None else random.SystemRandom(), shuffle=True)

    @classmethod
    def stacked(cls, cards: Iterable[Card], *, rng: random.Random | None = None) -> Deck:
        """A deck that deals exactly ``cards`` in order (top first)."""
        return cls(tuple(cards), rng=rng, shuffle=False)

    def __len__(self) -> int:
        return len(self._cards) - self._top

    @property
    def remaining(self) -> tuple[Card, ...]:
        """The stub as it stands (for a lazily shuffled deck the order is not yet fixed)."""
        return tuple(self._cards[self._top :])

    def deal(self, count: int) -> list[Card]:
        """Take ``count`` cards off the top."""
        cards = self._cards
        top = self._top
        end = top + count
        if end > len(cards):
            raise DeckExhaustedError(f"asked for {count} cards, {len(cards) - top} left")
        if self._lazy:
            rand = self._rng.random
            size = len(cards)
            for i in range(top, end):
                j = i + int(rand() * (size - i))
                cards[i], cards[j] = cards[j], cards[i]
        self._top = end
        return cards[top:end]

    def replace_stub(self, cards: Iterable[Card]) -> None:
        """Make ``cards``, shuffled, the new stub (R17's reshuffle)."""
        new = list(cards)
        self._rng.shuffle(new)
        self._cards = new
        self._top = 0
        self._lazy = False

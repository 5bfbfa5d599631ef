"""The deck (R4) and the draw's reshuffle (R17).

A :class:`Deck` is either shuffled from a random source or *stacked* in an exact
order (replays, tests). Shuffling is lazy Fisher-Yates: each dealt card is picked
uniformly from the cards not yet dealt, so a hand that deals 14 cards costs 14
random numbers, not 52, and the result is a uniform shuffle all the same.

The engine never creates randomness itself: the caller passes ``random.Random``
(seeded, for reproducible matches) or ``random.SystemRandom`` (the CSPRNG, the
default for real matches) and the engine only calls ``rng.random()``.

A deck made with ``seat_stacks`` sets a stack of replacement cards aside for each seat
as soon as the hole cards are out (:meth:`Deck.split_stacks`): a seat draws from its own
stack first, then from the common stub. Every card is as random as from the top; what
changes is that a seat's replacements depend on its place alone, not on how many the
seats before it drew, so duplicate dealing can give both rotations of a deck the same
draws for the same place, and an instance of a bot never draws a card its partner drew at
another place (issue 19, draw recognition).
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

    __slots__ = ("_cards", "_lazy", "_rng", "_stacks", "_top", "seat_stacks")

    def __init__(
        self,
        cards: Sequence[Card],
        *,
        rng: random.Random | None = None,
        shuffle: bool = False,
        seat_stacks: bool = False,
    ) -> None:
        self._cards: list[Card] = list(cards)
        self._top = 0
        self._rng = rng if rng is not None else random.Random(0)
        self._lazy = shuffle
        self.seat_stacks = seat_stacks
        self._stacks: dict[int, list[Card]] | None = None

    @classmethod
    def shuffled(
        cls, rng: random.Random | None = None, *, joker: bool = False, seat_stacks: bool = False
    ) -> Deck:
        """A freshly shuffled deck; the CSPRNG when no ``rng`` is given (R4)."""
        rng = rng if rng is not None else random.SystemRandom()
        source = FULL_DECK if joker else STANDARD_DECK
        return cls(source, rng=rng, shuffle=True, seat_stacks=seat_stacks)

    @classmethod
    def stacked(cls, cards: Iterable[Card], *, rng: random.Random | None = None) -> Deck:
        """A deck that deals exactly ``cards`` in order (top first)."""
        return cls(tuple(cards), rng=rng, shuffle=False)

    def __len__(self) -> int:
        """The common stub's cards (not the seats' stacks)."""
        return len(self._cards) - self._top

    @property
    def remaining(self) -> tuple[Card, ...]:
        """Every undealt card: the stub as it stands (for a lazily shuffled deck the order
        is not yet fixed), then what is left of the seats' stacks."""
        stacked = [card for stack in (self._stacks or {}).values() for card in stack]
        return (*self._cards[self._top :], *stacked)

    def split_stacks(self, clockwise: Sequence[int], size: int = 5) -> None:
        """Once the hole cards are dealt (``seat_stacks`` decks only): set ``size`` cards
        aside for each seat, in the order of ``clockwise`` (so a place, not a seat number,
        gets the same stack of a deck), fewer each when the stub is short (its last card
        is never dealt); nothing for a deck without ``seat_stacks``."""
        if not self.seat_stacks or not clockwise:
            return
        each = min(size, (len(self) - 1) // len(clockwise))
        if each <= 0:
            return
        cards = self.deal(each * len(clockwise))
        self._stacks = {seat: cards[k * each : (k + 1) * each] for k, seat in enumerate(clockwise)}

    def deal_own(self, seat: int, count: int) -> list[Card]:
        """Up to ``count`` cards off ``seat``'s own stack (none without stacks)."""
        stacks = self._stacks
        if stacks is None or count <= 0:
            return []
        stack = stacks.get(seat)
        if not stack:
            return []
        taken, stacks[seat] = stack[:count], stack[count:]
        return taken

    def merge_stacks(self) -> None:
        """Put what is left of the seats' stacks back at the bottom of the stub: R17's stub
        is every undealt card when the common stub runs short."""
        if self._stacks is not None:
            self._cards += [card for stack in self._stacks.values() for card in stack]
            self._stacks = None

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

"""Cards as small integers (R2), parsed from and printed as ``As``, ``Td``, ``Jk``.

A card is an ``int`` subclass in the Cactus Kev layout, so the evaluator works on
plain integer arithmetic with no attribute lookups::

    bits  28..16  one bit per rank (2 = bit 16 ... A = bit 28)
    bits  15..12  one bit per suit (c = 1, d = 2, h = 4, s = 8)
    bits  11..8   rank index 0..12
    bits   7..0   prime of the rank (2, 3, 5, ..., 41)

The joker is ``1 << 29``: no rank bit, no suit bit and prime 0, so any product of
primes that includes it is 0 and any flush test fails. The evaluator uses that to
send joker hands down their own path at no cost to ordinary hands.
"""

from __future__ import annotations

from collections.abc import Iterable

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
RANK_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
JOKER_VALUE = 1 << 29
JOKER_TEXT = "Jk"
RANK_NAMES = (
    "Two", "Three", "Four", "Five", "Six", "Seven", "Eight",
    "Nine", "Ten", "Jack", "Queen", "King", "Ace",
)  # fmt: skip
_SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


class Card(int):
    """One card; compares and hashes as its integer encoding.

    Only the 53 canonical instances exist (see :data:`STANDARD_DECK` and
    :data:`JOKER`); build them with :func:`parse_card` or :meth:`Card.of`.
    """

    __slots__ = ()

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        """The card of rank index 0..12 (2..A) and suit index 0..3 (c, d, h, s)."""
        return _BY_RANK_SUIT[rank * 4 + suit]

    @property
    def is_joker(self) -> bool:
        return self == JOKER_VALUE

    @property
    def rank(self) -> int:
        """Rank index 0..12 (2..A); -1 for the joker."""
        return -1 if self == JOKER_VALUE else (self >> 8) & 0xF

    @property
    def suit(self) -> int:
        """Suit index 0..3 (c, d, h, s); -1 for the joker."""
        return -1 if self == JOKER_VALUE else ((self >> 12) & 0xF).bit_length() - 1

    @property
    def index(self) -> int:
        """Position 0..52 in a new deck (rank-major, joker last): handy for arrays."""
        return 52 if self == JOKER_VALUE else self.rank * 4 + self.suit

    @property
    def name(self) -> str:
        """Readable name, e.g. ``Ace of spades``."""
        if self == JOKER_VALUE:
            return "Joker"
        return f"{RANK_NAMES[self.rank]} of {_SUIT_NAMES[self.suit]}"

    def __str__(self) -> str:
        return _TEXT[self]

    def __repr__(self) -> str:
        return f"Card({_TEXT[self]!r})"


def _encode(rank: int, suit: int) -> int:
    return (1 << (16 + rank)) | (1 << (12 + suit)) | (rank << 8) | RANK_PRIMES[rank]


STANDARD_DECK: tuple[Card, ...] = tuple(
    Card(_encode(rank, suit)) for rank in range(13) for suit in range(4)
)
"""The 52 standard cards in rank-major order (2c 2d 2h 2s 3c ... As)."""
JOKER: Card = Card(JOKER_VALUE)
"""The 53rd card (R2), a bug or wild by table option."""
FULL_DECK: tuple[Card, ...] = (*STANDARD_DECK, JOKER)

_BY_RANK_SUIT = STANDARD_DECK
_TEXT: dict[int, str] = {
    card: RANK_CHARS[rank] + SUIT_CHARS[suit]
    for card, (rank, suit) in zip(
        STANDARD_DECK, ((r, s) for r in range(13) for s in range(4)), strict=True
    )
}
_TEXT[JOKER] = JOKER_TEXT
_BY_TEXT: dict[str, Card] = {text: Card(value) for value, text in _TEXT.items()}
for _card in FULL_DECK:
    _BY_TEXT[_TEXT[_card]] = _card
_BY_TEXT.update({"JK": JOKER, "jk": JOKER, "Jo": JOKER, "joker": JOKER, "Joker": JOKER})


class CardParseError(ValueError):
    """Text that is not a card; the message quotes it."""


def parse_card(text: str) -> Card:
    """Parse one card: rank ``23456789TJQKA`` (``10`` too) then suit ``cdhs``; ``Jk`` is the joker."""
    card = _BY_TEXT.get(text)
    if card is not None:
        return card
    if not isinstance(text, str):
        if isinstance(text, Card) and text in _TEXT:
            return _BY_TEXT[_TEXT[text]]  # already a card: parsing is idempotent
        raise CardParseError(f"not a card: {text!r} (expected text such as 'As' or 'Jk')")
    cleaned = text.strip()
    if cleaned.startswith("10"):
        cleaned = "T" + cleaned[2:]
    if len(cleaned) == 2:
        card = _BY_TEXT.get(cleaned[0].upper() + cleaned[1].lower())
        if card is not None:
            return card
    raise CardParseError(f"not a card: {text!r} (expected e.g. 'As', 'Td', '9c' or 'Jk')")


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse ``"AsKd"``, ``"As Kd"``, ``"As,Kd"`` or an iterable of card strings."""
    if not isinstance(text, str):
        return tuple(parse_card(item) for item in text)
    compact = text.replace(",", " ").split()
    cards: list[Card] = []
    for chunk in compact:
        chunk = chunk.replace("10", "T")
        if len(chunk) % 2:
            raise CardParseError(f"not a list of cards: {text!r}")
        cards.extend(parse_card(chunk[i : i + 2]) for i in range(0, len(chunk), 2))
    return tuple(cards)


def format_cards(cards: Iterable[int], sep: str = "") -> str:
    """Print cards compactly, e.g. ``AsKd`` (the PHH style) or with a separator."""
    return sep.join(_TEXT[card] for card in cards)

"""The 5-card hand evaluator (R3, with the joker of R2): one integer per hand, higher is better.

Every showdown, policy and benchmark funnels through :func:`evaluate`, so it is pure
Python built for speed on the Cactus Kev layout of :mod:`._cards`, with two tables
filled at import (about 50 ms, no outside source):

* a list indexed by ``(a | b | c | d | e) >> 12``, the rank bits over the suit bits:
  with five rank bits set the ranks are distinct and the suit bits tell a flush, so
  half of all hands are settled by four ORs and one index;
* otherwise (a pair or more) a dict keyed by the product of the five rank primes,
  which is unique per multiset of ranks.

Ranks: ``1`` (7-5-4-3-2 offsuit) .. ``7462`` (royal flush), then five of a kind
``7463`` (five Twos) .. ``7475`` (five Aces), which only the joker makes. The joker
(bit 29) indexes past the end of the list, so joker hands leave the fast path by an
exception that costs ordinary hands nothing (Python 3.11 ``try`` is free).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import IntEnum
from itertools import combinations, combinations_with_replacement

from arena.engine._cards import JOKER_VALUE, RANK_NAMES, RANK_PRIMES

__all__ = [
    "FIVE_OF_A_KIND_BASE",
    "MAX_RANK",
    "MAX_STANDARD_RANK",
    "HandCategory",
    "category",
    "describe",
    "evaluate",
    "evaluate5",
    "qualifies_jacks_or_better",
]


class HandCategory(IntEnum):
    """The hand categories of R3, weakest first; five of a kind needs the joker."""

    HIGH_CARD = 1
    ONE_PAIR = 2
    TWO_PAIR = 3
    THREE_OF_A_KIND = 4
    STRAIGHT = 5
    FLUSH = 6
    FULL_HOUSE = 7
    FOUR_OF_A_KIND = 8
    STRAIGHT_FLUSH = 9
    FIVE_OF_A_KIND = 10

    @property
    def label(self) -> str:
        """Readable name, e.g. ``Full house``."""
        return _CATEGORY_LABELS[self]


_CATEGORY_LABELS = {
    HandCategory.HIGH_CARD: "High card",
    HandCategory.ONE_PAIR: "One pair",
    HandCategory.TWO_PAIR: "Two pair",
    HandCategory.THREE_OF_A_KIND: "Three of a kind",
    HandCategory.STRAIGHT: "Straight",
    HandCategory.FLUSH: "Flush",
    HandCategory.FULL_HOUSE: "Full house",
    HandCategory.FOUR_OF_A_KIND: "Four of a kind",
    HandCategory.STRAIGHT_FLUSH: "Straight flush",
    HandCategory.FIVE_OF_A_KIND: "Five of a kind",
}

MAX_STANDARD_RANK = 7462
"""The royal flush; every hand without a joker ranks 1..7462."""
FIVE_OF_A_KIND_BASE = MAX_STANDARD_RANK + 1
"""Five of a kind of rank index r (0 = Twos .. 12 = Aces) ranks ``FIVE_OF_A_KIND_BASE + r``."""
MAX_RANK = FIVE_OF_A_KIND_BASE + 12
"""Five Aces, the best hand there is (R3)."""

_ACE = 12
_WHEEL_BITS = 0b1_0000_0000_1111  # A-5-4-3-2


def _straight_top(bits: int) -> int:
    """Rank index of a straight's top card (3 for the wheel), or -1 if not a straight."""
    if bits == _WHEEL_BITS:
        return 3
    low = (bits & -bits).bit_length() - 1
    return low + 4 if bits == 0b11111 << low else -1


_Entry = tuple[HandCategory, tuple[int, ...], bool, int]
"""A hand class: its category, its ordering key, whether it is a flush, its table index."""

_BY_SHAPE = {
    (4, 1): HandCategory.FOUR_OF_A_KIND,
    (3, 2): HandCategory.FULL_HOUSE,
    (3, 1, 1): HandCategory.THREE_OF_A_KIND,
    (2, 2, 1): HandCategory.TWO_PAIR,
    (2, 1, 1, 1): HandCategory.ONE_PAIR,
}


def _distinct_rank_classes() -> tuple[list[tuple[int, int]], list[_Entry]]:
    """Five distinct ranks: high card or straight, flush or straight flush.

    Also returns each class's (rank bits, prime product) for the or-indexed table.
    """
    entries: list[_Entry] = []
    distinct: list[tuple[int, int]] = []
    for combo in combinations(range(13), 5):
        bits = 0
        product = 1
        for r in combo:
            bits |= 1 << r
            product *= RANK_PRIMES[r]
        distinct.append((bits, product))
        top = _straight_top(bits)
        if top >= 0:
            entries.append((HandCategory.STRAIGHT, (top,), False, product))
            entries.append((HandCategory.STRAIGHT_FLUSH, (top,), True, bits))
        else:
            key: tuple[int, ...] = combo[::-1]
            entries.append((HandCategory.HIGH_CARD, key, False, product))
            entries.append((HandCategory.FLUSH, key, True, bits))
    return distinct, entries


def _repeated_rank_classes() -> list[_Entry]:
    """Hands with a repeated rank (one pair to four of a kind), keyed by (count, rank)."""
    entries: list[_Entry] = []
    for multiset in combinations_with_replacement(range(13), 5):
        groups = sorted(Counter(multiset).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
        category = _BY_SHAPE.get(tuple(count for _, count in groups))
        if category is None:  # five distinct ranks (done apart) or five of a kind
            continue
        product = 1
        for r in multiset:
            product *= RANK_PRIMES[r]
        entries.append((category, tuple(r for r, _ in groups), False, product))
    return entries


def _build_tables() -> tuple[
    list[int], list[int], dict[int, int], list[HandCategory], list[tuple[int, ...]]
]:
    """Rank every distinct 5-card hand class and fill the lookup tables.

    Each class gets a (category, key) where the key lists ranks by (count, rank)
    descending; sorting by it orders hands exactly as R3 does (kickers included,
    suits ignored), so the tables need no outside source.
    """
    distinct, entries = _distinct_rank_classes()
    entries += _repeated_rank_classes()
    entries.sort(key=lambda entry: (entry[0], entry[1]))
    assert len(entries) == MAX_STANDARD_RANK

    flush = [0] * (1 << 13)
    by_product: dict[int, int] = {}
    categories = [HandCategory.HIGH_CARD]  # index 0 is no hand; never returned
    keys: list[tuple[int, ...]] = [()]
    for rank, (cat, key, is_flush, index) in enumerate(entries, start=1):
        if is_flush:
            flush[index] = rank
        else:
            by_product[index] = rank
        categories.append(cat)
        keys.append(key)
    for r in range(13):
        categories.append(HandCategory.FIVE_OF_A_KIND)
        keys.append((r,))

    # (a | b | c | d | e) >> 12 holds the rank bits over the suit bits. With five rank
    # bits set the ranks are distinct and one suit bit means a flush, so that index
    # alone settles the hand; fewer rank bits (a pair or more) leave 0 for the product.
    # The list ends right after the highest index (A-K-Q-J-T, all suits): the joker
    # (bit 29) indexes past it.
    by_or = [0] * ((0b11111 << 8 << 4 | 0xF) + 1)
    for bits, product in distinct:
        for suits in range(1, 16):
            by_or[bits << 4 | suits] = by_product[product] if suits & (suits - 1) else flush[bits]
    return by_or, flush, by_product, categories, keys


_BY_OR, _FLUSH, _PRODUCT, _CATEGORIES, _KEYS = _build_tables()


def evaluate5(a: int, b: int, c: int, d: int, e: int, joker: str | None = None) -> int:
    """Rank five distinct cards given one by one (no sequence to unpack): higher is better.

    Same result as :func:`evaluate`, for callers that already hold the cards in locals
    (bots weighing draws).
    """
    try:
        return (
            _BY_OR[(a | b | c | d | e) >> 12]
            or _PRODUCT[(a & 0xFF) * (b & 0xFF) * (c & 0xFF) * (d & 0xFF) * (e & 0xFF)]
        )
    except (IndexError, KeyError):  # the joker, or not five distinct cards
        return _evaluate_special((a, b, c, d, e), joker)


def evaluate(cards: Sequence[int], joker: str | None = None) -> int:
    """Rank exactly five distinct cards (R3): higher is better, equal means a split pot.

    Standard hands rank 1..7462, five of a kind (joker only) 7463..7475. ``joker`` is
    the table's joker option (R2): ``"bug"``, ``"wild"``, or ``"off"``/``None`` (a
    ``JokerMode`` member works too); a hand holding the joker at a table without one
    is a :class:`ValueError`. Five cards only: Five Card Draw never picks
    the best five of more. For speed, cards are not checked for duplicates.
    """
    try:
        a, b, c, d, e = cards
        return (
            _BY_OR[(a | b | c | d | e) >> 12]
            or _PRODUCT[(a & 0xFF) * (b & 0xFF) * (c & 0xFF) * (d & 0xFF) * (e & 0xFF)]
        )
    except (IndexError, KeyError):  # the joker, or not five distinct cards
        return _evaluate_special(tuple(cards), joker)
    except ValueError:
        raise ValueError(f"a hand is exactly 5 cards, got {len(cards)}") from None


# Ranks bounding the categories the bug may make when not playing as an ace (R2).
_STRAIGHT_LOW = min(r for r, cat in enumerate(_CATEGORIES) if cat is HandCategory.STRAIGHT)
_FLUSH_HIGH = max(r for r, cat in enumerate(_CATEGORIES) if cat is HandCategory.FLUSH)
_STRAIGHT_FLUSH_LOW = min(
    r for r, cat in enumerate(_CATEGORIES) if cat is HandCategory.STRAIGHT_FLUSH
)


def _evaluate_special(cards: tuple[int, ...], joker: str | None) -> int:
    """The slow path: a hand with the joker (R2), or input that is not a valid hand.

    The joker is tried as every rank and the best result kept. Wild, any result counts.
    The bug counts as an Ace (even one already held: As + bug is a pair of Aces) or as
    any card when the result is a straight, flush or straight flush; so As-Ks-9s-5s +
    bug is the flush A-K-Q-9-5 (the highest spade missing).
    """
    others = [card for card in cards if card != JOKER_VALUE]
    if len(others) == 5 or len(set(cards)) != 5:
        raise ValueError(f"not five distinct cards: {cards!r}")
    if joker is None or joker == "off":
        raise ValueError(
            f"the hand holds the joker but the table plays without one (joker={joker!r}); "
            "pass joker='bug' or joker='wild' (R2)"
        )
    if joker != "bug" and joker != "wild":
        raise ValueError(f"joker must be 'bug', 'wild', 'off' or None, not {joker!r}")
    a, b, c, d = others
    rank_a = (a >> 8) & 0xF
    four_bits = (a | b | c | d) >> 16
    if four_bits == 1 << rank_a and (joker == "wild" or rank_a == _ACE):
        return FIVE_OF_A_KIND_BASE + rank_a
    # Try the joker as each rank. Its suit matters only when the four cards share one
    # (it may then complete a flush); otherwise no suit makes a flush and any will do.
    suited = a & b & c & d & 0xF000
    four_product = (a & 0xFF) * (b & 0xFF) * (c & 0xFF) * (d & 0xFF)
    best = 0
    for r in range(13):
        value = 0
        if suited:
            # The joker as a card already held (As + joker as an ace) repeats a rank: no
            # flush entry, so the product path below rates it as the pair it is.
            value = _FLUSH[four_bits | 1 << r]
        if not value:
            value = _PRODUCT.get(four_product * RANK_PRIMES[r], 0)
        if value > best and (
            joker == "wild"
            or r == _ACE
            or _STRAIGHT_LOW <= value <= _FLUSH_HIGH
            or value >= _STRAIGHT_FLUSH_LOW
        ):
            best = value
    return best


def category(rank: int) -> HandCategory:
    """The category of a rank from :func:`evaluate`, e.g. to report or to test thresholds."""
    if not 1 <= rank <= MAX_RANK:
        raise ValueError(f"not a hand rank: {rank!r} (ranks are 1..{MAX_RANK})")
    return _CATEGORIES[rank]


_NAMES = RANK_NAMES
_PLURALS = tuple("Sixes" if name == "Six" else name + "s" for name in _NAMES)
_DESCRIPTIONS: list[str] = []


def _describe(cat: HandCategory, key: tuple[int, ...]) -> str:
    label = cat.label
    if cat is HandCategory.HIGH_CARD or cat is HandCategory.FLUSH:
        return f"{label}, {'-'.join(_NAMES[r] for r in key)}"
    if cat is HandCategory.STRAIGHT_FLUSH and key[0] == _ACE:
        return "Royal flush"
    if cat is HandCategory.STRAIGHT or cat is HandCategory.STRAIGHT_FLUSH:
        return f"{label}, {_NAMES[key[0]]} high"
    if cat is HandCategory.FULL_HOUSE:
        return f"{label}, {_PLURALS[key[0]]} full of {_PLURALS[key[1]]}"
    if cat is HandCategory.TWO_PAIR:
        return f"{label}, {_PLURALS[key[0]]} and {_PLURALS[key[1]]}"
    return f"{label}, {_PLURALS[key[0]]}"


def _kickers(cat: HandCategory, key: tuple[int, ...]) -> str:
    if cat is HandCategory.TWO_PAIR or cat is HandCategory.FOUR_OF_A_KIND:
        return f", {_NAMES[key[-1]]} kicker"
    if cat is HandCategory.ONE_PAIR or cat is HandCategory.THREE_OF_A_KIND:
        return f", {'-'.join(_NAMES[r] for r in key[1:])} kickers"
    return ""


def describe(rank: int, *, kickers: bool = False) -> str:
    """A readable name for a rank, e.g. ``Full house, Kings full of Fours``, for logs and UIs.

    Paired hands name only their pairs by default (``Two pair, Aces and Eights``), as
    players say them; ``kickers=True`` appends what breaks ties (``, Five kicker``).
    High cards and flushes always list all five ranks, since those are the hand.
    """
    cat = category(rank)
    if not _DESCRIPTIONS:  # built on first use: most processes never describe a hand
        _DESCRIPTIONS.extend(
            _describe(c, k) for c, k in zip(_CATEGORIES[1:], _KEYS[1:], strict=True)
        )
        _DESCRIPTIONS.insert(0, "")
    text = _DESCRIPTIONS[rank]
    return text + _kickers(cat, _KEYS[rank]) if kickers else text


# The weakest pair of Jacks: J-J-4-3-2 (primes: J = 29, 4 = 5, 3 = 3, 2 = 2).
_JACKS_OR_BETTER = _PRODUCT[29 * 29 * 5 * 3 * 2]


def qualifies_jacks_or_better(cards: Sequence[int], joker: str | None = None) -> bool:
    """Whether a hand may open a Jackpots pot (R28): a pair of Jacks or anything better.

    ``joker`` is the table's joker option, as for :func:`evaluate`: a Jack with a wild
    joker is a pair of Jacks, but with the bug it is only an Ace.
    """
    return evaluate(cards, joker) >= _JACKS_OR_BETTER

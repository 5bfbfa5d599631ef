"""Cards and decks (R2, R4): parsing, printing, exact deck orders and shuffles."""

from __future__ import annotations

import random

import pytest

from arena.engine import (
    FULL_DECK,
    JOKER,
    STANDARD_DECK,
    Card,
    CardParseError,
    Deck,
    format_cards,
    parse_card,
    parse_cards,
)

# --- R2 cards -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [("As", 12, 3), ("Td", 8, 1), ("10h", 8, 2), ("2c", 0, 0), ("kH", 11, 2), (" 9s ", 7, 3)],
)
def test_r2_parse_card_reads_rank_then_suit(text, rank, suit):
    """``As``, ``Td``, ``10h`` and loosely cased or padded text parse to the right card."""
    card = parse_card(text)
    assert (rank, suit) == (card.rank, card.suit)


@pytest.mark.parametrize("text", ["Jk", "JK", "joker", "Joker"])
def test_r2_parse_card_reads_the_joker(text):
    """``Jk`` and its spellings are the joker."""
    assert JOKER is parse_card(text)


@pytest.mark.parametrize("text", ["As", "Td", "2c", "Jk"])
def test_r2_cards_print_as_they_parse(text):
    """A card prints in the short form that parses back to it."""
    assert text == str(parse_card(text))


def test_r2_card_has_a_readable_name_and_repr():
    """A card names itself in words and in its repr."""
    card = parse_card("As")
    assert (card.name, repr(card), JOKER.name) == ("Ace of spades", "Card('As')", "Joker")


def test_r2_joker_has_no_rank_or_suit():
    """The joker has rank and suit -1 and is the 53rd card."""
    assert (JOKER.rank, JOKER.suit, JOKER.index, JOKER.is_joker) == (-1, -1, 52, True)


@pytest.mark.parametrize("text", ["", "A", "Ax", "1s", "11s", "Asd", "Zz"])
def test_r2_parse_card_rejects_non_cards_quoting_the_text(text):
    """Text that is not a card raises CardParseError (a ValueError) naming the text."""
    with pytest.raises(CardParseError, match=f"not a card: {text!r}"):
        parse_card(text)


def test_r2_parse_card_error_is_a_value_error():
    """CardParseError can be caught as ValueError."""
    assert issubclass(CardParseError, ValueError)


def test_r2_parse_card_rejects_a_non_string_clearly():
    """A number that is not a card raises CardParseError, not an AttributeError."""
    with pytest.raises(CardParseError, match="not a card: 42"):
        parse_card(42)


def test_r2_parse_card_accepts_a_card():
    """Parsing a card gives the card back, so cards and text can be mixed."""
    card = parse_card("Kd")
    assert card is parse_card(card)


@pytest.mark.parametrize("text", ["AsKd10h", "As Kd 10h", "As,Kd,10h", ["As", "Kd", "10h"]])
def test_r2_parse_cards_reads_lists(text):
    """Several cards parse from compact, spaced or comma-separated text or a list."""
    assert (parse_card("As"), parse_card("Kd"), parse_card("Th")) == parse_cards(text)


def test_r2_parse_cards_rejects_a_dangling_character():
    """An odd character left over is an error quoting the whole text."""
    with pytest.raises(CardParseError, match="'AsK'"):
        parse_cards("AsK")


def test_r2_format_cards_prints_compactly_or_with_a_separator():
    """Cards print as ``AsKd`` or, with a separator, ``As Kd``."""
    cards = parse_cards("As Kd Jk")
    assert (format_cards(cards), format_cards(cards, " ")) == ("AsKdJk", "As Kd Jk")


def test_r2_standard_deck_has_52_distinct_cards():
    """The standard deck is 13 ranks by 4 suits, each card once."""
    ranks_suits = {(card.rank, card.suit) for card in STANDARD_DECK}
    assert (len(STANDARD_DECK), len(ranks_suits)) == (52, 52)


def test_r2_card_of_rank_and_suit_is_canonical():
    """``Card.of`` returns the same card as parsing its text."""
    assert parse_card("Qh") is Card.of(10, 2)


def test_r2_joker_deck_has_53_cards():
    """The full deck is the standard deck plus the joker; a joker deck deals all 53."""
    deck = Deck.shuffled(random.Random(1), joker=True)
    dealt = deck.deal(53)
    assert ((*STANDARD_DECK, JOKER), 53) == (FULL_DECK, len(set(dealt)))
    assert JOKER in dealt


def test_r2_standard_shuffle_has_no_joker():
    """A deck shuffled without the joker option deals the 52 standard cards."""
    dealt = Deck.shuffled(random.Random(1)).deal(52)
    assert sorted(STANDARD_DECK) == sorted(dealt)


# --- R4 shuffling ------------------------------------------------------------------


def test_r4_stacked_deck_deals_the_exact_order():
    """A stacked deck deals its cards top first, in the order given."""
    cards = parse_cards("As Kd 2c 7h Jk")
    deck = Deck.stacked(cards)
    assert ([list(cards[:2]), list(cards[2:])], 0) == ([deck.deal(2), deck.deal(3)], len(deck))


def test_r4_stacked_deck_reports_its_stub():
    """The stub of a stacked deck is the cards not yet dealt, in order."""
    deck = Deck.stacked(STANDARD_DECK)
    deck.deal(50)
    assert (STANDARD_DECK[50:], 2) == (deck.remaining, len(deck))


def test_r4_seeded_shuffles_are_reproducible():
    """Two decks shuffled from the same seed deal the same cards."""
    first = Deck.shuffled(random.Random(42)).deal(52)
    second = Deck.shuffled(random.Random(42)).deal(52)
    assert first == second


def test_r4_different_seeds_give_different_orders():
    """Different seeds give different deals (a sanity check that the seed is used)."""
    first = Deck.shuffled(random.Random(1)).deal(52)
    second = Deck.shuffled(random.Random(2)).deal(52)
    assert first != second


def test_r4_shuffle_is_not_the_new_deck_order():
    """A shuffled deck is a permutation of the deck, not the deck itself."""
    dealt = Deck.shuffled(random.Random(3)).deal(52)
    assert (sorted(STANDARD_DECK), False) == (sorted(dealt), dealt == list(STANDARD_DECK))


def test_r4_shuffle_uses_the_csprng_by_default(monkeypatch):
    """Without an explicit rng, the deck draws from ``random.SystemRandom``."""
    calls = []

    class SpySystemRandom(random.SystemRandom):
        def random(self):
            calls.append(1)
            return super().random()

    monkeypatch.setattr(random, "SystemRandom", SpySystemRandom)
    Deck.shuffled().deal(5)
    assert len(calls) == 5


def test_r4_shuffles_are_roughly_uniform():
    """Over many seeded shuffles each card is the top card about equally often."""
    counts = dict.fromkeys(STANDARD_DECK, 0)
    rng = random.Random(0)
    for _ in range(5200):
        counts[Deck.shuffled(rng).deal(1)[0]] += 1
    assert True is all(50 <= count <= 160 for count in counts.values())

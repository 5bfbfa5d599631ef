"""Seat stacks (R15, R17): a deck that sets replacement cards aside for each place.

Duplicate dealing (issue 19, draw recognition) deals each place's replacements from a
stack of its own, so the same place draws the same cards of a deck at every rotation
whatever the others drew, and an instance never draws a card its partner drew at
another place. The rules still hold: every card once, discards never return, the
stub's last card never dealt.
"""

from __future__ import annotations

import random

import pytest

from arena.engine import (
    CALL,
    STANDARD_DECK,
    CardsDrawn,
    Deck,
    GameConfig,
    Hand,
    HoleCardsDealt,
    Phase,
)


def _hand(n: int, button: int, seed: int, *, stacks: bool = True) -> Hand:
    deck = Deck.shuffled(random.Random(seed), seat_stacks=stacks)
    return Hand(GameConfig(), [100] * n, button, deck)


def _draw(hand: Hand, counts: dict[int, int]) -> dict[int, tuple]:
    """Call to the draw, then each seat discards ``counts[place]`` cards (its place
    clockwise from the button's left); what each place drew."""
    while hand.phase is Phase.PREDRAW_BETTING:
        hand.apply(CALL)
    n = len(hand.holes)
    place = {(hand.button + 1 + k) % n: k for k in range(n)}
    while hand.phase is Phase.DRAW:
        seat = hand.actor
        hand.discard(tuple(hand.holes[seat][: counts.get(place[seat], 0)]))
    return {place[e.seat]: e.drawn for e in hand.events if isinstance(e, CardsDrawn)}


def _dealt(hand: Hand, seat: int) -> tuple:
    return next(e.cards for e in hand.events if isinstance(e, HoleCardsDealt) and e.seat == seat)


@pytest.mark.parametrize("seed", range(10))
def test_r15_a_place_draws_the_same_cards_at_every_rotation_whatever_others_drew(seed):
    """Two rotations of one deck (the button moved), other draw counts before it: each
    place gets the same hole cards and its replacements are the same stack's cards."""
    first, second = _hand(3, 0, seed), _hand(3, 1, seed)
    a = _draw(first, {0: 5, 1: 3, 2: 1})
    b = _draw(second, {0: 0, 1: 5, 2: 4})
    for k in range(3):
        assert _dealt(first, (0 + 1 + k) % 3) == _dealt(second, (1 + 1 + k) % 3)
        short, long = sorted((a[k], b[k]), key=len)
        assert long[: len(short)] == short
    assert len(set(a[0]) | set(a[1]) | set(a[2])) == 9  # the stacks are disjoint


@pytest.mark.parametrize("seed", range(10))
def test_r15_without_stacks_a_later_place_draws_what_an_earlier_one_left(seed):
    """The contrast (one stub, R15 from the top): place 1's cards depend on place 0's count."""
    first, second = _hand(3, 0, seed, stacks=False), _hand(3, 1, seed, stacks=False)
    a, b = _draw(first, {0: 5, 1: 3}), _draw(second, {0: 0, 1: 3})
    assert a[1] != b[1]
    assert b[1] == a[0][:3]  # the cards place 0 took at the first rotation


@pytest.mark.parametrize("seed", range(20))
def test_r17_seven_players_drawing_five_from_stacks_keep_every_card(seed):
    """Seven places (2 cards of stack each: 52 - 35 = 17 left, the last never dealt): the
    stacks run out, the rest merge into the stub, R17 reshuffles; every card once, no
    discard back in the hand it left, the stub keeps a card."""
    hand = _hand(7, 6, seed)
    while hand.phase is Phase.PREDRAW_BETTING:
        hand.apply(CALL)
    discards = {}
    while hand.phase is Phase.DRAW:
        discards[hand.actor] = tuple(hand.holes[hand.actor])
        hand.discard(discards[hand.actor])
    assert sorted(hand.all_cards()) == sorted(STANDARD_DECK)
    drawn = {e.seat: e.drawn for e in hand.events if isinstance(e, CardsDrawn)}
    assert all(len(drawn[seat]) == 5 for seat in range(7))
    assert not any(set(discards[seat]) & set(drawn[seat]) for seat in range(7))
    assert len(hand.deck) >= 1


def test_r15_undealt_stack_cards_count_as_the_stub():
    """Standing pat leaves a place's stack undealt: it is still in the deck's cards."""
    hand = _hand(2, 0, 3)
    _draw(hand, {})
    assert sorted(hand.all_cards()) == sorted(STANDARD_DECK)
    assert len(hand.deck.remaining) == 52 - 10

"""Rules R1, R2, R5-R9: players, the deck, the button, forced bets and the deal."""

from __future__ import annotations

import random

import pytest
from stacking import stacked_deck

from arena.engine import (
    CALL,
    CHECK,
    STAND_PAT,
    STANDARD_DECK,
    AntePosted,
    BlindKind,
    BlindPosted,
    Deck,
    GameConfig,
    Hand,
    HoleCardsDealt,
    Phase,
    Structure,
)


def new_hand(n=3, *, button=0, stacks=None, hands=None, stub="", **settings):
    """A hand of ``n`` players (or one per entry of ``hands``) on a stacked deck."""
    config = GameConfig(**settings)
    if hands is None:
        deck = Deck.stacked(STANDARD_DECK, rng=random.Random(0))
    else:
        n = len(hands)
        deck = stacked_deck(hands, button, stub, joker=config.uses_joker)
    return Hand(config, stacks or [100] * n, button, deck)


def play_to_showdown(hand):
    """Call or check every bet and stand pat at the draw until the hand is over."""
    while not hand.is_over:
        hand.apply(STAND_PAT if hand.phase is Phase.DRAW else CALL)


# --- R1 players -----------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_r1_two_to_seven_players_are_dealt_in(n):
    """A hand of 2 to 7 players deals five cards to each of them."""
    hand = new_hand(n)
    assert [5] * n == [len(hole) for hole in hand.holes]


@pytest.mark.parametrize("n", [0, 1, 8])
def test_r1_one_or_eight_players_are_rejected(n):
    """A hand of fewer than 2 or more than 7 players is refused, naming the rule."""
    with pytest.raises(ValueError, match=r"2 to 7 players \(R1\)"):
        Hand(GameConfig(), [100] * n, 0, Deck.stacked(STANDARD_DECK))


# --- R2 the joker ---------------------------------------------------------------


@pytest.mark.parametrize(("joker", "winner"), [("bug", 1), ("wild", 0)])
def test_r2_joker_plays_as_bug_or_wild(joker, winner):
    """With Jk-K-K the joker is a third king when wild, only an ace kicker as the bug."""
    hand = new_hand(hands=["Jk Kc Kd 7h 2s", "Ac Ad 8c 8d 3h"], button=1, joker=joker)
    play_to_showdown(hand)
    assert winner == max(range(2), key=hand.payoffs.__getitem__)


def test_r2_bug_completes_a_straight():
    """The bug may complete a straight, which beats three of a kind."""
    hand = new_hand(hands=["Jk 9h 8d 7c 6s", "Qc Qd Qh 4c 3h"], button=1, joker="bug")
    play_to_showdown(hand)
    assert hand.payoffs == [2, -2]


def test_r2_joker_deck_deals_the_joker():
    """A joker table deals from 53 cards, so the joker can be dealt."""
    hand = new_hand(hands=["Jk 9h 8d 7c 6s", "Qc Qd Qh 4c 3h"], button=1, joker="wild")
    assert len(hand.deck) == 53 - 10


# --- R5 the button ----------------------------------------------------------------


@pytest.mark.parametrize("button", [0, 1, 2, 3])
def test_r5_order_of_play_follows_the_button(button):
    """Small blind, big blind and first actor are the three seats left of the button."""
    hand = new_hand(4, button=button)
    blinds = [event.seat for event in hand.events if isinstance(event, BlindPosted)]
    assert [(button + 1) % 4, (button + 2) % 4] == blinds
    assert (button + 3) % 4 == hand.actor


# --- R6 blinds --------------------------------------------------------------------


def test_r6_blinds_posted_left_of_button_before_any_card():
    """The small blind (left of the button) then the big blind post before the deal."""
    hand = new_hand(4, button=1)
    expected = [
        BlindPosted(2, 1, BlindKind.SMALL),
        BlindPosted(3, 2, BlindKind.BIG),
        HoleCardsDealt,
    ]
    actual = [*hand.events[:2], type(hand.events[2])]
    assert expected == actual


def test_r6_fixed_limit_blinds_follow_the_small_bet():
    """A $2-4 fixed-limit game posts a $1 small blind and a $2 big blind."""
    hand = new_hand(3, small_bet=2, big_bet=4)
    assert hand.stacks == [100, 99, 98]


def test_r6_pot_and_no_limit_blinds_are_set_directly():
    """In no limit the blinds are the configured amounts, not derived from a bet size."""
    hand = new_hand(3, structure=Structure.NO_LIMIT, small_blind=5, big_blind=10)
    assert hand.bets == [0, 5, 10]


def test_r6_posted_blind_is_live():
    """The small blind later pays only the difference to call the big blind."""
    hand = new_hand(3)
    hand.apply(CALL)
    assert hand.legal_actions().call_amount == 1


# --- R7 heads-up ------------------------------------------------------------------


def test_r7_heads_up_button_posts_small_blind_and_acts_first_before_draw_and_last_after():
    """Heads-up the button posts the small blind, acts first before the draw and last after."""
    hand = new_hand(2, button=1)
    posts = [(e.seat, e.kind) for e in hand.events if isinstance(e, BlindPosted)]
    assert posts == [(1, BlindKind.SMALL), (0, BlindKind.BIG)]
    order = [hand.actor]
    hand.apply(CALL)
    order.append(hand.actor)
    hand.apply(CHECK)
    hand.discard(())
    hand.discard(())
    assert hand.phase == Phase.POSTDRAW_BETTING
    order.append(hand.actor)
    hand.apply(CHECK)
    order.append(hand.actor)
    assert order == [1, 0, 0, 1]


# --- R8 antes ---------------------------------------------------------------------


def test_r8_every_player_antes_before_the_deal_with_blinds():
    """With an ante and blinds, every player antes, then the blinds post, then cards come."""
    hand = new_hand(3, ante=1)
    kinds = [type(event).__name__ for event in hand.events[:6]]
    expected = ["AntePosted"] * 3 + ["BlindPosted"] * 2 + ["HoleCardsDealt"]
    assert expected == kinds
    assert hand.pot_total == 3 + 3


def test_r8_antes_alone_post_no_blinds():
    """In an ante game every player antes and nobody posts a blind."""
    hand = new_hand(4, ante=5, forced_bets="antes")
    posts = [e for e in hand.events if isinstance(e, AntePosted | BlindPosted)]
    assert [AntePosted(seat, 5) for seat in (1, 2, 3, 0)] == posts


# --- R9 the deal ------------------------------------------------------------------


@pytest.mark.parametrize(("n", "button"), [(2, 0), (3, 0), (4, 2), (7, 5)])
def test_r9_cards_dealt_one_at_a_time_clockwise_from_left_of_button(n, button):
    """Card k of the deck goes to the k-th seat clockwise from the button's left, round by round."""
    hand = new_hand(n, button=button)
    expected = [None] * n
    for k in range(n):
        expected[(button + 1 + k) % n] = list(STANDARD_DECK[k : 5 * n : n])
    assert expected == hand.holes


def test_r9_deal_events_start_left_of_button():
    """The private deal events come in deal order, starting left of the button."""
    hand = new_hand(4, button=1)
    seats = [event.seat for event in hand.events if isinstance(event, HoleCardsDealt)]
    assert seats == [2, 3, 0, 1]

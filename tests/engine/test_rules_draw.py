"""Rules R15-R17: the draw, public draw counts and the reshuffle when the stub runs out."""

from __future__ import annotations

import random

import pytest
from stacking import stacked_deck

from arena.engine import (
    CALL,
    CHECK,
    FOLD,
    STANDARD_DECK,
    CardsDrawn,
    Deck,
    Discard,
    DrawCount,
    GameConfig,
    Hand,
    IllegalActionError,
    Phase,
    Reason,
    StubReshuffled,
    parse_cards,
)

HANDS = ["2c 3c 4c 5c 7d", "9h 9s Kd 4h 2d", "Qc Qd 8s 6h 3s"]


def new_hand(n=3, *, button=0, hands=None, stub="", seed=0, **settings):
    """A hand of ``n`` players (or one per entry of ``hands``) on a stacked deck."""
    if hands is None:
        deck = Deck.stacked(STANDARD_DECK, rng=random.Random(seed))
    else:
        n = len(hands)
        deck = stacked_deck(hands, button, stub, seed=seed)
    return Hand(GameConfig(**settings), [100] * n, button, deck)


def to_draw(hand):
    """Call every bet and check the big blind's option, reaching the draw."""
    while hand.phase is Phase.PREDRAW_BETTING:
        hand.apply(CALL)
    assert hand.phase == Phase.DRAW


def seven_players_drawing_five(seed=0, folds=0):
    """Seven players (the first ``folds`` to act fold) who each then draw five cards."""
    hand = new_hand(7, button=6, seed=seed)
    for _ in range(folds):
        hand.apply(FOLD)
    to_draw(hand)
    discards = {}
    while hand.phase is Phase.DRAW:
        discards[hand.actor] = tuple(hand.holes[hand.actor])
        hand.discard(discards[hand.actor])
    return hand, discards


# --- R15 the draw -----------------------------------------------------------------


def test_r15_draw_goes_clockwise_from_left_of_button_skipping_folded_players():
    """The draw starts left of the button and skips players who folded."""
    hand = new_hand(4, button=2)
    hand.apply(FOLD)
    to_draw(hand)
    order = []
    while hand.phase is Phase.DRAW:
        order.append(hand.actor)
        hand.discard(())
    assert order == [3, 0, 2]


def test_r15_discards_are_replaced_from_the_stub():
    """Each discarded card is replaced by the next card of the stub, in draw order."""
    hand = new_hand(hands=HANDS, stub="As Ks Qs")
    to_draw(hand)
    hand.discard(parse_cards("Kd 4h"))
    hand.discard(parse_cards("3s"))
    assert [parse_cards("9h 9s 2d As Ks"), parse_cards("Qc Qd 8s 6h Qs")] == [
        tuple(hand.holes[1]),
        tuple(hand.holes[2]),
    ]


def test_r15_discard_record_applied_through_apply_draws():
    """A ``Discard`` record applied through ``apply`` draws like ``discard``."""
    hand = new_hand(hands=HANDS, stub="As")
    to_draw(hand)
    hand.apply(Discard(parse_cards("2d")))
    assert parse_cards("9h 9s Kd 4h As") == tuple(hand.holes[1])


def test_r15_standing_pat_takes_no_card():
    """Drawing zero keeps the hand and the stub as they were."""
    hand = new_hand(hands=HANDS, stub="As Ks Qs")
    to_draw(hand)
    before = (list(hand.holes[1]), hand.deck.remaining)
    events = hand.discard(())
    assert [CardsDrawn(1, (), ())] == events
    assert before == (hand.holes[1], hand.deck.remaining)


@pytest.mark.parametrize("max_draw", [3, 4, 5])
def test_r15_max_draw_limits_the_discards(max_draw):
    """``max_draw`` is offered as the limit, is accepted, and one card more is refused."""
    hand = new_hand(max_draw=max_draw)
    to_draw(hand)
    assert max_draw == hand.legal_actions().max_discard
    hole = hand.holes[hand.actor]
    if max_draw < 5:
        with pytest.raises(IllegalActionError) as info:
            hand.discard(hole[: max_draw + 1])
        assert info.value.reason == Reason.TOO_MANY_DISCARDS
    hand.discard(hole[:max_draw])
    assert max_draw == hand.draw_counts[1]


def test_r15_max_draw_default_is_five():
    """By default a player may draw all five cards."""
    assert GameConfig().max_draw == 5


# --- R16 draw counts are public ---------------------------------------------------------


def test_r16_draw_counts_are_public_in_every_view():
    """Every seat sees how many cards each player drew, through the second round."""
    hand = new_hand(hands=HANDS)
    to_draw(hand)
    hand.discard(parse_cards("Kd 4h 2d"))
    hand.discard(parse_cards("8s 6h 3s"))
    hand.discard(parse_cards("7d"))
    hand.apply(CHECK)
    assert hand.phase == Phase.POSTDRAW_BETTING
    assert [hand.view(seat).draw_counts for seat in range(3)] == [(1, 3, 3)] * 3


def test_r16_other_players_draws_are_seen_as_counts_only():
    """A seat's view shows its own discards and new cards, and only the counts of others."""
    hand = new_hand(hands=HANDS)
    to_draw(hand)
    hand.discard(parse_cards("Kd 4h 2d"))
    hand.discard(())
    hand.discard(parse_cards("7d"))
    view = hand.view(2)
    draws = [e for e in view.events if isinstance(e, CardsDrawn | DrawCount)]
    assert [DrawCount(1, 3), CardsDrawn(2, (), ()), DrawCount(0, 1)] == draws


# --- R17 deck exhaustion ---------------------------------------------------------------


def test_r17_last_card_of_stub_is_never_dealt():
    """Seven players drawing five each: the stub is dealt down to its last card, then reshuffled."""
    hand, _ = seven_players_drawing_five()
    reshuffles = [e for e in hand.events if isinstance(e, StubReshuffled)]
    # 52 - 35 = 17 in the stub; seats 0-2 take 15, seat 3 gets 1 and the rest from
    # the last card + 15 discards; seats 4-5 leave 2, seat 6 again gets 1 + a reshuffle.
    assert [StubReshuffled(3, 1, 16), StubReshuffled(6, 1, 16)] == reshuffles
    seat3 = next(e for e in hand.events if isinstance(e, CardsDrawn) and e.seat == 3)
    assert STANDARD_DECK[50] == seat3.drawn[0]
    assert len(hand.deck) >= 1


def test_r17_every_card_stays_accounted_for_after_reshuffles():
    """After two reshuffles the hands, stub and muck still hold each of the 52 cards once."""
    hand, _ = seven_players_drawing_five()
    cards = hand.all_cards()
    assert sorted(STANDARD_DECK) == sorted(cards)


@pytest.mark.parametrize("seed", range(20))
def test_r17_reshuffle_excludes_own_discards(seed):
    """A discarded card never returns to the hand it left, whatever the shuffle."""
    hand, discards = seven_players_drawing_five(seed)
    drawn = {e.seat: e.drawn for e in hand.events if isinstance(e, CardsDrawn)}
    returned = {seat: set(discards[seat]) & set(drawn[seat]) for seat in range(7)}
    assert {seat: set() for seat in range(7)} == returned


def test_r17_reshuffle_includes_folded_hands():
    """Folded hands join the reshuffle: 1 last card + 2 folded hands + 3 players' discards."""
    hand, _ = seven_players_drawing_five(folds=2)
    reshuffles = [e for e in hand.events if isinstance(e, StubReshuffled)]
    assert [StubReshuffled(5, 1, 1 + 10 + 15)] == reshuffles


def test_r17_deck_order_and_seed_make_the_reshuffle_reproducible():
    """The same stacked deck and seed give the same cards after a reshuffle."""
    first, _ = seven_players_drawing_five(seed=7)
    second, _ = seven_players_drawing_five(seed=7)
    assert first.holes == second.holes

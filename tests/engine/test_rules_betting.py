"""Rules R10-R14: the two betting rounds, betting structures, all-ins and side pots."""

from __future__ import annotations

import random

import pytest
from stacking import play, stacked_deck

from arena.engine import (
    CALL,
    CHECK,
    FOLD,
    STANDARD_DECK,
    BetRaise,
    Called,
    Deck,
    GameConfig,
    Hand,
    IllegalActionError,
    Phase,
    Pot,
    Reason,
    Structure,
    UncalledReturned,
)

NO_LIMIT = {"structure": Structure.NO_LIMIT, "small_blind": 5, "big_blind": 10}
POT_LIMIT = {"structure": Structure.POT_LIMIT, "small_blind": 1, "big_blind": 2}


def new_hand(n=3, *, button=0, stacks=None, hands=None, **settings):
    """A hand of ``n`` players (or one per entry of ``hands``) on a stacked deck."""
    if hands is None:
        deck = Deck.stacked(STANDARD_DECK, rng=random.Random(0))
    else:
        n = len(hands)
        deck = stacked_deck(hands, button)
    return Hand(GameConfig(**settings), stacks or [100] * n, button, deck)


def reason_of(hand, action):
    """The reason code with which ``hand`` refuses ``action``."""
    with pytest.raises(IllegalActionError) as info:
        hand.apply(action)
    return info.value.reason


# --- R10 first round --------------------------------------------------------------


def test_r10_first_round_starts_left_of_big_blind():
    """With five players and the button on seat 0, seat 3 (left of the big blind) acts first."""
    hand = new_hand(5)
    assert hand.actor == 3


def test_r10_nobody_may_check_facing_the_blind():
    """The first actor may fold, call or raise, but checking is refused."""
    hand = new_hand(3)
    legal = hand.legal_actions()
    assert (legal.can_fold, legal.can_check, legal.call_amount) == (True, False, 2)
    assert reason_of(hand, CHECK) == Reason.CANNOT_CHECK


def test_r10_big_blind_has_the_option():
    """When everyone just calls, the big blind may check or raise, and a raise reopens the round."""
    hand = new_hand(3)
    play(hand, CALL, CALL)
    legal = hand.legal_actions()
    assert (hand.actor, legal.can_check, legal.call_amount, legal.max_raise_to) == (2, True, 0, 4)
    play(hand, BetRaise(4))
    assert (hand.phase, hand.actor) == (Phase.PREDRAW_BETTING, 0)


def test_r10_big_blind_check_ends_the_round():
    """The big blind checking its option ends the first round."""
    hand = new_hand(3)
    play(hand, CALL, CALL, CHECK)
    assert hand.phase == Phase.DRAW


# --- R11 round end ----------------------------------------------------------------


def test_r11_round_ends_when_everyone_matched_the_bet():
    """After a raise called by everyone the round ends; the raiser does not act again."""
    hand = new_hand(3)
    play(hand, BetRaise(4), CALL, CALL)
    assert (hand.phase, hand.committed) == (Phase.DRAW, [4, 4, 4])


def test_r11_raise_reopens_action_for_players_who_acted():
    """A player who called must act again after a later raise."""
    hand = new_hand(3)
    play(hand, CALL, BetRaise(4), CALL)
    assert (
        hand.phase,
        hand.actor,
        hand.legal_actions().call_amount,
    ) == (Phase.PREDRAW_BETTING, 0, 2)


def test_r11_bettor_does_not_act_twice_in_a_row():
    """After a bet that everyone calls the second round ends without the bettor acting again."""
    hand = new_hand(3)
    play(hand, CALL, CALL, CHECK, None, BetRaise(4), CALL, CALL)
    assert hand.phase == Phase.OVER


def test_r11_all_in_player_is_not_asked_to_act():
    """Once the only other player is all-in, nobody bets again: the hand runs to showdown."""
    hand = new_hand(3, stacks=[100, 100, 30], **NO_LIMIT)
    play(hand, BetRaise(50), FOLD, CALL)
    assert hand.phase == Phase.DRAW
    play(hand, None)
    assert hand.phase == Phase.OVER


# --- R12 betting structures ---------------------------------------------------------


def test_r12_fixed_limit_uses_small_bet_before_draw_and_big_bet_after():
    """A $2-4 game raises by 2 before the draw and bets and raises by 4 after it."""
    hand = new_hand(3, small_bet=2, big_bet=4)
    before = hand.legal_actions()
    play(hand, CALL, CALL, CHECK, None)
    after_bet = hand.legal_actions()
    play(hand, BetRaise(4))
    after_raise = hand.legal_actions()
    actual = [(x.min_raise_to, x.max_raise_to) for x in (before, after_bet, after_raise)]
    assert actual == [(4, 4), (4, 4), (8, 8)]


def test_r12_fixed_limit_refuses_other_amounts():
    """In fixed limit a raise to anything but the one legal amount is refused."""
    hand = new_hand(3)
    assert (
        reason_of(hand, BetRaise(3)),
        reason_of(hand, BetRaise(6)),
    ) == (Reason.AMOUNT_TOO_SMALL, Reason.AMOUNT_TOO_LARGE)


def test_r12_fixed_limit_caps_at_four_bets():
    """Big blind, raise, re-raise and cap: a fifth bet is refused as capped."""
    hand = new_hand(3)
    play(hand, BetRaise(4), BetRaise(6), BetRaise(8))
    legal = hand.legal_actions()
    assert (hand.actor, legal.can_raise, legal.call_amount) == (0, False, 4)
    assert reason_of(hand, BetRaise(10)) == Reason.RAISE_CAPPED


def test_r12_fixed_limit_caps_the_second_round_at_four_bets():
    """After the draw, bet, raise, re-raise and cap make four bets; no fifth."""
    hand = new_hand(3)
    play(hand, CALL, CALL, CHECK, None, BetRaise(4), BetRaise(8), BetRaise(12), BetRaise(16))
    assert (
        hand.legal_actions().can_raise,
        reason_of(hand, BetRaise(20)),
    ) == (False, Reason.RAISE_CAPPED)


@pytest.mark.parametrize(("uncapped", "can_raise"), [(True, True), (False, False)])
def test_r12_uncapped_heads_up_lifts_the_cap(uncapped, can_raise):
    """Heads-up, ``uncapped_heads_up`` allows a fifth bet; without it the betting caps."""
    hand = new_hand(2, uncapped_heads_up=uncapped)
    play(hand, BetRaise(4), BetRaise(6), BetRaise(8))
    assert can_raise == hand.legal_actions().can_raise


def test_r12_uncapped_heads_up_applies_once_two_players_remain():
    """With three dealt in, the cap lifts once a fold leaves two players."""
    hand = new_hand(3, uncapped_heads_up=True)
    play(hand, FOLD, BetRaise(4), BetRaise(6), BetRaise(8))
    play(hand, BetRaise(10), BetRaise(12))
    assert hand.bets == [0, 12, 10]


def test_r12_uncapped_heads_up_keeps_the_cap_with_three_players():
    """With three players still in, ``uncapped_heads_up`` does not lift the cap."""
    hand = new_hand(3, uncapped_heads_up=True)
    play(hand, BetRaise(4), BetRaise(6), BetRaise(8))
    assert False is hand.legal_actions().can_raise


def test_r12_pot_limit_max_raise_is_pot_after_call():
    """Blinds 1-2: the first raise is at most to 2 + (3 + 2) = 7, the next to 7 + (10 + 6) = 23."""
    hand = new_hand(3, **POT_LIMIT)
    first = hand.legal_actions()
    play(hand, BetRaise(7))
    second = hand.legal_actions()
    assert [
        (first.min_raise_to, first.max_raise_to),
        (second.min_raise_to, second.max_raise_to),
    ] == [(4, 7), (12, 23)]
    assert reason_of(hand, BetRaise(24)) == Reason.AMOUNT_TOO_LARGE


def test_r12_pot_limit_bet_after_draw_is_at_most_the_pot():
    """After the draw the first bet may be anything from the big blind up to the pot."""
    hand = new_hand(3, **POT_LIMIT)
    play(hand, CALL, CALL, CHECK, None)
    legal = hand.legal_actions()
    assert (legal.min_raise_to, legal.max_raise_to) == (2, 6)


def test_r12_pot_limit_max_raise_is_capped_by_the_stack():
    """A pot-limit raise can never exceed the player's own chips."""
    hand = new_hand(3, stacks=[5, 100, 100], **POT_LIMIT)
    assert hand.legal_actions().max_raise_to == 5


def test_r12_no_limit_min_raise_is_largest_raise_so_far():
    """Blinds 5-10: after a raise to 40 (by 30) the next raise is to at least 70."""
    hand = new_hand(3, stacks=[1000, 1000, 1000], **NO_LIMIT)
    first = hand.legal_actions()
    play(hand, BetRaise(40))
    second = hand.legal_actions()
    assert [
        (first.min_raise_to, first.max_raise_to),
        (second.min_raise_to, second.max_raise_to),
    ] == [(20, 1000), (70, 1000)]
    assert reason_of(hand, BetRaise(69)) == Reason.AMOUNT_TOO_SMALL


def test_r12_no_limit_min_raise_grows_with_a_larger_raise():
    """A raise by 30 then a raise by 60: the next raise must be by at least 60."""
    hand = new_hand(3, stacks=[1000, 1000, 1000], **NO_LIMIT)
    play(hand, BetRaise(40), BetRaise(100))
    assert hand.legal_actions().min_raise_to == 160


def test_r12_no_limit_min_raise_keeps_the_largest_not_the_last():
    """A short all-in raise by 10 after a raise by 30 leaves the minimum raise at 30."""
    hand = new_hand(3, stacks=[1000, 50, 1000], **NO_LIMIT)
    play(hand, BetRaise(40), BetRaise(50))
    assert hand.legal_actions().min_raise_to == 80


def test_r12_no_limit_minimum_bet_is_big_blind():
    """After the draw the smallest bet is the big blind and the largest the whole stack."""
    hand = new_hand(3, **NO_LIMIT)
    play(hand, CALL, CALL, CHECK, None)
    legal = hand.legal_actions()
    assert (legal.min_raise_to, legal.max_raise_to) == (10, 90)


def test_r12_no_limit_raises_are_unlimited_in_number():
    """No limit allows more than four bets in a round."""
    hand = new_hand(2, stacks=[10_000, 10_000], **NO_LIMIT)
    play(hand, BetRaise(20), BetRaise(30), BetRaise(40), BetRaise(50), BetRaise(60))
    assert True is hand.legal_actions().can_raise


# --- R13 second round ---------------------------------------------------------------


def test_r13_second_round_starts_left_of_button():
    """After the draw the first player left of the button acts, and may check or bet."""
    hand = new_hand(4, button=2)
    play(hand, CALL, CALL, CALL, CHECK, None)
    legal = hand.legal_actions()
    assert (hand.actor, legal.can_check, legal.can_raise) == (3, True, True)


def test_r13_second_round_skips_folded_players():
    """If the seat left of the button folded, the next active seat starts the second round."""
    hand = new_hand(4, button=2)
    play(hand, CALL, CALL, FOLD, CHECK, None)
    assert hand.actor == 0


def test_r13_after_a_bet_players_fold_call_or_raise():
    """Once someone bets after the draw, the next player can no longer check."""
    hand = new_hand(3)
    play(hand, CALL, CALL, CHECK, None, BetRaise(4))
    legal = hand.legal_actions()
    assert (
        legal.can_fold,
        legal.can_check,
        legal.call_amount,
        legal.max_raise_to,
    ) == (True, False, 4, 8)


# --- R14 all-in and side pots ---------------------------------------------------------


@pytest.mark.parametrize("structure", list(Structure))
def test_r14_short_stack_calls_all_in_for_less(structure):
    """A player who cannot cover the bet calls with all its chips, in every structure."""
    hand = new_hand(3, stacks=[100, 100, 3], structure=structure, small_blind=1, big_blind=2)
    play(hand, BetRaise(4), FOLD)
    assert hand.legal_actions().call_amount == 1
    assert [Called(2, 1, 3, all_in=True), UncalledReturned(0, 1)] == hand.apply(CALL)[:2]


def test_r14_all_in_player_cannot_win_the_side_pot():
    """The short stack wins only the main pot; the side pot goes to the best of the others."""
    hands = ["Kc Kd 7h 5s 2c", "Qc Qd 8h 6s 3c", "Ac Ad Ah 9s 4c"]
    hand = new_hand(hands=hands, stacks=[100, 100, 20], **NO_LIMIT)
    play(hand, BetRaise(50), CALL, CALL, None, CHECK, CHECK)
    assert [Pot(60, (0, 1, 2)), Pot(60, (0, 1))] == hand.pots
    assert hand.payoffs == [10, -50, 40]


def test_r14_short_all_in_raise_does_not_reopen_betting():
    """A raise to 100, a call, then an all-in to 150 (short of a full raise): no one may re-raise."""
    hand = new_hand(3, stacks=[1000, 1000, 150], **NO_LIMIT)
    play(hand, BetRaise(100), CALL, BetRaise(150))
    legal = hand.legal_actions()
    assert (hand.actor, legal.can_raise, legal.call_amount) == (0, False, 50)
    assert reason_of(hand, BetRaise(300)) == Reason.CANNOT_RAISE
    play(hand, CALL)
    assert (hand.actor, hand.legal_actions().can_raise) == (1, False)


def test_r14_short_all_in_raise_leaves_raising_open_to_players_yet_to_act():
    """A player who has not acted yet may still raise over a short all-in, by a full raise."""
    hand = new_hand(4, stacks=[150, 1000, 1000, 1000], **NO_LIMIT)
    play(hand, BetRaise(100), BetRaise(150))
    legal = hand.legal_actions()
    assert (hand.actor, legal.can_raise, legal.min_raise_to) == (1, True, 240)


def test_r14_short_all_in_raises_adding_up_to_a_full_raise_reopen_betting():
    """Two short all-ins that together make a full raise reopen the betting (TDA rule)."""
    hand = new_hand(4, stacks=[150, 1000, 200, 1000], **NO_LIMIT)
    play(hand, BetRaise(100), BetRaise(150), CALL, BetRaise(200))
    assert (hand.actor, hand.legal_actions().can_raise) == (3, True)


def _short_bet_after_two_checks(structure: Structure) -> Hand:
    """Four players, the last with 3 chips; after the draw seats 1 and 2 check, seat 3
    bets all-in 1 (below the minimum bet) and seat 0 calls."""
    hand = new_hand(4, stacks=[100, 100, 100, 3], structure=structure, small_blind=1, big_blind=2)
    play(hand, CALL, CALL, CALL, CHECK, None)
    assert (hand.street, hand.actor) == (2, 1)
    play(hand, CHECK, CHECK)
    assert hand.legal_actions().max_raise_to == 1  # seat 3 may bet only its last chip
    play(hand, BetRaise(1))
    assert hand.actor == 0
    assert hand.legal_actions().can_raise  # seat 0 had not acted: raising is open to it
    play(hand, CALL)
    return hand


@pytest.mark.parametrize("structure", list(Structure), ids=lambda s: s.value)
def test_r14_short_all_in_bet_does_not_reopen_betting_for_players_who_checked(structure):
    """An all-in bet below the minimum is no full bet (TDA rule 47): who checked may only call or fold."""
    hand = _short_bet_after_two_checks(structure)
    for seat in (1, 2):
        legal = hand.legal_actions()
        assert (legal.seat, legal.can_raise, legal.call_amount) == (seat, False, 1)
        assert reason_of(hand, BetRaise(5)) == Reason.CANNOT_RAISE
        assert reason_of(hand, BetRaise(3)) == Reason.CANNOT_RAISE
        play(hand, CALL)
    assert hand.is_over


@pytest.mark.parametrize("structure", list(Structure), ids=lambda s: s.value)
def test_r14_short_all_in_bets_adding_up_to_a_full_bet_reopen_after_checks(structure):
    """Two short all-ins after the draw that together make a full bet reopen the betting (TDA);
    short of a full bet (the big bet in fixed limit) they do not."""
    big_blind = 2 if structure is Structure.FIXED_LIMIT else 4  # a full bet is 4 after the draw
    for top, reopens in ((4, True), (3, False)):
        stacks = [100, 100, big_blind + 1, big_blind + top]
        blinds = {"small_blind": big_blind // 2, "big_blind": big_blind}
        hand = new_hand(4, stacks=stacks, structure=structure, **blinds)
        play(hand, CALL, CALL, CALL, CHECK, None)
        play(hand, CHECK, BetRaise(1), BetRaise(top))  # seat 2 all-in 1, then seat 3 all-in
        play(hand, CALL)
        legal = hand.legal_actions()
        assert (legal.seat, legal.can_raise, legal.call_amount) == (1, reopens, top), top

"""Rules R23 and R24: what a timeout or an illegal action becomes."""

from __future__ import annotations

import pytest
from stacking import play, stacked_deck

from arena.engine import (
    CALL,
    CHECK,
    FOLD,
    STAND_PAT,
    BetRaise,
    Call,
    Checked,
    Discard,
    Folded,
    GameConfig,
    Hand,
    IllegalActionError,
    Reason,
    Structure,
    parse_card,
    parse_cards,
)

HANDS = ["2c 3c 4c 5c 7d", "9h 9s Kd 4h 2d", "Qc Qd 8s 6h 3s"]


def new_hand(hands=HANDS, *, button=0, stacks=None, **settings):
    """A hand dealing ``hands[seat]`` to each seat."""
    deck = stacked_deck(hands, button)
    return Hand(GameConfig(**settings), stacks or [100] * len(hands), button, deck)


def snapshot(hand):
    """Everything an applied action could change."""
    return (
        hand.phase,
        hand.actor,
        list(hand.stacks),
        list(hand.bets),
        list(hand.committed),
        list(hand.folded),
        [list(hole) for hole in hand.holes],
        list(hand.draw_counts),
        list(hand.events),
        hand.deck.remaining,
        hand.current_bet,
        hand.legal_actions(),
    )


# --- R23 action clock -------------------------------------------------------------


def test_r23_timeout_defaults_check_when_free_else_fold_and_draw_stands_pat():
    """A timeout folds facing a bet, checks the big blind's option, and stands pat at the draw."""
    hand = new_hand()
    results = []
    for step in range(5):
        if step == 1:
            play(hand, CALL)
        results.append(hand.default_action())
        hand.apply_default()
    assert results == [FOLD, CHECK, STAND_PAT, STAND_PAT, CHECK]
    assert [Folded(0), Checked(2), Checked(1)] == [
        e for e in hand.events if isinstance(e, Folded | Checked)
    ]


def test_r23_draw_timeout_keeps_the_hand():
    """A player who does not draw in time keeps all five cards."""
    hand = new_hand()
    play(hand, CALL, CALL, CHECK)
    before = list(hand.holes[1])
    hand.apply_default()
    assert (before, 0) == (hand.holes[1], hand.draw_counts[1])


def test_r23_timeout_after_the_draw_checks_then_folds_to_a_bet():
    """After the draw a timeout checks when nobody bet and folds facing a bet."""
    hand = new_hand()
    play(hand, CALL, CALL, CHECK, None)
    first = hand.default_action()
    play(hand, CHECK, BetRaise(4))
    assert (first, hand.default_action()) == (CHECK, FOLD)


# --- R24 illegal actions -------------------------------------------------------------


def predraw(hand):
    """Seat 0 to act before the draw, facing the big blind."""


def option(hand):
    """The big blind (seat 2) to act with its option: nothing to call."""
    play(hand, CALL, CALL)


def capped(hand):
    """Seat 0 facing four bets: the betting is capped."""
    play(hand, BetRaise(4), BetRaise(6), BetRaise(8))


def draw(hand):
    """Seat 1 to draw."""
    play(hand, CALL, CALL, CHECK)


def short_all_in(hand):
    """Seat 0 (who raised to 100) facing a short all-in raise to 150."""
    play(hand, BetRaise(100), CALL, BetRaise(150))


ILLEGAL = [
    # wrong kind
    ("check_facing_a_bet", {}, predraw, CHECK, Reason.CANNOT_CHECK),
    ("fold_when_free", {}, option, FOLD, Reason.CANNOT_FOLD),
    ("discard_while_betting", {}, predraw, Discard(()), Reason.WRONG_PHASE),
    ("call_at_the_draw", {}, draw, CALL, Reason.WRONG_PHASE),
    ("bet_at_the_draw", {}, draw, BetRaise(4), Reason.WRONG_PHASE),
    ("not_an_action", {}, predraw, "raise", Reason.UNKNOWN_ACTION),
    ("amount_not_a_number", {}, predraw, BetRaise("4"), Reason.UNKNOWN_ACTION),
    # wrong amount
    ("raise_too_small", {}, predraw, BetRaise(3), Reason.AMOUNT_TOO_SMALL),
    ("raise_too_large", {}, predraw, BetRaise(5), Reason.AMOUNT_TOO_LARGE),
    (
        "no_limit_raise_above_stack",
        {"structure": Structure.NO_LIMIT},
        predraw,
        BetRaise(101),
        Reason.AMOUNT_TOO_LARGE,
    ),
    # a raise past the cap, or when raising is closed (R14)
    ("raise_past_the_cap", {}, capped, BetRaise(10), Reason.RAISE_CAPPED),
    (
        "raise_after_short_all_in",
        {"structure": Structure.NO_LIMIT, "small_blind": 5, "big_blind": 10},
        short_all_in,
        BetRaise(300),
        Reason.CANNOT_RAISE,
    ),
    # discards
    ("discard_not_held", {}, draw, Discard(parse_cards("As")), Reason.CARD_NOT_HELD),
    (
        "discard_twice_the_same",
        {},
        draw,
        Discard(parse_cards("9h 9h")),
        Reason.DUPLICATE_CARD,
    ),
    (
        "more_than_max_draw",
        {"max_draw": 3},
        draw,
        Discard(parse_cards("9h 9s Kd 4h")),
        Reason.TOO_MANY_DISCARDS,
    ),
]


@pytest.mark.parametrize(
    ("settings", "setup", "action", "reason"),
    [case[1:] for case in ILLEGAL],
    ids=[case[0] for case in ILLEGAL],
)
def test_r24_illegal_actions_rejected_with_reason_and_hand_unchanged(
    settings, setup, action, reason
):
    """An illegal action raises with its reason code and a message, and changes nothing."""
    stacks = [1000, 1000, 150] if setup is short_all_in else None
    hand = new_hand(stacks=stacks, **settings)
    setup(hand)
    before = snapshot(hand)
    assert False is hand.can_apply(action)
    with pytest.raises(IllegalActionError) as info:
        hand.apply(action)
    assert (reason, True) == (info.value.reason, bool(str(info.value)))
    assert before == snapshot(hand)


@pytest.mark.parametrize(
    ("settings", "setup", "action", "reason"),
    [case[1:] for case in ILLEGAL],
    ids=[case[0] for case in ILLEGAL],
)
def test_r24_verify_names_the_same_reason_as_apply(settings, setup, action, reason):
    """``verify`` refuses an illegal action with the same reason code as ``apply``."""
    stacks = [1000, 1000, 150] if setup is short_all_in else None
    hand = new_hand(stacks=stacks, **settings)
    setup(hand)
    with pytest.raises(IllegalActionError) as info:
        hand.verify(action)
    assert reason == info.value.reason


def test_r24_illegal_action_is_replaced_by_the_r23_default():
    """After a refused raise past the cap the arena applies the default: a fold facing a bet."""
    hand = new_hand()
    capped(hand)
    with pytest.raises(IllegalActionError):
        hand.apply(BetRaise(10))
    hand.apply_default()
    assert (Folded(0), 1) == (hand.events[-1], hand.actor)


def test_r24_illegal_discard_is_replaced_by_standing_pat():
    """After a refused discard of a card not held, the default stands pat."""
    hand = new_hand()
    draw(hand)
    with pytest.raises(IllegalActionError):
        hand.apply(Discard((parse_card("As"),)))
    hand.apply_default()
    assert (hand.draw_counts[1], hand.actor) == (0, 2)


def test_r24_no_action_once_the_hand_is_over():
    """Any action after the end of the hand is refused as ``hand_over``."""
    hand = new_hand()
    play(hand, BetRaise(4), FOLD, FOLD)
    with pytest.raises(IllegalActionError) as info:
        hand.apply(Call())
    assert info.value.reason == Reason.HAND_OVER

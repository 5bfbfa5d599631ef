"""Rules R3, R18, R19 and R26: hand ranks at showdown, who shows, who wins, and chip conservation."""

from __future__ import annotations

import random

import pytest
from stacking import play, stacked_deck

from arena.engine import (
    CALL,
    CHECK,
    FOLD,
    STAND_PAT,
    BetRaise,
    Deck,
    Discard,
    GameConfig,
    Hand,
    HandMucked,
    HandShown,
    Phase,
    Pot,
    PotAwarded,
    Structure,
    parse_cards,
)

NO_LIMIT = {"structure": Structure.NO_LIMIT, "small_blind": 5, "big_blind": 10}


def new_hand(hands, *, button=0, stacks=None, **settings):
    """A hand dealing ``hands[seat]`` to each seat."""
    deck = stacked_deck(hands, button)
    return Hand(GameConfig(**settings), stacks or [100] * len(hands), button, deck)


def check_down(hand):
    """Call or check every bet and stand pat at the draw until the hand is over."""
    while not hand.is_over:
        hand.apply(STAND_PAT if hand.phase is Phase.DRAW else CALL)


def shown_seats(hand):
    """Seats in the order their hands were shown."""
    return [event.seat for event in hand.events if isinstance(event, HandShown)]


def cards_seen_by(hand, seat):
    """Every card named anywhere in ``seat``'s view of the events."""
    seen = set()
    for event in hand.view(seat).events:
        for field in ("cards", "discarded", "drawn"):
            seen.update(getattr(event, field, ()) or ())
    return seen


# --- R3 hand ranking --------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "payoffs"),
    [
        ("As Ks Qs Js Ts", "Kh Qh Jh Th 9h", [2, -2]),  # royal flush is the highest
        ("9h 8h 7h 6h 5h", "Ac Ad Ah As 2c", [2, -2]),  # straight flush > four of a kind
        ("2c 2d 2h 2s 3c", "Ac Ad Ah Ks Kc", [2, -2]),  # four of a kind > full house
        ("3c 3d 3h 2s 2c", "Ah Kh Qh Jh 9h", [2, -2]),  # full house > flush
        ("2h 4h 6h 8h Th", "Ac Kd Qh Js Tc", [2, -2]),  # flush > straight
        ("6c 7d 8h 9s Tc", "Ac Ad Ah Ks Qc", [2, -2]),  # straight > three of a kind
        ("2c 2d 2h 4s 5c", "Ac Ad Kh Ks Qc", [2, -2]),  # three of a kind > two pair
        ("3c 3d 2h 2s 4c", "Ac Ad Kh Qs Jc", [2, -2]),  # two pair > one pair
        ("2c 2d 7h 8s 9c", "Ac Kd Qh Js 9d", [2, -2]),  # one pair > high card
        ("Ac Ad Kh 7s 5c", "Ah As Qh Js Tc", [2, -2]),  # the kicker decides
        ("Ac 2d 3h 4s 5c", "Qc Qd Qh 9s 8c", [2, -2]),  # the wheel is a straight
        ("Ac 2d 3h 4s 5c", "6d 5d 4c 3s 2h", [-2, 2]),  # ... and the lowest one
        ("Ac Kc Qd Jd 9h", "Ad Kd Qh Jh 9s", [0, 0]),  # suits never break ties
    ],
)
def test_r3_showdown_follows_hand_ranks(first, second, payoffs):
    """Heads-up check-down: the better hand under R3 wins the 4-chip pot, equal hands split."""
    hand = new_hand([first, second], button=1)
    check_down(hand)
    assert payoffs == hand.payoffs


# --- R18 uncontested pot ------------------------------------------------------------


def test_r18_uncontested_winner_shows_nothing():
    """When everyone else folds, the winner takes the pot and no card of any hand is shown."""
    hands = ["Ac Ad 7h 5s 2c", "Kc Kd 8h 6s 3c", "Qc Qd 9h 4s 3d"]
    hand = new_hand(hands)
    play(hand, BetRaise(4), FOLD, FOLD)
    assert [PotAwarded(0, 5, 0)] == [e for e in hand.events if isinstance(e, PotAwarded)]
    assert (shown_seats(hand), hand.shown) == ([], {})
    winner_cards = set(parse_cards(hands[0]))
    assert [set(), set()] == [cards_seen_by(hand, seat) & winner_cards for seat in (1, 2)]


def test_r18_uncontested_after_draw_shows_nothing():
    """A bet after the draw that nobody calls wins without a showdown."""
    hands = ["Ac Ad 7h 5s 2c", "Kc Kd 8h 6s 3c", "Qc Qd 9h 4s 3d"]
    hand = new_hand(hands)
    play(hand, CALL, CALL, CHECK, None, BetRaise(4), FOLD, FOLD)
    assert (shown_seats(hand), hand.payoffs) == ([], [-2, 4, -2])


# --- R19 showdown order and winners ------------------------------------------------------


def test_r19_last_aggressor_shows_first():
    """The last to bet or raise after the draw shows first; the rest follow clockwise."""
    hands = ["Ac Ad 7h 5s 2c", "Kc Kd 8h 6s 3c", "Qc Qd 9h 4s 3d"]
    hand = new_hand(hands)
    play(hand, CALL, CALL, CHECK, None, CHECK, BetRaise(4), CALL, CALL)
    assert shown_seats(hand) == [2, 0, 1]


def test_r19_first_left_of_button_shows_first_when_nobody_bet():
    """Without a bet after the draw, the first active player left of the button shows first."""
    hands = ["Ac Ad 7h 5s 2c", "Kc Kd 8h 6s 3c", "Qc Qd 9h 4s 3d"]
    hand = new_hand(hands, button=1)
    check_down(hand)
    assert shown_seats(hand) == [2, 0, 1]


def test_r19_odd_chip_goes_to_first_winner_left_of_button():
    """A 19-chip pot split by seats 3 and 0 (button 1, seat 2 folded): seat 3 gets the odd chip."""
    hands = ["6c 7d 8h 9s Tc", "Ac Ad Kh Ks 2c", "3c 3d 4h 4s 5c", "6d 7h 8s 9c Td"]
    hand = new_hand(hands, button=1)
    play(hand, CALL, CALL, FOLD, CHECK, None, CHECK, BetRaise(4), CALL, CALL)
    awards = [(e.seat, e.amount) for e in hand.events if isinstance(e, PotAwarded)]
    assert awards == [(3, 10), (0, 9)]
    assert hand.payoffs == [3, -6, -1, 4]


def test_r19_showdown_reveal_all_shows_every_hand():
    """By default every hand that reaches showdown is shown to all players."""
    hands = ["Ac Ad 7h 5s 2c", "Kc Kd 8h 6s 3c", "Qc Qd 9h 4s 3d"]
    hand = new_hand(hands)
    check_down(hand)
    assert {seat: parse_cards(cards) for seat, cards in enumerate(hands)} == hand.view(1).shown


def test_r19_muck_reveals_only_hands_that_beat_or_tie():
    """With ``muck``, seat 1 shows first, seat 2's weaker hand is mucked, seat 0's better one shown."""
    hands = ["Qc Qd Qh 4s 3d", "Kc Kd 8h 8s 3c", "Ac Ad 7h 5s 2c"]
    hand = new_hand(hands, showdown_reveal="muck")
    check_down(hand)
    assert shown_seats(hand) == [1, 0]
    assert [HandMucked(2)] == [e for e in hand.events if isinstance(e, HandMucked)]
    mucked = set(parse_cards(hands[2]))
    assert [set(), set()] == [cards_seen_by(hand, seat) & mucked for seat in (0, 1)]


def test_r19_muck_shows_a_tying_hand():
    """With ``muck``, a hand that ties the best shown so far is shown (it wins half)."""
    hands = ["Ac Kc Qd Jd 9h", "Ad Kd Qh Jh 9s", "2c 3d 5h 7s 8c"]
    hand = new_hand(hands, showdown_reveal="muck")
    check_down(hand)
    assert (shown_seats(hand), hand.payoffs) == ([1, 0], [1, 1, -2])


def test_r19_muck_side_pot_winner_must_show():
    """With ``muck``, a side-pot winner shows even if an all-in player showed a better hand."""
    hands = ["Kc Kd 7h 5s 2c", "Ac Ad Ah 9s 4c", "Qc Qd 8h 8s 3c"]
    hand = new_hand(hands, stacks=[100, 20, 100], showdown_reveal="muck", **NO_LIMIT)
    play(hand, BetRaise(50), CALL, CALL, None, CHECK, CHECK)
    assert (shown_seats(hand), hand.payoffs) == ([1, 2], [-50, 40, 10])


def test_r19_cards_speak_after_the_draw():
    """The hand held after the draw is the one that is ranked."""
    hands = ["Ac Ad 7h 5s 2c", "Kc Kd 8h 6s 3c"]
    hand = Hand(GameConfig(), [100, 100], 1, stacked_deck(hands, 1, stub="Ks"))
    play(hand, CALL, CHECK, STAND_PAT, Discard(parse_cards("3c")))
    play(hand, None, CHECK, CHECK)
    assert hand.payoffs == [-2, 2]


# --- R26 chip conservation -------------------------------------------------------------


def test_r26_chips_conserved_with_side_pots():
    """Three all-in levels make a main pot and two side pots; no chip is lost at any step."""
    hands = ["Tc Td 7h 5s 2c", "Ac Ad Ah 9s 4c", "Kc Kd Kh 8s 3c", "2d 3h 5d 7c 9d"]
    hand = new_hand(hands, stacks=[100, 30, 60, 200], **NO_LIMIT)
    script = [BetRaise(40), CALL, CALL, BetRaise(60), CALL, CALL, None, BetRaise(40), CALL]
    totals = []
    for action in script:
        play(hand, action)
        totals.append(sum(hand.stacks) + hand.pot_total)
    assert [390] * len(script) == totals
    assert [Pot(120, (0, 1, 2, 3)), Pot(90, (0, 2, 3)), Pot(80, (0, 3))] == hand.pots
    assert (hand.payoffs, sum(hand.stacks)) == ([-20, 90, 30, -100], 390)


CONFIGS = [
    {},
    {"uncapped_heads_up": True, "ante": 1},
    {"structure": "pot_limit"},
    {"structure": "no_limit", "max_draw": 3},
    {"structure": "no_limit", "forced_bets": "antes", "ante": 2},
    {"forced_bets": "antes", "ante": 1, "opening": "jacks_or_better"},
    {"joker": "wild", "showdown_reveal": "muck"},
]


def random_action(hand, rng):
    """A random legal action for the seat to act."""
    legal = hand.legal_actions()
    if hand.phase is Phase.DRAW:
        hole = hand.holes[legal.seat]
        return Discard(tuple(rng.sample(hole, rng.randint(0, legal.max_discard))))
    choices = [CALL]
    if legal.can_fold:
        choices.append(FOLD)
    if legal.can_raise:
        choices.append(BetRaise(rng.randint(legal.min_raise_to, legal.max_raise_to)))
    return rng.choice(choices)


@pytest.mark.parametrize("seed", range(300))
def test_r26_chips_conserved_in_random_hands(seed):
    """Random legal play in every structure never loses or creates a chip or a card."""
    rng = random.Random(seed)
    config = GameConfig(**CONFIGS[seed % len(CONFIGS)])
    n = rng.randint(2, 7)
    stacks = [rng.randint(1, 60) for _ in range(n)]
    deck = Deck.shuffled(random.Random(seed), joker=config.uses_joker)
    hand = Hand(config, stacks, rng.randrange(n), deck)
    broken = []
    while not hand.is_over:
        hand.apply(random_action(hand, rng))
        if sum(hand.stacks) + hand.pot_total != sum(stacks):
            broken.append(list(hand.events))
    assert broken == []
    assert sum(stacks) == sum(hand.stacks) + hand.carried_out
    assert -hand.carried_out == sum(hand.payoffs)
    assert 52 + config.uses_joker == len(set(hand.all_cards())) == len(hand.all_cards())

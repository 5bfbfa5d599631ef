"""Rules R27-R29: ante games, Jackpots (jacks or better to open) and proving openers."""

from __future__ import annotations

import pytest
from stacking import play, stacked_deck

from arena.engine import (
    CALL,
    CHECK,
    FOLD,
    STAND_PAT,
    STANDARD_DECK,
    BetRaise,
    CardsDrawn,
    Discard,
    GameConfig,
    Hand,
    HandDead,
    HandShown,
    IllegalActionError,
    Phase,
    PotAwarded,
    Reason,
    RoundStarted,
    StubReshuffled,
    describe,
    evaluate,
    format_cards,
    parse_cards,
)

ANTES = {"forced_bets": "antes", "ante": 1}
JACKPOTS = {**ANTES, "opening": "jacks_or_better"}
# Seat 0 junk, seat 1 a pair of tens (cannot open), seat 2 a pair of jacks (can open).
HANDS = ["Ac Kd 8h 6s 3c", "Tc Td 4h 5s 2c", "Jc Jd 7h 5d 2h"]


def new_hand(hands=HANDS, *, button=0, carried_pot=0, seed=0, **settings):
    """A hand dealing ``hands[seat]`` to each seat."""
    deck = stacked_deck(hands, button, seed=seed)
    config = GameConfig(**settings)
    return Hand(config, [100] * len(hands), button, deck, carried_pot=carried_pot)


def openers_shown(hand):
    """The R29 proofs of openers among the events."""
    return [e for e in hand.events if isinstance(e, HandShown) and e.openers]


# --- R27 ante game betting ------------------------------------------------------------


def test_r27_ante_game_first_round_starts_left_of_button_and_may_check():
    """With antes only, the player left of the button acts first and may check."""
    hand = new_hand(**ANTES)
    legal = hand.legal_actions()
    assert (hand.actor, legal.can_check, legal.can_fold, legal.max_raise_to) == (1, True, False, 2)


def test_r27_ante_game_checked_round_goes_to_the_draw():
    """When everyone checks the first round of an ante game, the draw follows."""
    hand = new_hand(**ANTES)
    play(hand, CHECK, CHECK, CHECK)
    assert hand.phase == Phase.DRAW


def test_r27_ante_game_second_round_starts_with_last_raiser():
    """Seat 2 opens, seat 0 raises: after the draw seat 0 acts first."""
    hand = new_hand(**ANTES)
    play(hand, CHECK, BetRaise(2), BetRaise(4), CALL, CALL, None)
    assert (hand.phase, hand.actor) == (Phase.POSTDRAW_BETTING, 0)


def test_r27_ante_game_second_round_starts_with_opener_if_nobody_raised():
    """Seat 2 opens and everyone calls: after the draw the opener acts first."""
    hand = new_hand(**ANTES)
    play(hand, CHECK, BetRaise(2), CALL, CALL, None)
    assert hand.actor == 2


def test_r27_ante_game_second_round_starts_left_of_button_if_nobody_bet():
    """If nobody bet before the draw, the second round starts left of the button."""
    hand = new_hand(button=1, **ANTES)
    play(hand, CHECK, CHECK, CHECK, None)
    assert hand.actor == 2


# --- R28 jackpots ------------------------------------------------------------------------


def test_r28_jacks_or_better_required_to_open():
    """A pair of tens may not open (checking is fine); a pair of jacks may."""
    hand = new_hand(**JACKPOTS)
    legal = hand.legal_actions()
    assert (legal.can_check, legal.can_raise) == (True, False)
    with pytest.raises(IllegalActionError) as info:
        hand.apply(BetRaise(2))
    assert info.value.reason == Reason.NOT_QUALIFIED_TO_OPEN
    play(hand, CHECK)
    assert True is hand.legal_actions().can_raise
    play(hand, BetRaise(2))
    assert hand.opener == 2


def test_r28_after_an_open_anyone_may_call_or_raise():
    """Once jacks opened, a player without openers may raise and another may call."""
    hand = new_hand(**JACKPOTS)
    play(hand, CHECK, BetRaise(2), BetRaise(4), CALL, CALL)
    assert (hand.phase, hand.committed) == (Phase.DRAW, [5, 5, 5])


def test_r28_nobody_opens_hand_is_dead():
    """If nobody opens, the hand ends without a draw and the antes stay in the pot."""
    hand = new_hand(**JACKPOTS)
    play(hand, CHECK, CHECK, CHECK)
    assert (hand.is_over, hand.dead, hand.carried_out) == (True, True, 3)
    assert HandDead(3) == hand.events[-1]
    assert RoundStarted("draw") not in hand.events
    assert (hand.payoffs, sum(hand.stacks)) == ([-1, -1, -1], 297)


def test_r28_carried_pot_goes_to_the_next_winner():
    """The pot of a dead hand joins the next hand's main pot and goes to its winner."""
    hand = new_hand(carried_pot=3, **JACKPOTS)
    assert hand.pot_total == 6
    play(hand, CHECK, BetRaise(2), FOLD, FOLD)
    assert [PotAwarded(2, 6, 0)] == [e for e in hand.events if isinstance(e, PotAwarded)]
    assert hand.payoffs == [-1, -1, 5]


# --- R29 proving openers --------------------------------------------------------------------


JACKS = parse_cards("Jc Jd")
WEAKEST_JACKS = evaluate(parse_cards("Jc Jd 4h 3s 2c"))  # what the shown pair proves, no more


def test_r29_openers_shown_when_opener_wins_uncontested():
    """An opener who wins without a call still shows the jacks it opened with, and only them."""
    hand = new_hand(**JACKPOTS)
    play(hand, CHECK, BetRaise(2), FOLD, FOLD)
    assert [HandShown(2, JACKS, WEAKEST_JACKS, openers=True)] == openers_shown(hand)
    assert describe(WEAKEST_JACKS) == "One pair, Jacks"


def test_r29_openers_shown_even_after_fold():
    """An opener who breaks its pair at the draw and later folds still shows the pair it opened with."""
    hand = new_hand(**JACKPOTS)
    play(hand, CHECK, BetRaise(2), CALL, CALL)
    play(hand, STAND_PAT, Discard(parse_cards("Jc")), STAND_PAT)
    play(hand, CHECK, BetRaise(4), FOLD, FOLD)
    assert [HandShown(2, JACKS, WEAKEST_JACKS, openers=True)] == openers_shown(hand)
    assert hand.payoffs == [6, -3, -3]


@pytest.mark.parametrize(
    ("held", "joker", "proof", "name"),
    [
        ("Jc Jd 7h 5d 2h", "off", "Jc Jd", "One pair, Jacks"),
        ("Kc 5d Kh 5s 2h", "off", "Kc Kh", "One pair, Kings"),  # the higher pair is enough
        ("5c 5d 3h 3s Ah", "off", "5c 5d 3h 3s", "Two pair, Fives and Threes"),
        ("2c 2d 2h 9s Ah", "off", "2c 2d 2h", "Three of a kind, Twos"),
        ("2c 2d 2h 2s Ah", "off", "2c 2d 2h", "Three of a kind, Twos"),
        ("Jc Jd Jh 5s 5h", "off", "Jc Jd", "One pair, Jacks"),
        ("9c Td Jh Qs Kh", "off", "9c Td Jh Qs Kh", "Straight, King high"),
        ("2h 5h 9h Th Kh", "off", "2h 5h 9h Th Kh", "Flush, King-Ten-Nine-Five-Two"),
        ("Jk Qd 7h 5d 2h", "wild", "Jk Qd", "One pair, Queens"),
        ("Jk Ad 7h 5d 2h", "bug", "Jk Ad", "One pair, Aces"),
        ("Jk 5d 5h 9d 2h", "wild", "Jk 5d 5h", "Three of a kind, Fives"),
        ("Jk Ad Kd 9d 2h", "wild", "Jk Ad", "One pair, Aces"),
        ("Jk 2d 3h 4d 5h", "bug", "Jk 2d 3h 4d 5h", "Straight, Six high"),
    ],
)
def test_r29_proving_openers_shows_only_the_cards_that_qualify(held, joker, proof, name):
    """The proof is the fewest of the opener's cards that make jacks or better; the rest stay hidden."""
    other = format_cards([c for c in STANDARD_DECK if c not in parse_cards(held)][:5])
    hand = new_hand([other, held], joker=joker, **JACKPOTS)  # seat 1 acts first
    play(hand, BetRaise(2), FOLD)
    [shown] = openers_shown(hand)
    assert (shown.seat, format_cards(shown.cards, " ")) == (1, proof)
    assert describe(shown.rank) == name


def test_r29_no_openers_to_show_in_a_dead_hand():
    """A dead hand had no opener, so nothing is shown."""
    hand = new_hand(**JACKPOTS)
    play(hand, CHECK, CHECK, CHECK)
    assert openers_shown(hand) == []


def seven_players_drawing(seed=0):
    """Seven Jackpots players: seat 0 opens with jacks and draws 3, all others call and draw 5."""
    others = [c for c in STANDARD_DECK if c not in parse_cards("Jc Jd 2h 3s 4c")]
    hands = ["Jc Jd 2h 3s 4c"] + [format_cards(others[5 * k : 5 * k + 5]) for k in range(6)]
    hand = Hand(GameConfig(**JACKPOTS), [100] * 7, 6, stacked_deck(hands, 6, seed=seed))
    play(hand, BetRaise(2), *[CALL] * 6)
    hand.discard(parse_cards("2h 3s 4c"))
    while hand.phase is Phase.DRAW:
        hand.discard(tuple(hand.holes[hand.actor]))
    return hand


@pytest.mark.parametrize("seed", range(10))
def test_r29_opener_discards_not_reshuffled(seed):
    """Under R17 the pool holds the last card and others' discards, never the opener's three."""
    hand = seven_players_drawing(seed)
    reshuffles = [e for e in hand.events if isinstance(e, StubReshuffled)]
    assert [StubReshuffled(3, 3, 11), StubReshuffled(5, 3, 11)] == reshuffles
    drawn = {card for e in hand.events if isinstance(e, CardsDrawn) for card in e.drawn}
    assert set() == drawn & set(parse_cards("2h 3s 4c"))
    assert sorted(STANDARD_DECK) == sorted(hand.all_cards())


def test_r29_a_folded_openers_hand_is_never_redealt():
    """An opener who folds keeps the hand out of the reshuffle (R17): it is shown at the end (R29)."""
    from arena.engine import CALL, FOLD, BetRaise, Discard, GameConfig, Hand, HandShown, parse_cards

    config = GameConfig(small_bet=2, ante=1, forced_bets="antes", opening="jacks_or_better")
    hands = [
        "JcJd2c3c4c",
        "5d6d7d8dTc",
        "2d3d4d5c6c",
        "7c8c9cTdQc",
        "2h3h4h5h6h",
        "7h8h9hThQh",
        "2s3s4s5s6s",
    ]
    opener_cards = set(parse_cards(hands[0]))
    for seed in range(20):
        hand = Hand(config, [100] * 7, 6, stacked_deck(hands, 6, seed=seed))
        hand.apply(BetRaise(2))  # seat 0 opens with jacks
        hand.apply(BetRaise(4))  # seat 1 raises
        for _ in range(5):
            hand.apply(CALL)
        hand.apply(FOLD)  # the opener folds
        while hand.phase is Phase.DRAW:  # everybody draws five: the stub runs out (R17)
            hand.apply(Discard(tuple(hand.holes[hand.actor])))
        held = {card for seat in range(7) if not hand.folded[seat] for card in hand.holes[seat]}
        assert not held & opener_cards, f"seed {seed}: the folded opener's cards were redealt"
        while not hand.is_over:
            hand.apply_default()
        proofs = [e for e in hand.events if isinstance(e, HandShown) and e.openers]
        assert [0] == [e.seat for e in proofs]
        assert set(parse_cards("JcJd")) == set(proofs[0].cards)  # the openers, and only them


@pytest.mark.parametrize("opener_folds", [False, True], ids=["uncontested", "folded"])
def test_r29_openers_hidden_cards_stay_hidden_in_every_view(opener_folds):
    """Only the proof joins the public record: no other seat's view names the opener's other cards."""
    hand = new_hand(**JACKPOTS)
    if opener_folds:
        play(hand, CHECK, BetRaise(2), CALL, CALL, None, BetRaise(4), FOLD, FOLD)
    else:
        play(hand, CHECK, BetRaise(2), FOLD, FOLD)
    assert hand.is_over
    hidden = set(parse_cards(HANDS[2])) - set(JACKS)
    for seat in (0, 1):
        view = hand.view(seat)
        seen = {card for event in view.events for card in getattr(event, "cards", ()) or ()}
        seen.update(card for cards in view.shown.values() for card in cards)
        assert set(JACKS) <= seen
        assert not seen & hidden, f"seat {seat} sees {format_cards(seen & hidden)}"

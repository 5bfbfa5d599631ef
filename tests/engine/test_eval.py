"""Rules R2, R3 and R28: the 5-card hand evaluator, the joker, and Jackpots openers."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, pairwise

import pytest

from arena.engine._cards import JOKER, STANDARD_DECK, Card, parse_cards
from arena.engine._eval import (
    FIVE_OF_A_KIND_BASE,
    MAX_RANK,
    MAX_STANDARD_RANK,
    HandCategory,
    category,
    describe,
    evaluate,
    evaluate5,
    qualifies_jacks_or_better,
)


def rank_of(text: str, joker: str | None = None) -> int:
    return evaluate(parse_cards(text), joker)


def random_hands(count: int, seed: int) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    return [tuple(rng.sample(STANDARD_DECK, 5)) for _ in range(count)]


# --- R3: standard hands ---------------------------------------------------------------


@pytest.mark.slow
def test_r3_category_counts_over_all_2598960_hands():
    """Every 5-card hand: the textbook count per category and 7,462 distinct ranks."""
    per_rank = [0] * (MAX_RANK + 1)
    for hand in combinations(STANDARD_DECK, 5):
        per_rank[evaluate(hand)] += 1
    assert per_rank[0] == 0
    assert sum(per_rank) == 2_598_960
    hands = Counter()
    classes = Counter()
    for rank, count in enumerate(per_rank):
        if count:
            hands[category(rank)] += count
            classes[category(rank)] += 1
    assert sum(classes.values()) == MAX_STANDARD_RANK
    assert set(range(1, MAX_STANDARD_RANK + 1)) == {r for r, n in enumerate(per_rank) if n}
    assert hands == {
        HandCategory.STRAIGHT_FLUSH: 40,
        HandCategory.FOUR_OF_A_KIND: 624,
        HandCategory.FULL_HOUSE: 3744,
        HandCategory.FLUSH: 5108,
        HandCategory.STRAIGHT: 10200,
        HandCategory.THREE_OF_A_KIND: 54912,
        HandCategory.TWO_PAIR: 123552,
        HandCategory.ONE_PAIR: 1098240,
        HandCategory.HIGH_CARD: 1302540,
    }
    assert classes == {
        HandCategory.STRAIGHT_FLUSH: 10,
        HandCategory.FOUR_OF_A_KIND: 156,
        HandCategory.FULL_HOUSE: 156,
        HandCategory.FLUSH: 1277,
        HandCategory.STRAIGHT: 10,
        HandCategory.THREE_OF_A_KIND: 858,
        HandCategory.TWO_PAIR: 858,
        HandCategory.ONE_PAIR: 2860,
        HandCategory.HIGH_CARD: 1277,
    }


def test_r3_extremes_are_royal_flush_and_seven_high():
    """The best standard hand is 7462, the worst (7-5-4-3-2 offsuit) is 1."""
    assert rank_of("AsKsQsJsTs") == MAX_STANDARD_RANK == 7462
    assert rank_of("7c5d4h3s2c") == 1


def test_r3_categories_are_ordered():
    """One hand per category, weakest first, ranks strictly increase (R3 order)."""
    ladder = [
        ("AdKc9h7s2c", HandCategory.HIGH_CARD),
        ("2c2dAhKsQc", HandCategory.ONE_PAIR),
        ("3c3d2h2sAc", HandCategory.TWO_PAIR),
        ("2c2d2hAsKc", HandCategory.THREE_OF_A_KIND),
        ("Ac2d3h4s5c", HandCategory.STRAIGHT),
        ("2h3h4h5h7h", HandCategory.FLUSH),
        ("2c2d2h3s3c", HandCategory.FULL_HOUSE),
        ("2c2d2h2sAc", HandCategory.FOUR_OF_A_KIND),
        ("Ad2d3d4d5d", HandCategory.STRAIGHT_FLUSH),
    ]
    ranks = [rank_of(text) for text, _ in ladder]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    assert [category(rank) for rank in ranks] == [cat for _, cat in ladder]


def test_r3_wheel_is_the_lowest_straight():
    """A-2-3-4-5 is a straight, below 2-6, and its straight flush is the lowest one."""
    wheel = rank_of("Ac2d3h4s5c")
    assert category(wheel) is HandCategory.STRAIGHT
    assert wheel < rank_of("2c3d4h5s6c")
    assert wheel > rank_of("AcAdKhQsJc")  # above every three of a kind too: it is a straight
    straights = [r for r in range(1, MAX_STANDARD_RANK + 1) if category(r) is HandCategory.STRAIGHT]
    assert wheel == min(straights)
    wheel_flush = rank_of("As2s3s4s5s")
    assert category(wheel_flush) is HandCategory.STRAIGHT_FLUSH
    assert wheel_flush < rank_of("2s3s4s5s6s")
    assert wheel_flush == min(
        r for r in range(1, MAX_STANDARD_RANK + 1) if category(r) is HandCategory.STRAIGHT_FLUSH
    )


def test_r3_ace_does_not_wrap_around():
    """Q-K-A-2-3 is no straight: the ace is high or (only in the wheel) low."""
    assert category(rank_of("QcKdAh2s3c")) is HandCategory.HIGH_CARD


def test_r3_suits_never_break_ties():
    """Relabelling suits never changes a rank, so suited ties split (R3)."""
    rng = random.Random(3)
    for hand in random_hands(2000, seed=7):
        perm = list(range(4))
        rng.shuffle(perm)
        relabelled = tuple(Card.of(card.rank, perm[card.suit]) for card in hand)
        assert evaluate(relabelled) == evaluate(hand)
    assert rank_of("AsKsQsJs9s") == rank_of("AhKhQhJh9h")
    assert rank_of("AsAdKcQh2c") == rank_of("AhAcKdQs2h")


def test_r3_kickers_decide_within_a_category():
    """Same category: higher pair, then kickers in order, decide (R3)."""
    assert rank_of("KcKd9h5s2c") > rank_of("QcQdAhKsJc")  # the pair before kickers
    assert rank_of("KcKd9h5s3c") > rank_of("KhKs9c5d2d")  # last kicker
    assert rank_of("AcAd3h3s2c") > rank_of("KcKdQhQsJc")  # two pair: top pair first
    assert rank_of("8c8d5h5sAc") > rank_of("8h8s5c5dKc")  # then the kicker
    assert rank_of("3c3d3hAsAc") < rank_of("4c4d4h2s2c")  # full house: the trips
    assert rank_of("AsKsQsJs9s") > rank_of("AhKhQhJh8h")  # flush: every card counts


def test_r3_evaluate5_matches_evaluate():
    """The unpacked variant gives the same rank as the sequence one."""
    for hand in random_hands(5000, seed=11):
        assert evaluate5(*hand) == evaluate(hand)
    assert evaluate(list(parse_cards("AsKsQsJsTs"))) == MAX_STANDARD_RANK


def test_r3_wrong_hand_size_is_an_error():
    """Five Card Draw ranks exactly five cards; other counts are a caller bug."""
    with pytest.raises(ValueError, match="exactly 5 cards, got 4"):
        evaluate(parse_cards("AsKsQsJs"))
    with pytest.raises(ValueError, match="exactly 5 cards, got 6"):
        evaluate(parse_cards("AsKsQsJsTs9s"))


# --- describe() and category() ------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "text"),
    [
        ("KcKdKh4s4c", "Full house, Kings full of Fours"),
        ("AcAd8h8s5c", "Two pair, Aces and Eights"),
        ("2c3d4h5s6c", "Straight, Six high"),
        ("Ac2d3h4s5c", "Straight, Five high"),
        ("AsKsQsJsTs", "Royal flush"),
        ("9h8h7h6h5h", "Straight flush, Nine high"),
        ("AhKh9h7h2h", "Flush, Ace-King-Nine-Seven-Two"),
        ("AdKc9h7s2c", "High card, Ace-King-Nine-Seven-Two"),
        ("6c6dAhKsQc", "One pair, Sixes"),
        ("QcQdQhAs2c", "Three of a kind, Queens"),
        ("TcTdThTs2c", "Four of a kind, Tens"),
    ],
)
def test_r3_describe_names_the_hand(hand, text):
    """describe() gives the words a dealer would say."""
    assert describe(rank_of(hand)) == text


def test_r3_describe_with_kickers():
    """kickers=True adds what breaks ties between equal pairs."""
    assert describe(rank_of("AcAd8h8s5c"), kickers=True) == "Two pair, Aces and Eights, Five kicker"
    assert (
        describe(rank_of("6c6dAhKsQc"), kickers=True) == "One pair, Sixes, Ace-King-Queen kickers"
    )
    assert describe(rank_of("KcKdKh4s4c"), kickers=True) == "Full house, Kings full of Fours"


def test_r3_every_rank_has_a_category_and_description():
    """category() and describe() cover 1..7475 and reject anything else."""
    for rank in range(1, MAX_RANK + 1):
        assert describe(rank)
    assert category(FIVE_OF_A_KIND_BASE) is HandCategory.FIVE_OF_A_KIND
    assert describe(MAX_RANK) == "Five of a kind, Aces"
    assert describe(FIVE_OF_A_KIND_BASE) == "Five of a kind, Twos"
    for bad in (0, -1, MAX_RANK + 1):
        with pytest.raises(ValueError, match="not a hand rank"):
            category(bad)


# --- R2: the joker ----------------------------------------------------------------------


def test_r2_joker_without_joker_option_is_an_error():
    """A joker in a hand at a 52-card table is a caller bug, named as such."""
    with pytest.raises(ValueError, match="holds the joker"):
        rank_of("AsKsQsJsJk")
    with pytest.raises(ValueError, match="holds the joker"):
        rank_of("AsKsQsJsJk", "off")
    with pytest.raises(ValueError, match="joker must be"):
        rank_of("AsKsQsJsJk", "sometimes")


def test_r2_joker_option_leaves_plain_hands_alone():
    """Without the joker in the hand, the option changes nothing."""
    for hand in random_hands(500, seed=5):
        assert evaluate(hand, "bug") == evaluate(hand, "wild") == evaluate(hand)


def test_r2_bug_with_four_aces_is_five_aces():
    """Four aces and the bug: five of a kind, above a royal flush (R3)."""
    rank = rank_of("AsAdAhAcJk", "bug")
    assert rank == MAX_RANK
    assert category(rank) is HandCategory.FIVE_OF_A_KIND
    assert rank > rank_of("AsKsQsJsTs")


def test_r2_bug_with_a_pair_is_an_ace_kicker_not_trips():
    """The bug only counts as an ace: K-K-7-4 + bug is Kings with an Ace kicker."""
    rank = rank_of("KhKd7c4sJk", "bug")
    assert rank == rank_of("KhKd7c4sAs")
    assert category(rank) is HandCategory.ONE_PAIR


def test_r2_bug_as_an_ace_may_duplicate_one_held():
    """A-K-9-5 offsuit + bug is a pair of aces (the bug is an ace even if one is held)."""
    assert rank_of("AsKd9h5cJk", "bug") == rank_of("AsAhKd9h5c")
    assert rank_of("AsAdKh5cJk", "bug") == rank_of("AsAdAhKh5c")  # trips
    assert rank_of("AsAdAhKcJk", "bug") == rank_of("AsAdAhAcKc")  # four aces


def test_r2_bug_completes_straights_and_flushes():
    """The bug may be any card that completes a straight, flush or straight flush."""
    assert describe(rank_of("9hTcJdQsJk", "bug")) == "Straight, King high"
    assert describe(rank_of("2h3c4d5sJk", "bug")) == "Straight, Six high"
    assert describe(rank_of("2h3c4d6sJk", "bug")) == "Straight, Six high"  # inside
    assert rank_of("Ks9s5s3sJk", "bug") == rank_of("AsKs9s5s3s")  # ace of the suit
    # An ace of the suit already held: the bug is the highest spade missing.
    assert rank_of("AsKs9s5sJk", "bug") == rank_of("AsKsQs9s5s")
    assert rank_of("AsKsQsJsJk", "bug") == MAX_STANDARD_RANK  # royal flush
    assert describe(rank_of("9s8s7s6sJk", "bug")) == "Straight flush, Ten high"


def test_r2_bug_never_pairs_other_ranks():
    """Four kings + bug is four kings with an ace kicker, not five kings."""
    assert rank_of("KsKdKhKcJk", "bug") == rank_of("KsKdKhKcAs")
    assert rank_of("7s7d3h2cJk", "bug") == rank_of("7s7d3h2cAs")


def test_r2_wild_makes_five_of_a_kind_of_any_rank():
    """Four kings + wild joker: five kings, above a royal flush and below five aces."""
    kings = rank_of("KsKdKhKcJk", "wild")
    assert category(kings) is HandCategory.FIVE_OF_A_KIND
    assert kings == FIVE_OF_A_KIND_BASE + 11
    assert rank_of("AsKsQsJsTs") < kings < rank_of("AsAdAhAcJk", "wild")
    assert rank_of("2s2d2h2cJk", "wild") == FIVE_OF_A_KIND_BASE


def test_r2_wild_is_any_card():
    """A wild joker takes whatever value makes the best hand."""
    assert rank_of("9s8s7s6sJk", "wild") == rank_of("Ts9s8s7s6s")  # straight flush
    assert rank_of("AsKsQsJsJk", "wild") == MAX_STANDARD_RANK
    assert rank_of("KhKd7c4sJk", "wild") == rank_of("KhKdKs7c4s")  # trips, not ace kicker
    assert rank_of("KhKd7c7sJk", "wild") == rank_of("KhKdKs7c7s")  # full house
    assert rank_of("Jh8c4d2sJk", "wild") == rank_of("JhJc8c4d2s")


def _best_substitute(four: tuple[Card, ...], mode: str) -> int:
    """Brute force: the best rank over every distinct card the joker could stand for."""
    ranks = [r.rank for r in four]
    if len(set(ranks)) == 1 and (mode == "wild" or ranks[0] == 12):
        return FIVE_OF_A_KIND_BASE + ranks[0]
    best = 0
    for card in STANDARD_DECK:
        if card in four:
            continue
        rank = evaluate((*four, card))
        allowed = (
            mode == "wild"
            or card.rank == 12
            or category(rank)
            in (
                HandCategory.STRAIGHT,
                HandCategory.FLUSH,
                HandCategory.STRAIGHT_FLUSH,
            )
        )
        if allowed:
            best = max(best, rank)
    return best


@pytest.mark.parametrize("mode", ["bug", "wild"])
def test_r2_joker_matches_brute_force(mode):
    """Joker hands equal the best legal substitution found by brute force."""
    rng = random.Random(17)
    for _ in range(1500):
        four = tuple(rng.sample(STANDARD_DECK, 4))
        hand = list(four)
        hand.insert(rng.randrange(5), JOKER)
        assert evaluate(hand, mode) == _best_substitute(four, mode), hand
        assert evaluate5(*hand, mode) == evaluate(hand, mode)
    # Four-suited and four-of-a-kind hands are rare at random: test them all by suit/rank.
    for suit in range(4):
        for ranks in combinations(range(13), 4):
            four = tuple(Card.of(r, suit) for r in ranks)
            assert evaluate((*four, JOKER), mode) == _best_substitute(four, mode)
    for r in range(13):
        four = tuple(Card.of(r, suit) for suit in range(4))
        assert evaluate((JOKER, *four), mode) == _best_substitute(four, mode)


# --- R28: Jackpots openers ------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "joker", "opens"),
    [
        ("JcJd4h3s2c", None, True),  # the weakest pair of jacks
        ("TcTdAhKsQc", None, False),
        ("AcKdQhJs9c", None, False),
        ("3c3d2h2sAc", None, True),  # any two pair beats a pair of jacks
        ("2c3d4h5s6c", None, True),
        ("AcAd4h3s2c", None, True),
        ("Jh8c4d2sJk", "wild", True),  # jack + wild joker: pair of jacks
        ("Jh8c4d2sJk", "bug", False),  # the bug is only an ace here
        ("Ah8c4d2sJk", "bug", True),  # pair of aces
    ],
)
def test_r28_jacks_or_better(hand, joker, opens):
    """Only a pair of jacks or better may open a Jackpots pot."""
    assert qualifies_jacks_or_better(parse_cards(hand), joker) is opens


# --- cross-check against treys -------------------------------------------------------


_TREYS_CLASS = {
    HandCategory.STRAIGHT_FLUSH: "Straight Flush",
    HandCategory.FOUR_OF_A_KIND: "Four of a Kind",
    HandCategory.FULL_HOUSE: "Full House",
    HandCategory.FLUSH: "Flush",
    HandCategory.STRAIGHT: "Straight",
    HandCategory.THREE_OF_A_KIND: "Three of a Kind",
    HandCategory.TWO_PAIR: "Two Pair",
    HandCategory.ONE_PAIR: "Pair",
    HandCategory.HIGH_CARD: "High Card",
}


def test_r3_agrees_with_treys_on_20000_random_hands():
    """Same order and categories as treys (lower-is-better there) on random hands."""
    treys = pytest.importorskip("treys", reason="treys is in the bench extra; cross-check skipped")
    evaluator = treys.Evaluator()
    ours: list[int] = []
    theirs: list[int] = []
    for hand in random_hands(20_000, seed=2024):
        rank = evaluate(hand)
        their = evaluator.evaluate([treys.Card.new(str(card)) for card in hand], [])
        ours.append(rank)
        theirs.append(their)
        assert rank == MAX_STANDARD_RANK + 1 - their  # same 7462 classes, reversed
        assert (
            evaluator.class_to_string(evaluator.get_rank_class(their))
            == _TREYS_CLASS[category(rank)]
        )
    # Pairwise order consistency: sorting by ours must sort theirs descending.
    order = sorted(range(len(ours)), key=ours.__getitem__)
    for i, j in pairwise(order):
        if ours[i] == ours[j]:
            assert theirs[i] == theirs[j]
        else:
            assert theirs[i] > theirs[j]

"""Win rates in mbb/hand with 95% intervals, per bot and per pair."""

from __future__ import annotations

import pytest

from arena.ratings import MatchChips, bot_win_rates, pair_units, pair_win_rates
from arena.stats import win_rate

HEADS_UP = MatchChips(bot_chips={"A": [100, -50, 30, 20], "B": [-100, 50, -30, -20]}, big_blind=10)


class TestBotWinRates:
    def test_single_match_matches_win_rate(self):
        """One ordinary match gives exactly ``win_rate`` over its hands."""
        rates = bot_win_rates([HEADS_UP])
        expected = win_rate([100, -50, 30, 20], 10)
        assert rates["A"].hands == 4
        assert rates["A"].mbb_per_hand == pytest.approx(expected.mbb_per_hand)
        assert rates["A"].ci95 == pytest.approx(expected.ci95)
        assert rates["A"].mbb_per_hand == pytest.approx(2500.0)  # 25 chips/hand over a 10-chip BB

    def test_duplicate_blocks_are_the_unit(self):
        """A duplicate match counts hands_per_unit hands per unit and divides by them."""
        match = MatchChips(bot_chips={"A": [40, -10, 30]}, big_blind=10, hands_per_unit=2)
        rate = bot_win_rates([match])["A"]
        expected = win_rate([40, -10, 30], 10, hands_per_unit=2)
        assert (rate.hands, rate.mbb_per_hand) == (6, pytest.approx(1000.0))
        assert rate.ci95 == pytest.approx(expected.ci95)

    def test_matches_are_pooled(self):
        """Two matches with the same blind pool into one sample of units."""
        other = MatchChips(bot_chips={"A": [10, 10], "C": [-10, -10]}, big_blind=10)
        rate = bot_win_rates([HEADS_UP, other])["A"]
        expected = win_rate([100, -50, 30, 20, 10, 10], 10)
        assert rate.hands == 6
        assert rate.mbb_per_hand == pytest.approx(expected.mbb_per_hand)
        assert rate.ci95 == pytest.approx(expected.ci95)


class TestPairWinRates:
    def test_heads_up_pair_is_the_bots_own_rate_and_its_negation(self):
        """Heads-up, A against B is A's rate; B against A is its negation with the same interval."""
        rates = pair_win_rates([HEADS_UP])
        a = bot_win_rates([HEADS_UP])["A"]
        assert rates[("A", "B")].mbb_per_hand == pytest.approx(a.mbb_per_hand)
        assert rates[("A", "B")].ci95 == pytest.approx(a.ci95)
        assert rates[("B", "A")].mbb_per_hand == pytest.approx(-a.mbb_per_hand)
        assert rates[("B", "A")].ci95 == pytest.approx(a.ci95)

    def test_three_seat_pair_is_half_the_chip_difference(self):
        """At a 3-seat table A against C per unit is (A - C) / 2, in mbb/hand."""
        table = MatchChips(
            bot_chips={"A": [30, -10], "B": [-10, -10], "C": [-20, 20]}, big_blind=10
        )
        assert pair_units([table])[("A", "C")] == pytest.approx([2500.0, -1500.0])
        rate = pair_win_rates([table])[("A", "C")]
        assert rate.hands == 2
        assert rate.mbb_per_hand == pytest.approx(500.0)
        assert rate.ci95 == pytest.approx(win_rate([25, -15], 10).ci95)

    def test_interval_shrinks_with_more_units(self):
        """Repeating the units four times shrinks the interval to sqrt(12 / 60) of its width.

        With sum of squares S: sqrt((S / 3) / 4) for 4 units, sqrt((4 S / 15) / 16) for 16.
        """
        few = MatchChips(bot_chips={"A": [10, -10, 30, -20], "B": [-10, 10, -30, 20]}, big_blind=2)
        many = MatchChips(
            bot_chips={"A": [10, -10, 30, -20] * 4, "B": [-10, 10, -30, 20] * 4}, big_blind=2
        )
        ratio = pair_win_rates([many])[("A", "B")].ci95 / pair_win_rates([few])[("A", "B")].ci95
        assert ratio == pytest.approx((12 / 60) ** 0.5)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"bot_chips": {"A": [1, 2], "B": [1]}, "big_blind": 10},
        {"bot_chips": {"A": [1]}, "big_blind": 0},
        {"bot_chips": {"A": [1]}, "big_blind": 10, "hands_per_unit": 0},
    ],
)
def test_invalid_match_chips_are_refused(kwargs):
    """Units of different lengths, a non-positive blind or an empty unit raise ValueError."""
    with pytest.raises(ValueError):
        MatchChips(**kwargs)

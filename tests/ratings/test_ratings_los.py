"""Likelihood of superiority from win/loss records and from chip results."""

from __future__ import annotations

import pytest

from arena.ratings import MatchChips, PairResult, chip_los_matrix, los, los_from_chips, los_matrix


class TestLos:
    def test_ten_wins_no_losses(self):
        """10-0: (1 + erf(10 / sqrt(20))) / 2 = 0.99922."""
        assert los(10, 0) == pytest.approx(0.9992173, abs=1e-7)

    def test_six_wins_four_losses(self):
        """6-4: (1 + erf(2 / sqrt(20))) / 2 = 0.73646."""
        assert los(6, 4) == pytest.approx(0.7364554, abs=1e-7)

    def test_equal_record_and_no_games_are_one_half(self):
        """5-5 and 0-0 say nothing: 0.5."""
        assert los(5, 5) == 0.5
        assert los(0, 0) == 0.5


class TestLosMatrix:
    def test_pairs_from_results_with_draws_ignored(self):
        """A beat B 6 times, lost 4, drew 3 (ignored); B beat C twice (either orientation)."""
        results = (
            [PairResult("A", "B", 1.0)] * 4
            + [PairResult("B", "A", 0.0)] * 2
            + [PairResult("A", "B", 0.0)] * 4
            + [PairResult("A", "B", 0.5)] * 3
            + [PairResult("C", "B", 0.0)] * 2
        )
        matrix = los_matrix(results)
        assert matrix[("A", "B")] == pytest.approx(0.7364554, abs=1e-7)
        assert matrix[("B", "A")] == pytest.approx(1 - 0.7364554, abs=1e-7)
        assert matrix[("B", "C")] == pytest.approx(los(2, 0))
        assert ("A", "C") not in matrix

    def test_weights_do_not_change_the_count(self):
        """A multi-seat result of weight 1/2 is still one comparison of the pair."""
        assert los_matrix([PairResult("A", "B", 1.0, 0.5)]) == los_matrix(
            [PairResult("A", "B", 1.0)]
        )


class TestLosFromChips:
    def test_normal_approximation(self):
        """Samples 2 and 4: mean 3, standard error 1, so P(mean > 0) = Phi(3) = 0.99865."""
        assert los_from_chips([2, 4]) == pytest.approx(0.9986501, abs=1e-7)

    def test_symmetric_and_degenerate_cases(self):
        """Mirrored samples give complementary values; too few or constant samples go by sign."""
        samples = [5, -3, 8, 1, -2]
        assert los_from_chips(samples) + los_from_chips([-x for x in samples]) == pytest.approx(1)
        assert los_from_chips([7]) == 0.5
        assert los_from_chips([3, 3, 3]) == 1.0
        assert los_from_chips([-3, -3]) == 0.0

    def test_chip_los_matrix_per_pair(self):
        """The heads-up pair's LOS is the chip LOS of the first bot's units, and the reverse complements it."""
        match = MatchChips(bot_chips={"A": [20, 40], "B": [-20, -40]}, big_blind=10)
        matrix = chip_los_matrix([match])
        assert matrix[("A", "B")] == pytest.approx(0.9986501, abs=1e-7)
        assert matrix[("B", "A")] == pytest.approx(1 - 0.9986501, abs=1e-7)

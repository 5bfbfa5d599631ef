"""Pairwise results from a match's or a table's chips."""

from __future__ import annotations

import math

import pytest

from arena.ratings import PairResult, pairwise_results


class TestPairwiseResults:
    def test_three_seat_table_gives_three_results_of_weight_one_half(self):
        """A 3-seat table gives every pair a result by chips, each weighted 1/(n-1) = 1/2."""
        results = pairwise_results({"A": 30, "B": -10, "C": -20})
        assert [
            PairResult("A", "B", 1.0, 0.5),
            PairResult("A", "C", 1.0, 0.5),
            PairResult("B", "C", 1.0, 0.5),
        ] == results

    def test_losses_and_draws_by_chips(self):
        """Fewer chips is a loss (0) and equal chips a draw (0.5)."""
        results = pairwise_results({"A": -5, "B": 5, "C": -5})
        assert [(r.a, r.b, r.score) for r in results] == [
            ("A", "B", 0.0),
            ("A", "C", 0.5),
            ("B", "C", 1.0),
        ]

    def test_heads_up_match_is_one_game(self):
        """Heads-up, the single result has weight 1."""
        assert [PairResult("A", "B", 0.0, 1.0)] == pairwise_results({"A": -40, "B": 40})

    def test_each_bot_at_a_seven_seat_table_plays_one_game_in_total(self):
        """At a 7-seat table each bot's results add up to weight 1."""
        results = pairwise_results({f"bot{i}": i for i in range(7)})
        assert len(results) == 21
        for name in (f"bot{i}" for i in range(7)):
            assert sum(r.weight for r in results if name in (r.a, r.b)) == pytest.approx(1.0)

    def test_fewer_than_two_bots_give_nothing(self):
        """A table with one bot has no pairs."""
        assert [] == pairwise_results({"A": 0})


class TestPairResult:
    def test_swapped_is_the_other_side(self):
        """``swapped`` exchanges the bots and complements the score."""
        assert PairResult("B", "A", 0.25, 2.0) == PairResult("A", "B", 0.75, 2.0).swapped()

    @pytest.mark.parametrize(
        ("a", "b", "score", "weight"),
        [("A", "A", 1.0, 1.0), ("A", "B", 1.5, 1.0), ("A", "B", -0.1, 1.0), ("A", "B", 1.0, 0.0)],
    )
    def test_invalid_results_are_refused(self, a, b, score, weight):
        """A bot against itself, a score outside [0, 1] or a non-positive weight raise ValueError."""
        with pytest.raises(ValueError):
            PairResult(a, b, score, weight)


def test_margin_results_score_by_how_much_not_how_often():
    """A bigger margin scores closer to 1; no margin is a draw; the score is antisymmetric."""
    from arena.ratings import margin_results

    (small,) = margin_results({"a": 2, "b": -2}, big_blind=2, hands=2)
    (big,) = margin_results({"a": 40, "b": -40}, big_blind=2, hands=2)
    (even,) = margin_results({"a": 0, "b": 0}, big_blind=2, hands=2)
    assert 0.5 < small.score < big.score < 1.0
    assert 0.5 == even.score
    # one big blind per hand of margin: 0.5 + 0.5 * tanh(1)
    (one_bb,) = margin_results({"a": 4, "b": -4}, big_blind=2, hands=2)
    assert abs(one_bb.score - (0.5 + 0.5 * math.tanh(1.0))) < 1e-12
    (reverse,) = margin_results({"b": -40, "a": 40}, big_blind=2, hands=2)
    assert abs(reverse.score - (1.0 - big.score)) < 1e-12
    three = margin_results({"a": 3, "b": 0, "c": -3}, big_blind=1, hands=1)
    assert all(abs(r.weight - 0.5) < 1e-12 for r in three)

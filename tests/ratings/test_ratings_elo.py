"""Incremental Elo against hand-computed values."""

from __future__ import annotations

import random

import pytest

from arena.ratings import EloSystem, PairResult, pairwise_results


class TestExpected:
    def test_equal_ratings_expect_one_half(self):
        """Two bots at 1500 each expect to score 0.5."""
        assert EloSystem.expected(1500, 1500) == 0.5

    def test_two_hundred_points_expect_0_7597(self):
        """1600 against 1400 expects 1 / (1 + 10**-0.5) = 0.75975."""
        assert EloSystem.expected(1600, 1400) == pytest.approx(0.7597469, abs=1e-7)
        assert EloSystem.expected(1400, 1600) == pytest.approx(1 - 0.7597469, abs=1e-7)


class TestUpdate:
    def test_win_between_equals_with_k32_moves_sixteen(self):
        """1500 beats 1500 with K = 32: +16 and -16."""
        new = EloSystem(k=32).update({"A": 1500, "B": 1500}, [PairResult("A", "B", 1.0)])
        assert {"A": 1516.0, "B": 1484.0} == new

    def test_upset_moves_by_k_times_expected(self):
        """1600 loses to 1400 with K = 32: the favourite drops 32 * 0.75975 = 24.31."""
        new = EloSystem(k=32).update({"A": 1600, "B": 1400}, [PairResult("A", "B", 0.0)])
        assert new["A"] == pytest.approx(1600 - 24.3119, abs=1e-3)
        assert new["B"] == pytest.approx(1400 + 24.3119, abs=1e-3)

    def test_draw_between_equals_changes_nothing(self):
        """A draw between equal ratings leaves both where they were."""
        new = EloSystem(k=40).update({"A": 1500, "B": 1500}, [PairResult("A", "B", 0.5)])
        assert {"A": 1500.0, "B": 1500.0} == new

    def test_new_bots_start_at_the_start_rating(self):
        """Unrated bots enter at ``start`` (here 1000) before the update."""
        new = EloSystem(k=20, start=1000).update({}, [PairResult("A", "B", 1.0)])
        assert {"A": 1010.0, "B": 990.0} == new

    def test_three_seat_table_divides_k_by_two(self):
        """A 3-seat table at 1500 each, K = 32: winner +16, middle 0, last -16 (K/(n-1) per pair)."""
        results = pairwise_results({"A": 30, "B": -10, "C": -20})
        new = EloSystem(k=32).update({"A": 1500, "B": 1500, "C": 1500}, results)
        assert {"A": 1516.0, "B": 1500.0, "C": 1484.0} == new

    def test_seven_seat_table_conserves_total_rating(self):
        """A simultaneous multi-player update leaves the sum of ratings unchanged."""
        rng = random.Random(7)
        ratings = {f"bot{i}": rng.uniform(1200, 1800) for i in range(7)}
        results = pairwise_results({name: rng.randint(-500, 500) for name in ratings})
        new = EloSystem(k=40).update(ratings, results)
        assert sum(new.values()) == pytest.approx(sum(ratings.values()), abs=1e-9)
        assert new != ratings

    def test_table_is_applied_simultaneously(self):
        """The order of a table's results does not change the outcome (pre-table ratings are used)."""
        ratings = {"A": 1550.0, "B": 1480.0, "C": 1420.0}
        results = pairwise_results({"A": -10, "B": 30, "C": -20})
        elo = EloSystem(k=32)
        assert elo.update(ratings, results) == elo.update(ratings, results[::-1])

    def test_update_does_not_change_its_argument(self):
        """``update`` returns a new dict."""
        ratings = {"A": 1500.0, "B": 1500.0}
        EloSystem().update(ratings, [PairResult("A", "B", 1.0)])
        assert {"A": 1500.0, "B": 1500.0} == ratings


class TestReplay:
    def test_replay_applies_tables_in_order(self):
        """Two tables in a row: +16/-16, then 1516 beats 1484 for 32 * (1 - E) more."""
        tables = [[PairResult("A", "B", 1.0)], [PairResult("A", "B", 1.0)]]
        new = EloSystem(k=32).replay(tables)
        second = 32 * (1 - EloSystem.expected(1516, 1484))
        assert new["A"] == pytest.approx(1516 + second)
        assert new["B"] == pytest.approx(1484 - second)


@pytest.mark.parametrize("kwargs", [{"k": 0}, {"k": -5}, {"start": float("nan")}])
def test_invalid_settings_are_refused(kwargs):
    """K must be positive and the start rating finite."""
    with pytest.raises(ValueError):
        EloSystem(**kwargs)

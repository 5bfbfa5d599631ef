"""Sequential tests that end a heads-up match once the answer is clear."""

from __future__ import annotations

import math
import random

import pytest

from arena.ratings import ChipSprt, EloSystem, Sprt, SprtStatus


class TestBounds:
    def test_five_percent_errors_give_2_944(self):
        """alpha = beta = 0.05: bounds ln(0.05 / 0.95) = -2.944 and ln(0.95 / 0.05) = +2.944."""
        sprt = Sprt(0, 10)
        assert sprt.lower == pytest.approx(-2.944439, abs=1e-6)
        assert sprt.upper == pytest.approx(2.944439, abs=1e-6)

    def test_unequal_errors(self):
        """alpha = 0.05, beta = 0.10: ln(0.10 / 0.95) = -2.251 and ln(0.90 / 0.05) = 2.890."""
        sprt = ChipSprt(0, 100, big_blind=10, alpha=0.05, beta=0.10)
        assert sprt.lower == pytest.approx(math.log(0.10 / 0.95))
        assert sprt.upper == pytest.approx(math.log(0.90 / 0.05))
        assert sprt.lower == pytest.approx(-2.2513, abs=1e-4)
        assert sprt.upper == pytest.approx(2.8904, abs=1e-4)

    @pytest.mark.parametrize(
        ("elo0", "elo1", "alpha", "beta"),
        [(10, 0, 0.05, 0.05), (0, 10, 0.0, 0.05), (0, 10, 0.6, 0.5)],
    )
    def test_invalid_settings_are_refused(self, elo0, elo1, alpha, beta):
        """elo0 must be below elo1 and the error rates in (0, 1) with a sum below 1."""
        with pytest.raises(ValueError):
            Sprt(elo0, elo1, alpha=alpha, beta=beta)


class TestSprtLlr:
    def test_llr_by_hand(self):
        """60 wins, 20 draws, 20 losses, H0 0 vs H1 10 Elo: score 0.7, variance 0.16, LLR 1.7337."""
        sprt = Sprt(0, 10)
        sprt.update([1.0, 1.0, 1.0, 0.5, 0.0] * 20)
        s1 = 1 / (1 + 10 ** (-10 / 400))
        assert sprt.llr == pytest.approx(100 * (s1 - 0.5) * (1.4 - 0.5 - s1) / (2 * 0.16))
        assert sprt.llr == pytest.approx(1.7337, abs=1e-4)
        assert sprt.status == SprtStatus.CONTINUE == "continue"

    def test_no_games_is_zero(self):
        """Before any game the LLR is 0 and the test continues."""
        assert (Sprt(0, 5).llr, Sprt(0, 5).status) == (0.0, "continue")

    def test_scores_other_than_win_draw_loss_are_refused(self):
        """A score of 0.3 is not a game result."""
        with pytest.raises(ValueError):
            Sprt(0, 5).add(0.3)

    def test_waits_for_min_samples(self):
        """Ten straight wins cross the bound, yet the test waits for min_samples games."""
        sprt = Sprt(0, 50, min_samples=20)
        sprt.update([1.0] * 10)
        assert sprt.llr > sprt.upper
        assert sprt.status == "continue"


def play_wdl(sprt: Sprt, elo_diff: float, seed: int, limit: int) -> int:
    rng = random.Random(seed)
    p_win = EloSystem.expected(elo_diff, 0)
    for games in range(1, limit + 1):
        if sprt.add(1.0 if rng.random() < p_win else 0.0) != "continue":
            return games
    return limit


class TestSprtDecides:
    def test_accepts_h1_for_a_clearly_better_bot(self):
        """A bot 150 Elo better is found better than 0 vs 50 within 2000 games."""
        sprt = Sprt(0, 50)
        games = play_wdl(sprt, 150, seed=1, limit=2000)
        assert sprt.status == SprtStatus.ACCEPT_H1 == "accept_h1"
        assert games < 2000

    def test_accepts_h0_for_equal_bots(self):
        """Equal bots are found no better than 0 vs 50 within 2000 games."""
        sprt = Sprt(0, 50)
        games = play_wdl(sprt, 0, seed=2, limit=2000)
        assert sprt.status == SprtStatus.ACCEPT_H0 == "accept_h0"
        assert games < 2000

    def test_decision_stays_once_taken(self):
        """After accepting H1, a run of losses moves the LLR but not the status."""
        sprt = Sprt(0, 50)
        play_wdl(sprt, 300, seed=3, limit=2000)
        assert sprt.status == "accept_h1"
        sprt.update([0.0] * 500)
        assert sprt.llr < sprt.upper
        assert sprt.status == "accept_h1"


class TestChipSprt:
    def test_llr_by_hand(self):
        """Units of 100 and 300 mbb (big blind 1000), H0 0 vs H1 100: n 2, mean 200, var 20000, LLR 1.5."""
        sprt = ChipSprt(0, 100, big_blind=1000)
        sprt.update([100, 300])
        assert sprt.mean_mbb == pytest.approx(200.0)
        assert sprt.llr == pytest.approx(2 * 100 * (400 - 100) / (2 * 20000))
        assert sprt.llr == pytest.approx(1.5)

    def test_duplicate_units_are_divided_by_their_hands(self):
        """A 2-hand duplicate block of 20 chips at big blind 10 is 1000 mbb/hand."""
        sprt = ChipSprt(0, 100, big_blind=10, hands_per_unit=2)
        sprt.add(20)
        assert sprt.mean_mbb == pytest.approx(1000.0)

    def test_constant_units_give_an_infinite_llr_by_direction(self):
        """With zero variance the LLR is the limit: +inf above the midpoint, -inf below."""
        above, below = ChipSprt(0, 100, big_blind=1000), ChipSprt(0, 100, big_blind=1000)
        above.update([80] * 3)
        below.update([20] * 3)
        assert (above.llr, below.llr) == (math.inf, -math.inf)

    def test_waits_for_min_samples(self):
        """No decision before min_samples units, whatever the LLR."""
        sprt = ChipSprt(0, 100, big_blind=1000, min_samples=30)
        sprt.update([500] * 29)
        assert sprt.status == "continue"
        sprt.add(500)
        assert sprt.status == "accept_h1"

    @staticmethod
    def play(sprt: ChipSprt, mean_mbb: float, seed: int, limit: int) -> int:
        rng = random.Random(seed)
        for units in range(1, limit + 1):
            # heavy-ish tails: mostly small pots, sometimes a big one (chips at BB 100)
            chips = rng.gauss(mean_mbb / 10, 30) + (
                rng.choice((-1, 1)) * 800 if rng.random() < 0.02 else 0
            )
            if sprt.add(chips) != "continue":
                return units
        return limit

    def test_accepts_h1_for_a_clearly_better_bot(self):
        """A bot winning 400 mbb/hand is found better than 0 vs 200 before 20000 hands."""
        sprt = ChipSprt(0, 200, big_blind=100)
        units = self.play(sprt, 400, seed=4, limit=20000)
        assert sprt.status == "accept_h1"
        assert units < 20000

    def test_accepts_h0_for_equal_bots(self):
        """Equal bots (0 mbb/hand) are found no better than 0 vs 200 before 20000 hands."""
        sprt = ChipSprt(0, 200, big_blind=100)
        units = self.play(sprt, 0, seed=5, limit=20000)
        assert sprt.status == "accept_h0"
        assert units < 20000

    def test_invalid_settings_are_refused(self):
        """mu0 must be below mu1 and the big blind positive."""
        with pytest.raises(ValueError):
            ChipSprt(100, 0, big_blind=10)
        with pytest.raises(ValueError):
            ChipSprt(0, 100, big_blind=0)


@pytest.mark.slow
def test_chip_sprt_error_rates_are_near_alpha_and_beta():
    """Over 200 seeded matches each, H0 bots are wrongly promoted and H1 bots wrongly rejected < 10%."""
    wrong_h1 = wrong_h0 = 0
    for seed in range(200):
        at_h0 = ChipSprt(0, 200, big_blind=100)
        TestChipSprt.play(at_h0, 0, seed=10_000 + seed, limit=100_000)
        wrong_h1 += at_h0.status == "accept_h1"
        at_h1 = ChipSprt(0, 200, big_blind=100)
        TestChipSprt.play(at_h1, 200, seed=20_000 + seed, limit=100_000)
        wrong_h0 += at_h1.status == "accept_h0"
    assert wrong_h1 / 200 < 0.10
    assert wrong_h0 / 200 < 0.10

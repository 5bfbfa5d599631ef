"""Sequential probability ratio tests: stop a heads-up match as soon as the answer is clear.

Both tests weigh H0 (the tested bot's edge is ``elo0`` / ``mu0_mbb``, typically 0) against
H1 (its edge is ``elo1`` / ``mu1_mbb``) by a log-likelihood ratio (LLR) updated sample by
sample.
Wald's bounds follow from the error rates: the test accepts H1 once
``llr >= upper = ln((1 - beta) / alpha)`` and H0 once ``llr <= lower = ln(beta / (1 - alpha))``
(``alpha = beta = 0.05`` gives ``±2.944``). The decision is taken after each sample,
not before ``min_samples`` samples, and then stays: later samples still update ``llr``
but no longer change ``status``.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable

from arena.ratings._elo import EloSystem


class SprtStatus(enum.StrEnum):
    """What a sequential test says so far (equal to the strings ``"continue"`` etc.)."""

    CONTINUE = "continue"
    ACCEPT_H0 = "accept_h0"
    ACCEPT_H1 = "accept_h1"


class _Sequential:
    """Bounds, the sticky decision and the sample count shared by both tests."""

    def __init__(self, *, alpha: float, beta: float, min_samples: int) -> None:
        if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
            raise ValueError(f"need 0 < alpha, beta and alpha + beta < 1, got {alpha}, {beta}")
        if min_samples < 1:
            raise ValueError(f"min_samples is at least 1, got {min_samples}")
        self.alpha = alpha
        self.beta = beta
        self.min_samples = min_samples
        self.lower = math.log(beta / (1.0 - alpha))
        self.upper = math.log((1.0 - beta) / alpha)
        self.samples = 0
        self._status = SprtStatus.CONTINUE

    @property
    def llr(self) -> float:
        raise NotImplementedError

    @property
    def status(self) -> SprtStatus:
        """``"continue"`` until a bound was crossed, then ``"accept_h0"`` or ``"accept_h1"`` for good."""
        return self._status

    def _decide(self) -> None:
        if self._status is not SprtStatus.CONTINUE or self.samples < self.min_samples:
            return
        llr = self.llr
        if llr >= self.upper:
            self._status = SprtStatus.ACCEPT_H1
        elif llr <= self.lower:
            self._status = SprtStatus.ACCEPT_H0

    def __str__(self) -> str:
        return f"LLR {self.llr:.2f} ({self.lower:.2f}, {self.upper:.2f}) after {self.samples}: {self.status}"


class Sprt(_Sequential):
    """SPRT on win/draw/loss results between ``elo0`` (H0) and ``elo1`` (H1), as in fastchess.

    The GSPRT normal approximation with the logistic (Elo) model: with ``N`` games, mean
    score ``s``, per-game score variance ``v`` and ``s0``, ``s1`` the expected scores at
    ``elo0`` and ``elo1``, ``llr = N * (s1 - s0) * (2 * s - s0 - s1) / (2 * v)``. As in
    fastchess an empty count of wins, draws or losses is taken as 0.001 so the variance is
    never zero. Feed it each decisive result of the tested bot: 1 win, 0.5 draw, 0 loss.
    """

    def __init__(
        self,
        elo0: float,
        elo1: float,
        *,
        alpha: float = 0.05,
        beta: float = 0.05,
        min_samples: int = 20,
    ) -> None:
        if not elo0 < elo1:
            raise ValueError(f"need elo0 < elo1, got {elo0} and {elo1}")
        super().__init__(alpha=alpha, beta=beta, min_samples=min_samples)
        self.elo0 = elo0
        self.elo1 = elo1
        self.wins = 0
        self.draws = 0
        self.losses = 0

    def add(self, score: float) -> SprtStatus:
        """Record one game's score (1, 0.5 or 0) and return the status."""
        if score == 1.0:
            self.wins += 1
        elif score == 0.5:
            self.draws += 1
        elif score == 0.0:
            self.losses += 1
        else:
            raise ValueError(f"a game's score is 1 (win), 0.5 (draw) or 0 (loss), got {score}")
        self.samples += 1
        self._decide()
        return self.status

    def update(self, scores: Iterable[float]) -> SprtStatus:
        """Record several games in order, deciding after each, and return the status."""
        for score in scores:
            self.add(score)
        return self.status

    @property
    def llr(self) -> float:
        """The log-likelihood ratio of H1 over H0 so far."""
        if self.samples == 0:
            return 0.0
        wins, draws, losses = (max(c, 1e-3) for c in (self.wins, self.draws, self.losses))
        games = wins + draws + losses
        score = (wins + 0.5 * draws) / games
        variance = (
            wins * (1.0 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2
        ) / games
        s0 = EloSystem.expected(self.elo0, 0.0)
        s1 = EloSystem.expected(self.elo1, 0.0)
        return games * (s1 - s0) * (2.0 * score - s0 - s1) / (2.0 * variance)


class ChipSprt(_Sequential):
    """SPRT on heads-up chip results between win rates ``mu0_mbb`` (H0) and ``mu1_mbb`` (H1).

    Feed it the tested bot's chips per unit: per hand, or per duplicate block of
    ``hands_per_unit`` hands in a duplicate match. Units are converted to mbb/hand and
    treated as normal with the variance estimated from the data so far (the sample
    variance ``v`` of ``n`` units with mean ``m``):
    ``llr = n * (mu1 - mu0) * (2 * m - mu0 - mu1) / (2 * v)``. Poker results are heavy
    tailed, so the default waits for 30 units before deciding. If every unit so far is the
    same the LLR is the limit as ``v`` goes to zero: infinite, with the sign of
    ``2 * m - mu0 - mu1``.
    """

    def __init__(
        self,
        mu0_mbb: float,
        mu1_mbb: float,
        *,
        big_blind: float,
        alpha: float = 0.05,
        beta: float = 0.05,
        hands_per_unit: int = 1,
        min_samples: int = 30,
    ) -> None:
        if not mu0_mbb < mu1_mbb:
            raise ValueError(f"need mu0_mbb < mu1_mbb, got {mu0_mbb} and {mu1_mbb}")
        if not big_blind > 0:
            raise ValueError(f"the big blind is a positive number of chips, got {big_blind}")
        if hands_per_unit < 1:
            raise ValueError(f"a unit holds at least one hand, got {hands_per_unit}")
        super().__init__(alpha=alpha, beta=beta, min_samples=max(min_samples, 2))
        self.mu0_mbb = mu0_mbb
        self.mu1_mbb = mu1_mbb
        self.big_blind = big_blind
        self.hands_per_unit = hands_per_unit
        self._mean = 0.0
        self._m2 = 0.0

    def add(self, chips: float) -> SprtStatus:
        """Record one unit's chips won by the tested bot and return the status."""
        x = chips * 1000.0 / self.big_blind / self.hands_per_unit
        self.samples += 1
        delta = x - self._mean
        self._mean += delta / self.samples
        self._m2 += delta * (x - self._mean)
        self._decide()
        return self.status

    def update(self, chips: Iterable[float]) -> SprtStatus:
        """Record several units in order, deciding after each, and return the status."""
        for x in chips:
            self.add(x)
        return self.status

    @property
    def mean_mbb(self) -> float:
        """The mean result so far, in mbb/hand."""
        return self._mean

    @property
    def llr(self) -> float:
        """The log-likelihood ratio of H1 over H0 so far."""
        if self.samples < 2:
            return 0.0
        direction = 2.0 * self._mean - self.mu0_mbb - self.mu1_mbb
        variance = self._m2 / (self.samples - 1)
        if variance <= 1e-12 * max(1.0, self._mean**2):
            return math.copysign(math.inf, direction) if direction else 0.0
        return self.samples * (self.mu1_mbb - self.mu0_mbb) * direction / (2.0 * variance)

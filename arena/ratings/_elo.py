"""Incremental Elo: the familiar running rating, updated table by table."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.ratings._bounds import (
    DEFAULT_K_FACTOR,
    DEFAULT_START_RATING,
    check_k_factor,
    check_rating_setting,
)
from arena.ratings._pairwise import PairResult

_MAX_EXPONENT = 300.0  # 10 ** 300 is finite; a 120,000-point gap already scores 1e-300


def _finite(value: float, default: float) -> float:
    """A stored rating, or ``default`` if it is not a finite number."""
    return float(value) if math.isfinite(value) else default


@dataclass(frozen=True, slots=True, kw_only=True)
class EloSystem:
    """Classic Elo with a configurable K-factor and start rating.

    ``expected(ra, rb) = 1 / (1 + 10 ** ((rb - ra) / 400))``; after a game a bot moves by
    ``k * weight * (score - expected)``. Keep one rating dict per game type: the system
    itself holds no state.

    Incremental Elo depends on the order games arrive in and has no natural error bar;
    show :func:`~arena.ratings.fit_ratings`'s order-independent rating and interval
    next to it.
    """

    k: float = DEFAULT_K_FACTOR
    start: float = DEFAULT_START_RATING

    def __post_init__(self) -> None:
        try:
            check_k_factor(self.k)
        except ValueError as error:
            raise ValueError(f"the K-factor {error}") from None
        try:
            check_rating_setting(self.start)
        except ValueError as error:
            raise ValueError(f"the start rating {error}") from None

    @staticmethod
    def expected(ra: float, rb: float) -> float:
        """The expected score of a bot rated ``ra`` against one rated ``rb``.

        Overflow-proof: the exponent is clamped, so even absurd stored ratings (a database
        written before the K bound, with ratings of +-500,000) give a score in [0, 1].
        """
        exponent = min(max((rb - ra) / 400.0, -_MAX_EXPONENT), _MAX_EXPONENT)
        return 1.0 / (1.0 + 10.0**exponent)

    def update(
        self, ratings: Mapping[str, float], results: Sequence[PairResult]
    ) -> dict[str, float]:
        """Apply one table's results at once and return the new ratings (``ratings`` is not changed).

        Every delta is computed from the ratings before the table, so the order of
        ``results`` does not matter, and each pair's two deltas cancel, so the table
        conserves the total rating. Each pair moves by ``k * weight * (score - expected)``;
        with :func:`~arena.ratings.pairwise_results`' weights of ``1 / (n - 1)`` this is K
        divided by ``n - 1`` at an ``n``-seat table, so one table moves a bot about as
        much as one heads-up game. A bot not yet rated (or rated NaN or infinite) starts at
        ``start``; bots not at the table keep their rating.
        """
        new = {bot: _finite(value, self.start) for bot, value in ratings.items()}
        for result in results:
            new.setdefault(result.a, self.start)
            new.setdefault(result.b, self.start)
        before = dict(new)
        for result in results:
            ra, rb = before[result.a], before[result.b]
            delta = self.k * result.weight * (result.score - self.expected(ra, rb))
            new[result.a] += delta
            new[result.b] -= delta
        return new

    def replay(
        self,
        tables: Iterable[Sequence[PairResult]],
        ratings: Mapping[str, float] | None = None,
    ) -> dict[str, float]:
        """Apply tables one after another, in the order given, starting from ``ratings``."""
        current = dict(ratings or {})
        for results in tables:
            current = self.update(current, results)
        return current

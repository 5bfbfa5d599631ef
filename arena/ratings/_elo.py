"""Incremental Elo: the familiar running rating, updated table by table."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.ratings._pairwise import PairResult


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

    k: float = 32.0
    start: float = 1500.0

    def __post_init__(self) -> None:
        if not (self.k > 0.0 and math.isfinite(self.k)):
            raise ValueError(f"the K-factor is a positive number, got {self.k}")
        if not math.isfinite(self.start):
            raise ValueError(f"the start rating is a finite number, got {self.start}")

    @staticmethod
    def expected(ra: float, rb: float) -> float:
        """The expected score of a bot rated ``ra`` against one rated ``rb``."""
        return 1.0 / (1.0 + 10.0 ** ((rb - ra) / 400.0))

    def update(
        self, ratings: Mapping[str, float], results: Sequence[PairResult]
    ) -> dict[str, float]:
        """Apply one table's results at once and return the new ratings (``ratings`` is not changed).

        Every delta is computed from the ratings before the table, so the order of
        ``results`` does not matter, and each pair's two deltas cancel, so the table
        conserves the total rating. Each pair moves by ``k * weight * (score - expected)``;
        with :func:`~arena.ratings.pairwise_results`' weights of ``1 / (n - 1)`` this is K
        divided by ``n - 1`` at an ``n``-seat table, so one table moves a bot about as
        much as one heads-up game. A bot not yet rated starts at ``start``; bots not at the
        table keep their rating.
        """
        new = dict(ratings)
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

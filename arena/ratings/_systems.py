"""The built-in rating systems as objects a plugin can hand out (``arena_rating_systems``).

Each has a ``name`` and ``rate(results)``: a sequence of :class:`PairResult` in the
order they happened, to a ``{bot: Rating-or-float}`` mapping. Third-party systems (a
TrueSkill, a Glicko) follow the same shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.ratings._bounds import DEFAULT_K_FACTOR, DEFAULT_START_RATING
from arena.ratings._elo import EloSystem
from arena.ratings._fit import Rating, fit_ratings
from arena.ratings._pairwise import PairResult


@dataclass(frozen=True)
class IncrementalElo:
    """Elo applied result by result (order matters: it is the live, familiar number)."""

    k: float = DEFAULT_K_FACTOR
    start: float = DEFAULT_START_RATING
    name: str = "elo"

    def rate(self, results: Sequence[PairResult]) -> dict[str, float]:
        system = EloSystem(k=self.k, start=self.start)
        ratings: dict[str, float] = {}
        for result in results:
            ratings = system.update(ratings, [result])
        return ratings


@dataclass(frozen=True)
class BatchFit:
    """Bradley-Terry maximum likelihood over all results at once, with 95% intervals."""

    anchor: str | None = None
    anchor_rating: float = DEFAULT_START_RATING
    name: str = "bt-fit"

    def rate(self, results: Sequence[PairResult]) -> dict[str, Rating]:
        return fit_ratings(results, anchor=self.anchor, anchor_rating=self.anchor_rating)


def builtin_rating_systems() -> list[IncrementalElo | BatchFit]:
    """What the built-in ``arena-ratings`` plugin provides."""
    return [IncrementalElo(), BatchFit()]

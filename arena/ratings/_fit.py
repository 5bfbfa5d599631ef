"""The batch rating: a Bradley-Terry maximum-likelihood fit over every stored result.

Model. Bot ``i`` has a strength ``r_i`` on the Elo scale; it is expected to score
``E_ij = 1 / (1 + 10 ** ((r_j - r_i) / 400))`` against bot ``j``, the same curve as
incremental Elo. A result with score ``s`` and weight ``w`` adds
``w * (s * ln E_ij + (1 - s) * ln(1 - E_ij))`` to the log-likelihood: a draw counts as half
a win and half a loss (the "fractional score" Bradley-Terry model). A separate draw
parameter (Davidson, or BayesElo's draw-Elo) would add nothing for poker, where a drawn
match is rare and its score is what Elo uses anyway.

Prior. Every bot plays ``prior_games`` virtual draws, spread evenly over all the other
bots (``prior_games / (n - 1)`` against each). This is BayesElo's device: a weak prior
pulling ratings together, which keeps an unbeaten bot's rating finite and joins bots that
never met, yet fades as real games accumulate. It does not depend on where the scale
sits, so it does not move the anchor or the mean.

Intervals. The 95% interval is ``elo ± 1.96 * sd`` with ``sd`` from the inverse of the
observed Fisher information (the negative Hessian of the log-posterior at the fit).
With an ``anchor`` that bot is fixed at ``anchor_rating`` and the others' intervals are
relative to it (the anchor's own interval is the point); without one the mean rating is
fixed at ``anchor_rating`` and the intervals are relative to the mean.

Order independence. Results are summed per pair with :func:`math.fsum` (exact, whatever
the order) and bots are processed in name order, so the output depends only on the
multiset of results.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.ratings._linalg import inverse_spd, solve_spd
from arena.ratings._pairwise import PairResult

#: Elo points per natural-log unit of odds: ``400 / ln 10``.
ELO_PER_NEPER = 400.0 / math.log(10.0)
_Z95 = 1.959963984540054
_MAX_ITERATIONS = 200
_TOLERANCE = 1e-12


@dataclass(frozen=True, slots=True)
class Rating:
    """One bot's fitted rating with its 95% interval; ``games`` is the summed weight of its results."""

    name: str
    elo: float
    ci_low: float
    ci_high: float
    games: float

    @property
    def ci95(self) -> float:
        """Half the width of the 95% interval, in Elo."""
        return (self.ci_high - self.ci_low) / 2.0

    def __str__(self) -> str:
        return f"{self.elo:.0f} ± {self.ci95:.0f} Elo ({self.games:g} games)"


@dataclass(frozen=True, slots=True)
class _Pair:
    i: int
    j: int
    score_i: float  # summed weighted score of i against j
    games: float  # summed weight


def _log_sigmoid(x: float) -> float:
    if x >= 0.0:
        return -math.log1p(math.exp(-x))
    return x - math.log1p(math.exp(x))


def _sigmoid(x: float) -> float:
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _aggregate(
    results: Sequence[PairResult], prior_games: float
) -> tuple[list[str], list[_Pair], dict[str, float]]:
    names = sorted({r.a for r in results} | {r.b for r in results})
    index = {name: k for k, name in enumerate(names)}
    scores: dict[tuple[int, int], list[float]] = {}
    weights: dict[tuple[int, int], list[float]] = {}
    games: dict[str, list[float]] = {name: [] for name in names}
    for r in results:
        i, j, score = index[r.a], index[r.b], r.score
        if i > j:
            i, j, score = j, i, 1.0 - score
        scores.setdefault((i, j), []).append(score * r.weight)
        weights.setdefault((i, j), []).append(r.weight)
        games[r.a].append(r.weight)
        games[r.b].append(r.weight)
    n = len(names)
    virtual = prior_games / (n - 1) if n > 1 else 0.0
    pairs = []
    for i in range(n):
        for j in range(i + 1, n):
            score = math.fsum(scores.get((i, j), [])) + 0.5 * virtual
            played = math.fsum(weights.get((i, j), [])) + virtual
            pairs.append(_Pair(i, j, score, played))
    return names, pairs, {name: math.fsum(w) for name, w in games.items()}


def _log_likelihood(theta: Sequence[float], pairs: Sequence[_Pair]) -> float:
    return math.fsum(
        p.score_i * _log_sigmoid(theta[p.i] - theta[p.j])
        + (p.games - p.score_i) * _log_sigmoid(theta[p.j] - theta[p.i])
        for p in pairs
    )


def _gradient_and_information(
    theta: Sequence[float], pairs: Sequence[_Pair]
) -> tuple[list[float], list[list[float]]]:
    """The gradient of the log-likelihood and its negative Hessian (a graph Laplacian)."""
    n = len(theta)
    grad = [0.0] * n
    info = [[0.0] * n for _ in range(n)]
    for p in pairs:
        expected = _sigmoid(theta[p.i] - theta[p.j])
        g = p.score_i - p.games * expected
        h = p.games * expected * (1.0 - expected)
        grad[p.i] += g
        grad[p.j] -= g
        info[p.i][p.i] += h
        info[p.j][p.j] += h
        info[p.i][p.j] -= h
        info[p.j][p.i] -= h
    return grad, info


def _maximise(n: int, pairs: Sequence[_Pair], reference: int) -> list[float]:
    """Newton's method with step halving, with bot ``reference`` held at 0 (natural units)."""
    free = [k for k in range(n) if k != reference]
    theta = [0.0] * n
    current = _log_likelihood(theta, pairs)
    for _ in range(_MAX_ITERATIONS):
        grad, info = _gradient_and_information(theta, pairs)
        step = solve_spd([[info[i][j] for j in free] for i in free], [grad[i] for i in free])
        t = 1.0
        while True:
            trial = list(theta)
            for k, s in zip(free, step, strict=True):
                trial[k] += t * s
            value = _log_likelihood(trial, pairs)
            if value >= current or t < 1e-6:
                break
            t /= 2.0
        theta, current = trial, value
        if max((abs(t * s) for s in step), default=0.0) < _TOLERANCE:
            break
    return theta


def fit_ratings(
    results: Sequence[PairResult],
    *,
    anchor: str | None = None,
    anchor_rating: float = 1500.0,
    prior_games: float = 2.0,
) -> dict[str, Rating]:
    """Fit every bot's rating to all ``results`` at once, with 95% intervals.

    See the module docstring for the model, the prior and the intervals. With ``anchor``
    that bot is rated exactly ``anchor_rating``; without it the mean rating is
    ``anchor_rating``. ``prior_games`` (positive) is the number of virtual draws each bot
    plays. Returns the ratings best first (ties by name); no results give ``{}``.
    Raises ``ValueError`` if the anchor has no results or ``prior_games`` is not positive.
    """
    if not (prior_games > 0.0 and math.isfinite(prior_games)):
        raise ValueError(f"prior_games is a positive number of virtual draws, got {prior_games}")
    if not results:
        if anchor is not None:
            raise ValueError(f"the anchor {anchor!r} has no results")
        return {}
    names, pairs, games = _aggregate(results, prior_games)
    if anchor is not None and anchor not in names:
        raise ValueError(f"the anchor {anchor!r} has no results")
    n = len(names)
    reference = names.index(anchor) if anchor is not None else 0
    theta = _maximise(n, pairs, reference)
    _, info = _gradient_and_information(theta, pairs)
    if anchor is not None:
        free = [k for k in range(n) if k != reference]
        reduced = inverse_spd([[info[i][j] for j in free] for i in free])
        variance = [0.0] * n
        for a, k in enumerate(free):
            variance[k] = reduced[a][a]
        centre = theta[reference]
    else:
        # The Laplacian's null space is the constant vector, so its pseudo-inverse -- the
        # covariance of the ratings about their mean -- is inv(L + J/n) - J/n.
        shifted = [[info[i][j] + 1.0 / n for j in range(n)] for i in range(n)]
        inverse = inverse_spd(shifted)
        variance = [inverse[k][k] - 1.0 / n for k in range(n)]
        centre = math.fsum(theta) / n
    ratings = []
    for k, name in enumerate(names):
        elo = anchor_rating + ELO_PER_NEPER * (theta[k] - centre)
        half = _Z95 * ELO_PER_NEPER * math.sqrt(max(variance[k], 0.0))
        if k == reference and anchor is not None:
            elo, half = anchor_rating, 0.0
        ratings.append(Rating(name, elo, elo - half, elo + half, games[name]))
    ratings.sort(key=lambda r: (-r.elo, r.name))
    return {r.name: r for r in ratings}

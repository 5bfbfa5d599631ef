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

Order independence. :func:`fit_ratings` sums results per pair with :func:`math.fsum` (exact,
whatever the order) and bots are processed in name order, so the output depends only on
the multiset of results. :func:`fit_matrix` takes the per-pair sums already made (the
standings make them with numpy from every duplicate block of every match).

Speed and range. The Newton steps run on dense numpy matrices (200 bots: a few tens of
milliseconds, without LAPACK: see :mod:`arena.ratings._linalg`), and every exponential is
taken of a non-positive number, so no setting or result can overflow it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from arena.ratings._bounds import DEFAULT_START_RATING, check_prior_games, check_rating_setting
from arena.ratings._linalg import inverse_diagonal_spd, solve_spd
from arena.ratings._pairwise import PairResult

#: Elo points per natural-log unit of odds: ``400 / ln 10``.
ELO_PER_NEPER = 400.0 / math.log(10.0)
_Z95 = 1.959963984540054
_MAX_ITERATIONS = 200
_TOLERANCE = 1e-12

Array = NDArray[np.float64]


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


def _sigmoid(x: Array) -> Array:
    """``1 / (1 + exp(-x))`` with the exponent never positive (no overflow)."""
    z = np.exp(-np.abs(x))
    return np.where(x >= 0.0, 1.0 / (1.0 + z), z / (1.0 + z))


def _log_sigmoid(x: Array) -> Array:
    return -np.logaddexp(0.0, -x)


def _log_likelihood(theta: Array, scores: Array) -> float:
    # sum over ordered pairs of S_ij ln E_ij; the diagonal of ``scores`` is 0
    return float(np.sum(scores * _log_sigmoid(theta[:, None] - theta[None, :])))


def _gradient_and_information(theta: Array, scores: Array, played: Array) -> tuple[Array, Array]:
    """The gradient of the log-likelihood and its negative Hessian (a graph Laplacian)."""
    expected = _sigmoid(theta[:, None] - theta[None, :])
    grad = np.sum(scores - played * expected, axis=1)
    h = played * expected * (1.0 - expected)
    info = np.diag(np.sum(h, axis=1)) - h
    return grad, info


def _maximise(scores: Array, played: Array, reference: int) -> Array:
    """Newton's method with step halving, with bot ``reference`` held at 0 (natural units)."""
    n = scores.shape[0]
    free = np.array([k for k in range(n) if k != reference], dtype=np.intp)
    theta = np.zeros(n)
    current = _log_likelihood(theta, scores)
    for _ in range(_MAX_ITERATIONS):
        grad, info = _gradient_and_information(theta, scores, played)
        step = solve_spd(info[np.ix_(free, free)], grad[free])
        t = 1.0
        while True:
            trial = theta.copy()
            trial[free] += t * step
            value = _log_likelihood(trial, scores)
            if value >= current or t < 1e-6:
                break
            t /= 2.0
        theta, current = trial, value
        if float(np.max(np.abs(t * step), initial=0.0)) < _TOLERANCE:
            break
    return theta


def fit_matrix(
    names: Sequence[str],
    scores: Array,
    played: Array,
    *,
    anchor: str | None = None,
    anchor_rating: float = DEFAULT_START_RATING,
    prior_games: float = 2.0,
) -> dict[str, Rating]:
    """Fit the ratings of ``names`` from per-pair sums, with 95% intervals.

    ``scores[i, j]`` is the summed weighted score of bot ``i`` against bot ``j`` and
    ``played[i, j] == played[j, i]`` their summed weight, so ``scores + scores.T ==
    played``; the diagonals are 0. This is :func:`fit_ratings` after its aggregation step:
    the prior, the anchor and the intervals are the same, and so is the output.
    """
    prior_games = _checked(check_prior_games, "prior_games", prior_games)
    anchor_rating = _checked(check_rating_setting, "anchor_rating", anchor_rating)
    n = len(names)
    if anchor is not None and anchor not in names:
        raise ValueError(f"the anchor {anchor!r} has no results")
    if n == 0:
        return {}
    scores = np.array(scores, dtype=np.float64)
    played = np.array(played, dtype=np.float64)
    if scores.shape != (n, n) or played.shape != (n, n):
        raise ValueError(f"scores and played must be {n} x {n} matrices")
    games = np.sum(played, axis=1)
    if n > 1:
        virtual = prior_games / (n - 1)
        off = 1.0 - np.eye(n)
        scores = scores + 0.5 * virtual * off
        played = played + virtual * off
    reference = list(names).index(anchor) if anchor is not None else 0
    theta = _maximise(scores, played, reference)
    _, info = _gradient_and_information(theta, scores, played)
    if anchor is not None:
        free = np.array([k for k in range(n) if k != reference], dtype=np.intp)
        variance = np.zeros(n)
        if len(free):
            variance[free] = inverse_diagonal_spd(info[np.ix_(free, free)])
        centre = theta[reference]
    else:
        # The Laplacian's null space is the constant vector, so its pseudo-inverse -- the
        # covariance of the ratings about their mean -- is inv(L + J/n) - J/n.
        variance = inverse_diagonal_spd(info + 1.0 / n) - 1.0 / n
        centre = float(np.mean(theta))
    elo = anchor_rating + ELO_PER_NEPER * (theta - centre)
    half = _Z95 * ELO_PER_NEPER * np.sqrt(np.maximum(variance, 0.0))
    ratings = []
    for k, name in enumerate(names):
        value, width = float(elo[k]), float(half[k])
        if k == reference and anchor is not None:
            value, width = anchor_rating, 0.0
        ratings.append(Rating(name, value, value - width, value + width, float(games[k])))
    ratings.sort(key=lambda r: (-r.elo, r.name))
    return {r.name: r for r in ratings}


def _checked(check, key: str, value: float) -> float:
    try:
        return check(value)
    except ValueError as error:
        raise ValueError(f"{key} {error}") from None


def _aggregate(results: Sequence[PairResult]) -> tuple[list[str], Array, Array]:
    """Per-pair sums of the results, exact (``math.fsum``) whatever their order."""
    names = sorted({r.a for r in results} | {r.b for r in results})
    index = {name: k for k, name in enumerate(names)}
    scores: dict[tuple[int, int], list[float]] = {}
    weights: dict[tuple[int, int], list[float]] = {}
    for r in results:
        i, j, score = index[r.a], index[r.b], r.score
        if i > j:
            i, j, score = j, i, 1.0 - score
        scores.setdefault((i, j), []).append(score * r.weight)
        weights.setdefault((i, j), []).append(r.weight)
    n = len(names)
    score_matrix = np.zeros((n, n))
    played = np.zeros((n, n))
    for (i, j), parts in scores.items():
        won, total = math.fsum(parts), math.fsum(weights[(i, j)])
        score_matrix[i, j], score_matrix[j, i] = won, total - won
        played[i, j] = played[j, i] = total
    return names, score_matrix, played


def fit_ratings(
    results: Sequence[PairResult],
    *,
    anchor: str | None = None,
    anchor_rating: float = DEFAULT_START_RATING,
    prior_games: float = 2.0,
) -> dict[str, Rating]:
    """Fit every bot's rating to all ``results`` at once, with 95% intervals.

    See the module docstring for the model, the prior and the intervals. With ``anchor``
    that bot is rated exactly ``anchor_rating``; without it the mean rating is
    ``anchor_rating``. ``prior_games`` (positive) is the number of virtual draws each bot
    plays. Returns the ratings best first (ties by name); no results give ``{}``.
    Raises ``ValueError`` if the anchor has no results, or ``prior_games`` or
    ``anchor_rating`` is outside its bounds (:mod:`arena.ratings._bounds`).
    """
    _checked(check_prior_games, "prior_games", prior_games)
    _checked(check_rating_setting, "anchor_rating", anchor_rating)
    if not results:
        if anchor is not None:
            raise ValueError(f"the anchor {anchor!r} has no results")
        return {}
    names, scores, played = _aggregate(results)
    return fit_matrix(
        names, scores, played, anchor=anchor, anchor_rating=anchor_rating, prior_games=prior_games
    )

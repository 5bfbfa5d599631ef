"""The pure-Python standings of arena 0.1 (before numpy), kept as a reference.

``scripts/bench_standings.py`` times it beside the numpy standings in the same run, and
``tests/ratings`` checks that the numpy fit, win rates and LOS give the same figures. It is
a frozen copy: do not "improve" it.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.ratings import (
    ELO_PER_NEPER,
    MatchChips,
    PairResult,
    Rating,
    margin_results,
    pairwise_results,
)
from arena.stats import WinRate, win_rate
from arena.store._store import MatchRow
from arena.tournament import Standings
from arena.tournament._standings import Standing

Matrix = list[list[float]]
_Z95 = 1.959963984540054
_MAX_ITERATIONS = 200
_TOLERANCE = 1e-12


def cholesky(a: Sequence[Sequence[float]]) -> Matrix:
    """The lower-triangular ``L`` with ``L @ L.T == a``; ``ValueError`` if ``a`` is not positive definite."""
    n = len(a)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = a[i][j] - math.fsum(low[i][k] * low[j][k] for k in range(j))
            if i == j:
                if not s > 0.0:
                    raise ValueError("the matrix is not positive definite")
                low[i][i] = math.sqrt(s)
            else:
                low[i][j] = s / low[j][j]
    return low


def _cholesky_solve(low: Matrix, b: Sequence[float]) -> list[float]:
    n = len(low)
    y = [0.0] * n
    for i in range(n):
        y[i] = (b[i] - math.fsum(low[i][k] * y[k] for k in range(i))) / low[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - math.fsum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


def solve_spd(a: Sequence[Sequence[float]], b: Sequence[float]) -> list[float]:
    """The ``x`` with ``a @ x == b`` for a symmetric positive-definite ``a``."""
    return _cholesky_solve(cholesky(a), b)


def inverse_spd(a: Sequence[Sequence[float]]) -> Matrix:
    """The inverse of a symmetric positive-definite ``a``."""
    low = cholesky(a)
    n = len(a)
    columns = [_cholesky_solve(low, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[columns[j][i] for j in range(n)] for i in range(n)]


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


def _pooled(units_by_match: list[tuple[MatchChips, list[float]]]) -> WinRate:
    """One win rate over units from several matches, each unit converted to mbb/hand first.

    Units count equally whatever their size; with a single unit size and blind this is
    exactly ``win_rate(chips, big_blind, hands_per_unit=...)``.
    """
    values = [match.mbb_per_hand(x) for match, units in units_by_match for x in units]
    hands = sum(match.hands_per_unit * len(units) for match, units in units_by_match)
    # Values are already mbb/hand: a "big blind" of 1000 makes win_rate's scale 1.
    rate = win_rate(values, 1000.0)
    return WinRate(hands, rate.mbb_per_hand, rate.ci95)


def bot_win_rates(matches: Iterable[MatchChips]) -> dict[str, WinRate]:
    """Each bot's win rate in mbb/hand with its 95% interval, over all its units in ``matches``."""
    units: dict[str, list[tuple[MatchChips, list[float]]]] = {}
    for match in matches:
        for bot, chips in match.bot_chips.items():
            units.setdefault(bot, []).append((match, list(chips)))
    return {bot: _pooled(rows) for bot, rows in sorted(units.items())}


def _pair_rows(
    matches: Iterable[MatchChips],
) -> dict[tuple[str, str], list[tuple[MatchChips, list[float]]]]:
    rows: dict[tuple[str, str], list[tuple[MatchChips, list[float]]]] = {}
    for match in matches:
        for a, b in itertools.permutations(sorted(match.bot_chips), 2):
            chips_a, chips_b = match.bot_chips[a], match.bot_chips[b]
            diffs = [(x - y) / 2.0 for x, y in zip(chips_a, chips_b, strict=True)]
            rows.setdefault((a, b), []).append((match, diffs))
    return rows


def pair_units(matches: Iterable[MatchChips]) -> dict[tuple[str, str], list[float]]:
    """Per-unit results of ``a`` against ``b`` in mbb/hand, for every ordered pair that met.

    A unit's pair result is half the difference of the two bots' chips in that unit: in a
    heads-up match (chips sum to zero) that is exactly what ``a`` won from ``b``, and at a
    bigger table it compares the two bots on the same hands. ``(b, a)`` is the negation.
    """
    return {
        pair: [match.mbb_per_hand(x) for match, diffs in rows for x in diffs]
        for pair, rows in sorted(_pair_rows(matches).items())
    }


def pair_win_rates(matches: Iterable[MatchChips]) -> dict[tuple[str, str], WinRate]:
    """The win rate of ``a`` against ``b`` in mbb/hand with its 95% interval, for every ordered pair.

    See :func:`pair_units` for a unit's pair result. Both ``(a, b)`` and ``(b, a)`` are
    present; their rates are negatives of each other with the same interval.
    """
    return {pair: _pooled(rows) for pair, rows in sorted(_pair_rows(matches).items())}


def los_from_chips(samples: Sequence[float]) -> float:
    """The probability that the true mean of ``samples`` (chips per unit) is above zero.

    Normal approximation: ``Phi(mean / (sd / sqrt(n)))`` with the sample standard deviation.
    Fewer than two samples give 0.5; samples that are all equal give 1, 0 or 0.5 by sign.
    """
    n = len(samples)
    if n < 2:
        return 0.5
    mean = statistics.fmean(samples)
    sd = statistics.stdev(samples)
    if sd == 0.0:
        return 1.0 if mean > 0 else 0.0 if mean < 0 else 0.5
    return statistics.NormalDist().cdf(mean / (sd / math.sqrt(n)))


def chip_los_matrix(matches: Iterable[MatchChips]) -> dict[tuple[str, str], float]:
    """LOS of ``a`` over ``b`` from their per-unit chip results (see ``pair_units``), every ordered pair."""
    return {pair: los_from_chips(values) for pair, values in pair_units(matches).items()}


def absent_losses(bots: list[str], absent: set[str]) -> list[PairResult]:
    """A bot that was not there at the end of a cut-short match lost to everyone who was.

    Without this a bot that never answers would score draws (0 chips each) and rank
    above bots that played and lost. Absent bots draw with each other. Weights as in
    :func:`arena.ratings.pairwise_results`: the table counts as one game per bot.
    """
    if not absent or len(bots) < 2:
        return []
    weight = 1.0 / (len(bots) - 1)
    results = []
    for i, a in enumerate(bots):
        for b in bots[i + 1 :]:
            if a in absent or b in absent:
                score = 0.5 if (a in absent) == (b in absent) else (0.0 if a in absent else 1.0)
                results.append(PairResult(a, b, score, weight))
    return results


def standings_from_rows(
    rows: list[MatchRow],
    game_type: str,
    elo: dict[str, float],
    *,
    anchor: str | None = None,
    anchor_rating: float = 1500.0,
) -> Standings:
    """Fit and tabulate the given match rows (one game type)."""
    results = []
    chips: list[MatchChips] = []
    played: dict[str, int] = {}
    hands: dict[str, int] = {}
    faults: dict[str, int] = {}
    for row in rows:
        # every duplicate block (or hand) is a game scored by its margin (see margin_results)
        units = min((len(seat.unit_chips) for seat in row.seats), default=0)
        for unit in range(units):
            by_bot = {seat.bot: seat.unit_chips[unit] for seat in row.seats}
            results.extend(
                margin_results(by_bot, big_blind=row.big_blind, hands=row.duplicate_block)
            )
        if not units:
            results.extend(pairwise_results({seat.bot: seat.chips for seat in row.seats}))
        if row.reason != "completed":
            gone = {seat.bot for seat in row.seats if seat.sat_out or seat.forfeited}
            results.extend(absent_losses([seat.bot for seat in row.seats], gone))
        chips.append(
            MatchChips(
                bot_chips={seat.bot: list(seat.unit_chips) for seat in row.seats},
                big_blind=row.big_blind,
                hands_per_unit=row.duplicate_block,
            )
        )
        for seat in row.seats:
            played[seat.bot] = played.get(seat.bot, 0) + 1
            hands[seat.bot] = hands.get(seat.bot, 0) + seat.hands
            faults[seat.bot] = faults.get(seat.bot, 0) + seat.faults
    if anchor is not None and anchor not in played:
        anchor = None
    fit = fit_ratings(results, anchor=anchor, anchor_rating=anchor_rating) if results else {}
    rates = bot_win_rates(chips) if chips else {}
    table = [
        Standing(
            bot=bot,
            elo=elo.get(bot, float("nan")),
            fit=fit[bot],
            win_rate=rates[bot],
            matches=played[bot],
            hands=hands[bot],
            faults=faults[bot],
        )
        for bot in fit
    ]
    table.sort(key=lambda s: -s.fit.elo)
    return Standings(
        game_type,
        tuple(table),
        chip_los_matrix(chips) if chips else {},
        len(rows),
        pair_win_rates(chips) if chips else {},
    )

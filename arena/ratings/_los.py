"""Likelihood of superiority: how sure we are that one bot is better than another."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence

from arena.ratings._pairwise import PairResult
from arena.ratings._units import UnitTable
from arena.ratings._winrates import MatchChips


def los(wins: float, losses: float) -> float:
    """The probability that the bot with ``wins`` against ``losses`` is the better one (cutechess).

    ``LOS = (1 + erf((wins - losses) / sqrt(2 * (wins + losses)))) / 2``; draws carry no
    information here and are left out. No decisive games give 0.5.
    """
    if wins < 0 or losses < 0:
        raise ValueError(f"wins and losses are counts, got {wins} and {losses}")
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def los_matrix(results: Iterable[PairResult]) -> dict[tuple[str, str], float]:
    """LOS of ``a`` over ``b`` for every ordered pair that met, from their win/loss record.

    Each pairwise result counts once whatever its weight (it is one comparison of the two
    bots): a score above 0.5 is a win, below a loss, exactly 0.5 a draw (ignored).
    ``(b, a)`` is ``1 - (a, b)``.
    """
    record: dict[tuple[str, str], list[int]] = {}
    for r in results:
        for a, b, score in ((r.a, r.b, r.score), (r.b, r.a, 1.0 - r.score)):
            counts = record.setdefault((a, b), [0, 0])
            if score > 0.5:
                counts[0] += 1
            elif score < 0.5:
                counts[1] += 1
    return {pair: los(wins, losses) for pair, (wins, losses) in sorted(record.items())}


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
    """LOS of ``a`` over ``b`` from their per-unit chip results (see ``pair_units``), every ordered pair.

    The same as :func:`los_from_chips` of each pair's units, computed with numpy.
    """
    return UnitTable.from_matches(matches).los_matrix()

"""Per-row sums of many matches' units, and every standings statistic combined from them.

A recorded match never changes, so neither do the sums over its units: how many, their
total and spread per seat row, and per pair of bots at the table the same for half their
chip difference plus the margin score the fit counts. :class:`UnitSummary` keeps only
those sums (a few numbers per row, not one per unit), so a live leaderboard adds the
matches recorded since its last refit (:meth:`UnitSummary.concat`) and recombines
without touching two million units again. Combining pools the rows with grouped sums
(Chan et al.), in row order: the same rows give the same figures to the last bit however
they were gathered.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from functools import cached_property, lru_cache, partial
from typing import cast

import numpy as np
from numpy.typing import NDArray

from arena.stats import WinRate

_Z95 = 1.959963984540054
Ints = NDArray[np.int64]
Floats = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class UnitSummary:
    """Sums over the units of some matches, one row per seat and per pair of bots at a table.

    ``names`` is a registry of bots in any order (later parts may append to it); results
    come out by name. Match ``m`` has ``big_blind[m]``, ``hands_per_unit[m]`` and
    ``seats_at[m]`` seat rows. Seat row ``s`` (a match's rows consecutive, matches in
    order) is bot ``names[seat_bot[s]]`` with ``seat_count[s]`` units whose chips sum to
    ``seat_total[s]`` with squared deviations ``seat_m2[s]``. Pair row ``p`` is the two
    different bots ``pair_a[p]`` (seated first) and ``pair_b[p]`` of a match: over its
    ``pair_count[p]`` units, half a's chips minus b's in mbb/hand sum to ``pair_total[p]``
    with squared deviations ``pair_m2[p]``, and their margin scores (``0.5 + 0.5 tanh(d /
    scale_mbb)``) to ``pair_won[p]``.
    """

    names: tuple[str, ...]
    big_blind: Floats
    hands_per_unit: Ints
    seats_at: Ints
    seat_bot: Ints
    seat_match: Ints
    seat_count: Ints
    seat_total: Floats
    seat_m2: Floats
    pair_a: Ints
    pair_b: Ints
    pair_match: Ints
    pair_count: Ints
    pair_total: Floats
    pair_m2: Floats
    pair_won: Floats
    scale_mbb: float

    # --- assembling -----------------------------------------------------------------

    @classmethod
    def empty(cls, scale_mbb: float, names: tuple[str, ...] = ()) -> UnitSummary:
        """No matches (and a registry of ``names``)."""
        ints, floats = np.zeros(0, dtype=np.int64), np.zeros(0)
        return cls(
            names, floats, ints, ints, ints, ints, ints, floats, floats,
            ints, ints, ints, ints, floats, floats, floats, scale_mbb,
        )  # fmt: skip

    @classmethod
    def concat(cls, parts: Sequence[UnitSummary]) -> UnitSummary:
        """The matches of every part, in order; each part's ``names`` starts the longest one's."""
        if not parts:
            raise ValueError("nothing to concatenate")
        names = max((p.names for p in parts), key=len)
        if any(p.names != names[: len(p.names)] for p in parts):
            raise ValueError("every part's bot registry must start the longest one")
        if len({p.scale_mbb for p in parts}) > 1:
            raise ValueError("every part must use the same margin scale")
        offsets = np.cumsum([0] + [len(p.big_blind) for p in parts])
        values = {}
        for field in fields(cls):
            if field.name in ("names", "scale_mbb"):
                continue
            columns = [getattr(p, field.name) for p in parts]
            if field.name in ("seat_match", "pair_match"):
                columns = [c + offset for c, offset in zip(columns, offsets, strict=False)]
            values[field.name] = np.concatenate(columns)
        return cls(names=names, scale_mbb=parts[0].scale_mbb, **values)

    def take_matches(self, order: Ints) -> UnitSummary:
        """Only the matches at ``order`` (indices), in that order, with their rows."""
        order = np.asarray(order, dtype=np.int64)
        new_index = np.full(len(self.big_blind), -1, dtype=np.int64)
        new_index[order] = np.arange(len(order))
        seats = take_rows(new_index[self.seat_match])
        pairs = take_rows(new_index[self.pair_match])
        values = {}
        for field in fields(self):
            name = field.name
            if name in ("names", "scale_mbb"):
                continue
            column = getattr(self, name)
            if name in ("big_blind", "hands_per_unit", "seats_at"):
                values[name] = column[order]
            elif name.startswith("seat_"):
                values[name] = column[seats]
            else:
                values[name] = column[pairs]
        values["seat_match"] = new_index[values["seat_match"]]
        values["pair_match"] = new_index[values["pair_match"]]
        return replace(self, **values)

    # --- the bots by name -----------------------------------------------------------

    @cached_property
    def bots(self) -> tuple[str, ...]:
        """The bots with a seat row, sorted: the order of every result."""
        return tuple(sorted({self.names[k] for k in np.unique(self.seat_bot).tolist()}))

    @cached_property
    def _rank(self) -> Ints:
        """Registry index -> position in :attr:`bots` (-1: no seat row)."""
        position = {name: k for k, name in enumerate(self.bots)}
        return np.array([position.get(name, -1) for name in self.names], dtype=np.int64)

    def bot_index(self) -> Ints:
        """Per seat row: its bot's position in :attr:`bots`."""
        return self._rank[self.seat_bot]

    def _to_mbb(self) -> Floats:
        """Per match: mbb/hand of one chip in one unit."""
        return 1000.0 / self.big_blind / self.hands_per_unit

    # --- statistics -----------------------------------------------------------------

    def bot_win_rates(self) -> dict[str, WinRate]:
        """Each bot's mbb/hand with its 95% interval over all its units (see ``bot_win_rates``)."""
        n, bot = len(self.bots), self.bot_index()
        count = self.seat_count
        scale = self._to_mbb()[self.seat_match]
        stats = combine(bot, count, self.seat_total * scale, self.seat_m2 * scale**2, n)
        hands = np.bincount(bot, count * self.hands_per_unit[self.seat_match], n)
        return {
            self.bots[k]: WinRate(int(hands[k]), *_mean_ci(stats, k))
            for k in np.unique(bot).tolist()
        }

    @cached_property
    def _pair_stats(self) -> tuple[tuple[Floats, Floats, Floats], Floats, Ints]:
        """Per key ``lo * n + hi`` (bots by name): (count, mean, M2) of lo's results, hands, keys met."""
        n = len(self.bots)
        a, b = self._rank[self.pair_a], self._rank[self.pair_b]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        keys = lo * n + hi
        total = np.where(a < b, self.pair_total, -self.pair_total)
        count = self.pair_count
        hands = np.bincount(keys, count * self.hands_per_unit[self.pair_match], n * n)
        return combine(keys, count, total, self.pair_m2, n * n), hands, np.unique(keys)  # type: ignore[return-value]  # np.bincount with weights gives float64; numpy's stub says intp

    @cached_property
    def _both_ways(self) -> tuple[list[tuple[str, str]], Ints]:
        """Keys ``(a, b)`` for every met pair in both orders, sorted, and where each value is."""
        n, met = len(self.bots), self._pair_stats[2]
        lo, hi = met // n, met % n
        first, second = np.concatenate((lo, hi)), np.concatenate((hi, lo))
        order = np.lexsort((second, first))
        table = _pair_keys(self.bots)
        return list(map(table.__getitem__, (first[order] * n + second[order]).tolist())), order

    def pair_win_rates(self) -> dict[tuple[str, str], WinRate]:
        """Every ordered pair's mbb/hand with its 95% interval (see ``pair_win_rates``)."""
        (count, mean, m2), hands, met = self._pair_stats
        c = count[met]
        ci = np.full(len(met), math.inf)
        many = c >= 2
        ci[many] = _Z95 * np.sqrt(m2[met][many] / (c[many] - 1) / c[many])
        means = np.concatenate((mean[met], -mean[met])) + 0.0  # + 0.0: no "-0"
        keys, order = self._both_ways
        rates = zip(
            np.concatenate((hands[met], hands[met]))[order].astype(np.int64).tolist(),
            means[order].tolist(),
            np.concatenate((ci, ci))[order].tolist(),
            strict=True,
        )
        # WinRate is a NamedTuple: made as a tuple, without its Python-level __new__
        return dict(zip(keys, map(partial(tuple.__new__, WinRate), rates), strict=True))

    def los_matrix(self) -> dict[tuple[str, str], float]:
        """LOS of ``a`` over ``b`` from the per-unit pair results (see ``chip_los_matrix``)."""
        (count, mean, m2), _, met = self._pair_stats
        c, mu = count[met], mean[met]
        sd = np.sqrt(np.divide(m2[met], c - 1, out=np.zeros(len(met)), where=c > 1))
        # Phi(mean / (sd / sqrt(n))) = erfc(z) / 2; 0.5 below two units, by sign if sd = 0
        spread = (c >= 2) & (sd != 0.0)
        z = np.zeros(len(met))
        z[spread] = -mu[spread] / (sd[spread] / np.sqrt(c[spread])) / math.sqrt(2.0)
        fixed = np.where(c < 2, 0.5, np.where(mu > 0, 1.0, np.where(mu < 0, 0.0, 0.5)))
        forward = np.where(spread, 0.0, fixed)
        backward = np.where(spread, 0.0, 1.0 - fixed)
        tails = z[spread]
        forward[spread] = 0.5 * np.fromiter(map(math.erfc, tails.tolist()), float, len(tails))
        backward[spread] = 0.5 * np.fromiter(map(math.erfc, (-tails).tolist()), float, len(tails))
        values = np.concatenate((forward, backward))
        keys, order = self._both_ways
        return dict(zip(keys, values[order].tolist(), strict=True))

    def margin_sums(self) -> tuple[Floats, Floats]:
        """Per-pair sums of the margin-scored results of every unit, over :attr:`bots`.

        Returns ``(scores, played)`` as :func:`~arena.ratings.fit_matrix` takes them: each
        unit of each pair at an ``n``-seat table is a result of weight ``1 / (n - 1)``.
        """
        n = len(self.bots)
        a, b = self._rank[self.pair_a], self._rank[self.pair_b]
        weight = 1.0 / (self.seats_at[self.pair_match] - 1)
        won = self.pair_won
        games = self.pair_count * weight
        forward, backward = a * n + b, b * n + a
        scores = np.bincount(forward, won * weight, n * n)
        scores += np.bincount(backward, games - won * weight, n * n)
        played = np.bincount(forward, games, n * n) + np.bincount(backward, games, n * n)
        return scores.reshape(n, n), played.reshape(n, n)  # type: ignore[return-value]  # np.bincount with weights gives float64; numpy's stub says intp


@lru_cache(maxsize=4)
def _pair_keys(bots: tuple[str, ...]) -> list[tuple[str, str]]:
    """``(bots[i], bots[j])`` at ``i * n + j``: made once for a live leaderboard's refits."""
    return cast("list[tuple[str, str]]", list(itertools.product(bots, repeat=2)))


def take_rows(row_match: Ints) -> Ints:
    """The rows whose new match index is not -1, ordered by it (stable: a match keeps its row order)."""
    keep = np.flatnonzero(row_match >= 0)
    return keep[np.argsort(row_match[keep], kind="stable")]


def row_moments(values: Floats, count: Ints, *, spread: bool = True) -> tuple[Floats, Floats]:
    """Per row of consecutive ``values`` (``count`` each): the sum and the sum of squared deviations."""
    total = np.zeros(len(count))
    m2 = np.zeros(len(count))
    full = count > 0
    if not full.any():
        return total, m2
    begin = (np.cumsum(count) - count)[full]
    total[full] = np.add.reduceat(values, begin)
    if spread:
        mean = np.divide(total, count, out=np.zeros(len(count)), where=full)
        width = np.unique(count[full])
        if len(width) == 1:  # rows of one length: a matrix, the same deviations
            deviation = values.reshape(-1, int(width[0])) - mean[full][:, None]
        else:
            deviation = values - np.repeat(mean, count)
        np.square(deviation, out=deviation)
        m2[full] = np.add.reduceat(deviation.ravel(), begin)
    return total, m2


def combine(
    groups: Ints, count: Ints, total: Floats, m2: Floats, size: int
) -> tuple[Floats, Floats, Floats]:
    """Per group: count, mean and sum of squared deviations, pooled from rows (Chan et al.)."""
    n = np.bincount(groups, count, size)
    mean = np.divide(np.bincount(groups, total, size), n, out=np.zeros(size), where=n > 0)
    row_mean = np.divide(total, count, out=np.zeros(len(count)), where=count > 0)
    spread = m2 + count * (row_mean - mean[groups]) ** 2
    return n, mean, np.bincount(groups, spread, size)  # type: ignore[return-value]  # np.bincount with weights gives float64; numpy's stub says intp


def _mean_ci(stats: tuple[Floats, Floats, Floats], k: int) -> tuple[float, float]:
    """(mean, 95% half-width) of group ``k``; an infinite width below 2 values."""
    count, mean, m2 = stats
    c = count[k]
    if c < 2:
        return float(mean[k]), math.inf
    return float(mean[k]), _Z95 * math.sqrt(m2[k] / (c - 1) / c)

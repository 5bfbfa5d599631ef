"""Many matches' per-unit chips as flat numpy columns, and the statistics computed on them.

A league of 200 bots and 20,000 matches of 100 duplicate blocks is two million units;
a Python object per unit took seconds to build and summarise. :class:`UnitTable` keeps
them in a few arrays and computes the win rates, the head-to-head results, the LOS and
the margin-scored fit's per-pair sums with grouped numpy sums instead.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from arena.ratings._pairwise import MARGIN_SCALE_MBB
from arena.stats import WinRate

if TYPE_CHECKING:
    from arena.ratings._winrates import MatchChips

_Z95 = 1.959963984540054
Ints = NDArray[np.int64]
Floats = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class UnitTable:
    """Seat rows of many matches: who sat there and the chips won in each unit.

    ``names`` are the bots, sorted. Seat row ``s`` is bot ``names[seat_bot[s]]`` in match
    ``seat_match[s]``; the seat rows of one match are consecutive, in seat order. Its
    units are ``units[offsets[s]:offsets[s + 1]]`` (every seat of a match has the same
    number of units). Match ``m`` has big blind ``big_blind[m]`` and ``hands_per_unit[m]``
    hands per unit. See :class:`~arena.ratings.MatchChips` for what a unit is.
    """

    names: tuple[str, ...]
    seat_bot: Ints
    seat_match: Ints
    offsets: Ints
    units: Floats
    big_blind: Floats
    hands_per_unit: Ints

    def __post_init__(self) -> None:
        seats, matches = len(self.seat_bot), len(self.big_blind)
        if len(self.seat_match) != seats or len(self.offsets) != seats + 1:
            raise ValueError(
                "seat_bot, seat_match and offsets (one more) must have one row per seat"
            )
        if len(self.hands_per_unit) != matches:
            raise ValueError("big_blind and hands_per_unit must have one row per match")
        if seats and (self.offsets[0] != 0 or self.offsets[-1] != len(self.units)):
            raise ValueError("offsets must run from 0 to the number of units")
        if np.any(np.diff(self.offsets) < 0) or np.any(np.diff(self.seat_match) < 0):
            raise ValueError("offsets and seat_match must not decrease")
        if matches and not (np.all(self.big_blind > 0) and np.all(self.hands_per_unit >= 1)):
            raise ValueError("every big blind is positive and every unit holds a hand or more")
        counts = np.diff(self.offsets)
        first = self._match_start()[:-1]
        if seats and np.any(counts != counts[first][self.seat_match]):
            raise ValueError("every bot of a match needs the same number of units")

    @classmethod
    def from_matches(cls, matches: Iterable[MatchChips]) -> UnitTable:
        """The table of some :class:`~arena.ratings.MatchChips` (in order)."""
        rows = list(matches)
        names = tuple(sorted({bot for m in rows for bot in m.bot_chips}))
        index = {name: k for k, name in enumerate(names)}
        seat_bot, seat_match, counts, units = [], [], [], []
        for number, match in enumerate(rows):
            for bot, chips in match.bot_chips.items():
                seat_bot.append(index[bot])
                seat_match.append(number)
                counts.append(len(chips))
                units.extend(chips)
        return cls(
            names=names,
            seat_bot=np.array(seat_bot, dtype=np.int64),
            seat_match=np.array(seat_match, dtype=np.int64),
            offsets=np.concatenate(([0], np.cumsum(counts, dtype=np.int64))),
            units=np.array(units, dtype=np.float64),
            big_blind=np.array([m.big_blind for m in rows], dtype=np.float64),
            hands_per_unit=np.array([m.hands_per_unit for m in rows], dtype=np.int64),
        )

    # --- shapes ---------------------------------------------------------------------

    def _match_start(self) -> Ints:
        """Each match's first seat row, and the number of seat rows at the end."""
        return np.searchsorted(self.seat_match, np.arange(len(self.big_blind) + 1)).astype(np.int64)

    def _to_mbb(self) -> Floats:
        """Per match: mbb/hand of one chip in one unit."""
        return 1000.0 / self.big_blind / self.hands_per_unit

    def seat_pairs(self) -> tuple[Ints, Ints]:
        """Every pair of seat rows at one table, in seat order (``a`` before ``b``)."""
        start = self._match_start()
        size = np.diff(start)
        first: list[Ints] = []
        second: list[Ints] = []
        for k in np.unique(size):
            tables = start[:-1][size == k]
            for p in range(int(k)):
                for q in range(p + 1, int(k)):
                    first.append(tables + p)
                    second.append(tables + q)
        if not first:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        a, b = np.concatenate(first), np.concatenate(second)
        order = np.lexsort((b, a))
        return a[order], b[order]

    def _expand(self, seats: Ints) -> tuple[Ints, Ints]:
        """For each given seat row, its unit positions; and for each unit, its row's position."""
        counts = self.offsets[seats + 1] - self.offsets[seats]
        owner = np.repeat(np.arange(len(seats)), counts)
        begin = np.cumsum(counts) - counts
        within = np.arange(int(counts.sum())) - np.repeat(begin, counts)
        return self.offsets[seats][owner] + within, owner

    @cached_property
    def _pairs(self) -> _PairRows:
        """Every pair of different bots at a table, with its per-unit half chip difference."""
        a, b = self.seat_pairs()
        keep = self.seat_bot[a] != self.seat_bot[b]
        a, b = a[keep], b[keep]
        pos_a, owner = self._expand(a)
        pos_b = pos_a - self.offsets[a][owner] + self.offsets[b][owner]
        match = self.seat_match[a]
        diff = (self.units[pos_a] - self.units[pos_b]) * (0.5 * self._to_mbb()[match])[owner]
        return _PairRows(
            bot_a=self.seat_bot[a],
            bot_b=self.seat_bot[b],
            match=match,
            count=self.offsets[a + 1] - self.offsets[a],
            diff=diff,
            owner=owner,
        )

    # --- statistics -----------------------------------------------------------------

    def bot_win_rates(self) -> dict[str, WinRate]:
        """Each bot's mbb/hand with its 95% interval over all its units (see ``bot_win_rates``)."""
        n = len(self.names)
        count = np.diff(self.offsets)
        scale = self._to_mbb()[self.seat_match]
        total, m2 = _row_moments(self.units, count)
        stats = _combine(self.seat_bot, count, total * scale, m2 * scale**2, n)
        hands = np.bincount(self.seat_bot, count * self.hands_per_unit[self.seat_match], n)
        return {
            self.names[k]: WinRate(int(hands[k]), *_mean_ci(stats, k))
            for k in np.unique(self.seat_bot).tolist()
        }

    def _pair_stats(self) -> tuple[tuple[Floats, Floats, Floats], Floats, Ints]:
        """Per key ``lo * n + hi`` (bots by name): (count, mean, M2) of lo's results, hands, keys met."""
        n, p = len(self.names), self._pairs
        lo, hi = np.minimum(p.bot_a, p.bot_b), np.maximum(p.bot_a, p.bot_b)
        keys = lo * n + hi
        total, m2 = _row_moments(p.diff, p.count)
        total = np.where(p.bot_a < p.bot_b, total, -total)
        hands = np.bincount(keys, p.count * self.hands_per_unit[p.match], n * n)
        return _combine(keys, p.count, total, m2, n * n), hands, np.unique(keys)

    def _both_ways(self, met: Ints) -> tuple[list, Ints]:
        """Keys ``(a, b)`` for every met pair in both orders, sorted, and where each value is."""
        n = len(self.names)
        lo, hi = met // n, met % n
        first, second = np.concatenate((lo, hi)), np.concatenate((hi, lo))
        order = np.lexsort((second, first))
        names = self.names
        keys = [
            (names[a], names[b])
            for a, b in zip(first[order].tolist(), second[order].tolist(), strict=True)
        ]
        return keys, order

    def pair_win_rates(self) -> dict[tuple[str, str], WinRate]:
        """Every ordered pair's mbb/hand with its 95% interval (see ``pair_win_rates``)."""
        (count, mean, m2), hands, met = self._pair_stats()
        c = count[met]
        ci = np.full(len(met), math.inf)
        many = c >= 2
        ci[many] = _Z95 * np.sqrt(m2[met][many] / (c[many] - 1) / c[many])
        means = np.concatenate((mean[met], -mean[met])) + 0.0  # + 0.0: no "-0"
        keys, order = self._both_ways(met)
        rates = map(
            WinRate,
            np.concatenate((hands[met], hands[met]))[order].astype(np.int64).tolist(),
            means[order].tolist(),
            np.concatenate((ci, ci))[order].tolist(),
        )
        return dict(zip(keys, rates, strict=True))

    def los_matrix(self) -> dict[tuple[str, str], float]:
        """LOS of ``a`` over ``b`` from the per-unit pair results (see ``chip_los_matrix``)."""
        (count, mean, m2), _, met = self._pair_stats()
        c = count[met].astype(np.int64).tolist()
        sd = np.sqrt(
            np.divide(m2[met], count[met] - 1, out=np.zeros(len(met)), where=count[met] > 1)
        )
        mu, sds = mean[met].tolist(), sd.tolist()
        values = [_los(k, m, d) for k, m, d in zip(c, mu, sds, strict=True)]
        values += [_los(k, -m, d) for k, m, d in zip(c, mu, sds, strict=True)]
        keys, order = self._both_ways(met)
        return dict(zip(keys, (values[k] for k in order.tolist()), strict=True))

    def margin_sums(self, scale_mbb: float = MARGIN_SCALE_MBB) -> tuple[Floats, Floats]:
        """Per-pair sums of the margin-scored results of every unit (see ``margin_results``).

        Returns ``(scores, played)`` as :func:`~arena.ratings.fit_matrix` takes them, over
        ``names``: each unit of each pair at an ``n``-seat table is a result of weight
        ``1 / (n - 1)`` scored ``0.5 + 0.5 tanh(margin / scale_mbb)``.
        """
        n, p = len(self.names), self._pairs
        seats_at = np.diff(self._match_start())[p.match]
        weight = 1.0 / (seats_at - 1)
        won, _ = _row_moments(0.5 + 0.5 * np.tanh(p.diff / scale_mbb), p.count, spread=False)
        games = p.count * weight
        forward, backward = p.bot_a * n + p.bot_b, p.bot_b * n + p.bot_a
        scores = np.bincount(forward, won * weight, n * n)
        scores += np.bincount(backward, games - won * weight, n * n)
        played = np.bincount(forward, games, n * n) + np.bincount(backward, games, n * n)
        return scores.reshape(n, n), played.reshape(n, n)


@dataclass(frozen=True, eq=False)
class _PairRows:
    """One row per pair of different bots at one table (``a`` seated before ``b``)."""

    bot_a: Ints
    bot_b: Ints
    match: Ints
    count: Ints  # units of the row
    diff: Floats  # per unit: (a's chips - b's chips) / 2, in mbb/hand
    owner: Ints  # per unit: its row


def _row_moments(values: Floats, count: Ints, *, spread: bool = True) -> tuple[Floats, Floats]:
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
        m2[full] = np.add.reduceat((values - np.repeat(mean, count)) ** 2, begin)
    return total, m2


def _combine(
    groups: Ints, count: Ints, total: Floats, m2: Floats, size: int
) -> tuple[Floats, Floats, Floats]:
    """Per group: count, mean and sum of squared deviations, pooled from rows (Chan et al.)."""
    n = np.bincount(groups, count, size)
    mean = np.divide(np.bincount(groups, total, size), n, out=np.zeros(size), where=n > 0)
    row_mean = np.divide(total, count, out=np.zeros(len(count)), where=count > 0)
    spread = m2 + count * (row_mean - mean[groups]) ** 2
    return n, mean, np.bincount(groups, spread, size)


def _mean_ci(stats: tuple[Floats, Floats, Floats], k: int) -> tuple[float, float]:
    """(mean, 95% half-width) of group ``k``; an infinite width below 2 values."""
    count, mean, m2 = stats
    c = count[k]
    if c < 2:
        return float(mean[k]), math.inf
    return float(mean[k]), _Z95 * math.sqrt(m2[k] / (c - 1) / c)


def _los(count: int, mean: float, sd: float) -> float:
    """``Phi(mean / (sd / sqrt(n)))``; 0.5 below two samples, by sign when they are all equal."""
    if count < 2:
        return 0.5
    if sd == 0.0:
        return 1.0 if mean > 0 else 0.0 if mean < 0 else 0.5
    return 0.5 * math.erfc(-mean / (sd / math.sqrt(count)) / math.sqrt(2.0))

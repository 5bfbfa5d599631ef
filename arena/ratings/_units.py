"""Many matches' per-unit chips as flat numpy columns, and the statistics computed on them.

A league of 200 bots and 20,000 matches of 100 duplicate blocks is two million units;
a Python object per unit took seconds to build and summarise. :class:`UnitTable` keeps
them in a few arrays and sums them per seat row and per pair row
(:class:`~arena.ratings._summary.UnitSummary`), which the win rates, the head-to-head
results, the LOS and the margin-scored fit's per-pair sums are combined from.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from arena.ratings._pairwise import MARGIN_SCALE_MBB
from arena.ratings._summary import UnitSummary, row_moments
from arena.stats import WinRate

Ints = NDArray[np.int64]
Floats = NDArray[np.float64]


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchChips:
    """One match's chip results, unit by unit, for every bot at the table.

    ``bot_chips[bot][u]`` is what ``bot`` won (negative: lost) in unit ``u``. A unit is the
    independent sample the interval is built on: one hand in an ordinary match, one
    duplicate block (the same deals played from every seat, ``hands_per_unit`` hands) in a
    duplicate match, where most of the card luck cancels inside the unit. Every bot has the
    same number of units, aligned (unit ``u`` is the same hands for everyone).
    ``big_blind`` is the match's big blind in chips, used to express results in
    milli-big-blinds (mbb) so matches with different blinds can be pooled.
    """

    bot_chips: Mapping[str, Sequence[float]]
    big_blind: float
    hands_per_unit: int = 1

    def __post_init__(self) -> None:
        if not self.big_blind > 0:
            raise ValueError(f"the big blind is a positive number of chips, got {self.big_blind}")
        if self.hands_per_unit < 1:
            raise ValueError(f"a unit holds at least one hand, got {self.hands_per_unit}")
        lengths = {len(chips) for chips in self.bot_chips.values()}
        if len(lengths) > 1:
            raise ValueError(f"every bot needs the same number of units, got {sorted(lengths)}")

    def mbb_per_hand(self, chips: float) -> float:
        """One unit's chips in milli-big-blinds per hand."""
        return chips * 1000.0 / self.big_blind / self.hands_per_unit


@dataclass(frozen=True, eq=False)
class UnitTable:
    """Seat rows of many matches: who sat there and the chips won in each unit.

    ``names`` are the bots (sorted by :meth:`from_matches`; in any order, results come
    out by name, over the bots with a seat row). Seat row ``s`` is bot
    ``names[seat_bot[s]]`` in match ``seat_match[s]``; the seat rows of one match are
    consecutive, in seat order. Its
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
        seat_bot: list[int] = []
        seat_match: list[int] = []
        counts: list[int] = []
        units: list[float] = []
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

    def _pair_diff(self, a: Ints, b: Ints, count: Ints, scale: Floats) -> Floats:
        """Per unit of each pair row ``(a, b)`` in turn: ``(a's chips - b's) * scale`` of its row.

        When every seat row with units has the same number (a league's matches usually
        do), the units are a matrix and a pair's are two of its rows: no per-unit index
        arrays. The values are the same either way.
        """
        full = count > 0
        width = np.unique(count[full])
        if len(width) == 1:
            units = self.units.reshape(-1, int(width[0]))
            row = np.cumsum(full) - 1  # seat row -> its row of the matrix
            rows = full[a]
            left, right = units[row[a[rows]]], units[row[b[rows]]]
            return ((left - right) * scale[rows][:, None]).ravel()
        pos_a, owner = self._expand(a)
        pos_b = pos_a - self.offsets[a][owner] + self.offsets[b][owner]
        return (self.units[pos_a] - self.units[pos_b]) * scale[owner]

    def summary(self, scale_mbb: float = MARGIN_SCALE_MBB) -> UnitSummary:
        """The per-row sums every statistic is combined from (see :class:`UnitSummary`)."""
        if scale_mbb == MARGIN_SCALE_MBB:
            return self._summary
        return self._summarise(scale_mbb)

    @cached_property
    def _summary(self) -> UnitSummary:
        return self._summarise(MARGIN_SCALE_MBB)

    def _summarise(self, scale_mbb: float) -> UnitSummary:
        count = np.diff(self.offsets)
        seat_total, seat_m2 = row_moments(self.units, count)
        # every pair of different bots at a table, with its per-unit half chip difference
        a, b = self.seat_pairs()
        keep = self.seat_bot[a] != self.seat_bot[b]
        a, b = a[keep], b[keep]
        match = self.seat_match[a]
        diff = self._pair_diff(a, b, count, 0.5 * self._to_mbb()[match])
        pair_count = count[a]
        pair_total, pair_m2 = row_moments(diff, pair_count)
        score = np.divide(diff, scale_mbb)  # 0.5 + 0.5 tanh(diff / scale), in place
        np.tanh(score, out=score)
        score *= 0.5
        score += 0.5
        won, _ = row_moments(score, pair_count, spread=False)
        return UnitSummary(
            names=self.names,
            big_blind=self.big_blind,
            hands_per_unit=self.hands_per_unit,
            seats_at=np.diff(self._match_start()),
            seat_bot=self.seat_bot,
            seat_match=self.seat_match,
            seat_count=count,
            seat_total=seat_total,
            seat_m2=seat_m2,
            pair_a=self.seat_bot[a],
            pair_b=self.seat_bot[b],
            pair_match=match,
            pair_count=pair_count,
            pair_total=pair_total,
            pair_m2=pair_m2,
            pair_won=won,
            scale_mbb=scale_mbb,
        )

    # --- statistics -----------------------------------------------------------------

    def bot_win_rates(self) -> dict[str, WinRate]:
        """Each bot's mbb/hand with its 95% interval over all its units (see ``bot_win_rates``)."""
        return self._summary.bot_win_rates()

    def pair_win_rates(self) -> dict[tuple[str, str], WinRate]:
        """Every ordered pair's mbb/hand with its 95% interval (see ``pair_win_rates``)."""
        return self._summary.pair_win_rates()

    def los_matrix(self) -> dict[tuple[str, str], float]:
        """LOS of ``a`` over ``b`` from the per-unit pair results (see ``chip_los_matrix``)."""
        return self._summary.los_matrix()

    def margin_sums(self, scale_mbb: float = MARGIN_SCALE_MBB) -> tuple[Floats, Floats]:
        """Per-pair sums of the margin-scored results of every unit (see ``margin_results``).

        Returns ``(scores, played)`` as :func:`~arena.ratings.fit_matrix` takes them, over
        the sorted names with a seat row: each unit of each pair at an ``n``-seat
        table is a result of weight ``1 / (n - 1)`` scored ``0.5 + 0.5 tanh(margin /
        scale_mbb)``.
        """
        return self.summary(scale_mbb).margin_sums()

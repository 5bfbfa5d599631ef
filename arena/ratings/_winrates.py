"""Win rates in mbb/hand with 95% intervals, per bot and per pair, from per-unit chip results."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.ratings._units import UnitTable
from arena.stats import WinRate


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


def bot_win_rates(matches: Iterable[MatchChips]) -> dict[str, WinRate]:
    """Each bot's win rate in mbb/hand with its 95% interval, over all its units in ``matches``.

    Units count equally whatever their size (each converted to mbb/hand first).
    """
    return UnitTable.from_matches(matches).bot_win_rates()


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
    return UnitTable.from_matches(matches).pair_win_rates()

"""Win rates in mbb/hand with 95% intervals, per bot and per pair, from per-unit chip results."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from arena.ratings._units import MatchChips, UnitTable
from arena.stats import WinRate


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

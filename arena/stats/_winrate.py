"""Win rates with error bars: every figure the arena reports carries its interval."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

_Z95 = 1.959963984540054


class WinRate(NamedTuple):
    """Mean result per hand in milli-big-blinds, with a 95% confidence half-width."""

    hands: int
    mbb_per_hand: float
    ci95: float

    def __str__(self) -> str:
        return f"{self.mbb_per_hand:+.0f} ± {self.ci95:.0f} mbb/hand"


def win_rate(
    chips_per_unit: Sequence[float], big_blind: float, *, hands_per_unit: int = 1
) -> WinRate:
    """Normal-approximation interval on the mean of independent units (hands, or duplicate pairs)."""
    units = len(chips_per_unit)
    hands = units * hands_per_unit
    if units == 0:
        return WinRate(0, 0.0, math.inf)
    scale = 1000.0 / big_blind / hands_per_unit
    mean = sum(chips_per_unit) / units
    if units < 2:
        return WinRate(hands, mean * scale, math.inf)
    variance = sum((x - mean) ** 2 for x in chips_per_unit) / (units - 1)
    return WinRate(hands, mean * scale, _Z95 * math.sqrt(variance / units) * scale)

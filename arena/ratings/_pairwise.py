"""Pairwise results: the one currency every rating in this package is computed from."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PairResult:
    """The score of bot ``a`` against bot ``b`` in one match or at one table.

    ``score`` is from ``a``'s side and lies in ``[0, 1]``: 1 a win, 0.5 a draw, 0 a loss.
    ``weight`` is how many games this result counts as (positive); it multiplies the Elo
    K-factor and the result's share of the batch fit's likelihood. A heads-up match is one
    game (weight 1); :func:`pairwise_results` gives each pair at an ``n``-seat table the weight
    ``1 / (n - 1)``, so a table counts as one game for each bot however many seats it has.
    """

    a: str
    b: str
    score: float
    weight: float = 1.0

    def __post_init__(self) -> None:
        if self.a == self.b:
            raise ValueError(f"a pair result needs two different bots, got {self.a!r} twice")
        if not 0.0 <= self.score <= 1.0:
            raise ValueError(f"a score lies in [0, 1] (1 win, 0.5 draw, 0 loss), got {self.score}")
        if not (self.weight > 0.0 and math.isfinite(self.weight)):
            raise ValueError(f"a result's weight is a positive number, got {self.weight}")

    def swapped(self) -> PairResult:
        """The same result seen from ``b``'s side."""
        return PairResult(self.b, self.a, 1.0 - self.score, self.weight)


def pairwise_results(chips_by_bot: Mapping[str, float]) -> list[PairResult]:
    """Turn one match's or one table's chip results into pairwise results.

    ``chips_by_bot`` maps each bot at the table to the chips it won (negative: lost) over
    the whole match. Every pair of bots gets a result by comparing the two: more chips is
    a win (1), equal chips a draw (0.5), fewer a loss (0). Heads-up this is simply who won
    the match. At an ``n``-seat table each of the ``n * (n - 1) / 2`` results has weight
    ``1 / (n - 1)``: each bot's results there add up to one game, so a 7-seat table moves an
    Elo rating as much as one heads-up match rather than six, and the batch fit does not
    count six correlated comparisons as six independent games.

    For a duplicate match pass the chips summed over the duplicate pairs (each deal played
    from both sides): the card luck has already largely cancelled, so the win/loss that comes
    out is a much better signal of skill than the same number of plain hands would give.

    Results come in the mapping's order of bots (``a`` before ``b``); fewer than two bots
    give no results.
    """
    bots = list(chips_by_bot)
    if len(bots) < 2:
        return []
    weight = 1.0 / (len(bots) - 1)
    results = []
    for a, b in itertools.combinations(bots, 2):
        chips_a, chips_b = chips_by_bot[a], chips_by_bot[b]
        score = 1.0 if chips_a > chips_b else 0.0 if chips_a < chips_b else 0.5
        results.append(PairResult(a, b, score, weight))
    return results


MARGIN_SCALE_MBB = 1000.0
"""A margin of this many mbb/hand (one big blind a hand) scores about 0.88 (tanh(1))."""


def margin_results(
    chips_by_bot: Mapping[str, float],
    *,
    big_blind: float,
    hands: int,
    scale_mbb: float = MARGIN_SCALE_MBB,
) -> list[PairResult]:
    """Pairwise results that keep the margin: a soft score from the chip difference.

    For each pair the half difference of their chips, in mbb per hand, becomes
    ``0.5 + 0.5 * tanh(margin / scale_mbb)``: a tiny edge scores just over 0.5, a big one
    close to 1. Fed to the batch fit unit by unit (a duplicate block or a hand), this
    ranks bots by how much they win, as mbb/hand does, instead of by how often, which a
    plain win/loss per unit would (a bot that wins many small pots and loses a few big ones
    would otherwise rank above the bot that beats it). Weights as in :func:`pairwise_results`.
    """
    bots = list(chips_by_bot)
    if len(bots) < 2:
        return []
    if big_blind <= 0 or hands <= 0 or scale_mbb <= 0:
        raise ValueError("big_blind, hands and scale_mbb must be positive")
    weight = 1.0 / (len(bots) - 1)
    to_mbb = 1000.0 / big_blind / hands
    results = []
    for a, b in itertools.combinations(bots, 2):
        margin = (chips_by_bot[a] - chips_by_bot[b]) / 2 * to_mbb
        results.append(PairResult(a, b, 0.5 + 0.5 * math.tanh(margin / scale_mbb), weight))
    return results

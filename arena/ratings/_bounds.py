"""The bounds of every rating setting, checked wherever a setting is read.

Elo's arithmetic is only meaningful for ratings of a few thousand points and K factors of
a few dozen: ``k = 1e6`` moved bots by +-498,500 after one match, and the next match's
``10 ** (diff / 400)`` overflowed. The bounds are generous (no real setting is near
them) and keep every rating, expected score and fit finite.
"""

from __future__ import annotations

import math

MAX_K_FACTOR = 400.0
"""The largest Elo K factor: one game moves a rating by less than this (usual: 10-40)."""

RATING_LIMIT = 10_000.0
"""A start rating or anchor rating lies in ``[-RATING_LIMIT, RATING_LIMIT]`` (usual: 1000-1500)."""

DEFAULT_K_FACTOR = 16.0
"""Elo's K factor when none is given: ``EloSystem``, the live Elo of tournaments."""

DEFAULT_START_RATING = 1500.0
"""A new bot's live Elo when none is given."""

DEFAULT_ANCHOR_RATING = 1000.0
"""The anchored bot's rating (or, with no anchor, the mean rating) when none is given."""

MAX_PRIOR_GAMES = 1_000.0
"""The most virtual draws the batch fit's prior may add per bot (usual: 2)."""


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"must be a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"must be a finite number, got {value!r}")
    return number


def bounded_rating(value: float, start: float) -> float:
    """A stored rating made safe to compute with: ``start`` if not finite, else clamped.

    A database may hold absurd ratings (Inf, +-1e308: written before the K bound, or by
    hand); Elo of such values overflows to NaN, which SQLite stores as NULL. Clamping to
    ``[-RATING_LIMIT, RATING_LIMIT]`` keeps every expected score and update finite.
    """
    number = float(value)
    if not math.isfinite(number):
        return float(start)
    return min(max(number, -RATING_LIMIT), RATING_LIMIT)


def check_k_factor(value: object) -> float:
    """``value`` as a K factor, or ``ValueError`` saying the allowed range."""
    number = _number(value)
    if not 0.0 < number <= MAX_K_FACTOR:
        raise ValueError(f"must be above 0 and at most {MAX_K_FACTOR:g}, got {value!r}")
    return number


def check_rating_setting(value: object) -> float:
    """``value`` as a start or anchor rating, or ``ValueError`` saying the allowed range."""
    number = _number(value)
    if not -RATING_LIMIT <= number <= RATING_LIMIT:
        raise ValueError(f"must be between {-RATING_LIMIT:g} and {RATING_LIMIT:g}, got {value!r}")
    return number


def check_prior_games(value: object) -> float:
    """``value`` as the fit's virtual draws per bot, or ``ValueError`` saying the allowed range."""
    number = _number(value)
    if not 0.0 < number <= MAX_PRIOR_GAMES:
        raise ValueError(f"must be above 0 and at most {MAX_PRIOR_GAMES:g}, got {value!r}")
    return number

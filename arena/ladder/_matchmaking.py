"""Who plays whom next: Halite's matchmaking, for heads-up pairs and ring tables.

Each table starts from the idle version that most needs a game (fewest matches, then
the longest since it last played), so none starves, however it is rated; its opponents
are drawn from the versions nearest it in the shown rating, within a window whose width
is drawn at random: usually narrow (close games say most about a rating), sometimes
wide, so the ladder keeps mixing and a version is not stuck in its first neighbourhood.

Pure: the scheduler passes what it knows of each version and a seeded ``random.Random``;
the same candidates and seed always give the same tables.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from arena.ladder._rating import MAX_SEATS, MIN_SEATS, Skill

WINDOWS: tuple[tuple[float, int | None], ...] = ((0.6, 2), (0.3, 5), (0.1, None))
"""(chance, width) for the window of opponents: the width in multiples of the opponents
a table needs, ``None`` for every eligible one. Close most of the time, now and then
anyone (Halite drew its rank window the same way)."""


@dataclass(frozen=True)
class Candidate:
    """One version the scheduler may seat: ``busy`` if it is in a match now;
    ``last_played`` a timestamp (any monotonic scale), ``None`` if it never played."""

    version: int
    team: str
    skill: Skill
    matches: int
    last_played: float | None
    busy: bool


def pick_tables(
    candidates: Sequence[Candidate], *, table_size: int, tables: int, rng: random.Random
) -> list[tuple[int, ...]]:
    """Up to ``tables`` tables of ``table_size`` version ids each, in the seat order
    chosen (shuffled: a seeker does not always sit first).

    Never a busy version, never two versions of one team at a table, no version at two
    tables of the batch; stops early when fewer than ``table_size`` teams have an idle
    version left.
    """
    if not MIN_SEATS <= table_size <= MAX_SEATS:
        raise ValueError(f"a table has {MIN_SEATS}-{MAX_SEATS} seats, not {table_size}")
    pool = sorted((c for c in candidates if not c.busy), key=lambda c: c.version)
    if len({c.version for c in pool}) != len(pool):
        raise ValueError("a version is listed twice")
    picked: list[tuple[int, ...]] = []
    while len(picked) < tables and len({c.team for c in pool}) >= table_size:
        seeker = _neediest(pool, rng)
        table = [seeker, *_opponents(seeker, pool, table_size - 1, rng)]
        rng.shuffle(table)
        picked.append(tuple(c.version for c in table))
        seated = {c.version for c in table}
        pool = [c for c in pool if c.version not in seated]
    return picked


def _neediest(pool: Sequence[Candidate], rng: random.Random) -> Candidate:
    """The candidate that most needs a game: fewest matches, then never played, then
    least recently played; the rest of a tie is the draw of ``rng``."""
    ties = [rng.random() for _ in pool]
    order = sorted(
        range(len(pool)),
        key=lambda i: (
            pool[i].matches,
            -math.inf if pool[i].last_played is None else pool[i].last_played,
            ties[i],
        ),
    )
    return pool[order[0]]


def _opponents(
    seeker: Candidate, pool: Sequence[Candidate], needed: int, rng: random.Random
) -> list[Candidate]:
    """``needed`` opponents of other teams (one version each), drawn from the window of
    those nearest ``seeker`` in the shown rating."""
    ties = {c.version: rng.random() for c in pool}
    nearest = sorted(
        (c for c in pool if c.team != seeker.team),
        key=lambda c: (abs(c.skill.shown - seeker.skill.shown), ties[c.version]),
    )
    one_per_team: list[Candidate] = []
    teams: set[str] = set()
    for candidate in nearest:  # a team's nearest idle version stands for it
        if candidate.team not in teams:
            teams.add(candidate.team)
            one_per_team.append(candidate)
    width = _window(needed, len(one_per_team), rng)
    return rng.sample(one_per_team[:width], needed)


def _window(needed: int, available: int, rng: random.Random) -> int:
    """How many of the nearest opponents to draw from this time (at least ``needed``)."""
    draw = rng.random()
    factor = WINDOWS[-1][1]
    for chance, width_factor in WINDOWS:
        if draw < chance:
            factor = width_factor
            break
        draw -= chance
    width = available if factor is None else needed * factor
    return max(needed, min(width, available))

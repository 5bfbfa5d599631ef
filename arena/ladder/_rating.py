"""The ladder's rating: OpenSkill's Plackett-Luce, fit for heads-up pairs and ring tables.

Each finished duplicate match is one rated game: its seats ranked by the net chips each
version won over the whole match. The leaderboard sorts by :attr:`Skill.shown`, the
conservative ``mu - 3 sigma`` that Halite showed for TrueSkill, so a version with few
games (a wide sigma) climbs as it proves itself rather than leading on one lucky win.

Pure: no database, no clock; the scheduler stores ``mu`` and ``sigma`` and calls these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce


@dataclass(frozen=True)
class Skill:
    """A version's rating: the mean ``mu`` and the uncertainty ``sigma`` of its skill."""

    mu: float
    sigma: float

    @property
    def shown(self) -> float:
        """``mu - 3 sigma``: a figure the version's skill is very likely above (what the
        leaderboard sorts by)."""
        return self.mu - 3.0 * self.sigma


START = Skill(25.0, 25.0 / 3.0)
"""A team's first version: OpenSkill's (and TrueSkill's) default prior."""

MIN_SEATS = 2
MAX_SEATS = 6

MODEL = PlackettLuce(mu=START.mu, sigma=START.sigma, limit_sigma=True)
"""One model for the whole ladder, so the same history always gives the same ratings.
``limit_sigma``: a match never widens a version's sigma (its dynamics term ``tau`` only
slows the narrowing), so playing can never lower a figure by itself."""


def ranks_by_chips(chips: Sequence[int]) -> list[int]:
    """Competition ranks (0 best): a seat's rank is how many seats won strictly more, so
    equal chips share a rank (a tie, which moves its seats little)."""
    return [sum(other > mine for other in chips) for mine in chips]


def rate_table(skills: Sequence[Skill], chips: Sequence[int]) -> list[Skill]:
    """The seats' skills after one finished match, in the order given.

    ``chips[i]`` is seat ``i``'s version's net chips over the whole duplicate match; a
    table is a heads-up pair or a ring of 3-6 seats.
    """
    if len(skills) != len(chips):
        raise ValueError(f"{len(skills)} skills but {len(chips)} chip counts")
    if not MIN_SEATS <= len(skills) <= MAX_SEATS:
        raise ValueError(f"a table has {MIN_SEATS}-{MAX_SEATS} seats, not {len(skills)}")
    teams = [[MODEL.rating(mu=skill.mu, sigma=skill.sigma)] for skill in skills]
    rated = MODEL.rate(teams, ranks=[float(rank) for rank in ranks_by_chips(chips)])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]


def new_version_skill(previous: Skill | None) -> Skill:
    """A new version's starting skill: its team's latest ``mu`` (the team's code is mostly
    the same) with sigma reset to the prior's (it may be better or worse), as Halite did;
    :data:`START` for a team's first version."""
    if previous is None:
        return START
    return Skill(previous.mu, START.sigma)

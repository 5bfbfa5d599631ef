"""One scheduled match: the record the schedule, the store and the match settings share.

It lives apart from :mod:`arena.tournament._formats` (which builds schedules) so
that the tournament config can turn a match into dealer settings without importing
the scheduler, and the scheduler can read the config: no import cycle.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class ScheduledMatch:
    """One match (one table) of the schedule.

    ``key``: stable and unique within the tournament (``r2-m013``); ``seats``: bot names
    in seat order (seat 0 holds the button at the first hand); ``hands``: hands to play
    (a multiple of the table size with ``duplicate``); ``seed``: the deck seed;
    ``round``: 1-based repetition of the schedule.
    """

    key: str
    seats: tuple[str, ...]
    hands: int
    seed: int
    duplicate: bool
    round: int

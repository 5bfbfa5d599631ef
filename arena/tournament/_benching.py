"""Bots benched for time: a slow bot stretches one match of a league, not all of them.

A student's bot that sleeps 3 s a decision against a 2 s clock spends its wall budget at
its first decision of each match and is sat out (``arena.dealer.WALL_BUDGET``): a few
seconds, but a few seconds in every match it plays, one after the other (a league of 5
quick bots and such a sleeper took 10x as long as without it). So once a bot has been
sat out of ``timeouts.bench_after`` matches for time, the rest of its matches are
recorded as not started (a forfeit, lost in the standings, with the reason), the
teacher and the student are told which match and why, and ``arena tournament resume``
plays those matches again once the bot is fixed, as for a bot that did not start
(:mod:`arena.tournament._not_started`). Only the wall budget benches: a bot that
computes is never charged it, and other faults (its own errors, illegal actions) have
the fault limit. The in-process executor (the default) benches; worker processes and
Ray do not yet (each worker sees only its own matches).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from arena.tournament._not_started import printable

WALL_SIT_OUT = "wall budget spent"
"""How the dealer's SAT_OUT fault for a spent wall budget begins (``arena.dealer._match``)."""


@dataclass
class Bench:
    """Counts each bot's matches sat out for time; says when one is to be benched."""

    after: int
    sat_out: Counter[str] = field(default_factory=Counter)
    benched: dict[str, str] = field(default_factory=dict)

    def record(self, match: Any, result: Any) -> dict[str, str]:
        """The bots of ``match`` benched by its ``result`` (name -> why), each once."""
        if not self.after or result is None:
            return {}
        slow: dict[str, str] = {}
        for fault in result.faults:
            if fault.reason == "SAT_OUT" and fault.detail.startswith(WALL_SIT_OUT):
                slow.setdefault(match.seats[fault.seat], fault.detail)
        new = {}
        for name, detail in slow.items():
            self.sat_out[name] += 1
            if self.sat_out[name] >= self.after and name not in self.benched:
                why = (
                    f"benched: sat out of {self.sat_out[name]} match(es) for time, last "
                    f"{match.key} ({printable(detail)})"
                )
                self.benched[name] = new[name] = why
        return new


def bench_note(name: str, why: str, matches: int, source: str) -> str:
    """The one note printed for a benched bot."""
    return (
        f"bot {name!r} {why}: its {matches} other match(es) are recorded as 'not_started' "
        "(a forfeit, lost in the standings); make its decisions faster than the action "
        f"clock, then `arena tournament resume {source}` plays them"
    )

"""A tournament's bot instances: one per rotation of a duplicate deal (issue 9).

Instance ``k`` of a bot plays only table ``k`` of each match, so no process sees a
deck twice; :func:`visibility_notes` warns when a bot could read the records anyway.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from arena.dealer import BotDriver, sandbox_of
from arena.tournament._config import TournamentConfig


class _Match(Protocol):  # a ScheduledMatch or a stored ScheduledRow
    @property
    def seats(self) -> tuple[str, ...]: ...
    @property
    def duplicate(self) -> bool: ...


Instances = dict[str, list[BotDriver]]
"""Each bot's drivers: one per rotation of a duplicate deal (instance k plays table k)."""


def rotations_needed(pending: Sequence[_Match]) -> dict[str, int]:
    """How many instances of each bot the matches need: its largest duplicate table, else 1."""
    needed: dict[str, int] = {}
    for match in pending:
        copies = len(match.seats) if match.duplicate else 1
        for name in match.seats:
            needed[name] = max(needed.get(name, 1), copies)
    return needed


def visibility_notes(drivers: Instances, config: TournamentConfig) -> list[str]:
    """A warning for each launched bot that could read the records (sandbox off or L0)."""
    exposed = [
        name
        for name, instances in drivers.items()
        if any(getattr(driver, "records_visible", False) for driver in instances)
    ]
    if not exposed:
        return []
    return [
        f"warning: {', '.join(map(repr, exposed))} run at sandbox {sandbox_of(drivers[exposed[0]][0])}"
        f" and can read the records in {config.output} (hidden cards) and the database: "
        "install bubblewrap (sandbox L1) to hide them; `arena doctor` says what works here"
    ]

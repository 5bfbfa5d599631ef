"""A tournament's bot instances: one per rotation of a duplicate deal (issue 9).

Instance ``k`` of a bot plays only table ``k`` of each match, so no process sees a
deck twice. An instance stopped to make room for others (issue 12 item 5) is started
again as a fresh process for the same table ``k``, never for another.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from arena.dealer import BotDriver


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

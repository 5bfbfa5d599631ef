"""The keys that say where and how widely a tournament's matches run (issue 12).

``tournament.workers`` and ``tournament.max_live_bots`` are read here, apart from the
keys that shape the games: none of them is stored in
:meth:`~arena.tournament.TournamentConfig.to_json`, so a league started on one machine
may resume on another with other bounds.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Protocol

from arena.tournament._config import TournamentConfigError

MAX_WORKERS = 256
"""The most dealer processes ``tournament.workers`` may ask for."""

MAX_LIVE_BOTS = 100_000
"""The largest ``tournament.max_live_bots`` (far past what one machine can start)."""


class KeyReader(Protocol):
    """What these functions need of the file parser: its errors and whole numbers."""

    def fail(self, key: str | None, problem: str) -> TournamentConfigError: ...

    def integer(
        self,
        table: Mapping,
        path: str,
        key: str,
        default: int | None,
        *,
        minimum: int,
        maximum: int = ...,
    ) -> int: ...


def parse_scale(
    reader: KeyReader, tour: Mapping[str, Any], *, table_size: int, duplicate: bool
) -> dict[str, Any]:
    """The :class:`~arena.tournament.TournamentConfig` fields these keys set, by name."""
    return {
        "workers": parse_workers(reader, tour),
        "max_live_bots": parse_max_live_bots(
            reader, tour, table_size=table_size, duplicate=duplicate
        ),
    }


def parse_workers(reader: KeyReader, tour: Mapping[str, Any]) -> int:
    """``tournament.workers``: dealer processes, ``"auto"`` for one per core."""
    if tour.get("workers") == "auto":
        return max(1, os.cpu_count() or 1)
    if isinstance(tour.get("workers"), str):
        raise reader.fail(
            "tournament.workers", f"must be a whole number or 'auto', got {tour['workers']!r}"
        )
    return reader.integer(tour, "tournament", "workers", 1, minimum=1, maximum=MAX_WORKERS)


def bots_per_match(table_size: int, duplicate: bool) -> int:
    """Bot processes one match needs: a seat each, and one per rotation when duplicate."""
    return table_size * table_size if duplicate else table_size


def parse_max_live_bots(
    reader: KeyReader, tour: Mapping[str, Any], *, table_size: int, duplicate: bool
) -> int | None:
    """``tournament.max_live_bots``: a bound on live bot processes, at least one match's."""
    if "max_live_bots" not in tour:
        return None
    need = bots_per_match(table_size, duplicate)
    value = reader.integer(
        tour, "tournament", "max_live_bots", None, minimum=1, maximum=MAX_LIVE_BOTS
    )
    if value < need:
        how = f"{table_size} seats x {table_size} rotations" if duplicate else f"{table_size} seats"
        raise reader.fail(
            "tournament.max_live_bots",
            f"must be at least {need}, the bot processes one match needs ({how}); got {value}",
        )
    return value

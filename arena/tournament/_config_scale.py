"""The keys that say where and how widely a tournament's matches run (issue 12).

``tournament.workers``, ``tournament.max_live_bots``, ``tournament.executor``,
``tournament.ray_address`` and each bot's ``ray_resources`` are read here, apart from the
keys that shape the games: none of them is stored in
:meth:`~arena.tournament.TournamentConfig.to_json`, so a league started on one machine
may resume on another executor, with other bounds.

``executor = "local"`` (the default) plays in this process (``workers = 1``) or in
worker processes (``workers > 1``); ``executor = "ray"`` plays each match as a Ray task
on a cluster at ``ray_address`` (default ``"auto"``), where ``workers`` is not used (the
cluster's CPUs decide how many matches run at once). The Ray keys are accepted, and
ignored with a note, under ``executor = "local"``, so one league file can be tried here.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from typing import Any, Protocol

from arena.text import escape_untrusted
from arena.tournament._config import TournamentConfigError

MAX_WORKERS = 256
"""The most dealer processes ``tournament.workers`` may ask for."""

MAX_LIVE_BOTS = 100_000
"""The largest ``tournament.max_live_bots`` (far past what one machine can start)."""


EXECUTORS = ("local", "ray")
"""``tournament.executor``: this machine (in-process or worker processes), or a Ray cluster."""

RAY_ADDRESS = re.compile(
    r"^(auto|local|(ray://)?[A-Za-z0-9_.\-]+:\d{1,5}|(ray://)?\[[0-9A-Fa-f:.]+\]:\d{1,5})\Z"
)
"""What ``ray.init(address=...)`` takes: ``auto``, ``local``, ``HOST:PORT``, ``ray://HOST:PORT``."""

RAY_RESOURCE = re.compile(r"^[A-Za-z0-9_.:\-]{1,64}\Z")
"""A Ray custom resource's name (``gpu_box``; ``node:10.0.0.5`` is Ray's own per node)."""

RAY_RESERVED = frozenset({"CPU", "GPU", "memory", "object_store_memory"})
"""Resources Ray sets itself; a task asks for them otherwise (each match reserves 1 CPU)."""


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
    reader: KeyReader,
    tour: Mapping[str, Any],
    bots: object,
    *,
    table_size: int,
    duplicate: bool,
) -> dict[str, Any]:
    """The :class:`~arena.tournament.TournamentConfig` fields these keys set, by name;
    ``bots`` is the file's ``[[bots]]`` array, already checked (for ``ray_resources``)."""
    return {
        "workers": parse_workers(reader, tour),
        "max_live_bots": parse_max_live_bots(
            reader, tour, table_size=table_size, duplicate=duplicate
        ),
        "executor": parse_executor(reader, tour),
        "ray_address": parse_ray_address(reader, tour),
        "ray_resources": parse_ray_resources(reader, bots),
    }


def parse_executor(reader: KeyReader, tour: Mapping[str, Any]) -> str:
    """``tournament.executor``: ``"local"`` (default) or ``"ray"``."""
    value = tour.get("executor", "local")
    if value not in EXECUTORS:
        shown = repr(value) if isinstance(value, str) else f"{type(value).__name__} {value!r}"
        raise reader.fail(
            "tournament.executor",
            f"{escape_untrusted(shown)[:80]} is not one of 'local', 'ray'",
        )
    return str(value)


def parse_ray_address(reader: KeyReader, tour: Mapping[str, Any]) -> str | None:
    """``tournament.ray_address``: what ``ray.init(address=...)`` accepts; ``None`` when
    the file gives none (Ray's ``"auto"``: the cluster ``ray start`` began on this machine)."""
    if "ray_address" not in tour:
        return None
    value = tour["ray_address"]
    if not isinstance(value, str) or not RAY_ADDRESS.match(value):
        raise reader.fail(
            "tournament.ray_address",
            f"{escape_untrusted(repr(value))[:80]} is not a Ray address: use 'auto', "
            "'local' (a private Ray here), 'HOST:PORT' or 'ray://HOST:10001'",
        )
    if value not in ("auto", "local") and not 0 < int(value.rpartition(":")[2]) < 65536:
        raise reader.fail("tournament.ray_address", f"port must be 1-65535, in {value!r}")
    return value


def parse_ray_resources(reader: KeyReader, bots: object) -> dict[str, dict[str, float]]:
    """Each bot's ``ray_resources = { NAME = AMOUNT }``, by bot name (a bot that asks
    for none is left out)."""
    found: dict[str, dict[str, float]] = {}
    for i, entry in enumerate(bots if isinstance(bots, list) else ()):
        if isinstance(entry, dict) and "ray_resources" in entry:
            wanted = _resources(reader, entry["ray_resources"], f"bots[{i}].ray_resources")
            if wanted:
                found[str(entry["name"])] = wanted
    return found


def _resources(reader: KeyReader, value: object, key: str) -> dict[str, float]:
    if not isinstance(value, dict):
        raise reader.fail(
            key, "must be a table of Ray resource names and amounts ({ gpu_box = 1 })"
        )
    wanted: dict[str, float] = {}
    for name, amount in value.items():
        shown = escape_untrusted(repr(name))[:80]
        if not RAY_RESOURCE.match(name):
            raise reader.fail(
                key, f"{shown} is not a Ray resource name: 1-64 of A-Z a-z 0-9 _ . : -"
            )
        if name in RAY_RESERVED:
            raise reader.fail(
                key,
                f"{shown} is Ray's own resource: pin with a custom one instead (start the node "
                "with `ray start --resources='{\"gpu_box\": 1}'`)",
            )
        number = isinstance(amount, int | float) and not isinstance(amount, bool)
        if not number or not math.isfinite(amount) or amount <= 0:
            raise reader.fail(f"{key}.{name}", f"must be a number above 0, got {amount!r}")
        if amount > 1 and amount != int(amount):
            raise reader.fail(
                f"{key}.{name}",
                f"Ray takes a fraction only up to 1, else a whole number; got {amount}",
            )
        wanted[name] = float(amount)
    return wanted


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

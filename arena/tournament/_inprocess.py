"""The in-process executor: every match in this process, on bots opened once (the default).

Each bot process is started once and plays all its tables; a per-bot limit keeps a
slow bot from being flooded, a global one caps the tables in flight. Under duplicate
dealing each bot is started once per rotation (a heads-up tournament starts every
launched bot twice) and instance ``k`` plays only the ``k``-th table of each match, so
no process ever sees a deck twice (issue 9): what it remembers of its own cards never
tells it what an opponent holds at another table.

Bots that dial in (``remote = true``, issue 11) are opened once, by ``arena serve``'s
opener, and lease one stream per table: :mod:`arena.tournament._dispatch` picks the
next match whose bots can all play now, and waits (saying for whom) when none can.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import trio

from arena.dealer import BotDriver, BotStartError
from arena.tournament._bots import REMOTE
from arena.tournament._config import TournamentConfig
from arena.tournament._dispatch import Dispatcher, leasable, stream_notes
from arena.tournament._drivers import open_builtin_bot
from arena.tournament._errors import TournamentError, expected_error
from arena.tournament._executor import DriverOpener, Job, MatchOutcome
from arena.tournament._instances import Instances, rotations_needed, visibility_notes
from arena.tournament._not_started import error_tail, start_note
from arena.tournament._play import play_match
from arena.tournament._schema import StoreError


class InProcessExecutor:
    """Plays every match in the coordinator's process (``workers = 1``): today's behaviour."""

    async def run(self, job: Job) -> None:
        config = job.config
        async with contextlib.AsyncExitStack() as stack:
            drivers, failed = await open_bots(
                config, rotations_needed(job.matches), stack, job.opener
            )
            for note in visibility_notes(drivers, config) + stream_notes(job.matches, drivers):
                job.note(note)
            playable = list(job.matches)
            if failed:  # their matches are forfeits, the rest are played
                playable = await _forfeit_unstarted(job, failed)
            await _play_all(job, playable, drivers)


async def open_bots(
    config: TournamentConfig,
    needed: dict[str, int],
    stack: contextlib.AsyncExitStack,
    opener: DriverOpener | None,
) -> tuple[Instances, dict[str, str]]:
    """Start every bot (as many instances as it needs); returns the drivers and, for each
    bot that did not start, why. Instance k > 0 is named ``NAME.k+1`` (its log files).
    A bot that dials in is opened once: its driver leases a stream per table."""
    drivers: Instances = {}
    failed: dict[str, str] = {}
    for name in sorted(needed):
        entry = config.bot(name)
        try:
            for k in range(needed[name]):
                copy = entry if k == 0 else entry.renamed(f"{name}.{k + 1}")
                manager = (
                    opener(copy)
                    if opener is not None
                    else open_builtin_bot(copy, config.driver_context())
                )
                drivers.setdefault(name, []).append(await stack.enter_async_context(manager))
                if leasable(drivers[name][0]) is not None:
                    break
        except BaseException as error:  # LookupError: no driver for its kind
            cause = expected_error(error, (BotStartError, LookupError))
            if cause is None:
                raise
            failed[name] = error_tail(cause)
            if entry.kind == REMOTE and isinstance(cause, LookupError):
                failed[name] = (
                    "it dials in: remote bots need `arena serve` (nothing else opens them)"
                )
    return drivers, failed


async def _forfeit_unstarted(job: Job, failed: dict[str, str]) -> list[Any]:
    """Deliver each match with a bot that did not start as not started; return the rest."""
    playable, counts = [], dict.fromkeys(failed, 0)
    for spec, match in zip(job.specs, job.matches, strict=True):
        missing = {name: failed[name] for name in match.seats if name in failed}
        if not missing:
            playable.append(match)
            continue
        for name in missing:
            counts[name] += 1
        await job.deliver(spec, MatchOutcome(None, not_started=missing))
    for name, tail in failed.items():
        job.note(start_note(name, tail, counts[name], job.config.source))
    return playable


async def _play_all(job: Job, pending: Sequence[Any], drivers: Instances) -> None:
    """Play ``pending`` on ``concurrency`` tables at once, each bot at no more than
    ``max_tables_per_bot``; each outcome goes to ``job.deliver`` as the match ends."""
    config = job.config
    specs = {spec.key: spec for spec in job.specs}
    observers = job.observers
    dispatcher = Dispatcher(  # each match is taken exactly once, when its bots can play
        pending, drivers, max_tables_per_bot=config.max_tables_per_bot, on_waiting=job.waiting
    )

    async def play(match: Any, tables: list[list[BotDriver]]) -> None:
        spec = specs[match.key]
        outcome = await play_match(
            spec,
            tables,
            on_match_started=getattr(observers, "on_match_started", None),
            on_hand=getattr(observers, "on_hand", None),
        )
        await job.deliver(spec, outcome)

    async def worker() -> None:
        while (taken := await dispatcher.take()) is not None:
            try:
                await play(taken.match, taken.tables)
            finally:
                await dispatcher.release(taken)

    try:
        async with trio.open_nursery() as nursery:  # `concurrency` tables at once
            for _ in range(min(config.concurrency, len(pending))):
                nursery.start_soon(worker)
    except BaseExceptionGroup as group:  # one worker's error stops them all: say that one
        cause = expected_error(group, (TournamentError, StoreError))
        if cause is None:
            raise
        raise cause from None

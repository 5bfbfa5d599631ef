"""The in-process executor: every match in this process (the default, ``workers = 1``).

Bots are opened when a match needs them and stopped when they have no match left, at
most ``max_live_bots`` launched bot processes at once (issue 12 item 5: see
:mod:`arena.tournament._budget` and :class:`~arena.tournament._livebots.LiveBots`); a
per-bot limit keeps a slow bot from being flooded, a global one caps the tables in
flight. Under duplicate dealing each bot has one instance per rotation (a heads-up
tournament starts every launched bot twice) and instance ``k`` plays only the ``k``-th
table of each match, so no process ever sees a deck twice (issue 9): what it remembers
of its own cards never tells it what an opponent holds at another table.

Bots that dial in (``remote = true``, issue 11) are not processes we start: they are
opened once, before the first match, by ``arena serve``'s opener, and lease one stream
per table: :mod:`arena.tournament._dispatch` picks the next match whose bots can all
play now, and waits (saying for whom) when none can.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import trio

from arena.dealer import BotDriver, BotStartError
from arena.store._schema import StoreError
from arena.tournament._benching import Bench, bench_note
from arena.tournament._bots import REMOTE
from arena.tournament._budget import LOOKAHEAD, BudgetStats
from arena.tournament._config import TournamentConfig
from arena.tournament._dispatch import Dispatcher, Taken, leasable, stream_notes, tables_of
from arena.tournament._drivers import open_builtin_bot
from arena.tournament._errors import TournamentError, expected_error
from arena.tournament._executor import DriverOpener, Job, MatchOutcome
from arena.tournament._instances import Instances, rotations_needed
from arena.tournament._livebots import LiveBots
from arena.tournament._not_started import error_tail, start_note
from arena.tournament._play import play_match


class InProcessExecutor:
    """Plays every match in the coordinator's process (``workers = 1``).

    ``max_live_bots`` replaces the file's ``tournament.max_live_bots`` (``None``: the
    file's, whose own ``None`` is :data:`~arena.tournament._budget.DEFAULT_MAX_LIVE_BOTS`);
    ``lookahead`` is :data:`~arena.tournament._budget.LOOKAHEAD`. After a run,
    :attr:`stats` says what the budget did (peak live processes, starts, restarts).
    """

    def __init__(self, *, max_live_bots: int | None = None, lookahead: int = LOOKAHEAD) -> None:
        self.max_live_bots = max_live_bots
        self.lookahead = lookahead
        self.stats: BudgetStats | None = None

    async def run(self, job: Job) -> None:
        config = job.config
        async with contextlib.AsyncExitStack() as stack:
            remote = {
                name: count
                for name, count in rotations_needed(job.matches).items()
                if config.bot(name).kind == REMOTE
            }
            drivers, failed = await open_bots(config, remote, stack, job.opener)
            for note in stream_notes(job.matches, drivers):
                job.note(note)
            playable = list(job.matches)
            if failed:  # their matches are forfeits, the rest are played
                playable = await _forfeit_unstarted(job, failed)
            bound = self.max_live_bots
            if bound is None:
                bound = getattr(config, "max_live_bots", None)
            with _one_error():
                async with trio.open_nursery() as hosts:  # holds each bot open, see LiveBots
                    bots = LiveBots(
                        config,
                        playable,
                        nursery=hosts,
                        opener=job.opener,
                        max_live_bots=bound,
                        note=job.note,
                        lookahead=self.lookahead,
                    )
                    self.stats = bots.stats
                    try:
                        await _play_all(job, playable, drivers, bots)
                    finally:
                        await bots.aclose()


async def open_bots(
    config: TournamentConfig,
    needed: dict[str, int],
    stack: contextlib.AsyncExitStack,
    opener: DriverOpener | None,
) -> tuple[Instances, dict[str, str]]:
    """Start the bots in ``needed`` (as many instances as each needs; the executor passes
    those that dial in); returns the drivers and, for each bot that did not start, why.
    Instance k > 0 is named ``NAME.k+1`` (its log files). A bot that dials in is opened
    once: its driver leases a stream per table."""
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


async def _play_all(job: Job, pending: Sequence[Any], drivers: Instances, bots: LiveBots) -> None:
    """Play ``pending`` on ``concurrency`` tables at once, each bot at no more than
    ``max_tables_per_bot``; each outcome goes to ``job.deliver`` as the match ends."""
    config = job.config
    specs = {spec.key: spec for spec in job.specs}
    observers = job.observers
    dispatcher = Dispatcher(  # each match is taken exactly once, when its bots can play
        pending,
        drivers,
        max_tables_per_bot=config.max_tables_per_bot,
        on_waiting=job.waiting,
        planner=bots,
    )
    bots.on_change = dispatcher.poke
    bench = Bench(config.timeouts.bench_after)

    async def play(taken: Taken) -> None:
        missing = await bots.acquire(taken.match)
        if missing:  # a bot did not start: this match and its others are forfeits
            await _forfeit(job, specs, taken.match, missing, bots)
            return
        await bots.settle()
        spec = specs[taken.match.key]
        outcome = await play_match(
            spec,
            _seat(taken, bots),
            on_match_started=getattr(observers, "on_match_started", None),
            on_hand=getattr(observers, "on_hand", None),
        )
        await job.deliver(spec, outcome)
        for name, why in bench.record(taken.match, outcome.result).items():
            await _bench(job, specs, name, why, bots)

    async def worker() -> None:
        while (taken := await dispatcher.take()) is not None:
            try:
                await play(taken)
            finally:
                await dispatcher.release(taken)
                await bots.release(taken.match)

    with _one_error():
        async with trio.open_nursery() as nursery:  # `concurrency` tables at once
            for _ in range(min(config.concurrency, len(pending))):
                nursery.start_soon(worker)


@contextlib.contextmanager
def _one_error() -> Iterator[None]:
    """One table's error stops them all: raise that one (disk full, a store that refuses
    a write) instead of Trio's group; anything else stays the group it is (a bug)."""
    try:
        yield
    except BaseExceptionGroup as group:
        cause = expected_error(group, (TournamentError, StoreError))
        if cause is None:
            raise
        raise cause from None


def _seat(taken: Taken, bots: LiveBots) -> list[list[BotDriver]]:
    """``tables[k][i]``: seat ``i``'s leased stream or bot instance ``k`` at table ``k``."""
    match = taken.match
    return [
        [
            taken.leases[name][k] if name in taken.leases else bots.instance(name, k)
            for name in match.seats
        ]
        for k in range(tables_of(match))
    ]


async def _forfeit(
    job: Job, specs: dict[str, Any], match: Any, missing: dict[str, str], bots: LiveBots
) -> None:
    """Deliver ``match`` as not started, and every match left of the bots that did not
    start (they are not tried again); one note per such bot."""
    for name, tail in missing.items():
        withdrawn = bots.withdraw(name)
        if name not in bots.noted:  # its matches: those left, and those held by tables now
            bots.noted.add(name)
            count = len(withdrawn) + bots.holding(name)
            job.note(start_note(name, tail, count, job.config.source))
        for other in withdrawn:
            absent = {n: bots.failed[n] for n in other.seats if n in bots.failed}
            await job.deliver(specs[other.key], MatchOutcome(None, not_started=absent))
    await job.deliver(specs[match.key], MatchOutcome(None, not_started=missing))


async def _bench(job: Job, specs: dict[str, Any], name: str, why: str, bots: LiveBots) -> None:
    """Deliver every match left of ``name`` as not started (see ``_benching``); one note.
    Matches other tables play with it now finish as they are."""
    bots.failed[name] = why
    bots.noted.add(name)
    withdrawn = bots.withdraw(name)
    job.note(bench_note(name, why, len(withdrawn), job.config.source))
    for other in withdrawn:
        absent = {n: bots.failed[n] for n in other.seats if n in bots.failed}
        await job.deliver(specs[other.key], MatchOutcome(None, not_started=absent))

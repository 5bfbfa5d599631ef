"""The in-process executor's bots, each started when a match it takes needs it (issue 12 item 5).

:class:`LiveBots` is the :class:`~arena.tournament._dispatch.Dispatcher`'s planner: it
chooses the next match (:class:`~arena.tournament._budget.Preference`), reserves room for
its bots in the same Trio step (no ``await`` between, so two tables never count the same
room), and then, in the table's own task, stops the bots chosen to make room and starts
the missing ones (:meth:`acquire`), before any new process starts, so no more than the
bound ever run. After the match (:meth:`release`) a bot with no match left is stopped.

Instance ``k`` of a bot (``NAME``, then ``NAME.2`` ...) plays only table ``k`` of a
duplicate match, each instance its own process, started again as a fresh process after a
stop (issue 9: no process ever serves two rotations). A bot that cannot start is marked
failed once: its matches are forfeits (:meth:`acquire` says which bots), never retried.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

import trio

from arena.dealer import BotDriver, BotStartError, sandbox_of
from arena.tournament._budget import (
    LOOKAHEAD,
    BudgetStats,
    Preference,
    Untaken,
    bound_for,
    counts,
    keep_logs,
)
from arena.tournament._config import TournamentConfig
from arena.tournament._dispatch import tables_of
from arena.tournament._drivers import open_builtin_bot
from arena.tournament._errors import expected_error
from arena.tournament._executor import DriverOpener
from arena.tournament._instances import rotations_needed
from arena.tournament._not_started import error_tail


@dataclass(frozen=True, slots=True)
class _Hosted:
    """One running instance: its driver, and the events of the task that holds it open."""

    driver: BotDriver
    stop: trio.Event
    done: trio.Event


@dataclass(slots=True)
class _Plan:
    """What a taken match reserved: bots to stop first, instances to start, slots moved."""

    names: list[str]
    victims: list[str]
    starts: dict[str, int]
    room: int


class LiveBots:
    """Opens, keeps and stops the bots of ``matches`` (schedule order) within a bound.

    ``on_change()`` is called when room frees or bots come up (a waiting table may now
    start); ``note(text)`` gets the sandbox warning, once.
    """

    def __init__(
        self,
        config: TournamentConfig,
        matches: Sequence[Any],
        *,
        nursery: trio.Nursery,
        opener: DriverOpener | None,
        max_live_bots: int | None,
        note: Callable[[str], None],
        lookahead: int = LOOKAHEAD,
    ) -> None:
        self._config = config
        self._nursery = nursery  # each instance is held open by a task of its own there
        self._opener = opener
        self._note = note
        self.untaken = Untaken(matches)
        self._counted = {n for n in self.untaken.names() if counts(config.bot(n).kind)}
        bound, clamped = bound_for(max_live_bots, matches, self._counted.__contains__)
        if clamped:
            note(clamped)
        needed = rotations_needed(matches)
        binding = sum(needed[name] for name in self._counted) > bound
        self.preference = Preference(
            self.untaken, self._counted.__contains__, binding=binding, lookahead=lookahead
        )
        self.stats = BudgetStats(bound)
        self.failed: dict[str, str] = {}
        self.noted: set[str] = set()  # failed bots whose note was given
        self.on_change: Callable[[], None] = lambda: None
        self._open: dict[str, list[_Hosted]] = {}
        self._runs: collections.Counter[tuple[str, int]] = collections.Counter()  # per instance
        self._holders: collections.Counter[str] = collections.Counter()
        self._busy: set[str] = set()  # starting or stopping
        self._plans: dict[str, _Plan] = {}
        self._slots = 0  # counted instances running or reserved (never above the bound)
        self._running = 0  # counted processes running now
        self._starting: set[trio.Event] = set()  # one per start in progress
        self._warned = False

    @property
    def remaining(self) -> int:
        return self.untaken.remaining

    def instance(self, name: str, k: int) -> BotDriver:
        """The driver of instance ``k`` of ``name`` (after :meth:`acquire`)."""
        return self._open[name][k].driver

    def holding(self, name: str) -> int:
        """Taken matches of ``name`` not yet over (reserved, starting or playing)."""
        return self._holders[name]

    def live(self) -> dict[str, int]:
        """Counted bots running now, and how many instances each."""
        return {name: len(d) for name, d in self._open.items() if name in self._counted and d}

    def pick(self, attempt: Callable[[Any], bool]) -> Any | None:
        return self.preference.pick(attempt)

    def untaken_matches(self) -> list[Any]:
        return [self.untaken.matches[p] for p in self.untaken.from_head()]

    def withdraw(self, name: str) -> list[Any]:
        """Take every match left of a bot that could not start (they are its forfeits)."""
        return self.untaken.withdraw(name)

    def reserve(self, match: Any) -> bool:
        """Room for ``match``'s bots now, stopping idle ones if need be; False if there is
        none until a table ends. Synchronous: the check and the reservation are one step."""
        names = list(dict.fromkeys(match.seats))
        if any(name in self._busy or name in self.failed for name in names):
            return False  # starting or stopping for another table: look again when it is done
        need = tables_of(match)
        starts = {n: need - len(self._open.get(n, ())) for n in names}
        starts = {n: count for n, count in starts.items() if count > 0}
        room = sum(count for n, count in starts.items() if n in self._counted)
        victims: list[str] = []
        if self._slots + room > self.stats.bound:
            idle = [
                n
                for n, drivers in self._open.items()
                if drivers
                and n in self._counted
                and not self._holders[n]
                and n not in self._busy
                and n not in names
            ]
            chosen = self.preference.victims(
                self._slots + room - self.stats.bound, idle, lambda n: len(self._open[n])
            )
            if chosen is None:
                return False
            victims = chosen
        moved = room - sum(len(self._open[n]) for n in victims)  # victims' slots move over
        for name in victims:
            self._busy.add(name)
            self.preference.live.pop(name, None)
        self._busy.update(starts)
        self._holders.update(names)
        self._slots += moved
        self._plans[match.key] = _Plan(names, victims, starts, moved)
        return True

    def unreserve(self, match: Any) -> None:
        """Give back what :meth:`reserve` took (the match could not be taken after all)."""
        plan = self._plans.pop(match.key)
        for name in plan.victims:
            self._busy.discard(name)
            self.preference.live[name] = len(self._open[name])
        self._busy.difference_update(plan.starts)
        self._holders.subtract(plan.names)
        self._slots -= plan.room

    async def acquire(self, match: Any) -> dict[str, str]:
        """Stop the bots chosen to make room, then start ``match``'s missing instances;
        returns the match's bots that could not start and why (empty: it can play)."""
        plan = self._plans.pop(match.key)
        for name in plan.victims:
            try:
                await self._stop(name, again=True)
                self.stats.evictions += 1
            finally:
                self._busy.discard(name)
        for name, count in plan.starts.items():
            before = len(self._open.get(name, ()))
            try:
                for _ in range(count):
                    await self._start(name)
            except BaseException as error:  # LookupError: no driver for its kind
                cause = expected_error(error, (BotStartError, LookupError))
                if cause is None:
                    raise
                self.failed[name] = error_tail(cause)
                started = len(self._open.get(name, ())) - before
                await self._stop(name, unstarted=count - started)
            finally:
                self._busy.discard(name)
            if name not in self.failed and name in self._counted:
                self.preference.live[name] = len(self._open[name])
                self.preference.went_live(name)
            self.on_change()
        return {name: self.failed[name] for name in plan.names if name in self.failed}

    async def settle(self) -> None:
        """Wait for the starts in progress now (other tables'): a bot starting takes CPU
        that a match's first Hello (2 s) should not have to share on a loaded machine."""
        for started in list(self._starting):
            await started.wait()

    async def release(self, match: Any) -> None:
        """``match`` is over: stop its bots that have no match left."""
        names = list(dict.fromkeys(match.seats))
        self._holders.subtract(names)
        for name in names:
            done = not self._holders[name] and not self.untaken.left.get(name, 0)
            if done and self._open.get(name) and name not in self._busy:
                self._busy.add(name)
                try:
                    await self._stop(name)
                    self.stats.finished += 1
                finally:
                    self._busy.discard(name)
                self.on_change()

    async def _start(self, name: str) -> None:
        """Start the next instance of ``name`` (``NAME.k+1`` for k > 0) and keep it."""
        instances = self._open.setdefault(name, [])
        k = len(instances)
        entry = self._config.bot(name)
        copy = entry.instance(k)
        opened = (
            self._opener(copy)
            if self._opener is not None
            else open_builtin_bot(copy, self._config.driver_context())
        )
        stop, done, started = trio.Event(), trio.Event(), trio.Event()
        self._starting.add(started)
        try:
            driver = await self._nursery.start(_hold, opened, stop, done)
        finally:
            self._starting.discard(started)
            started.set()
        instances.append(_Hosted(driver, stop, done))
        if name in self._counted:
            self._runs[name, k] += 1
            self.stats.starts += 1
            self.stats.restarts += self._runs[name, k] > 1
            self._running += 1
            self.stats.peak = max(self.stats.peak, self._running)
        self._warn(name, driver)

    async def _stop(self, name: str, *, again: bool = False, unstarted: int = 0) -> None:
        """Stop every instance of ``name`` and free its room; ``again``: it will start
        again (its logs are kept under another name; its room went to another match).
        ``unstarted``: room it had reserved for instances that never started."""
        instances = self._open.pop(name, [])
        self.preference.live.pop(name, None)
        await _let_go(instances)
        if name in self._counted:
            self._running -= len(instances)
            if not again:
                self._slots -= len(instances) + unstarted
        if again:
            for k, hosted in enumerate(instances):
                keep_logs(hosted.driver, self._runs[name, k])

    async def aclose(self) -> None:
        """Stop every bot still running (the end of the run, or an error)."""
        everything = [hosted for instances in self._open.values() for hosted in instances]
        self._open.clear()
        await _let_go(everything)

    def _warn(self, name: str, driver: BotDriver) -> None:
        if self._warned or not getattr(driver, "records_visible", False):
            return
        self._warned = True
        self._note(
            f"warning: launched bots run at sandbox {sandbox_of(driver)} (the first: {name!r}) "
            f"and can read the records in {self._config.output} (hidden cards) and the "
            "database: install bubblewrap (sandbox L1) to hide them; `arena doctor` says what "
            "works here"
        )


async def _hold(
    opened: AbstractAsyncContextManager[BotDriver],
    stop: trio.Event,
    done: trio.Event,
    *,
    task_status: trio.TaskStatus[BotDriver] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Hold one bot open until ``stop`` (a driver is entered and exited in one task: its
    log copiers live in a nursery of that task); an error while opening goes to the starter."""
    try:
        async with opened as driver:
            task_status.started(driver)
            await stop.wait()
    finally:
        done.set()


async def _let_go(instances: Sequence[_Hosted]) -> None:
    """Stop these instances and wait until each is closed (shielded: a close is never cut)."""
    with trio.CancelScope(shield=True):
        for hosted in instances:
            hosted.stop.set()
        for hosted in instances:
            await hosted.done.wait()

"""Which match plays next: the first pending one whose bots can all play now (issue 11).

A launched, address or built-in bot can always take a table. A bot that dials in
(``remote = true``) can only while it keeps streams open: ``arena serve`` hands the
tournament one :class:`LeasableDriver` per such bot, which says how many streams are
free and leases them, one driver per table. So the workers take, in schedule order,
the first match whose leasable bots have the streams it needs (one, or one per seat
under duplicate: its rotations play in lockstep) and whose bots are under
``max_tables_per_bot``; they lease those streams in the same Trio step as the check
(no ``await`` between), so two workers never take the same ones. A match whose bot is
away waits while the others play; when none can start and none is playing, the names
of the bots the matches wait for are reported, once per change, and the workers poll
until a stream comes (or a match ends). The tournament never ends with matches left:
it waits (Ctrl-C stops it as always; ``resume`` plays the rest).

Nothing here imports the server: the protocol is duck-typed (a driver with
``free_tables`` and ``lease``).

With a :class:`Planner` (the in-process executor's
:class:`~arena.tournament._livebots.LiveBots`, issue 12 item 5) the planner says which
matches to look at first (those whose bots are running) and reserves room for a match's
bots in the same step as the check; the bots are started after the take, by the table's
task, so a taken match's ``tables`` hold only its leased streams (``leases``).
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import trio

from arena.dealer import BotDriver
from arena.tournament._instances import Instances

POLL_SECONDS = 0.2
"""How often waiting workers look again for streams that came (a match ending wakes them too)."""


@runtime_checkable
class LeasableDriver(Protocol):
    """A bot that dials in, as ``arena serve`` hands it to the tournament.

    ``free_tables()``: the streams the bot has open and not yet leased (0 while it is
    not connected). ``lease(count)``: ``count`` drivers, each an ordinary
    :class:`~arena.dealer.BotDriver` for one table of one match holding one stream
    (its ``process`` attribute is this driver); raises :class:`LookupError` if fewer
    than ``count`` streams are free at that moment. Both are synchronous: the check
    and the lease happen in one step.
    """

    name: str

    def free_tables(self) -> int: ...

    def lease(self, count: int) -> list[BotDriver]: ...


def leasable(driver: object) -> LeasableDriver | None:
    """``driver`` if it is a bot that dials in (it leases streams), else ``None``."""
    return driver if isinstance(driver, LeasableDriver) else None


def tables_of(match: Any) -> int:
    """Tables a match plays at once: one per seat under duplicate (rotations in lockstep)."""
    return len(match.seats) if match.duplicate else 1


def stream_notes(pending: Sequence[Any], drivers: Instances) -> list[str]:
    """A note for each bot that dials in and has matches needing several streams at once
    (duplicate: one per seat), so its author keeps enough open instead of waiting forever."""
    most: dict[str, int] = {}
    for match in pending:
        for name in match.seats:
            instances = drivers.get(name)
            if instances and leasable(instances[0]) is not None:
                most[name] = max(most.get(name, 1), tables_of(match))
    return [
        f"bot {name!r} dials in and plays duplicate matches: each needs {tables} of its Play "
        f"streams at once (one per rotation), so it must keep at least {tables} open "
        f"(the Python SDK's tables={tables}); with fewer, its matches wait"
        for name, tables in sorted(most.items())
        if tables > 1
    ]


@dataclass(slots=True)
class Taken:
    """A match a worker took: ``tables[k][i]`` plays seat ``i`` at table ``k``.

    ``leased`` are the drivers leased for it (closed by :meth:`Dispatcher.release`);
    ``leases`` the same by bot (with a planner, ``tables`` is empty: the caller seats
    ``leases[name][k]`` and the planner's own instances).
    """

    match: Any
    tables: list[list[BotDriver]]
    leased: list[BotDriver] = field(default_factory=list)
    leases: dict[str, list[BotDriver]] = field(default_factory=dict)


class Planner(Protocol):
    """What the dispatcher needs of a budget for bot processes (duck-typed).

    ``pick(attempt)``: the first match, in the planner's order, that ``attempt`` accepts,
    marked taken (``None``: none). ``reserve(match)``: room for its bots now, or False;
    ``unreserve(match)`` gives it back. ``remaining``: matches not taken;
    ``untaken_matches()``: them, in schedule order.
    """

    @property
    def remaining(self) -> int: ...

    def pick(self, attempt: Callable[[Any], bool]) -> Any | None: ...

    def reserve(self, match: Any) -> bool: ...

    def unreserve(self, match: Any) -> None: ...

    def untaken_matches(self) -> list[Any]: ...


class Dispatcher:
    """Hands the pending matches to the workers, each once (see the module docstring).

    ``on_waiting(names)`` is called when the bots waited for change: the sorted names
    of the leasable bots without the streams the matches need, while nothing can start
    and nothing plays; ``[]`` once something starts again.
    """

    def __init__(
        self,
        pending: Sequence[Any],
        drivers: Instances,
        *,
        max_tables_per_bot: int,
        on_waiting: Callable[[list[str]], None] | None = None,
        poll_seconds: float = POLL_SECONDS,
        planner: Planner | None = None,
    ) -> None:
        self._pending = [] if planner is not None else list(pending)  # schedule order
        self._planner = planner
        self._drivers = drivers
        self._remote = {
            name: bot
            for name, instances in sorted(drivers.items())
            if instances and (bot := leasable(instances[0])) is not None
        }  # a bot that failed to start may have no instance: its matches are not pending
        self._limit = max_tables_per_bot
        self._on_waiting = on_waiting
        self._poll = poll_seconds
        self._in_flight: collections.Counter[str] = collections.Counter()
        self._running = 0
        self._taken_or_released = 0  # counts changes to _in_flight
        self._idle: tuple[int, tuple[int, ...]] | None = None  # state of the last fruitless look
        self._changed = trio.Event()
        self._spoiled: list[BotDriver] = []  # leased for a match that could not start
        self.waiting_for: list[str] = []

    @property
    def remaining(self) -> int:
        """Matches not yet taken."""
        return self._planner.remaining if self._planner is not None else len(self._pending)

    def poke(self) -> None:
        """Something outside changed (room freed, a bot came up): waiting workers look again."""
        self._taken_or_released += 1
        self._changed.set()
        self._changed = trio.Event()

    async def take(self) -> Taken | None:
        """The next match to play, waiting for its bots if need be; ``None`` when none is left."""
        while self.remaining:
            taken = self.take_nowait()
            await self._close(self._spoiled)
            if taken is not None:
                self._report([])
                return taken
            if self._running == 0:
                self._report(self.absent())
            with trio.move_on_after(self._poll):
                await self._changed.wait()
        return None

    def take_nowait(self) -> Taken | None:
        """The first pending match that can start now, its streams leased; else ``None``.

        A lease refused with :class:`LookupError` (the stream went away since the
        check) leaves the match pending; that bot is skipped for the rest of this look.
        A look is skipped when nothing changed since the last one found nothing (no
        match taken or ended, the same free streams): a league's waiting workers then
        cost one ``free_tables`` per remote bot and poll, not one per pending seat.
        """
        free = {name: bot.free_tables() for name, bot in self._remote.items()}
        state = (self._taken_or_released, tuple(free.values()))
        if state == self._idle:
            return None
        refused: set[str] = set()
        got: list[Taken] = []
        if self._planner is not None:
            self._planner.pick(lambda match: self._attempt(match, free, refused, got))
        else:
            for index, match in enumerate(self._pending):
                if self._attempt(match, free, refused, got):
                    del self._pending[index]
                    break
        if not got:
            self._idle = None if refused else state  # a refused lease: look again next time
            return None
        taken = got[0]
        self._running += 1
        self._taken_or_released += 1
        self._in_flight.update(set(taken.match.seats))
        return taken

    def _attempt(
        self, match: Any, free: dict[str, int], refused: set[str], got: list[Taken]
    ) -> bool:
        """Take ``match`` if its bots can play and (with a planner) have room: its streams
        leased and its room reserved, both or neither."""
        if not self._can_start(match, free, refused):
            return False
        if self._planner is not None and not self._planner.reserve(match):
            return False
        taken = self._lease(match, refused)
        if taken is None:
            if self._planner is not None:
                self._planner.unreserve(match)
            return False
        got.append(taken)
        return True

    async def release(self, taken: Taken) -> None:
        """The match is over: close its leased drivers, free its bots, wake the waiters."""
        try:
            await self._close(taken.leased)
        finally:
            self._running -= 1
            self._taken_or_released += 1
            self._in_flight.subtract(set(taken.match.seats))
            self._changed.set()
            self._changed = trio.Event()

    def absent(self) -> list[str]:
        """The leasable bots without the free streams some pending match needs, sorted."""
        free = {name: bot.free_tables() for name, bot in self._remote.items()}
        need: dict[str, int] = {}
        pending = self._planner.untaken_matches() if self._planner is not None else self._pending
        for match in pending:
            for name in match.seats:
                if name in free:
                    need[name] = max(need.get(name, 0), tables_of(match))
        return sorted(name for name, tables in need.items() if free[name] < tables)

    def _can_start(self, match: Any, free: dict[str, int], refused: set[str]) -> bool:
        names = set(match.seats)
        if any(self._in_flight[name] >= self._limit or name in refused for name in names):
            return False
        need = tables_of(match)
        return all(free.get(name, need) >= need for name in names)

    def _lease(self, match: Any, refused: set[str]) -> Taken | None:
        """Lease every leasable seat's streams (synchronously); ``None`` if one is refused."""
        need = tables_of(match)
        leases: dict[str, list[BotDriver]] = {}
        for name in sorted(set(match.seats)):
            bot = self._remote.get(name)
            if bot is None:
                continue
            try:
                got = list(bot.lease(need))
            except LookupError:
                got = None
            if got is None or len(got) != need:
                refused.add(name)
                self._spoiled.extend(driver for drivers in leases.values() for driver in drivers)
                self._spoiled.extend(got or ())
                return None
            leases[name] = got
        if self._planner is not None:  # the planner's bots are seated once they are up
            return Taken(match, [], [d for drivers in leases.values() for d in drivers], leases)
        tables = [
            [leases[name][k] if name in leases else self._drivers[name][k] for name in match.seats]
            for k in range(need)
        ]
        return Taken(match, tables, [d for drivers in leases.values() for d in drivers])

    def _report(self, names: list[str]) -> None:
        if names != self.waiting_for:
            self.waiting_for = names
            if self._on_waiting is not None:
                self._on_waiting(list(names))

    @staticmethod
    async def _close(drivers: list[BotDriver]) -> None:
        """Close leased drivers, even while cancelled (their streams go back or end)."""
        closing = list(drivers)
        drivers.clear()
        with trio.CancelScope(shield=True):
            for driver in closing:
                await driver.aclose()

"""A tournament run as one object: :class:`Session` (issue 20 item 2).

It owns, for as long as the tournament plays, the executor, the store, the live
standings, the server for bots that dial in and the live page, and reports progress to
plain callbacks; ``arena tournament run|resume``, ``arena serve`` and ``arena demo`` only
parse options, drive it and print, and a script, a notebook or a league server drives it
the same way.

This layer may not import the executors, the dial-in server or the web views (they sit
above it), so those come in as arguments: an executor (or the context manager
``arena.executors.open_executor(config)`` returns), an opener of the dial-in server
(``functools.partial(arena.server.open_arena_server, settings)``), an opener of the live
page (anything with :class:`~arena.tournament._live.LivePage`'s methods) and the
function that writes the replay pages. Each is optional: without them the matches are
played in this process, with no server, no page and no replay pages.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

import trio

from arena.dealer import BotDriver
from arena.store._store import Store
from arena.tournament._bots import REMOTE, BotSpec
from arena.tournament._config import TournamentConfig
from arena.tournament._drivers import open_builtin_bot
from arena.tournament._errors import TournamentError
from arena.tournament._executor import DriverOpener, Executor
from arena.tournament._live import LivePage, follow_standings, live_standings, with_page
from arena.tournament._runner import Progress, run_tournament
from arena.tournament._standings import (
    Standings,
    StandingsRefresher,
    compute_standings,
    game_type_of,
)


class RemoteSeats(Protocol):
    """The dial-in server as the session sees it (``arena.server.ArenaServer`` is one)."""

    address: str

    def bot(self, name: str) -> Any:
        """The driver of the remote bot ``name`` (its token's name)."""
        ...


DialInOpener = Callable[[Sequence[str]], AbstractAsyncContextManager[RemoteSeats | None]]
"""Opens the server for the remote bots named (or yields None: no server)."""

PageOpener = Callable[[], AbstractAsyncContextManager[LivePage | None]]
"""Opens the live page for the block (or yields None: no page)."""

ExecutorArg = Executor | AbstractContextManager[Executor | None] | None
"""An executor, a context manager that yields one (``open_executor(config)``), or None."""


@dataclasses.dataclass(frozen=True)
class SessionResult:
    """What a played session leaves: its progress, the standings and the replays' notes."""

    name: str
    progress: Progress
    standings: Standings
    """Every stored tournament of this game type (the leaderboard printed at the end)."""
    replay_notes: list[str]
    """A line for each replay page that could not be written (the records are safe)."""
    tournament_standings: Standings | None = None
    """This tournament's alone, computed after its last match was recorded: the table
    ``arena ratings --tournament NAME`` prints (the live refit may be a match behind)."""

    @property
    def finished(self) -> bool:
        """Whether every match was played (False: some bot did not start; resume retries)."""
        return not self.progress.not_started


class Session:
    """One run (or resume) of ``config``: ``async with Session(config) as s: await s.play()``.

    Entering opens, in this order, the executor (Ray connects here, before anything is
    recorded), the store (``store`` if given, left open; else ``config.database``, never
    created on resume), the live standings' refit thread, the dial-in server and the
    live page; leaving closes them in reverse. ``on_progress`` sees each change of the
    run's :class:`Progress`; ``observers`` are the runner's ``on_match_started``,
    ``on_hand`` and ``on_match_finished``; ``on_finished`` sees the result once the
    replays and the final standings are written. :meth:`run_sync` does it all for code
    that is not async (a notebook, a script).
    """

    def __init__(
        self,
        config: TournamentConfig,
        *,
        resume: bool = False,
        store: Store | None = None,
        executor: ExecutorArg = None,
        observers: Mapping[str, Callable[..., Any]] | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        on_finished: Callable[[SessionResult], None] | None = None,
        open_driver: DriverOpener | None = None,
        dial_in: DialInOpener | None = None,
        live_page: PageOpener | None = None,
        replays: Callable[[Path], Sequence[str]] | None = None,
        match_replay: Callable[[Path], str | None] | None = None,
    ) -> None:
        if executor is None and not config.in_process:
            raise TournamentError(
                f"{config.source}: its matches are played by workers or Ray: pass "
                "executor=arena.executors.open_executor(config)"
            )
        self.config = config
        self.resume = resume
        self._given_store = store
        self._executor_arg = executor
        self._observers = dict(observers or {})
        self._on_progress = on_progress
        self._on_finished = on_finished
        self._open_driver = open_driver
        self._dial_in = dial_in
        self._live_page = live_page
        self._replays = replays
        self._match_replay = match_replay
        self._stack: contextlib.AsyncExitStack | None = None
        self._executor: Executor | None = None
        self._store: Store | None = None
        self._refresher: StandingsRefresher | None = None
        self._page: LivePage | None = None
        self.remote_seats: RemoteSeats | None = None
        """The dial-in server while the session is open (None without one)."""

    @property
    def store(self) -> Store:
        """The open store (only inside ``async with``)."""
        if self._store is None:
            raise RuntimeError("the session is not open: use `async with Session(...)`")
        return self._store

    @property
    def latest_standings(self) -> Standings | None:
        """This tournament's newest live leaderboard (None before the first refit)."""
        return None if self._refresher is None else self._refresher.latest

    async def __aenter__(self) -> Session:
        stack = contextlib.AsyncExitStack()
        await stack.__aenter__()
        try:
            await self._open(stack)
        except BaseException as error:
            await stack.__aexit__(type(error), error, error.__traceback__)
            raise
        self._stack = stack
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        stack, self._stack = self._stack, None
        try:
            return None if stack is None else await stack.__aexit__(*exc)
        finally:
            self._store = self._refresher = self._page = self.remote_seats = None

    async def _open(self, stack: contextlib.AsyncExitStack) -> None:
        """Open every part, each closed by ``stack`` in reverse order."""
        arg = self._executor_arg
        if isinstance(arg, AbstractContextManager):
            self._executor = stack.enter_context(arg)
        else:
            self._executor = arg
        self._store = self._given_store or stack.enter_context(
            Store.open(self.config.database, create=not self.resume)
        )
        self._refresher = stack.enter_context(live_standings(self.config))
        if self._dial_in is not None:
            names = remote_names(self.config.bots)
            self.remote_seats = await stack.enter_async_context(self._dial_in(names))
        if self._live_page is not None:
            self._page = await stack.enter_async_context(self._live_page())
        if self._page is not None:  # the page gets each refit as soon as it is done
            aside = await stack.enter_async_context(trio.open_nursery())
            stack.callback(aside.cancel_scope.cancel)  # runs first: the nursery can close
            aside.start_soon(follow_standings, self._page, lambda: self.latest_standings)

    async def play(self) -> SessionResult:
        """Play every match with no result (each match's replay written as it is recorded);
        sweep the replays; compute the standings."""
        store, config = self.store, self.config
        notes: list[str] = []
        async with _writers() as nursery:
            observers = with_page(self._observers, self._page)
            progress = await run_tournament(
                config,
                store,
                resume=self.resume,
                on_progress=self._progressed,
                open_driver=self._opener(),
                executor=self._executor,
                **self._replaying(observers, nursery, notes),
            )
        notes += list(self._replays(config.output / config.name)) if self._replays else []
        game_type, ratings = game_type_of(config.game), config.ratings
        standings = compute_standings(
            store, game_type, anchor=ratings.anchor, anchor_rating=ratings.anchor_rating
        )
        mine = compute_standings(
            store,
            game_type,
            tournament=config.name,
            anchor=ratings.anchor,
            anchor_rating=ratings.anchor_rating,
        )
        result = SessionResult(config.name, progress, standings, notes, mine)
        if self._on_finished is not None:
            self._on_finished(result)
        return result

    def run_sync(self) -> SessionResult:
        """Open, play and close in a Trio run of its own (for code that is not async)."""

        async def main() -> SessionResult:
            async with self:
                return await self.play()

        return trio.run(main)

    def _replaying(
        self, observers: dict[str, Callable[..., Any]], nursery: trio.Nursery, notes: list[str]
    ) -> dict[str, Callable[..., Any]]:
        """``observers`` with an ``on_match_recorded`` that has ``match_replay`` write each
        recorded match's replay in a worker thread, one at a time, shielded: a run cancelled or
        interrupted still finishes the pages of the matches it recorded (issue 21 item 4)."""
        write = self._match_replay
        if write is None:
            return observers
        records, limiter = self.config.output / self.config.name, trio.CapacityLimiter(1)

        async def write_one(folder: Path) -> None:
            with trio.CancelScope(shield=True):
                try:
                    note = await trio.to_thread.run_sync(write, folder, limiter=limiter)
                except Exception as error:  # a page is never worth the run: records are safe
                    note = f"note: no replay page for {folder}: {type(error).__name__}"
            if note:
                notes.append(note)

        def on_match_recorded(match_id: str) -> None:
            nursery.start_soon(write_one, records / match_id.partition("/")[2])

        return observers | {"on_match_recorded": on_match_recorded}

    def _progressed(self, progress: Progress) -> None:
        if progress.done and self._refresher is not None:
            self._refresher.request()  # returns at once; the newest request wins
        if self._on_progress is not None:
            self._on_progress(progress)

    def _opener(self) -> DriverOpener | None:
        """``open_driver`` (or arena's own kinds), except that remote bots are the server's."""
        server, given, context = self.remote_seats, self._open_driver, self.config.driver_context()
        if server is None:
            return given  # None: the executor opens arena's own kinds

        def open_entry(spec: BotSpec) -> AbstractAsyncContextManager[BotDriver]:
            if spec.kind == REMOTE and server is not None:
                return contextlib.nullcontext(server.bot(spec.target))
            return given(spec) if given is not None else open_builtin_bot(spec, context)

        return open_entry


@contextlib.asynccontextmanager
async def _writers() -> AsyncIterator[trio.Nursery]:
    """A nursery for the replay writers, out of which the run's own error comes as itself
    (not wrapped in an exception group), as it did before there were writers."""
    try:
        async with trio.open_nursery() as nursery:
            yield nursery
    except BaseExceptionGroup as group:
        if len(group.exceptions) != 1:
            raise
        raise group.exceptions[0] from None


def remote_names(specs: Sequence[Any]) -> list[str]:
    """The remote bots' names (their token names) among ``specs``, in order, once each."""
    return list(dict.fromkeys(spec.target for spec in specs if spec.kind == REMOTE))

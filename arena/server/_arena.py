"""The dial-in server as Trio code sees it: :func:`open_arena_server`.

It starts a ``grpc.aio`` server on the dealer's gRPC loop (the streams' readers and
writers live there), hosting :class:`~arena.server._service.ArenaService` behind the
token interceptor, and gives back an :class:`ArenaServer` whose
:meth:`~ArenaServer.bot` drivers matches and tournaments seat like any other. Leaving
the block ends every stream and stops the server: leaving it normally is the end of
the run (:meth:`ArenaServer.finish`: FAILED_PRECONDITION, "do not reconnect"), leaving
it with an exception (Ctrl-C) is not (UNAVAILABLE: try again later).
"""

from __future__ import annotations

import contextlib
import functools
import math
import resource
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc
import grpc.aio
import trio

from arena.dealer import run_on_grpc_loop, trio_pusher
from arena.server._listen import ListenError, add_listener, server_options, tls_credentials
from arena.server._remote import RemoteBot
from arena.server._seat import RECONNECT_WINDOW
from arena.server._service import HARD_MESSAGE_BYTES, ArenaService, Offer, TokenGate
from arena.server._tokens import TokenVerifier

MAX_TABLES = 8
"""Default streams one remote bot may hold open at once (tables it plays together)."""

OVER = "the run is over, no more matches to play"
"""What a stream still waiting is told when the run ends (and ``DO_NOT_RECONNECT``)."""
DO_NOT_RECONNECT = "do not reconnect"


class ServerError(Exception):
    """The server cannot start: one line naming what (the address, a file) and why."""


@dataclass(frozen=True, kw_only=True)
class ServerSettings:
    """How the server listens and what it allows; times in seconds.

    ``tls_cert`` and ``tls_key`` (PEM files, re-read when they change) are needed on any
    address that is not loopback. ``keepalive`` is how often the server pings each
    connection, and how long it waits for the answer.
    """

    listen: str
    tokens: Path
    tls_cert: Path | None = None
    tls_key: Path | None = None
    reconnect_window: float = RECONNECT_WINDOW
    max_tables: int = MAX_TABLES
    hello_timeout: float = 2.0
    keepalive: float = 5.0
    on_tls_reload: Callable[[str], None] | None = None
    """Told a line each time the certificate files change (read, or kept after a bad file)."""


class ArenaServer:
    """A running dial-in server: where it listens and a driver per remote bot."""

    def __init__(
        self,
        address: str,
        bots: dict[str, RemoteBot],
        verifier: TokenVerifier,
        service: ArenaService | None = None,
    ) -> None:
        self.address = address
        self._bots = bots
        self._verifier = verifier
        self._service = service
        self.finished = False

    async def finish(self, what: str = OVER) -> None:
        """The run is over (``what``, e.g. "the tournament is over"): every stream still
        waiting, and every new one, ends FAILED_PRECONDITION with ``what`` and "do not
        reconnect", so a bot that reopens a stream whenever one ends stops."""
        self.finished = True
        if self._service is not None:
            await run_on_grpc_loop(self._service.finish, f"{what}: {DO_NOT_RECONNECT}")

    def bot(self, name: str) -> RemoteBot:
        """The driver of remote bot ``name`` (``KeyError`` if it is not one of this run's)."""
        return self._bots[name]

    @property
    def bots(self) -> dict[str, RemoteBot]:
        return dict(self._bots)

    def missing(self, names: Iterable[str] | None = None) -> list[str]:
        """The remote bots (of ``names``, default all) with no stream open, sorted."""
        wanted = self._bots if names is None else names
        return sorted(name for name in wanted if not self._bots[name].connected)

    async def wait_for(self, needs: dict[str, int], *, poll: float = 0.1) -> None:
        """Return once each bot in ``needs`` has at least that many free tables."""
        while any(self._bots[name].free_tables() < count for name, count in needs.items()):
            await trio.sleep(poll)


def _load_verifier(settings: ServerSettings) -> TokenVerifier:
    verifier = TokenVerifier(settings.tokens)
    verifier.refresh()
    if verifier.error is not None:
        raise ServerError(verifier.error)
    return verifier


def _load_tls(settings: ServerSettings) -> grpc.ServerCredentials | None:
    if settings.tls_cert is None and settings.tls_key is None:
        return None
    if settings.tls_cert is None or settings.tls_key is None:
        raise ServerError("give both --tls-cert and --tls-key, or neither")
    try:
        return tls_credentials(
            settings.tls_cert,
            settings.tls_key,
            on_reload=settings.on_tls_reload,
            on_reload_error=settings.on_tls_reload,
        )
    except ListenError as error:
        raise ServerError(str(error)) from None


class _GrpcServer:
    """The ``grpc.aio`` server itself; :meth:`start` and :meth:`stop` run on the gRPC loop."""

    def __init__(
        self,
        settings: ServerSettings,
        service: ArenaService,
        verifier: TokenVerifier,
        tls: grpc.ServerCredentials | None,
        bots: int,
    ) -> None:
        self._settings = settings
        self._service = service
        self._verifier = verifier
        self._tls = tls
        self._bots = bots
        self._server: grpc.aio.Server | None = None

    async def start(self) -> str:
        s = self._settings
        server = grpc.aio.server(
            interceptors=(TokenGate(self._verifier),),
            options=server_options(
                max_receive_bytes=HARD_MESSAGE_BYTES,
                keepalive_time=s.keepalive,
                keepalive_timeout=s.keepalive,
                max_streams_per_connection=2 * s.max_tables,
            ),
            maximum_concurrent_rpcs=max(64, 2 * s.max_tables * max(1, self._bots) + 16),
        )
        server.add_generic_rpc_handlers((self._service.handler(),))
        address = add_listener(server, s.listen, tls=self._tls)
        await server.start()
        self._service.start_watch()
        self._server = server
        return address

    async def stop(self) -> None:
        self._service.end_all(grpc.StatusCode.UNAVAILABLE, "the arena is shutting down")
        await self._service.stop_watch()
        if self._server is not None:
            await self._server.stop(grace=1.0)


@asynccontextmanager
async def open_arena_server(
    settings: ServerSettings, names: Iterable[str]
) -> AsyncIterator[ArenaServer]:
    """Serve the ``Arena`` service for the remote bots ``names`` for the block.

    Raises :class:`ServerError` if the token store cannot be read at the start, the
    address cannot be used (plain text off loopback, in use) or a TLS file is bad.
    """
    verifier = _load_verifier(settings)
    tls = _load_tls(settings)
    _raise_file_limit()
    bots = {
        name: RemoteBot(
            name,
            reconnect_window=settings.reconnect_window,
            hello_timeout=settings.hello_timeout,
            is_live=functools.partial(_is_live, verifier, name),
        )
        for name in names
    }
    send, receive = trio.open_memory_channel[Offer](math.inf)
    token = trio.lowlevel.current_trio_token()
    service = ArenaService(
        verifier,
        bots,
        trio_pusher(token, send),
        token,
        max_tables=settings.max_tables,
        holds=lambda name, ticket: bool(ticket) and bots[name].holds(ticket),
        on_dead=functools.partial(_tell_dead, token, bots),
    )
    server = _GrpcServer(settings, service, verifier, tls, len(bots))
    try:
        address = await run_on_grpc_loop(server.start)
    except ListenError as error:
        raise ServerError(str(error)) from None
    try:
        async with trio.open_nursery() as nursery:
            for bot in bots.values():
                bot.attach(nursery)
            nursery.start_soon(_deliver, receive, bots)
            arena = ArenaServer(address, bots, verifier, service)
            try:
                yield arena
            except BaseException:
                with trio.CancelScope(shield=True):  # before the bots close their streams
                    await run_on_grpc_loop(service.interrupt, "the arena is shutting down")
                raise
            else:
                if not arena.finished:
                    with trio.CancelScope(shield=True):
                        await arena.finish()
            finally:
                with trio.CancelScope(shield=True):
                    for bot in bots.values():
                        await bot.aclose()
                nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await run_on_grpc_loop(server.stop)


def _raise_file_limit() -> None:
    """Every connection costs a descriptor: use the hard limit, not the soft 1024."""
    with contextlib.suppress(ValueError, OSError):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY or hard > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _is_live(verifier: TokenVerifier, name: str) -> bool:
    """Whether a dropped seat of ``name`` is held: its token is live, or the store cannot
    be read just now (a bad edit of the organiser's holds the seats, refusing newcomers)."""
    return verifier.error is not None or name in verifier.live_names()


def _tell_dead(token: trio.lowlevel.TrioToken, bots: dict[str, RemoteBot], name: str) -> None:
    """Loop side: bot ``name`` has no live token left; its seats end now (in Trio)."""
    with contextlib.suppress(trio.RunFinishedError):
        token.run_sync_soon(bots[name].token_died)


async def _deliver(receive: trio.MemoryReceiveChannel[Offer], bots: dict[str, RemoteBot]) -> None:
    async for name, stream, ticket in receive:
        bots[name].offer(stream, ticket)

"""The ``Arena`` gRPC service, on the dealer's gRPC loop: who may open a stream, and
where each stream goes.

Every call passes :class:`TokenGate` first, a ``grpc.aio`` server interceptor: no
``authorization: Bearer`` token, or one the :class:`~arena.server._tokens.TokenVerifier`
does not know (wrong, expired, revoked, or a store it cannot read: fail closed), and
the call ends UNAUTHENTICATED before the handler runs. The handler checks the token
again (it names the bot), caps the bot's open streams, and hands each stream, wrapped
in a :class:`~arena.server._streams.DialedStream`, to Trio. Every half second the
token store is re-read; streams whose token died since end UNAUTHENTICATED, and Trio
is told which bots have no live token left (their held seats end at once). Once the
run is over (:meth:`ArenaService.finish`) every stream, and every new one, ends with
FAILED_PRECONDITION and a detail saying so.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import grpc
import grpc.aio
import trio

from arena.dealer import GrpcConnection
from arena.protocol import pb
from arena.server._streams import DialedStream, RateBucket, ServerCall, StreamGate
from arena.server._tokens import Identity, TokenVerifier

SERVICE = "arena.v1.Arena"
RESUME_HEADER = "arena-resume"
MAX_MESSAGE_BYTES = 16 * 1024
"""The largest message a bot may send (a larger one is a MALFORMED fault)."""
HARD_MESSAGE_BYTES = 1 << 20
"""gRPC's own receive limit on the server: past it the stream just ends (a dropped seat)."""
REFRESH_INTERVAL = 0.5
"""Seconds between re-reads of the token store (a revocation ends streams this fast)."""

Offer = tuple[str, DialedStream, str]
"""What the handler pushes to Trio: the bot's name, its new stream, the resume ticket."""


def _header(metadata: Iterable[tuple[str, Any]] | None, name: str) -> str:
    for key, value in metadata or ():
        if key.lower() == name and isinstance(value, str) and value.isascii():
            return value[:64]
    return ""


async def _refuse(request_iterator: object, context: grpc.aio.ServicerContext) -> None:
    await context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing, wrong or revoked token")


class TokenGate(grpc.aio.ServerInterceptor):
    """Refuse, UNAUTHENTICATED, every call without a token the verifier knows."""

    def __init__(self, verifier: TokenVerifier) -> None:
        self._verifier = verifier
        self._refusal = grpc.stream_stream_rpc_method_handler(_refuse)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Any],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        if self._verifier.check_metadata(handler_call_details.invocation_metadata) is None:
            return self._refusal
        return await continuation(handler_call_details)


@dataclass
class _Owner:
    """A remote bot as its streams' :class:`arena.dealer.StreamOwner`."""

    name: str
    max_message_bytes: int = MAX_MESSAGE_BYTES
    close_timeout: float = 0.5

    def forget(self, connection: GrpcConnection) -> None:
        return None


class ArenaService:
    """The Play handler and the revocation watch (loop side; see the module)."""

    def __init__(
        self,
        verifier: TokenVerifier,
        names: Iterable[str],
        push: Callable[[Offer], bool],
        token: trio.lowlevel.TrioToken,
        *,
        max_tables: int,
        bucket: Callable[[], RateBucket] = RateBucket,
        holds: Callable[[str, str], bool] = lambda name, ticket: False,
        on_dead: Callable[[str], None] = lambda name: None,
    ) -> None:
        self._verifier = verifier
        self._names = frozenset(names)
        self._push = push
        self._token = token
        self._max_tables = max_tables
        self._holds = holds  # whether bot ``name`` holds a seat with resume ticket ``ticket``
        self._on_dead = on_dead  # told (loop side) of each bot whose last live token died
        self._live = verifier.live_names() & self._names
        self._over: tuple[grpc.StatusCode, str] | None = None  # the run is over: why
        self._buckets = {name: bucket() for name in self._names}
        self._owners = {name: _Owner(name) for name in self._names}
        self._open: collections.Counter[str] = collections.Counter()
        self._streams: dict[ServerCall, Identity] = {}
        self._watch: asyncio.Task[None] | None = None

    def handler(self) -> grpc.GenericRpcHandler:
        play = grpc.stream_stream_rpc_method_handler(
            self.play, response_serializer=pb.DealerMessage.SerializeToString
        )
        return grpc.method_handlers_generic_handler(SERVICE, {"Play": play})

    async def play(self, request_iterator: object, context: grpc.aio.ServicerContext) -> None:
        """One stream a bot opened: checked, counted, handed to Trio until it ends."""
        metadata = context.invocation_metadata()
        identity = self._verifier.check_metadata(metadata)
        if identity is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing, wrong or revoked token")
            return
        name = identity.name
        if name not in self._names:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION, f"bot {name!r} plays no seat in this run"
            )
            return
        if self._over is not None:
            await context.abort(*self._over)
            return
        ticket = _header(metadata, RESUME_HEADER)
        room = self._max_tables * (2 if self._holds(name, ticket) else 1)  # a resume may overlap
        if self._open[name] >= room:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"bot {name!r} has {self._open[name]} streams open (max_tables {self._max_tables})",
            )
            return
        call = ServerCall(context)
        connection = DialedStream(
            self._owners[name], self._token, call, gate=StreamGate(self._buckets[name])
        )
        self._open[name] += 1
        self._streams[call] = identity
        try:
            connection.start_on_loop(call)
            if not self._push((name, connection, ticket)):
                call.end(grpc.StatusCode.UNAVAILABLE, "the arena is shutting down")
            await call.finished.wait()
        except asyncio.CancelledError:
            connection.abort_on_loop("the bot's connection ended")
            raise
        finally:
            self._open[name] -= 1
            self._streams.pop(call, None)
        connection.abort_on_loop("the stream ended")
        if call.status is not None:
            code, details = call.status
            context.set_code(code)
            context.set_details(details)

    # --- revocation -------------------------------------------------------------

    def start_watch(self) -> None:
        self._watch = asyncio.create_task(self._watch_tokens(), name="arena-tokens")

    async def stop_watch(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch

    async def _watch_tokens(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_INTERVAL)
            self._verifier.refresh()
            if self._verifier.error is not None:
                continue  # a store broken mid-run refuses new streams; open ones play on
            for call, identity in list(self._streams.items()):
                if not self._verifier.still_valid(identity):
                    call.end(grpc.StatusCode.UNAUTHENTICATED, "the bot's token was revoked")
            live = self._verifier.live_names() & self._names
            for name in sorted(self._live - live):
                self._on_dead(name)
            self._live = live

    def end_all(self, code: grpc.StatusCode, details: str) -> None:
        for call in list(self._streams):
            call.end(code, details)

    async def finish(self, details: str) -> None:
        """The run is over: end every stream, and refuse new ones, FAILED_PRECONDITION
        with ``details`` (a bot that reads it knows not to reconnect)."""
        self._over = (grpc.StatusCode.FAILED_PRECONDITION, details)
        self.end_all(*self._over)

    async def interrupt(self, details: str) -> None:
        """The run stops before its end (Ctrl-C): every stream ends UNAVAILABLE, so a
        bot tries again later (the rest is played with ``--resume``)."""
        self.end_all(grpc.StatusCode.UNAVAILABLE, details)

"""Loop side of a stream a bot opened: the call adapter and the per-bot rate limit.

:class:`ServerCall` lets :class:`arena.dealer.GrpcConnection` run on a server-side
stream as it runs on a client call: ``read`` and ``write`` are the context's,
``done_writing`` (after MatchEnd) lets the handler return with status OK, and
``cancel`` or :meth:`ServerCall.end` make it return with a status of the arena's
choosing (ABORTED when a newer stream took the seat, UNAUTHENTICATED on revocation).
:class:`DialedStream` is the connection Trio holds for such a stream; its
:meth:`~DialedStream.end` chooses the status from Trio (FAILED_PRECONDITION once the
run is over, PERMISSION_DENIED for the ticket of a seat ended by a revocation).

:class:`StreamGate` is the ``.proto``'s "Limits": an Action answering the
DecisionRequest that waits, and the Hello after a MatchStart, are always let in;
anything else spends from the bot's :class:`RateBucket`, shared by all its streams.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import grpc
import grpc.aio
import trio

from arena.dealer import GrpcConnection, MessageGate, StreamOwner, call_on_grpc_loop
from arena.protocol import pb

BUCKET_SIZE = 32
"""Messages nobody asked for that a bot may send at once, over all its streams."""

BUCKET_REFILL = 8.0
"""Messages nobody asked for per second a bot may send in the long run."""


class ServerCall:
    """A server-side Play stream shaped like a client call (see the module)."""

    def __init__(self, context: grpc.aio.ServicerContext) -> None:
        self._context = context
        self.finished = asyncio.Event()
        self.status: tuple[grpc.StatusCode, str] | None = None

    async def read(self) -> Any:
        try:
            raw = await self._context.read()
        except grpc.aio.UsageError:  # the handler returned: the stream is over
            return grpc.aio.EOF
        if raw is grpc.aio.EOF:  # the bot closed its side (or vanished): end ours too
            self.end(grpc.StatusCode.OK, "")
        return raw

    async def write(self, message: pb.DealerMessage) -> None:
        if self.finished.is_set():
            raise asyncio.InvalidStateError("the stream is already over")
        try:
            await self._context.write(message)
        except grpc.aio.AioRpcError:
            raise
        except Exception as error:  # the call ended under the write (gRPC's ExecuteBatchError)
            raise asyncio.InvalidStateError(f"the stream ended: {error!r}") from None

    async def done_writing(self) -> None:
        """The arena said everything (MatchEnd): end the stream with status OK."""
        self.finished.set()

    def cancel(self) -> None:
        """The arena cut the stream: a newer stream took the seat, the seat is over, or
        the bot broke a rule (its fault is in the records)."""
        self.end(grpc.StatusCode.ABORTED, "the arena ended this stream")

    def end(self, code: grpc.StatusCode, details: str) -> None:
        """End the stream with ``code`` (the first reason given stands)."""
        if self.status is None and not self.finished.is_set():
            self.status = (code, details)
        self.finished.set()


class DialedStream(GrpcConnection):
    """A Play stream a bot opened, as Trio holds it: a :class:`GrpcConnection` that can
    also be ended with a status of the arena's choosing."""

    def __init__(
        self,
        owner: StreamOwner,
        token: trio.lowlevel.TrioToken,
        call: ServerCall,
        *,
        gate: MessageGate | None = None,
    ) -> None:
        super().__init__(owner, token, gate=gate)
        self.call = call

    async def end(self, code: grpc.StatusCode, details: str) -> None:
        """End the stream with ``code`` and ``details`` (the first reason given stands)."""
        call_on_grpc_loop(self.call.end, code, details)
        await self.aclose()


class RateBucket:
    """A token bucket: ``size`` at once, ``refill`` per second after that."""

    def __init__(
        self,
        size: int = BUCKET_SIZE,
        refill: float = BUCKET_REFILL,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.size = size
        self.refill = refill
        self._clock = clock
        self._level = float(size)
        self._at = clock()

    def take(self) -> bool:
        """Spend one message; False (nothing spent) when the bucket is empty."""
        now = self._clock()
        self._level = min(float(self.size), self._level + (now - self._at) * self.refill)
        self._at = now
        if self._level < 1.0:
            return False
        self._level -= 1.0
        return True


class StreamGate:
    """One stream's admission of the bot's messages (a :class:`arena.dealer.MessageGate`)."""

    def __init__(self, bucket: RateBucket) -> None:
        self._bucket = bucket
        self._awaiting: str | None = None  # the decision id the bot owes an answer to
        self._hello_due = False

    def wrote(self, message: pb.DealerMessage) -> None:
        kind = message.WhichOneof("kind")
        if kind == "decision":
            self._awaiting = message.decision.decision_id
        elif kind == "match_start":
            self._hello_due = True

    def admit(self, message: pb.BotMessage) -> str | None:
        kind = message.WhichOneof("kind")
        if kind == "hello" and self._hello_due:
            self._hello_due = False
            return None
        if kind == "action" and self._awaiting is not None:
            if message.action.decision_id == self._awaiting:
                self._awaiting = None
                return None
        if self._bucket.take():
            return None
        return (
            f"rate limit: more than {self._bucket.size} messages nobody asked for "
            f"(refilled at {self._bucket.refill:g} per second)"
        )

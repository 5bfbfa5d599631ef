"""The gRPC bot driver: one ``grpc.aio`` channel per bot, one Play stream per seat.

gRPC runs on the shared asyncio loop (:mod:`arena.dealer._bridge`). Each
:class:`GrpcConnection` has two loop-side tasks:

* a reader that reads the stream continuously and pushes every ``BotMessage`` into a
  Trio memory channel, then one end marker saying why the stream ended (the bot
  hung up, crashed, sent an oversize message or bytes that are not a BotMessage);
* a writer that drains a queue of ``DealerMessage`` into ``call.write`` in order.
  Trio appends to the queue (a deque) and wakes the writer only when no wake-up is
  already pending, so a burst of messages (hand end, next hand start, first
  decision) costs one wake-up, not one each.

Wake-ups both ways are batched across streams (:mod:`arena.dealer._wakeups`): a Trio
tick that writes to many streams wakes the loop once, and the messages the loop reads
in one iteration reach Trio in one hand-over.

So Trio's ``receive()`` is a plain memory-channel receive (cancelling it loses
nothing), and ``send()`` only queues (a write is never cancelled half-way, which in
``grpc.aio`` would cancel the whole RPC). ``send()`` waits only when more than
:data:`MAX_UNWRITTEN` messages are still unwritten (the bot stopped reading).
The other way, a bot that sends more than :data:`MAX_UNREAD` messages, or more than
:data:`MAX_UNREAD_BYTES` bytes, ahead of the dealer reading them has its stream cut:
the inbox never holds more than that, whatever the bot sends.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import math
import weakref
from typing import Protocol

import grpc
import grpc.aio
import trio
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.dealer import _bridge, _wakeups
from arena.dealer._seat import MalformedStreamError, RateLimitedError, SeatBrokenError
from arena.protocol import pb
from arena.sandbox._errors import BotStartError as BotStartError
from arena.text import escape_untrusted

PLAY_METHOD = "/arena.v1.Bot/Play"
MAX_UNWRITTEN = 64
"""Messages queued for a bot before ``send()`` waits for gRPC to take them."""
MAX_UNREAD = 256
"""Messages a bot may send ahead of the dealer reading them before its stream is cut."""
MAX_UNREAD_BYTES = 4 << 20
"""Bytes of messages a bot may send ahead of the dealer reading them before its stream is cut
(at least twice the bot's ``max_message_bytes``, so two messages of the largest size fit)."""


_open_bots: weakref.WeakSet[GrpcBot] = weakref.WeakSet()


async def _close_open_bots() -> None:
    for bot in list(_open_bots):
        await bot._close_channel()


_bridge.add_shutdown_hook(_close_open_bots)


class _End:
    """The reader's last item: why the stream ended, and the error to raise for it."""

    __slots__ = ("error", "reason")

    def __init__(self, reason: str, error: type[SeatBrokenError] = SeatBrokenError) -> None:
        self.reason = reason
        self.error = error


class StreamOwner(Protocol):
    """What a :class:`GrpcConnection` needs of whoever opened it: a :class:`GrpcBot`
    (the dealer dialled the bot) or the dial-in server (the bot dialled the arena)."""

    name: str
    max_message_bytes: int
    close_timeout: float

    def forget(self, connection: GrpcConnection) -> None:
        """The connection is over: drop it from the owner's open streams."""
        ...


class MessageGate(Protocol):
    """Loop-side admission of a bot's messages (the dial-in server's rate limit).

    ``wrote`` sees every message written to the bot, ``admit`` every message read from
    it; a message ``admit`` refuses (returns why) cuts the stream with
    :class:`RateLimitedError`.
    """

    def wrote(self, message: pb.DealerMessage) -> None: ...

    def admit(self, message: pb.BotMessage) -> str | None: ...


def _channel_options(max_message_bytes: int) -> list[tuple[str, int]]:
    return [
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", max_message_bytes),
        # a bot that is still starting should be found within ~0.1 s, not gRPC's 1 s+
        ("grpc.initial_reconnect_backoff_ms", 100),
        ("grpc.min_reconnect_backoff_ms", 100),
        ("grpc.max_reconnect_backoff_ms", 250),
        ("grpc.so_reuseport", 0),  # never share a port with another process (issue 9)
    ]


def _status_text(error: grpc.aio.AioRpcError) -> str:
    """The status code and the details the bot chose, escaped (they may be shown)."""
    details = escape_untrusted((error.details() or "").strip())
    return f"{error.code().name}: {details}" if details else error.code().name


class GrpcConnection:
    """One Play stream (one seat at one table), either way round: made by
    :meth:`GrpcBot.connect`, or by the dial-in server for a stream a bot opened.

    ``gate``, set before the stream starts, admits or refuses each message the bot sends.
    """

    def __init__(
        self,
        bot: StreamOwner,
        token: trio.lowlevel.TrioToken,
        *,
        gate: MessageGate | None = None,
    ) -> None:
        self._bot = bot
        self._gate = gate
        self._outlet, self._inbox = trio.open_memory_channel[pb.BotMessage | _End](math.inf)
        self._deliveries = _wakeups.deliveries_for(token)
        self._end: str | None = None  # Trio side: the end marker was received
        self._end_error: type[SeatBrokenError] = SeatBrokenError
        self._closed = False
        self._sent = 0  # written by Trio only
        self._taken = 0  # written by Trio only
        self._taken_bytes = 0  # written by Trio only
        # the wire size of each message in the inbox, oldest first: the loop appends
        # before it pushes the message, Trio pops as it takes one (deque ops are atomic)
        self._sizes: collections.deque[int] = collections.deque()
        self._max_unread_bytes = max(MAX_UNREAD_BYTES, 2 * bot.max_message_bytes)
        # loop side
        self._call: grpc.aio.StreamStreamCall | None = None
        self._outbox: collections.deque[pb.DealerMessage | None] = collections.deque()
        self._kick_pending = False  # a _kick is scheduled on the loop and has not run yet
        self._has_work: asyncio.Event | None = None
        self._reader: asyncio.Task[None] | None = None
        self._writer: asyncio.Task[None] | None = None
        self._progress: asyncio.Event | None = None
        self._written = 0  # written by the loop only
        self._received = 0  # written by the loop only
        self._received_bytes = 0  # written by the loop only
        self._failed: str | None = None  # why the stream or a write failed (loop side)
        self._failed_error: type[SeatBrokenError] = SeatBrokenError

    # --- Trio side -------------------------------------------------------------

    async def send(self, message: pb.DealerMessage) -> None:
        """Queue ``message``; raises :class:`SeatBrokenError` once the stream is over."""
        self._raise_if_over()
        if self._sent - self._written >= MAX_UNWRITTEN:
            await _bridge.run_on_loop(self._wait_writable)
            self._raise_if_over()
        self._sent += 1
        self._outbox.append(message)
        if not self._kick_pending:
            self._kick_pending = True
            _wakeups.kick(self._kick)

    async def receive(self) -> pb.BotMessage:
        """The bot's next message; cancellation-safe (nothing is lost)."""
        if (
            self._end is None
            and self._failed is not None
            and self._failed_error is not SeatBrokenError
        ):
            # the bot broke a rule (garbage, a flood): cut now, what it queued is dropped
            self._end, self._end_error = self._failed, self._failed_error
        if self._end is not None:
            raise self._end_error(self._end)
        item = await self._inbox.receive()
        if isinstance(item, _End):
            self._end, self._end_error = item.reason, item.error
            raise item.error(item.reason)
        self._taken += 1
        self._taken_bytes += self._sizes.popleft()
        return item

    async def aclose(self) -> None:
        """Half-close, give the bot ``close_timeout`` to finish, then cancel; never raises."""
        if self._closed:
            return
        self._closed = True
        try:
            await _bridge.run_on_loop(self._close_gracefully)
        except Exception:
            pass
        finally:
            _bridge.call_soon(self._abort, "the dealer closed the stream")

    def is_open(self) -> bool:
        """Whether the stream still runs (from Trio: nothing has ended or cut it)."""
        return not self._closed and self._end is None and self._failed is None

    def _raise_if_over(self) -> None:
        if self._closed:
            raise SeatBrokenError("the dealer closed the stream")
        if self._end is not None:
            raise self._end_error(self._end)
        if self._failed is not None:
            raise self._failed_error(self._failed)

    # --- loop side ---------------------------------------------------------------

    def start_on_loop(self, call: grpc.aio.StreamStreamCall) -> None:
        """Loop side: run this connection on ``call``, a stream a bot opened to the arena
        (the dial-in server's adapter, with ``read``, ``write``, ``done_writing`` and
        ``cancel`` like a client call)."""
        self._start(call)

    def abort_on_loop(self, reason: str) -> None:
        """Loop side: end the stream now, with ``reason`` for the seat's records."""
        self._abort(reason)

    def _start(self, call: grpc.aio.StreamStreamCall) -> None:
        self._call = call
        self._has_work = asyncio.Event()
        self._progress = asyncio.Event()
        self._reader = asyncio.create_task(self._read_loop(call), name=f"read {self._bot.name}")
        self._writer = asyncio.create_task(self._write_loop(call), name=f"write {self._bot.name}")

    def _push(self, item: pb.BotMessage | _End) -> bool:
        return self._deliveries.push(self._outlet, item)

    def _kick(self) -> None:
        # clear the flag first: a send that still sees it set is drained by this kick
        self._kick_pending = False
        if self._has_work is not None:
            self._has_work.set()

    async def _wait_writable(self) -> None:
        assert self._progress is not None
        while self._failed is None and self._sent - self._written >= MAX_UNWRITTEN:
            self._progress.clear()
            await self._progress.wait()

    def _fail(self, reason: str, error: type[SeatBrokenError] = SeatBrokenError) -> None:
        if self._failed is None:
            self._failed, self._failed_error = reason, error
        if self._progress is not None:
            self._progress.set()

    async def _write_loop(self, call: grpc.aio.StreamStreamCall) -> None:
        assert self._has_work is not None and self._progress is not None
        outbox = self._outbox
        try:
            while True:
                self._has_work.clear()
                while outbox:
                    message = outbox.popleft()
                    if message is None:
                        await call.done_writing()
                        return
                    if self._gate is not None:  # before the write: the answer may beat it back
                        self._gate.wrote(message)
                    await call.write(message)
                    self._written += 1
                    self._progress.set()
                if not outbox:
                    await self._has_work.wait()
        except grpc.aio.AioRpcError as error:
            self._fail(_status_text(error))
        except asyncio.InvalidStateError:
            self._fail("the stream is already over")
        except asyncio.CancelledError:
            self._fail("the dealer closed the stream")
            raise

    async def _read_loop(self, call: grpc.aio.StreamStreamCall) -> None:
        reason = "the bot ended the stream"
        error_type: type[SeatBrokenError] = SeatBrokenError
        try:
            while True:
                raw = await call.read()
                if raw is grpc.aio.EOF:
                    break
                if len(raw) > self._bot.max_message_bytes:  # the dial-in server's own cap
                    reason = (
                        f"the bot sent a message of {len(raw)} bytes "
                        f"(at most {self._bot.max_message_bytes})"
                    )
                    error_type = MalformedStreamError
                    call.cancel()
                    break
                try:
                    message = pb.BotMessage.FromString(raw)
                except DecodeError:
                    reason = f"the bot sent {len(raw)} bytes that are not a BotMessage"
                    error_type = MalformedStreamError
                    call.cancel()
                    break
                refused = self._gate.admit(message) if self._gate is not None else None
                if refused is not None:
                    reason, error_type = refused, RateLimitedError
                    call.cancel()
                    break
                self._received += 1
                self._received_bytes += len(raw)
                if self._received - self._taken > MAX_UNREAD:
                    reason = f"the bot sent more than {MAX_UNREAD} messages nobody asked for"
                    call.cancel()
                    break
                if self._received_bytes - self._taken_bytes > self._max_unread_bytes:
                    reason = (
                        f"the bot sent more than {self._max_unread_bytes} bytes of messages "
                        "nobody asked for"
                    )
                    call.cancel()
                    break
                self._sizes.append(len(raw))
                if not self._push(message):
                    return  # the Trio run is over: nobody is listening
        except grpc.aio.AioRpcError as error:
            reason = _status_text(error)
        except asyncio.CancelledError:
            reason = "the dealer closed the stream"
            self._fail(reason)
            self._push(_End(reason))
            raise
        except Exception as error:  # a gRPC internal surprise: still the bot's stream
            reason = f"{type(error).__name__}: {error}"
        self._fail(reason, error_type)
        self._push(_End(reason, error_type))

    async def _close_gracefully(self) -> None:
        if self._has_work is None or self._reader is None:
            return
        try:
            if not self._reader.done():
                self._outbox.append(None)  # after what is queued: done_writing
                self._has_work.set()
                await asyncio.wait({self._reader}, timeout=self._bot.close_timeout)
        finally:
            self._abort("the dealer closed the stream")

    def _abort(self, reason: str) -> None:
        self._fail(reason)
        if self._call is not None:
            self._call.cancel()
        for task in (self._reader, self._writer):
            if task is not None and not task.done():
                task.cancel()
        self._bot.forget(self)


class GrpcBot:
    """A driver for a bot already listening at ``address`` (``host:port`` or ``unix:PATH``).

    One channel for the bot (opened at the first :meth:`connect`), one Play stream per
    seat. ``connect_timeout`` bounds the wait for the channel to be READY at each
    connect; ``close_timeout`` is how long a closing stream waits for the bot to
    finish after MatchEnd before it is cancelled.
    """

    def __init__(
        self,
        name: str,
        address: str,
        *,
        max_message_bytes: int = 1 << 20,
        connect_timeout: float = 5.0,
        close_timeout: float = 1.0,
    ) -> None:
        self.name = name
        self.address = address
        self.max_message_bytes = max_message_bytes
        self.connect_timeout = connect_timeout
        self.close_timeout = close_timeout
        self._channel: grpc.aio.Channel | None = None
        self._play: grpc.aio.StreamStreamMultiCallable | None = None
        self._connections: set[GrpcConnection] = set()
        self._closed = False

    def __repr__(self) -> str:
        return f"GrpcBot({self.name!r}, {self.address!r})"

    def forget(self, connection: GrpcConnection) -> None:
        self._connections.discard(connection)

    async def connect(self) -> GrpcConnection:
        """Open a Play stream; raises :class:`SeatBrokenError` if the bot is unreachable."""
        if self._closed:
            raise SeatBrokenError(f"{self.name}: the driver is closed")
        connection = GrpcConnection(self, trio.lowlevel.current_trio_token())
        try:
            await _bridge.run_on_loop(self._open_stream, connection)
        except BaseException:
            _bridge.call_soon(connection._abort, "connect failed")
            raise
        return connection

    async def wait_healthy(self, timeout: float, *, service: str = "") -> None:
        """Return once the bot's health check says SERVING; :class:`BotStartError` after ``timeout``."""
        await _bridge.run_on_loop(self._wait_healthy, timeout, service)

    async def aclose(self) -> None:
        """Cancel every open stream and close the channel; never raises."""
        self._closed = True
        with contextlib.suppress(Exception):
            await _bridge.run_on_loop(self._close_channel)

    # --- loop side ---------------------------------------------------------------

    def _ensure_channel(self) -> grpc.aio.Channel:
        if self._channel is None:
            self._channel = grpc.aio.insecure_channel(
                self.address, options=_channel_options(self.max_message_bytes)
            )
            self._play = self._channel.stream_stream(
                PLAY_METHOD, request_serializer=pb.DealerMessage.SerializeToString
            )
            _open_bots.add(self)
        return self._channel

    async def _open_stream(self, connection: GrpcConnection) -> None:
        channel = self._ensure_channel()
        if channel.get_state(try_to_connect=True) is not grpc.ChannelConnectivity.READY:
            try:
                await asyncio.wait_for(channel.channel_ready(), self.connect_timeout)
            except TimeoutError:
                raise SeatBrokenError(
                    f"cannot reach {self.name} at {self.address} within {self.connect_timeout:g} s"
                ) from None
        if self._closed:
            raise SeatBrokenError(f"{self.name}: the driver is closed")
        assert self._play is not None
        connection._start(self._play())
        self._connections.add(connection)

    async def _wait_healthy(self, timeout: float, service: str) -> None:
        channel = self._ensure_channel()
        stub = health_pb2_grpc.HealthStub(channel)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        last = "no answer"
        request = health_pb2.HealthCheckRequest(service=service)
        while (remaining := deadline - loop.time()) > 0:
            try:
                reply = await stub.Check(request, timeout=min(remaining, 1.0), wait_for_ready=True)
            except grpc.aio.AioRpcError as error:
                if error.code() is grpc.StatusCode.UNIMPLEMENTED:
                    return  # reachable, just without the health service: good enough
                if error.code() is grpc.StatusCode.DEADLINE_EXCEEDED:
                    state = channel.get_state().name
                    last = f"no answer, channel {state}: is anything listening there?"
                else:
                    last = _status_text(error)
            else:
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
                last = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
            await asyncio.sleep(min(0.05, max(0.0, deadline - loop.time())))
        raise BotStartError(
            f"{self.name} at {self.address} not healthy within {timeout:g} s (last: {last})"
        )

    async def _close_channel(self) -> None:
        for connection in list(self._connections):
            connection._abort("the driver was closed")
        channel, self._channel = self._channel, None
        if channel is not None:
            await channel.close()


async def wait_healthy(address: str, timeout: float, *, service: str = "") -> None:
    """Wait until the bot at ``address`` reports SERVING; :class:`BotStartError` after ``timeout``."""
    bot = GrpcBot(address, address)
    try:
        await bot.wait_healthy(timeout, service=service)
    finally:
        with trio.CancelScope(shield=True):
            await bot.aclose()

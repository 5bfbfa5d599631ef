"""A seat played by a bot that dialled in: one match's stream, held across a reconnect.

A :class:`HeldSeat` is the :class:`~arena.dealer.SeatConnection` the match runner sees
for a remote bot. Underneath it runs on one stream the bot opened at a time. When that
stream breaks the seat is *held* for the reconnect window: the runner's deadlines keep
running (its receives just wait, so decisions time out to the R23 defaults), messages
sent meanwhile are dropped, and the first new stream of that bot (or the one carrying
the seat's resume ticket) takes the seat back: it is sent the same MatchStart, must
answer with a Hello, and is then sent the pending DecisionRequest again. Answers to
older decisions are the runner's stale answers, dropped by decision id. Not back
within the window, the seat is broken (:class:`~arena.dealer.SeatBrokenError`) and the
runner sits it out (R25).

A stream the bot's own messages got cut (garbage, a flood, the rate limit) is not
held: that is a fault the runner records, not a network accident.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

import trio

from arena.dealer import GrpcConnection, MalformedStreamError, SeatBrokenError, call_on_grpc_loop
from arena.protocol import pb

RECONNECT_WINDOW = 30.0
"""Default seconds a dropped remote bot's seat is held for it to come back."""


def _check_hello(reply: pb.BotMessage) -> str | None:
    """Why ``reply`` is not an acceptable Hello on a resumed stream, or None."""
    if reply.WhichOneof("kind") != "hello":
        return f"first message was {reply.WhichOneof('kind')!r}, not hello"
    if reply.hello.protocol_version not in (0, 1):
        return f"Hello says protocol_version {reply.hello.protocol_version}"
    return None


class HeldSeat:
    """One remote bot's seat at one table, surviving a dropped stream (see the module).

    ``on_done`` is called once the seat is closed, so its owner forgets the ticket.
    """

    def __init__(
        self,
        name: str,
        stream: GrpcConnection,
        *,
        window: float,
        hello_timeout: float,
        is_live: Callable[[], bool],
        on_done: Callable[[HeldSeat], None],
    ) -> None:
        self.name = name
        self.ticket = secrets.token_urlsafe(24)
        self._stream: GrpcConnection | None = stream
        self._window = window
        self._hello_timeout = hello_timeout
        self._is_live = is_live
        self._on_done = on_done
        self._start: pb.DealerMessage | None = None
        self._pending: pb.DealerMessage | None = None  # a DecisionRequest not yet answered
        self._held_until: float | None = None
        self._back = trio.Event()
        self._gone: str | None = None  # why the seat is broken for good
        self._closed = False
        self._resuming = False  # a new stream is saying its Hello
        self._taking = trio.Lock()
        self.resumes = 0

    @property
    def held(self) -> bool:
        """Whether the seat waits for its bot to come back."""
        return (
            self._stream is None and self._gone is None and not self._closed and not self._resuming
        )

    # --- the SeatConnection the runner uses ------------------------------------

    async def send(self, message: pb.DealerMessage) -> None:
        kind = message.WhichOneof("kind")
        if kind == "match_start":
            message.match_start.resume_ticket = self.ticket
            self._start = message
        elif kind == "decision":
            self._pending = message
        elif kind in ("hand_end", "match_end"):
            self._pending = None
        stream = self._current()
        if stream is None:
            return  # held: dropped; the MatchStart and the pending request are sent again
        try:
            await stream.send(message)
        except SeatBrokenError as error:
            self._drop(stream, error)

    async def receive(self) -> pb.BotMessage:
        while True:
            stream = self._current()
            if stream is None:
                await self._wait_for_return()
                continue
            try:
                message = await stream.receive()
            except SeatBrokenError as error:
                if stream is not self._stream:
                    continue  # replaced by a newer stream while we read this one
                self._drop(stream, error)
                continue
            if (
                message.WhichOneof("kind") == "action"
                and self._pending is not None
                and message.action.decision_id == self._pending.decision.decision_id
            ):
                self._pending = None
            return message

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        stream, self._stream = self._stream, None
        self._back.set()
        if stream is not None:
            await stream.aclose()
        self._on_done(self)

    # --- held and taken back -----------------------------------------------------

    def _current(self) -> GrpcConnection | None:
        """The stream to use now; raises once the seat is gone for good."""
        if self._closed:
            raise SeatBrokenError("the dealer closed the seat")
        if self._gone is not None:
            raise SeatBrokenError(self._gone)
        if self._stream is None and self._held_until is not None:
            if trio.current_time() >= self._held_until:
                self._gone = f"dropped, and not back within the {self._window:g} s reconnect window"
                raise SeatBrokenError(self._gone)
        return self._stream

    def _drop(self, stream: GrpcConnection, error: SeatBrokenError) -> None:
        """The stream broke: hold the seat, unless the bot's own messages cut it."""
        if stream is not self._stream:
            return
        self._stream = None
        trio.lowlevel.spawn_system_task(stream.aclose)
        if isinstance(error, MalformedStreamError) or type(error) is not SeatBrokenError:
            self._gone = str(error)  # garbage, a flood, the rate limit: the runner's fault
            raise error
        if not self._is_live():
            self._gone = "the bot's token was revoked"
            raise SeatBrokenError(self._gone)
        self._held_until = trio.current_time() + self._window
        self._back = trio.Event()

    async def _wait_for_return(self) -> None:
        assert self._held_until is not None
        with trio.move_on_at(self._held_until):
            await self._back.wait()

    async def take_back(self, stream: GrpcConnection) -> bool:
        """Give the seat ``stream`` (a new stream of its bot): MatchStart, Hello, the pending
        request. An old stream still open is replaced. False (the stream closed) if the
        seat is over or the new stream does not say a good Hello in time."""
        if self._closed or self._gone is not None:
            await stream.aclose()
            return False
        async with self._taking:  # one hand-over at a time: a later one replaces it
            self._resuming = True
            try:
                return await self._take_back(stream)
            finally:
                self._resuming = False

    async def _take_back(self, stream: GrpcConnection) -> bool:
        old, self._stream = self._stream, None
        if old is not None:  # replaced: the seat is held while the new stream says Hello
            self._held_until = trio.current_time() + self._window
            self._back = trio.Event()
            call_on_grpc_loop(old.abort_on_loop, "replaced by a newer stream of the bot")
            await old.aclose()
        problem: str | None = "no MatchStart to resume"
        if self._start is not None:
            problem = await self._handshake(stream, self._start)
        if problem is not None or self._closed or self._gone is not None:
            await stream.aclose()
            return False
        if self._pending is not None:
            try:
                await stream.send(self._pending)
            except SeatBrokenError:
                await stream.aclose()
                return False
        self._stream = stream
        self._held_until = None
        self.resumes += 1
        self._back.set()
        return True

    async def _handshake(self, stream: GrpcConnection, start: pb.DealerMessage) -> str | None:
        with trio.move_on_after(self._hello_timeout):
            try:
                await stream.send(start)
                return _check_hello(await stream.receive())
            except SeatBrokenError as error:
                return str(error)
        return f"no Hello within {self._hello_timeout:g} s"

"""A seat played by a bot that dialled in: one match's stream, held across a reconnect.

A :class:`HeldSeat` is the :class:`~arena.dealer.SeatConnection` the match runner sees
for a remote bot. Underneath it runs on one stream the bot opened at a time. When that
stream breaks the seat is *held* for the reconnect window: the runner's deadlines keep
running (its receives just wait, so decisions time out to the R23 defaults), messages
sent meanwhile are dropped, and the first new stream of that bot (or the one carrying
the seat's resume ticket) takes the seat back: it is sent the same MatchStart, must
answer with a Hello, and is then sent again what the bot may not have had: every
HandStart, Fault and HandEnd since its last answer (at most :data:`MAX_REPLAY`; some it
may have had before the break, which it tells by hand_id and decision_id), then the
pending DecisionRequest. So a bot that sums HandEnd payoffs agrees with MatchEnd.
Answers to older decisions are the runner's stale answers, dropped by decision id. Not
back within the window, the seat is broken (:class:`~arena.dealer.SeatBrokenError`) and
the runner sits it out (R25). A bot whose token is revoked is not waited for: its seat
breaks at once (:meth:`HeldSeat.revoke`).

A stream the bot's own messages got cut (garbage, a flood, the rate limit) is not
held: that is a fault the runner records, not a network accident.
"""

from __future__ import annotations

import collections
import secrets
from collections.abc import Callable

import grpc
import trio

from arena.dealer import MalformedStreamError, SeatBrokenError, call_on_grpc_loop
from arena.protocol import pb
from arena.server._streams import DialedStream

RECONNECT_WINDOW = 30.0
"""Default seconds a dropped remote bot's seat is held for it to come back."""

MAX_REPLAY = 256
"""Messages (HandStart, Fault, HandEnd) kept since the bot's last answer, to send again
after a resume; older ones are not (MatchEnd's chips_won is the total all the same)."""

REPLAY_TIMEOUT = 10.0
"""Seconds a resumed stream has to take the messages sent again (a bot that stops
reading half-way does not stall the hand-over; its seat stays held)."""

REVOKED = "the bot's token was revoked"

_REPLAYED = frozenset({"hand_start", "fault", "hand_end"})
PERMISSION_DENIED = grpc.StatusCode.PERMISSION_DENIED


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
        stream: DialedStream,
        *,
        window: float,
        hello_timeout: float,
        is_live: Callable[[], bool],
        on_done: Callable[[HeldSeat], None],
    ) -> None:
        self.name = name
        self.ticket = secrets.token_urlsafe(24)
        self._stream: DialedStream | None = stream
        self._window = window
        self._hello_timeout = hello_timeout
        self._is_live = is_live
        self._on_done = on_done
        self._start: pb.DealerMessage | None = None
        self._pending: pb.DealerMessage | None = None  # a DecisionRequest not yet answered
        # what was sent since the bot's last answer (it may not have had it), numbered
        self._unconfirmed: collections.deque[tuple[int, pb.DealerMessage]] = collections.deque(
            maxlen=MAX_REPLAY
        )
        self._sent = 0
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
        elif kind == "fault" and self._answers(message.fault.decision_id):
            self._pending = None  # decided (the default played): never sent again
        if kind in _REPLAYED:
            self._sent += 1
            self._unconfirmed.append((self._sent, message))
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
            if message.WhichOneof("kind") == "action" and self._answers(message.action.decision_id):
                self._pending = None
                self._unconfirmed.clear()  # it had everything sent before that request
            return message

    def _answers(self, decision_id: str) -> bool:
        """Whether ``decision_id`` is the pending request's."""
        return self._pending is not None and decision_id == self._pending.decision.decision_id

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

    def _current(self) -> DialedStream | None:
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

    def _drop(self, stream: DialedStream, error: SeatBrokenError) -> None:
        """The stream broke: hold the seat, unless the bot's own messages cut it."""
        if stream is not self._stream:
            return
        self._stream = None
        trio.lowlevel.spawn_system_task(stream.aclose)
        if isinstance(error, MalformedStreamError) or type(error) is not SeatBrokenError:
            self._gone = str(error)  # garbage, a flood, the rate limit: the runner's fault
            raise error
        if not self._is_live():
            self._gone = REVOKED
            raise SeatBrokenError(self._gone)
        self._held_until = trio.current_time() + self._window
        self._back = trio.Event()

    async def _wait_for_return(self) -> None:
        assert self._held_until is not None
        with trio.move_on_at(self._held_until):
            await self._back.wait()

    def revoke(self) -> None:
        """The bot's token died: the seat breaks now, held or not, and is never taken back
        (the runner records the disconnect when it next reads or writes the seat)."""
        if self._gone is None:
            self._gone = REVOKED
        self._back.set()

    async def _refuse(self, stream: DialedStream) -> None:
        if self._gone == REVOKED:
            await stream.end(PERMISSION_DENIED, f"{REVOKED}: that seat is over")
        else:
            await stream.aclose()

    async def take_back(self, stream: DialedStream) -> bool:
        """Give the seat ``stream`` (a new stream of its bot): MatchStart, Hello, what it
        may have missed, the pending request. An old stream still open is replaced. False
        (the stream closed) if the seat is over or the new stream does not say a good
        Hello, or take what it missed, in time."""
        if self._closed or self._gone is not None:
            await self._refuse(stream)
            return False
        async with self._taking:  # one hand-over at a time: a later one replaces it
            self._resuming = True
            try:
                return await self._take_back(stream)
            finally:
                self._resuming = False

    async def _take_back(self, stream: DialedStream) -> bool:
        old, self._stream = self._stream, None
        if old is not None:  # replaced: the seat is held while the new stream says Hello
            self._held_until = trio.current_time() + self._window
            self._back = trio.Event()
            call_on_grpc_loop(old.abort_on_loop, "replaced by a newer stream of the bot")
            await old.aclose()
        problem: str | None = "no MatchStart to resume"
        if self._start is not None:
            problem = await self._handshake(stream, self._start)
        if problem is None:
            problem = await self._catch_up(stream)
        if problem is not None or self._closed or self._gone is not None:
            await self._refuse(stream)
            return False
        self._stream = stream
        self._held_until = None
        self.resumes += 1
        self._back.set()
        return True

    async def _catch_up(self, stream: DialedStream) -> str | None:
        """Send what the bot may have missed, in the order it was first sent, then the
        pending request; messages the runner sends meanwhile (the seat is still held)
        are sent too. None once caught up, else why not."""
        done, pending_sent = 0, None
        with trio.move_on_after(REPLAY_TIMEOUT):
            try:
                while not (self._closed or self._gone is not None):
                    backlog = [(n, m) for n, m in self._unconfirmed if n > done]
                    if backlog:
                        for number, message in backlog:
                            await stream.send(message)
                            done = number
                    elif self._pending is not None and self._pending is not pending_sent:
                        pending_sent = self._pending
                        await stream.send(pending_sent)
                    else:
                        return None
            except SeatBrokenError as error:
                return str(error)
            return "the seat ended"
        return f"the missed messages not taken within {REPLAY_TIMEOUT:g} s"

    async def _handshake(self, stream: DialedStream, start: pb.DealerMessage) -> str | None:
        with trio.move_on_after(self._hello_timeout):
            try:
                await stream.send(start)
                return _check_hello(await stream.receive())
            except SeatBrokenError as error:
                return str(error)
        return f"no Hello within {self._hello_timeout:g} s"

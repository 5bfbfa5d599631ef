"""In-process seats for ``arena.play`` that keep the action timeout (issue 13 audit).

The dealer's :class:`~arena.dealer.LocalBot` calls ``handle()`` in the Trio thread:
right for the built-in policies (ours, quick), wrong for a student's object, whose
``decide`` may sleep, spin or raise. Here each seat's object runs in a worker thread
of its own, fed the dealer's messages in order, as a launched bot reads its stream:
``send`` only queues, so the dealer's own deadlines (the Hello timeout, the action
clock, the send slack) apply unchanged, and a decision that runs past its clock is a
TIMEOUT fault with the default action, its late answer later dropped as stale.

Whatever ``handle()`` does is the bot's: an exception (any, ``SystemExit`` included:
a real Ctrl-C reaches the main thread, never this one) breaks the stream as a crash
(DISCONNECTED); a reply that is not exactly a ``pb.BotMessage`` (a string, bytes, a
bare ``pb.Action``) cuts it as MALFORMED, as bytes that are not a message do on the
wire; a reply over 1 MiB breaks it, as gRPC would; a bot that falls
:data:`BACKLOG_LIMIT` messages behind (stuck in one call) is cut as one that stopped
reading. Nothing a bot does raises out of the match.

Python cannot stop a thread: a call that never returns keeps its thread (a daemon)
running in this process after the match; :meth:`ThreadedBot.still_running` says so.
A call that holds the GIL without a pause (one long C call) stops every thread, the
dealer's included: only a launched bot can be killed.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from typing import Any

import trio

from arena.dealer import MalformedStreamError, SeatBrokenError, SeatConnection
from arena.protocol import pb

BACKLOG_LIMIT = 256
"""Messages a seat's bot may have not yet handled (or replies not yet read) before its
stream is cut: a bot stuck in one call would otherwise cost a timeout per decision for
the rest of the match."""

MAX_REPLY_BYTES = 1 << 20
"""The largest reply taken, as on the wire (the proto's 1 MB per message)."""

_Outcome = pb.BotMessage | SeatBrokenError | None


def answer(bot: Any, wire: bytes) -> _Outcome:
    """What ``bot.handle`` makes of one dealer message: its reply, or why the stream ends.

    Runs in the seat's worker thread, so that everything the bot's code does (its
    ``handle``, its reply's serialisation, its exception's ``str``) is on its clock.
    """
    try:
        reply = bot.handle(pb.DealerMessage.FromString(wire))
        if reply is None:
            return None
        if type(reply) is not pb.BotMessage:  # exactly: a look-alike class is not one
            return MalformedStreamError(f"handle() returned {_kind(reply)}, not a BotMessage")
        data = reply.SerializeToString()
        if len(data) > MAX_REPLY_BYTES:
            return SeatBrokenError(f"a {len(data)}-byte reply: more than {MAX_REPLY_BYTES}")
        return pb.BotMessage.FromString(data)
    except BaseException as error:  # all of it is the bot's (see the module)
        return SeatBrokenError(f"bot raised {type(error).__name__}: {_text(error)}")


def _kind(value: object) -> str:
    """A short description of what came back (its type; a protobuf message by full name)."""
    descriptor = getattr(type(value), "DESCRIPTOR", None)
    full_name = getattr(descriptor, "full_name", None)
    return f"a {full_name}" if isinstance(full_name, str) else f"a {type(value).__name__}"


def _text(error: BaseException) -> str:
    try:
        return str(error)[:200]
    except BaseException:  # a hostile __str__
        return "(its message could not be read)"


class ThreadSeat:
    """One seat's stream to an in-process object, handled in its own worker thread."""

    def __init__(self, bot: Any, name: str) -> None:
        self._bot = bot
        self._inbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._deliver, self._replies = trio.open_memory_channel[_Outcome](math.inf)
        self._pending = 0  # messages queued for the bot and not yet handled
        self._broken: SeatBrokenError | None = None
        self._closed = False
        self._token = trio.lowlevel.current_trio_token()
        self.thread = threading.Thread(target=self._work, name=f"arena.play {name}", daemon=True)
        self.thread.start()

    def _work(self) -> None:
        """The worker: each message in order, each outcome handed to the Trio thread."""
        while (wire := self._inbox.get()) is not None:
            outcome = answer(self._bot, wire)
            try:
                self._token.run_sync_soon(self._arrived, outcome)
            except trio.RunFinishedError:  # the match is over: nobody reads this any more
                return
            if isinstance(outcome, SeatBrokenError):
                return

    def _arrived(self, outcome: _Outcome) -> None:
        """In the Trio thread: one message handled; its reply (or break) is readable."""
        self._pending -= 1
        if self._closed:
            return
        if isinstance(outcome, SeatBrokenError):
            self._broken = outcome
        if outcome is not None:
            self._deliver.send_nowait(outcome)

    def _check(self) -> None:
        if self._closed:
            raise SeatBrokenError("connection closed")
        if self._broken is not None:
            self._closed = True
            raise self._broken

    async def send(self, message: pb.DealerMessage) -> None:
        self._check()
        behind = self._pending + self._replies.statistics().current_buffer_used
        if behind >= BACKLOG_LIMIT:
            self._closed = True
            raise SeatBrokenError(
                f"the bot fell {behind} messages behind (still in a call that timed out?)"
            )
        self._pending += 1
        self._inbox.put(message.SerializeToString())
        await trio.lowlevel.checkpoint()

    async def receive(self) -> pb.BotMessage:
        self._check()
        outcome = await self._replies.receive()
        if isinstance(outcome, SeatBrokenError):
            self._closed = True
            raise outcome
        assert outcome is not None  # None is never delivered
        return outcome

    async def aclose(self) -> None:
        self._closed = True
        self._inbox.put(None)  # the worker ends after what it was sent (MatchEnd)


class ThreadedBot:
    """Driver for one in-process object at one table: a :class:`ThreadSeat` per connect."""

    def __init__(self, bot: Any, name: str) -> None:
        self.bot = bot
        self.name = name
        self.seats: list[ThreadSeat] = []

    async def connect(self) -> SeatConnection:
        seat = ThreadSeat(self.bot, self.name)
        self.seats.append(seat)
        return seat

    async def aclose(self) -> None:
        return None

    def still_running(self, deadline: float) -> bool:
        """Whether a worker is still in a call once ``deadline`` (``time.monotonic``) passed."""
        for seat in self.seats:
            seat.thread.join(max(0.0, deadline - time.monotonic()))
        return any(seat.thread.is_alive() for seat in self.seats)

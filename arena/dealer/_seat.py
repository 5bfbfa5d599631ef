"""The one small interface between the dealer and a seat, and the in-process seats.

A :class:`BotDriver` stands for one bot (a process, an address, a Python object) and
opens one :class:`SeatConnection` per (table, seat) it plays. A connection moves
protocol messages and nothing else: the match runner decides what they mean, owns
every deadline, and turns every failure into a recorded fault.

A connection that breaks raises :class:`SeatBrokenError` (the bot's fault: it hung
up, crashed or sent bytes gRPC would not accept), never anything else; its subclass
:class:`MalformedStreamError` says the bot sent bytes that are not a message.
"""

from __future__ import annotations

from typing import Protocol

import trio

from arena.policies import PolicyBot, make_policy
from arena.protocol import pb
from arena.sandbox._errors import SeatBrokenError as SeatBrokenError


class MalformedStreamError(SeatBrokenError):
    """The bot sent bytes that are not a message, so its stream was cut (a MALFORMED fault)."""

    fault_reason = pb.FAULT_REASON_MALFORMED


class RateLimitedError(SeatBrokenError):
    """The bot sent more unasked-for messages than its rate limit allows, so its stream
    was cut (a RATE_LIMITED fault; the dial-in server's limit)."""

    fault_reason = pb.FAULT_REASON_RATE_LIMITED


class SeatConnection(Protocol):
    """One Play stream: send dealer messages, receive bot messages, in order."""

    async def send(self, message: pb.DealerMessage) -> None:
        """Queue ``message`` for the bot; raises :class:`SeatBrokenError`."""
        ...

    async def receive(self) -> pb.BotMessage:
        """The bot's next message; waits as long as it takes (the caller sets deadlines)."""
        ...

    async def aclose(self) -> None:
        """End the stream; never raises."""
        ...


class BotDriver(Protocol):
    """A bot that can sit at tables: ``name`` for records, ``connect`` per seat."""

    name: str

    async def connect(self) -> SeatConnection:
        """Open a stream for one seat; raises :class:`SeatBrokenError` if the bot is unreachable."""
        ...

    async def aclose(self) -> None:
        """Release the bot (stop its process, close its channel); never raises."""
        ...


class _Handler(Protocol):
    def handle(self, message: pb.DealerMessage) -> pb.BotMessage | None: ...


class LocalConnection:
    """A seat played by an in-process object with the SDK's ``handle`` method.

    Messages are serialised and parsed on the way, as on the wire, so that what a
    local bot sees is exactly what a remote one would.
    """

    def __init__(self, bot: _Handler) -> None:
        self._bot = bot
        self._send, self._receive = trio.open_memory_channel[pb.BotMessage](64)
        self._closed = False

    async def send(self, message: pb.DealerMessage) -> None:
        if self._closed:
            raise SeatBrokenError("connection closed")
        wire = pb.DealerMessage.FromString(message.SerializeToString())
        try:
            reply = self._bot.handle(wire)
        except Exception as error:  # an in-process bot that raises has crashed
            self._closed = True
            raise SeatBrokenError(f"bot raised {type(error).__name__}: {error}") from error
        if reply is not None:
            self._send.send_nowait(pb.BotMessage.FromString(reply.SerializeToString()))

    async def receive(self) -> pb.BotMessage:
        if self._closed:
            raise SeatBrokenError("connection closed")
        return await self._receive.receive()

    async def aclose(self) -> None:
        self._closed = True


class LocalBot:
    """Driver for an in-process bot object (tests, fast self-play)."""

    def __init__(self, bot: _Handler, name: str | None = None) -> None:
        self.bot = bot
        self.name: str = name if name else getattr(bot, "name", type(bot).__name__)

    async def connect(self) -> SeatConnection:
        return LocalConnection(self.bot)

    async def aclose(self) -> None:
        return None


class _PolicySeats(LocalBot):
    """A built-in policy with a fresh :class:`PolicyBot` per seat: tables played at once
    never share a random generator, so each table's play depends on its own seed only."""

    def __init__(self, name: str, policy_name: str, seed: int | None) -> None:
        super().__init__(PolicyBot(name, make_policy(policy_name, seed)), name=name)
        self._policy_name = policy_name
        self._seed = seed

    async def connect(self) -> SeatConnection:
        return LocalConnection(PolicyBot(self.name, make_policy(self._policy_name, self._seed)))


def policy_driver(name: str, policy_name: str, seed: int | None = None) -> LocalBot:
    """A seat played in-process by the built-in policy ``policy_name`` (``KeyError`` if unknown).

    The policy answers through :class:`arena.policies.PolicyBot`, so the dealer seats
    ``builtin:`` bots without importing the bot SDK.
    """
    return _PolicySeats(name, policy_name, seed)

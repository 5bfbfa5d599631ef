"""The driver for one bot that dials in: the streams it offered, leased to matches.

Each Play stream a bot opens is one table on offer (the ``.proto``'s "Bots that dial
in"). A :class:`RemoteBot` keeps the offered streams, in arrival order, and gives them
out two ways: :meth:`RemoteBot.connect` takes one for a seat now (or fails at once:
a bot that is not connected never stalls a table), and :meth:`RemoteBot.lease` sets
``count`` of them aside for one match, so a scheduler that checked
:meth:`RemoteBot.free_tables` is sure to get them (the tournament's dispatcher). A new
stream carrying a held seat's resume ticket, or any new stream while one of the
bot's seats is held, goes to that seat first (:class:`~arena.server._seat.HeldSeat`).
When the bot's last live token dies (revoked, expired) its seats end at once, held or
not, and their tickets are refused from then on (PERMISSION_DENIED).

Everything here runs in Trio; the server pushes each new stream in with :meth:`offer`.
"""

from __future__ import annotations

import collections
from collections.abc import Callable

import grpc
import trio

from arena.dealer import SeatBrokenError
from arena.server._seat import RECONNECT_WINDOW, REVOKED, HeldSeat
from arena.server._streams import DialedStream


class RemoteBot:
    """A bot that dials in, under the name its token gives it (a :class:`~arena.dealer.BotDriver`).

    ``is_live`` says whether the bot's token is still good (a revoked bot's seats are not
    held). ``sandbox_layer`` is what the records say guards it: ``dial-in``.
    """

    sandbox_layer = "dial-in"

    def __init__(
        self,
        name: str,
        *,
        reconnect_window: float = RECONNECT_WINDOW,
        hello_timeout: float = 2.0,
        is_live: Callable[[], bool] = lambda: True,
    ) -> None:
        self.name = name
        self.reconnect_window = reconnect_window
        self.hello_timeout = hello_timeout
        self._is_live = is_live
        self._free: collections.deque[DialedStream] = collections.deque()
        self._seats: dict[str, HeldSeat] = {}
        self._dead_tickets: set[str] = set()  # tickets of seats ended by a revocation
        self._nursery: trio.Nursery | None = None
        self._closed = False
        self._changed = trio.Event()

    def __repr__(self) -> str:
        return f"RemoteBot({self.name!r})"

    def attach(self, nursery: trio.Nursery) -> None:
        """Run the bot's seat hand-overs in ``nursery`` (the server's)."""
        self._nursery = nursery

    # --- what schedulers ask ---------------------------------------------------

    def free_tables(self) -> int:
        """Streams the bot has open and nobody took yet (0: not connected)."""
        self._prune()
        return len(self._free)

    @property
    def connected(self) -> bool:
        """Whether the bot has any stream open: offered, playing or being taken back."""
        return self.free_tables() > 0 or any(not seat.held for seat in self._seats.values())

    def lease(self, count: int) -> list[LeasedSeat]:
        """``count`` offered streams set aside for one match's tables, one per driver.

        Raises ``LookupError`` if fewer than ``count`` are free right now.
        """
        if self.free_tables() < count:
            raise LookupError(f"{self.name} has {len(self._free)} free tables, {count} needed")
        return [LeasedSeat(self, self._free.popleft()) for _ in range(count)]

    async def wait_changed(self) -> None:
        """Return the next time a stream is offered or taken (for waiting schedulers)."""
        await self._changed.wait()

    # --- the BotDriver ---------------------------------------------------------

    async def connect(self) -> HeldSeat:
        """A seat on an offered stream; :class:`SeatBrokenError` at once if none is free."""
        if self._closed:
            raise SeatBrokenError(f"{self.name}: the server is closed")
        if not self.free_tables():
            raise SeatBrokenError(f"{self.name} is not connected (no Play stream on offer)")
        return self.seat_on(self._free.popleft())

    async def aclose(self) -> None:
        """End every stream of the bot; never raises."""
        self._closed = True
        free, self._free = list(self._free), collections.deque()
        with trio.CancelScope(shield=True):
            for stream in free:
                await stream.aclose()
            for seat in list(self._seats.values()):
                await seat.aclose()

    # --- streams coming in -------------------------------------------------------

    def seat_on(self, stream: DialedStream) -> HeldSeat:
        """A new seat on ``stream``, its ticket known to this bot."""
        seat = HeldSeat(
            self.name,
            stream,
            window=self.reconnect_window,
            hello_timeout=self.hello_timeout,
            is_live=self._is_live,
            on_done=self._forget,
        )
        self._seats[seat.ticket] = seat
        self._notify()
        return seat

    def offer(self, stream: DialedStream, ticket: str = "") -> None:
        """A stream the bot opened: to the seat it resumes, a held seat, or on offer."""
        if self._closed:
            trio.lowlevel.spawn_system_task(stream.aclose)
            return
        if ticket in self._dead_tickets:
            code, details = grpc.StatusCode.PERMISSION_DENIED, f"{REVOKED}: that seat is over"
            trio.lowlevel.spawn_system_task(stream.end, code, details)
            return
        seat = self._seats.get(ticket) if ticket else None
        if seat is None:
            seat = next((s for s in self._seats.values() if s.held), None)
        if seat is not None and self._nursery is not None:
            self._nursery.start_soon(self._take_back, seat, stream)
            return
        self._free.append(stream)
        self._notify()

    async def _take_back(self, seat: HeldSeat, stream: DialedStream) -> None:
        if not await seat.take_back(stream):
            self._notify()

    def _forget(self, seat: HeldSeat) -> None:
        self._seats.pop(seat.ticket, None)
        self._notify()

    def token_died(self) -> None:
        """The bot has no live token left: end each of its seats now (the match records a
        disconnect, R25) and refuse their tickets from now on."""
        for seat in list(self._seats.values()):
            self._dead_tickets.add(seat.ticket)
            seat.revoke()
        self._notify()

    def holds(self, ticket: str) -> bool:
        """Whether one of the bot's seats has resume ticket ``ticket`` (read by the server)."""
        return ticket in self._seats

    def _prune(self) -> None:
        """Drop (and end) offered streams the bot has since closed."""
        if any(not stream.is_open() for stream in self._free):
            for stream in [s for s in self._free if not s.is_open()]:
                trio.lowlevel.spawn_system_task(stream.aclose)
            self._free = collections.deque(s for s in self._free if s.is_open())

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()


class LeasedSeat:
    """One table of one match for a remote bot: the stream set aside for it, then, if the
    seat broke and was sat out, any free stream of the bot (a BotDriver).

    ``process`` is the bot (every table of it is one process: a duplicate match with a
    remote bot is not isolated).
    """

    sandbox_layer = "dial-in"

    def __init__(self, bot: RemoteBot, stream: DialedStream) -> None:
        self.process = bot
        self.name = bot.name
        self._stream: DialedStream | None = stream

    async def connect(self) -> HeldSeat:
        stream, self._stream = self._stream, None
        if stream is not None and stream.is_open():
            return self.process.seat_on(stream)
        return await self.process.connect()

    async def aclose(self) -> None:
        """Give an unused stream back to the bot's offer (a match that never started)."""
        stream, self._stream = self._stream, None
        if stream is not None and stream.is_open():
            self.process.offer(stream)

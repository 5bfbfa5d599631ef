"""Dial in to an arena (the ``arena.v1.Arena`` service) instead of serving: the bot is the client.

For a bot behind NAT or a firewall (a laptop at a hackathon, a student's machine
between rounds). Each table is one Play stream that stays silent until the arena seats
it; the same :meth:`Bot.handle <arena.sdk.Bot.handle>` as the Bot service answers it.
When a stream ends another is opened; when one breaks mid-match the next carries the
MatchStart's resume ticket (``arena-resume``) so the seat is taken back within the
arena's reconnect window. Failures back off with jitter. UNAUTHENTICATED stops the bot:
the token is wrong or revoked, and retrying would only hammer the arena.
FAILED_PRECONDITION (the tournament is over, or the bot plays no seat in it) waits the
longest back-off before dialling again: a league's next round finds the bot still there.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import random
import signal
import sys
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc

from arena.protocol import pb, pb_grpc
from arena.sdk._bot import Bot
from arena.text import escape_untrusted

TOKEN_ENV = "ARENA_TOKEN"
"""Where :func:`~arena.sdk.run` reads the token when ``--token`` is not given."""

MAX_TABLES = 64
FIRST_BACKOFF = 0.25
MAX_BACKOFF = 30.0
_AFTER_MATCH_END = 5.0  # seconds to wait for the arena to end a stream after MatchEnd

CHANNEL_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.max_send_message_length", 16 * 1024),  # the arena's limit for bot messages
    ("grpc.max_receive_message_length", 1 << 20),
    # the proto allows client pings no more often than every 20 s; 22 s + 5 s finds a dead
    # arena (a lost network) inside its 30 s reconnect window, even on a silent stream
    ("grpc.keepalive_time_ms", 22_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 0),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.initial_reconnect_backoff_ms", 250),
    ("grpc.max_reconnect_backoff_ms", 30_000),
    ("grpc.enable_retries", 0),  # the dial loop retries, with the resume ticket
)
"""The dial-in channel's options (one channel, one HTTP/2 connection for all tables)."""


class DialError(SystemExit):
    """The bot cannot dial in, and retrying would not help (bad argument, token refused).

    A :class:`SystemExit`, so a bot that lets it escape stops with its one-line message
    and no traceback; ``message`` holds the line.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def is_loopback(address: str) -> bool:
    """Whether ``address`` (``HOST:PORT``, ``[V6]:PORT`` or ``unix:PATH``) stays on this machine."""
    if address.startswith("unix:"):
        return True
    host, _, port = address.rpartition(":")
    if not host or not port:
        return False
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check_token(token: str) -> str:
    """The ``authorization`` value for ``token``; refuses a token that cannot be one."""
    if not token:
        raise DialError(f"no token: pass --token or set ${TOKEN_ENV} (from `arena bots add NAME`)")
    if not (token.isascii() and token.isprintable()) or " " in token:
        raise DialError("the token has characters no arena token has (arena_<bot>_<64 hex digits>)")
    return f"Bearer {token}"


def _credentials(
    address: str, ca: str | Path | None, insecure: bool
) -> grpc.ChannelCredentials | None:
    """TLS credentials (the CA file, else the system roots), or None for a plain channel."""
    if insecure:
        if not is_loopback(address):
            raise DialError(
                f"--insecure is refused for {escape_untrusted(address)}: plain text only on "
                "127.0.0.1, ::1, localhost or unix:; use TLS (--ca FILE) for other addresses"
            )
        return None
    if ca is None:
        return grpc.ssl_channel_credentials()
    try:
        pem = Path(ca).read_bytes()
    except OSError as error:
        raise DialError(
            f"cannot read the CA file {escape_untrusted(str(ca))}: {error.strerror}"
        ) from None
    if b"-----BEGIN CERTIFICATE-----" not in pem:
        raise DialError(f"the CA file {escape_untrusted(str(ca))} holds no PEM certificate")
    return grpc.ssl_channel_credentials(root_certificates=pem)


class _Backoff:
    """0.25 s doubling to 30 s, each wait drawn from its upper half (jitter)."""

    def __init__(self) -> None:
        self.delay = 0.0

    def reset(self) -> None:
        self.delay = 0.0

    def next(self) -> float:
        self.delay = FIRST_BACKOFF if self.delay == 0 else min(MAX_BACKOFF, 2 * self.delay)
        return self.delay * random.uniform(0.5, 1.0)


@dataclass
class _Outcome:
    """How one Play stream went."""

    code: grpc.StatusCode = grpc.StatusCode.OK
    details: str = ""
    started: bool = False  # a MatchStart arrived
    ended: bool = False  # MatchEnd arrived
    ticket: str = ""  # the last MatchStart's resume ticket
    bot_failed: bool = False  # the bot's own code raised

    @property
    def broke_mid_match(self) -> bool:
        """Cut between MatchStart and MatchEnd by something else than the arena's choice."""
        deliberate = (grpc.StatusCode.OK, grpc.StatusCode.ABORTED)  # ended, or replaced
        return (
            self.started and not self.ended and not self.bot_failed and self.code not in deliberate
        )

    def describe(self) -> str:
        details = escape_untrusted(self.details, one_line=True)[:200]
        return f"{self.code.name}: {details}" if details else self.code.name


async def _status(call: grpc.aio.StreamStreamCall, outcome: _Outcome) -> None:
    outcome.code = await call.code()
    outcome.details = await call.details() or ""


async def _play_stream(
    stub: pb_grpc.ArenaStub, bot: Bot, metadata: Sequence[tuple[str, str]]
) -> _Outcome:
    """Open one Play stream, hold the conversation on it, and say how it ended."""
    outcome = _Outcome()
    call = stub.Play(metadata=tuple(metadata))
    try:
        while (message := await call.read()) is not grpc.aio.EOF:
            assert isinstance(message, pb.DealerMessage)
            kind = message.WhichOneof("kind")
            if kind == "match_start":
                outcome.started = True
                outcome.ticket = message.match_start.resume_ticket
            try:
                reply = bot.handle(message)
            except Exception:
                traceback.print_exc()
                outcome.bot_failed = True
                call.cancel()
                return outcome
            if reply is not None:
                await call.write(reply)
            if kind == "match_end":
                outcome.ended = True
                await call.done_writing()
                break
        if outcome.ended:
            try:
                await asyncio.wait_for(call.code(), _AFTER_MATCH_END)
            except TimeoutError:
                call.cancel()  # the arena keeps a finished stream open: let it go
                return outcome
        await _status(call, outcome)
    except grpc.aio.AioRpcError as error:
        outcome.code, outcome.details = error.code(), error.details() or ""
    except asyncio.InvalidStateError:  # written to after it ended: the status says why
        await _status(call, outcome)
    finally:
        if not call.done():
            call.cancel()
    return outcome


class _Refused(Exception):
    """The arena said UNAUTHENTICATED."""


_TRANSIENT = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,  # no connection (yet)
        grpc.StatusCode.CANCELLED,  # the arena is stopping
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.INTERNAL,  # a transport error
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.RESOURCE_EXHAUSTED,  # too many tables open just now
    }
)
"""Failures after which a resume ticket is still worth offering."""

TICKET_LIFE = 300.0
"""Seconds after a break during which its ticket is offered (the arena's window is 30 s
by default); after that, or once the arena answers otherwise, new streams go without."""


async def _keep_a_table(
    stub: pb_grpc.ArenaStub, bot: Bot, authorization: str, table: int, say: _Say
) -> None:
    """Keep one Play stream open, for ever: reopen, resume, back off."""
    loop = asyncio.get_running_loop()
    backoff = _Backoff()
    ticket, ticket_until = "", 0.0
    while True:
        metadata = [("authorization", authorization)]
        if ticket and loop.time() < ticket_until:
            metadata.append(("arena-resume", ticket))
        outcome = await _play_stream(stub, bot, metadata)
        if outcome.code is grpc.StatusCode.UNAUTHENTICATED:
            raise _Refused(outcome.describe())
        if outcome.code is grpc.StatusCode.FAILED_PRECONDITION:  # nothing to play here now
            ticket, backoff.delay = "", MAX_BACKOFF
            wait = backoff.next()
            say(
                f"table {table}: the arena has nothing to play ({outcome.describe()}); "
                f"again in {wait:.1f} s"
            )
            await asyncio.sleep(wait)
            continue
        if outcome.started and not outcome.bot_failed:
            backoff.reset()
            ticket = outcome.ticket if outcome.broke_mid_match else ""
            ticket_until = loop.time() + TICKET_LIFE
            if outcome.broke_mid_match:
                say(f"table {table}: the stream broke mid-match ({outcome.describe()}); resuming")
            continue
        if outcome.code not in _TRANSIENT or outcome.bot_failed:
            ticket = ""  # the arena answered (or the bot failed): that seat is not ours any more
        wait = backoff.next()
        say(f"table {table}: stream failed ({outcome.describe()}); again in {wait:.1f} s")
        await asyncio.sleep(wait)


class _Say:
    """One line on stderr, prefixed with the bot's name (never the token)."""

    def __init__(self, name: str) -> None:
        self.prefix = escape_untrusted(name, one_line=True)

    def __call__(self, line: str) -> None:
        print(f"{self.prefix}: {line}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _stop_on_signals(stop: asyncio.Event) -> Iterator[None]:
    """SIGTERM and SIGINT set ``stop`` (main thread only; elsewhere the caller cancels)."""
    loop = asyncio.get_running_loop()
    installed = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(ValueError, RuntimeError, NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    try:
        yield
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


async def dial(
    bot: Bot,
    address: str,
    *,
    token: str,
    ca: str | Path | None = None,
    insecure: bool = False,
    tables: int = 2,
) -> None:
    """Play at the arena at ``address`` over ``tables`` Play streams until SIGTERM/SIGINT.

    ``token`` is the one ``arena bots add NAME`` printed; ``ca`` a PEM file to verify the
    arena's certificate (without it, the system's roots); ``insecure`` a plain-text
    channel, refused unless ``address`` is loopback. Returns once stopped; raises
    :class:`DialError` for a bad argument or when the arena refuses the token.
    """
    authorization = _check_token(token)
    if not 1 <= tables <= MAX_TABLES:
        raise DialError(f"--tables must be between 1 and {MAX_TABLES}, not {tables}")
    credentials = _credentials(address, ca, insecure)
    say = _Say(bot.name)
    if credentials is None:
        channel = grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)
    else:
        channel = grpc.aio.secure_channel(address, credentials, options=CHANNEL_OPTIONS)
    transport = "plain text" if credentials is None else "TLS"
    say(f"dialling {escape_untrusted(address)} ({transport}, {tables} table(s))")
    stop = asyncio.Event()
    async with channel:
        stub = pb_grpc.ArenaStub(channel)
        with _stop_on_signals(stop):
            tasks = [
                asyncio.create_task(_keep_a_table(stub, bot, authorization, n, say))
                for n in range(1, tables + 1)
            ]
            stopper = asyncio.create_task(stop.wait())
            try:
                done, _ = await asyncio.wait([*tasks, stopper], return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (*tasks, stopper):
                    task.cancel()
                await asyncio.gather(*tasks, stopper, return_exceptions=True)
    for task in done:
        if task is not stopper and isinstance(task.exception(), _Refused):
            raise DialError(
                f"the arena at {escape_untrusted(address)} refused the token ({task.exception()}): "
                "it is wrong or revoked; ask the organiser for a new one"
            )
        if task is not stopper:
            task.result()  # a bug: keep its traceback

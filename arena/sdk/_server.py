"""Serve a :class:`Bot` over gRPC: the Play streams and the standard health service.

A bot the arena launched must not outlive it, even when the arena is killed with
SIGKILL while the bot is still starting (by then the bot has a new parent, so "my
parent changed" cannot be seen by a watchdog that starts late). The arena says who it
is in ``$ARENA_PARENT_PID`` and gives the bot a stdin pipe it never writes to; a
watchdog thread stops the bot (SIGTERM to itself, which :func:`serve` turns into a
clean stop) once that process is gone or that pipe reaches end-of-file.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import stat
import sys
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.protocol import pb, pb_grpc
from arena.sdk._bot import Bot
from arena.sdk._dial import TOKEN_ENV, DialError
from arena.sdk._dial import dial as _dial
from arena.text import escape_untrusted

ADDRESS_ENV = "ARENA_BOT_ADDRESS"
"""The arena sets this to where a launched bot must listen (``127.0.0.1:PORT`` or ``unix:PATH``)."""

PARENT_PID_ENV = "ARENA_PARENT_PID"
"""The pid of the arena that launched this bot (set by the arena's launcher)."""

MAX_MESSAGE_BYTES = 1 << 20
_WATCH_INTERVAL = 0.5
_watchdog_started = False


class _PlayServicer(pb_grpc.BotServicer):
    def __init__(self, bot: Bot) -> None:
        self._bot = bot

    async def Play(
        self, request_iterator: AsyncIterator[pb.DealerMessage], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.BotMessage]:
        async for message in request_iterator:
            reply = self._bot.handle(message)
            if reply is not None:
                yield reply
            if message.WhichOneof("kind") == "match_end":
                return


async def serve(bot: Bot, address: str) -> None:
    """Serve ``bot`` at ``address`` until cancelled or sent SIGTERM/SIGINT.

    Launched by the arena (``$ARENA_BOT_ADDRESS`` set), it also stops when the arena is
    gone (see :func:`watch_the_arena`).
    """
    watch_the_arena()
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.so_reuseport", 0),  # a second server on this port must fail, not share it
        ]
    )
    pb_grpc.add_BotServicer_to_server(_PlayServicer(bot), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    if server.add_insecure_port(address) == 0 and not address.startswith("unix:"):
        raise SystemExit(f"{bot.name}: cannot listen on {address}")
    await server.start()
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set("arena.v1.Bot", health_pb2.HealthCheckResponse.SERVING)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop(grace=0.5)


def watch_the_arena() -> None:
    """If the arena launched this process, stop it once the arena is gone; idempotent.

    Signs, checked from daemon threads: the process ``$ARENA_PARENT_PID`` no longer runs,
    or stdin (a pipe from the arena) reaches end-of-file. Without ``$ARENA_PARENT_PID``
    (inside the sandbox's PID namespace, or an older arena), stdin and a change of
    parent pid. The stop is SIGTERM to this process (a
    clean shutdown once serving, the default exit before), then exit after 5 s.
    """
    global _watchdog_started
    if _watchdog_started or not os.environ.get(ADDRESS_ENV):
        return
    _watchdog_started = True
    text = os.environ.get(PARENT_PID_ENV, "")
    arena = int(text) if text.isascii() and text.isdigit() and int(text) > 1 else None
    first_parent = os.getppid()

    def arena_gone() -> bool:
        if arena is not None:
            return not _running(arena)
        return os.getppid() != first_parent

    def poll() -> None:
        while not arena_gone():
            time.sleep(_WATCH_INTERVAL)
        _stop_self()

    threading.Thread(target=poll, name="arena-watchdog", daemon=True).start()
    # in the sandbox's PID namespace the arena's pid means nothing, so it is not given:
    # stdin's end-of-file (and the namespace itself dying) still tell
    if _stdin_is_a_pipe():
        threading.Thread(target=_wait_for_stdin_eof, name="arena-stdin", daemon=True).start()


def _running(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError, IndexError):
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    return True


def _stdin_is_a_pipe() -> bool:
    try:
        return stat.S_ISFIFO(os.fstat(0).st_mode)
    except OSError:
        return False


def _wait_for_stdin_eof() -> None:
    try:
        while os.read(0, 4096):
            pass  # the arena never writes; anything else is ignored
    except OSError:
        return  # stdin unusable: rely on the pid watch
    _stop_self()


def _stop_self() -> None:
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(5.0)
    os._exit(1)  # SIGTERM was ignored or the shutdown hung


def run(
    bot: Bot,
    argv: list[str] | None = None,
    *,
    dial: str | None = None,
    token: str | None = None,
    ca: str | None = None,
    insecure: bool = False,
    tables: int = 2,
) -> None:
    """Command-line entry for a bot: serve where the arena says, or dial in to an arena.

    Serving: the address comes from ``--address``, else ``$ARENA_BOT_ADDRESS``, else
    ``127.0.0.1:50051``. With ``--dial HOST:PORT`` (or ``dial=``) the bot connects to the
    arena instead (:func:`~arena.sdk.dial`), with the token from ``--token``, else
    ``token=``, else ``$ARENA_TOKEN``; the keywords are defaults the command line
    overrides. A refusal is one line on stderr and exit status 2.
    """
    watch_the_arena()  # first: the arena may die while this bot is still starting
    parser = argparse.ArgumentParser(description=f"arena bot {bot.name}")
    parser.add_argument("--address", default=os.environ.get(ADDRESS_ENV, "127.0.0.1:50051"))
    parser.add_argument("--dial", metavar="HOST:PORT", default=dial, help="dial in to the arena")
    parser.add_argument(
        "--token",
        default=token if token is not None else os.environ.get(TOKEN_ENV, ""),
        help=f"the bot's token (default ${TOKEN_ENV}: other users cannot see it in ps)",
    )
    parser.add_argument("--ca", metavar="FILE", default=ca, help="PEM file of the arena's CA")
    parser.add_argument(
        "--insecure", action="store_true", default=insecure, help="plain text (loopback only)"
    )
    parser.add_argument(
        "--tables",
        type=int,
        default=tables,
        help="tables (Play streams) at once (default 2)",
    )
    args = parser.parse_args(argv)
    if args.dial is None:
        asyncio.run(serve(bot, args.address))
        return
    options = {"token": args.token, "ca": args.ca, "insecure": args.insecure, "tables": args.tables}
    try:
        asyncio.run(_dial(bot, args.dial, **options))
    except DialError as error:
        print(f"{escape_untrusted(bot.name, one_line=True)}: {error.message}", file=sys.stderr)
        raise SystemExit(2) from None

"""Serve a :class:`Bot` over gRPC: the Play streams and the standard health service."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
from collections.abc import AsyncIterator

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.protocol import pb, pb_grpc
from arena.sdk._bot import Bot

ADDRESS_ENV = "ARENA_BOT_ADDRESS"
"""The arena sets this to where a launched bot must listen (``127.0.0.1:PORT`` or ``unix:PATH``)."""

MAX_MESSAGE_BYTES = 1 << 20


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
    """Serve ``bot`` at ``address`` until cancelled or sent SIGTERM/SIGINT."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
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
    watchdog = None
    if os.environ.get(ADDRESS_ENV):  # launched by the arena: do not outlive it
        watchdog = asyncio.create_task(_stop_when_orphaned(stop))
    await stop.wait()
    if watchdog is not None:
        watchdog.cancel()
    await server.stop(grace=0.5)


async def _stop_when_orphaned(stop: asyncio.Event, interval: float = 1.0) -> None:
    """Stop serving once the process that launched us is gone (e.g. killed with -9)."""
    parent = os.getppid()
    while not stop.is_set():
        await asyncio.sleep(interval)
        if os.getppid() != parent:
            stop.set()


def run(bot: Bot, argv: list[str] | None = None) -> None:
    """Command-line entry for a bot: listen where the arena says, serve until stopped.

    The address comes from ``--address``, else ``$ARENA_BOT_ADDRESS``, else
    ``127.0.0.1:50051``.
    """
    parser = argparse.ArgumentParser(description=f"arena bot {bot.name}")
    parser.add_argument("--address", default=os.environ.get(ADDRESS_ENV, "127.0.0.1:50051"))
    args = parser.parse_args(argv)
    asyncio.run(serve(bot, args.address))

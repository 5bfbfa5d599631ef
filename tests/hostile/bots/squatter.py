"""Serves with SO_REUSEPORT on, and (with 'twice') a second listener of its own on the port."""

import asyncio
import os
import socket
import sys
import threading

import grpc
from _base import Calling, mark
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.protocol import pb_grpc
from arena.sdk._server import _PlayServicer

mark(sys.argv[1])
address = os.environ["ARENA_BOT_ADDRESS"]
port = int(address.rsplit(":", 1)[1])
extra = None
if sys.argv[2:] == ["twice"]:  # in gRPC's own reuseport group; hangs up on every caller
    extra = socket.socket(socket.AF_INET6)
    extra.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    extra.bind(("::ffff:127.0.0.1", port))
    extra.listen()

    def hang_up() -> None:
        while True:
            extra.accept()[0].close()

    threading.Thread(target=hang_up, daemon=True).start()


async def main() -> None:
    server = grpc.aio.server(options=[("grpc.so_reuseport", 1)])
    pb_grpc.add_BotServicer_to_server(_PlayServicer(Calling()), server)
    checks = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checks, server)
    server.add_insecure_port(address)
    await server.start()
    await checks.set("", health_pb2.HealthCheckResponse.SERVING)
    await asyncio.sleep(120)


asyncio.run(main())

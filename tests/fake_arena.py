"""A small fake Arena service for the dial-in clients' tests (the Python SDK's and the
Node bot's): each Play stream runs a test's script, and the metadata of every stream is
kept. Served on 127.0.0.1, over TLS (trustme material) or plain text.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import grpc
import grpc.aio

from arena.protocol import pb_grpc

Script = Callable[[int, grpc.aio.ServicerContext], Awaitable[None]]
"""``script(n, context)`` plays the n-th Play stream (0-based) with ``context.read/write``."""


class FakeArena(pb_grpc.ArenaServicer):
    """Plays ``script(n, context)`` on the n-th Play stream (0-based); records metadata."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.metadata: list[dict[str, str]] = []
        self.open = 0
        self.changed = asyncio.Condition()

    async def Play(self, request_iterator, context: grpc.aio.ServicerContext) -> None:
        n = len(self.metadata)
        self.metadata.append({k: v for k, v in context.invocation_metadata() if isinstance(v, str)})
        await self._count(+1)
        try:
            await self.script(n, context)
        finally:
            await self._count(-1)

    async def _count(self, change: int) -> None:
        async with self.changed:
            self.open += change
            self.changed.notify_all()

    async def wait_for(self, predicate: Callable[[FakeArena], bool]) -> None:
        async with self.changed:
            await self.changed.wait_for(lambda: predicate(self))


def tls_pair(folder: Path) -> tuple[grpc.ServerCredentials, Path]:
    """Server credentials for 127.0.0.1 / localhost / ::1 and the CA file a bot trusts."""
    import trustme

    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost", "::1")
    chain = b"".join(pem.bytes() for pem in cert.cert_chain_pems)
    ca_file = folder / "ca.pem"
    ca_file.write_bytes(ca.cert_pem.bytes())
    return grpc.ssl_server_credentials([(cert.private_key_pem.bytes(), chain)]), ca_file


@contextlib.asynccontextmanager
async def fake_arena(
    script: Script, credentials: grpc.ServerCredentials | None, port: int = 0
) -> AsyncIterator[tuple[str, FakeArena]]:
    """A FakeArena on 127.0.0.1 (TLS, or plain text when ``credentials`` is None)."""
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    arena = FakeArena(script)
    pb_grpc.add_ArenaServicer_to_server(arena, server)
    if credentials is None:
        port = server.add_insecure_port(f"127.0.0.1:{port}")
    else:
        port = server.add_secure_port(f"127.0.0.1:{port}", credentials)
    await server.start()
    try:
        yield f"127.0.0.1:{port}", arena
    finally:
        await server.stop(None)

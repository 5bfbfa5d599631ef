"""The dial-in server's transport (issue 11 item 3): addresses, TLS with reload, options.

Every server here listens on 127.0.0.1 (or a unix socket in tmp_path) and every client
dials it there. A trivial generic service stands in for the Arena: ``Echo`` (unary) and
``Hold`` (a stream that writes b"ready", reads in a separate task and waits, recording
what the handler saw), so the tests need no protocol.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest

from arena.server._listen import (
    ListenError,
    ServerTls,
    add_listener,
    is_loopback,
    parse_listen,
    server_options,
    tls_credentials,
)

pytest.importorskip("trustme", reason="trustme (dev extra) makes the TLS material")
from tls_material import TlsMaterial, make_tls_material

SERVICE = "t.Test"
WAIT = 30.0  # generous: found "within a few seconds", never a timing assertion


@dataclass
class Seen:
    """What one Hold handler saw: each read's result, and how the handler ended."""

    reads: list[object] = field(default_factory=list)
    outcome: str = ""
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)


class Service:
    def __init__(self) -> None:
        self.seen: dict[str, Seen] = {}

    async def echo(self, request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return request

    async def hold(self, request_iterator: object, context: grpc.aio.ServicerContext) -> None:
        case = dict(context.invocation_metadata()).get("case", "?")
        seen = self.seen.setdefault(case, Seen())

        async def reader() -> None:
            while True:
                message = await context.read()
                seen.reads.append("EOF" if message is grpc.aio.EOF else len(message))
                if message is grpc.aio.EOF:
                    return

        task = asyncio.create_task(reader())
        await context.write(b"ready")
        try:
            await seen.release.wait()
            seen.outcome = "released"
        except asyncio.CancelledError:
            seen.outcome = "cancelled"
            raise
        finally:
            task.cancel()
            seen.ended.set()

    def handler(self) -> grpc.GenericRpcHandler:
        return grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "Echo": grpc.unary_unary_rpc_method_handler(self.echo),
                "Hold": grpc.stream_stream_rpc_method_handler(self.hold),
            },
        )

    async def ended(self, case: str) -> Seen:
        while case not in self.seen:
            await asyncio.sleep(0.01)
        await asyncio.wait_for(self.seen[case].ended.wait(), WAIT)
        return self.seen[case]


@contextlib.asynccontextmanager
async def serving(
    address: str = "127.0.0.1:0",
    *,
    tls: grpc.ServerCredentials | None = None,
    options: list[tuple[str, int]] | None = None,
) -> AsyncIterator[tuple[str, Service]]:
    service = Service()
    server = grpc.aio.server(options=options if options is not None else server_options())
    server.add_generic_rpc_handlers((service.handler(),))
    bound = add_listener(server, address, tls=tls)
    await server.start()
    try:
        yield bound, service
    finally:
        for seen in service.seen.values():
            seen.release.set()
        await server.stop(None)


async def echo(address: str, credentials: grpc.ChannelCredentials | None = None) -> bytes:
    """One Echo call on a new channel (plain when no credentials)."""
    if credentials is None:
        channel = grpc.aio.insecure_channel(address)
    else:
        channel = grpc.aio.secure_channel(address, credentials)
    async with channel:
        return await channel.unary_unary(f"/{SERVICE}/Echo")(b"ping", timeout=10)


async def echo_code(address: str, credentials: grpc.ChannelCredentials | None) -> object:
    try:
        return await echo(address, credentials)
    except grpc.aio.AioRpcError as error:
        return error.code()


def run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(coroutine)


# ---------------------------------------------------------------------------
# Addresses


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1:50051", "127.0.0.1:50051"),
        (" 0.0.0.0:0 ", "0.0.0.0:0"),
        ("[::1]:7", "[::1]:7"),
        ("[0:0::1]:7", "[::1]:7"),
        ("localhost:8080", "localhost:8080"),
        ("unix:/tmp/arena.sock", "unix:/tmp/arena.sock"),
    ],
)
def test_parse_listen_accepts_and_normalises(text: str, expected: str) -> None:
    """issue 11 item 3: HOST:PORT, [v6]:PORT and unix:PATH, port 0 allowed."""
    assert parse_listen(text) == expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("127.0.0.1", "HOST:PORT"),
        (":50051", "give the host"),
        ("127.0.0.1:65536", "0 to 65535"),
        ("127.0.0.1:-1", "0 to 65535"),
        ("127.0.0.1:٣", "0 to 65535"),
        ("::1:50051", "[ADDRESS]:PORT"),
        ("[::1]50051", "[ADDRESS]:PORT"),
        ("arena.example.org:443", "IP address or localhost"),
        ("unix:", "socket path"),
        ("unix-abstract:x", "abstract"),
        ("bad\x1b[31m:1", "\\x1b"),
    ],
)
def test_parse_listen_refuses_with_one_line(text: str, why: str) -> None:
    """issue 11 item 3: a bad address is one line naming it (control characters escaped)."""
    with pytest.raises(ListenError) as caught:
        parse_listen(text)
    message = str(caught.value)
    assert why in message
    assert "\n" not in message and "\x1b" not in message


@pytest.mark.parametrize(
    ("address", "loopback"),
    [
        ("127.0.0.1:1", True),
        ("127.8.9.10:1", True),
        ("[::1]:1", True),
        ("[::ffff:127.0.0.1]:1", True),
        ("unix:/tmp/x.sock", True),
        ("0.0.0.0:1", False),
        ("[::]:1", False),
        ("192.168.1.20:1", False),
        ("10.0.0.1:1", False),
        ("[fe80::1]:1", False),
        ("example.org:1", False),
        ("nonsense", False),
    ],
)
def test_is_loopback(address: str, loopback: bool) -> None:
    """issue 11 item 3: only 127/8, ::1 and unix sockets count as loopback."""
    assert is_loopback(address) is loopback


def test_localhost_is_loopback_when_it_resolves_only_to_loopback() -> None:
    """issue 11 item 3: ``localhost`` counts when it resolves to loopback addresses only."""
    import socket

    addresses = {str(info[4][0]) for info in socket.getaddrinfo("localhost", None)}
    expected = all(is_loopback(f"[{a}]:1" if ":" in a else f"{a}:1") for a in addresses)
    assert is_loopback("localhost:1") is expected


class RecordingServer:
    """Stands in for a grpc.aio.Server: records every bind (there must be none)."""

    def __init__(self) -> None:
        self.binds: list[str] = []

    def add_insecure_port(self, address: str) -> int:
        self.binds.append(address)
        return 1

    def add_secure_port(self, address: str, credentials: object) -> int:
        self.binds.append(address)
        return 1


@pytest.mark.parametrize("address", ["0.0.0.0:0", "[::]:0", "192.168.1.20:50051", "10.1.2.3:0"])
def test_plain_listener_off_loopback_is_refused_before_binding(address: str) -> None:
    """issue 11 item 3: no TLS on a non-loopback address: refused, and nothing is bound."""
    server = RecordingServer()
    with pytest.raises(ListenError) as caught:
        add_listener(server, address, tls=None)
    assert server.binds == []
    assert str(caught.value) == (
        f"address {parse_listen(address)} is not loopback: give --tls-cert and --tls-key "
        "(plain text is allowed only on 127.0.0.1, ::1 and unix sockets)"
    )


def test_plain_listener_on_loopback_serves_and_returns_the_real_port() -> None:
    """issue 11 item 3: port 0 binds a free port, and add_listener says which."""

    async def main() -> None:
        async with serving("127.0.0.1:0") as (bound, _):
            host, port = bound.rsplit(":", 1)
            assert host == "127.0.0.1" and int(port) > 0
            assert await echo(bound) == b"ping"

    run(main())


def test_a_port_in_use_is_a_listen_error() -> None:
    """issue 11 item 3: a second server on a bound port fails (so_reuseport=0), one line."""

    async def main() -> None:
        async with serving() as (bound, _):
            other = grpc.aio.server(options=server_options())
            with pytest.raises(ListenError, match=r"cannot listen on 127\.0\.0\.1:.*in use"):
                add_listener(other, bound, tls=None)

    run(main())


def test_unix_socket_plain_listener_and_no_stealing_a_live_one(tmp_path: Path) -> None:
    """issue 11 item 3: plain text on a unix socket works; a second server on a live socket
    is refused (gRPC would silently unlink it), and so is a path that is not a socket."""
    address = f"unix:{tmp_path / 'arena.sock'}"
    (tmp_path / "file").write_text("x")

    async def main() -> None:
        async with serving(address) as (bound, _):
            assert bound == address
            assert await echo(address) == b"ping"
            with pytest.raises(ListenError, match="another server is listening there"):
                add_listener(grpc.aio.server(), address, tls=None)
        with pytest.raises(ListenError, match="not a socket"):
            add_listener(grpc.aio.server(), f"unix:{tmp_path / 'file'}", tls=None)

    run(main())


# ---------------------------------------------------------------------------
# TLS


def test_tls_serves_with_the_trustme_ca_and_refuses_plain_text(tmp_path: Path) -> None:
    """issue 11 item 3: TLS on 127.0.0.1 works with the CA; an insecure channel gets no RPC."""
    material = make_tls_material(tmp_path)

    async def main() -> None:
        tls = tls_credentials(material.cert, material.key)
        async with serving(tls=tls) as (bound, _):
            assert await echo(bound, material.channel_credentials()) == b"ping"
            assert await echo_code(bound, None) == grpc.StatusCode.UNAVAILABLE
            stranger = make_tls_material(tmp_path / "other").ca
            assert await echo_code(bound, material.channel_credentials(stranger)) == (
                grpc.StatusCode.UNAVAILABLE
            )

    run(main())


def test_tls_on_a_lan_address_is_accepted(tmp_path: Path) -> None:
    """issue 11 item 3: with TLS the non-loopback check does not apply (nothing bound here)."""
    material = make_tls_material(tmp_path)
    server = RecordingServer()
    tls = tls_credentials(material.cert, material.key)
    assert add_listener(server, "0.0.0.0:50051", tls=tls) == "0.0.0.0:1"
    assert server.binds == ["0.0.0.0:50051"]


def _pem_errors(tmp_path: Path, material: TlsMaterial) -> dict[str, tuple[Path, Path]]:
    missing = tmp_path / "missing.pem"
    text = tmp_path / "text.pem"
    text.write_text("hello\n")
    other = make_tls_material(tmp_path / "other")
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(material.key.read_bytes(), None)
    encrypted = tmp_path / "encrypted.key"
    encrypted.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"secret"),
        )
    )
    return {
        "encrypted": (material.cert, encrypted),
        "missing": (missing, material.key),
        "not-pem-cert": (text, material.key),
        "not-pem-key": (material.cert, text),
        "key-swapped": (material.key, material.cert),
        "mismatch": (material.cert, other.key),
    }


@pytest.mark.parametrize(
    ("case", "why"),
    [
        ("encrypted", "TLS key {key}: encrypted (gRPC needs an unencrypted PEM key)"),
        ("missing", "TLS certificate {cert}: No such file or directory"),
        ("not-pem-cert", "TLS certificate {cert}: not a PEM certificate"),
        ("not-pem-key", "TLS key {key}: not a PEM key"),
        ("key-swapped", "TLS certificate {cert}: not a PEM certificate"),
        ("mismatch", "TLS certificate {cert} and key {key} cannot be used together"),
    ],
)
def test_bad_tls_files_at_start_name_the_file(tmp_path: Path, case: str, why: str) -> None:
    """issue 11 item 3: unreadable, non-PEM or mismatched files: one line naming the file."""
    material = make_tls_material(tmp_path)
    cert, key = _pem_errors(tmp_path, material)[case]
    with pytest.raises(ListenError) as caught:
        tls_credentials(cert, key)
    assert str(caught.value).startswith(why.format(cert=cert, key=key))
    assert "\n" not in str(caught.value)


def test_certificate_reload_without_restart(tmp_path: Path) -> None:
    """issue 11 item 3: a certificate re-issued by a NEW CA into the same files is served to
    the next connection: the new CA works, the old one no longer does; no restart."""
    material = make_tls_material(tmp_path)
    reloaded: list[str] = []

    async def main() -> None:
        tls = ServerTls(material.cert, material.key, on_reload=reloaded.append)
        async with serving(tls=tls.credentials) as (bound, _):
            assert await echo(bound, material.channel_credentials()) == b"ping"
            old = material.reissue()
            assert await echo(bound, material.channel_credentials()) == b"ping"
            assert await echo_code(bound, material.channel_credentials(old)) == (
                grpc.StatusCode.UNAVAILABLE
            )
            assert tls.reloads == 1 and tls.last_error is None
            assert reloaded == [f"TLS certificate reloaded from {material.cert}"]

    run(main())


def test_a_corrupt_replacement_keeps_the_old_certificate(tmp_path: Path) -> None:
    """issue 11 item 3: a bad file at reload time keeps the old certificate serving, says why
    once, and a good file after it is picked up."""
    material = make_tls_material(tmp_path)
    errors: list[str] = []

    async def main() -> None:
        tls = ServerTls(material.cert, material.key, on_reload_error=errors.append)
        async with serving(tls=tls.credentials) as (bound, _):
            good = material.cert.read_bytes()
            material.cert.write_bytes(good[: len(good) // 2])  # half-written renewal
            for _ in range(2):
                assert await echo(bound, material.channel_credentials()) == b"ping"
            assert tls.last_error is not None and str(material.cert) in tls.last_error
            assert tls.last_error.endswith("kept the current certificate")
            assert errors == [tls.last_error]
            material.key.write_text("garbage\n")
            assert await echo(bound, material.channel_credentials()) == b"ping"
            assert f"TLS key {material.key}: not a PEM key" in errors[-1]
            old = material.reissue()
            assert await echo(bound, material.channel_credentials()) == b"ping"
            assert await echo_code(bound, material.channel_credentials(old)) == (
                grpc.StatusCode.UNAVAILABLE
            )
            assert tls.last_error is None and tls.reloads == 1

    run(main())


def test_removed_files_keep_the_old_certificate(tmp_path: Path) -> None:
    """issue 11 item 3: a certificate file that disappears (mid-renewal) keeps serving the
    loaded one, and its return is picked up."""
    material = make_tls_material(tmp_path)

    async def main() -> None:
        tls = ServerTls(material.cert, material.key)
        async with serving(tls=tls.credentials) as (bound, _):
            material.key.unlink()
            assert await echo(bound, material.channel_credentials()) == b"ping"
            assert tls.last_error is not None and "is gone" in tls.last_error
            old = material.reissue()
            assert await echo(bound, material.channel_credentials()) == b"ping"
            assert await echo_code(bound, material.channel_credentials(old)) == (
                grpc.StatusCode.UNAVAILABLE
            )
            assert tls.last_error is None

    run(main())


# ---------------------------------------------------------------------------
# Server options: keepalive and limits


def test_server_options_are_exact_names_that_grpc_knows() -> None:
    """issue 11 item 3: the channel arguments (gRPC silently ignores a misspelt one, so each
    name must occur in the grpc core library itself)."""
    options = dict(server_options())
    assert options == {
        "grpc.keepalive_time_ms": 5000,
        "grpc.keepalive_timeout_ms": 5000,
        "grpc.http2.ping_timeout_ms": 5000,
        "grpc.keepalive_permit_without_calls": 1,
        "grpc.http2.max_pings_without_data": 0,
        "grpc.http2.min_ping_interval_without_data_ms": 20000,
        "grpc.http2.max_ping_strikes": 2,
        "grpc.max_receive_message_length": 16384,
        "grpc.max_send_message_length": 1 << 20,
        "grpc.max_concurrent_streams": 16,
        "grpc.so_reuseport": 0,
        "grpc.server_handshake_timeout_ms": 5000,
    }
    from grpc._cython import cygrpc

    core = Path(cygrpc.__file__).read_bytes()
    unknown = [name for name in options if name.encode() + b"\0" not in core]
    assert unknown == []


CLIENT = """
import asyncio, sys, grpc
async def main():
    async with grpc.aio.insecure_channel(sys.argv[1]) as channel:
        call = channel.stream_stream("/t.Test/Hold")(metadata=(("case", sys.argv[2]),))
        await call.write(b"hello")
        print((await call.read()).decode(), flush=True)
        await asyncio.sleep(600)
asyncio.run(main())
"""


async def _peer_vanishes(how: signal.Signals, options: list[tuple[str, int]]) -> Seen:
    """A client process opens a Hold stream, then gets ``how``; what the handler saw."""
    async with serving(options=options) as (bound, service):
        client = await asyncio.create_subprocess_exec(
            sys.executable, "-c", CLIENT, bound, how.name, stdout=subprocess.PIPE
        )
        try:
            assert client.stdout is not None
            line = await asyncio.wait_for(client.stdout.readline(), WAIT)
            assert line == b"ready\n"
            os.kill(client.pid, how)
            return await service.ended(how.name)
        finally:
            # The child may be dead and reaped before asyncio sets returncode.
            if client.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    client.send_signal(signal.SIGCONT)
                    client.kill()
            await client.wait()


def test_keepalive_finds_a_stopped_client() -> None:
    """issue 11 item 3 (item 6 "SIGSTOP"): with 0.5 s keepalive a frozen client's stream
    ends on the server side (the handler is cancelled, its read task got EOF)."""
    options = server_options(keepalive_time=0.5, keepalive_timeout=0.5)
    seen = run(_peer_vanishes(signal.SIGSTOP, options))
    assert seen.outcome == "cancelled"
    assert seen.reads == [5, "EOF"]


def test_a_killed_client_cancels_the_handler() -> None:
    """issue 11 item 3: a SIGKILLed peer: the read task gets EOF (not an error) and the
    handler's own await is cancelled; this is how the server tells it from a clean end."""
    seen = run(_peer_vanishes(signal.SIGKILL, server_options()))
    assert seen.outcome == "cancelled"
    assert seen.reads == [5, "EOF"]


def test_a_half_close_is_eof_without_cancelling() -> None:
    """issue 11 item 3: a client that half-closes cleanly: EOF too, but no cancellation."""

    async def main() -> Seen:
        async with serving() as (bound, service):
            async with grpc.aio.insecure_channel(bound) as channel:
                call = channel.stream_stream(f"/{SERVICE}/Hold")(metadata=(("case", "half"),))
                await call.write(b"hello")
                assert await call.read() == b"ready"
                await call.done_writing()
                while service.seen["half"].reads != [5, "EOF"]:
                    await asyncio.sleep(0.01)
                service.seen["half"].release.set()
                assert await call.code() == grpc.StatusCode.OK
            return await service.ended("half")

    assert run(main()).outcome == "released"


def test_an_oversize_message_is_resource_exhausted() -> None:
    """issue 11 item 3 (item 6 "a 100 KB message"): the default 16 KiB limit ends the
    stream with RESOURCE_EXHAUSTED; the handler sees EOF and is cancelled."""

    async def main() -> tuple[grpc.StatusCode, Seen]:
        async with serving() as (bound, service):
            async with grpc.aio.insecure_channel(bound) as channel:
                call = channel.stream_stream(f"/{SERVICE}/Hold")(metadata=(("case", "big"),))
                await call.write(b"hello")
                assert await call.read() == b"ready"
                await call.write(b"x" * 100_000)
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await call.read()
            return caught.value.code(), await service.ended("big")

    code, seen = run(main())
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert seen.outcome == "cancelled" and seen.reads == [5, "EOF"]


def test_a_client_pinging_too_often_is_cut() -> None:
    """issue 11 item 3: pings closer than 20 s are strikes; after 2 the connection ends."""

    async def main() -> grpc.StatusCode:
        async with serving() as (bound, _):
            fast = [("grpc.keepalive_time_ms", 100), ("grpc.keepalive_permit_without_calls", 1)]
            fast.append(("grpc.http2.max_pings_without_data", 0))
            async with grpc.aio.insecure_channel(bound, options=fast) as channel:
                call = channel.stream_stream(f"/{SERVICE}/Hold")(metadata=(("case", "ping"),))
                await call.write(b"hello")
                assert await call.read() == b"ready"
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await asyncio.wait_for(call.read(), WAIT)
                return caught.value.code()

    assert run(main()) == grpc.StatusCode.UNAVAILABLE

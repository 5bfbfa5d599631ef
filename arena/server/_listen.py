"""Where the dial-in server listens, and how: addresses, TLS that reloads, server options.

The contract is the proto's "Bots that dial in" section: plain text only on loopback (a
token sent in clear over a LAN can be read by anyone on it), TLS everywhere else, with a
certificate that can be renewed without a restart (a league runs for weeks; Let's Encrypt
certificates last 90 days), and keepalive and limits set so that a frozen or greedy bot
costs the arena seconds and kilobytes, not minutes and megabytes.

Every refusal is a :class:`ListenError` whose message is one line naming the address or
the file and the problem, for the command line to print as is.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import ssl
import stat
import threading
from collections.abc import Callable
from pathlib import Path

import grpc
import grpc.aio

from arena.text import escape_untrusted

MAX_PEM_BYTES = 1 << 20
"""A certificate chain or key file larger than this is not one (refused, never read whole)."""

PLAIN_REFUSED = (
    "give --tls-cert and --tls-key (plain text is allowed only on 127.0.0.1, ::1 and unix sockets)"
)


class ListenError(Exception):
    """The server cannot listen as asked: a bad or non-loopback address without TLS, a port
    in use, an unreadable or invalid certificate or key. The message is one line that names
    the address or file: the organiser's mistake, to be printed without a traceback."""


def _show(text: object) -> str:
    return escape_untrusted(str(text), one_line=True)


# ---------------------------------------------------------------------------
# Addresses


def _split(address: str) -> tuple[str, str]:
    """``(host, port text)`` of ``HOST:PORT`` or ``[V6]:PORT``; the host without brackets."""
    if address.startswith("["):
        host, sep, rest = address[1:].partition("]")
        if not sep or not rest.startswith(":"):
            raise ListenError(
                f"address {_show(address)}: an IPv6 address is written [ADDRESS]:PORT"
            )
        return host, rest[1:]
    host, sep, port = address.rpartition(":")
    if not sep:
        raise ListenError(f"address {_show(address)}: give HOST:PORT, [IPv6]:PORT or unix:PATH")
    if ":" in host:
        raise ListenError(f"address {_show(address)}: an IPv6 address is written [ADDRESS]:PORT")
    return host, port


def parse_listen(text: str) -> str:
    """The listen address ``text`` checked and normalised (``[v6]:PORT``), or ListenError.

    Accepted: ``HOST:PORT`` with an IP address or ``localhost`` as HOST, ``[IPv6]:PORT``,
    ``unix:PATH``. Port 0 asks for a free port (:func:`add_listener` returns it). A host
    name is refused: it would be resolved, and a typo must not bind something unexpected.
    """
    address = text.strip()
    if address.startswith("unix:"):
        if not address[len("unix:") :].strip("/"):
            raise ListenError(f"address {_show(text)}: unix: needs a socket path")
        return address
    if address.startswith("unix-abstract:"):
        raise ListenError(f"address {_show(text)}: abstract unix sockets are not supported")
    host, port = _split(address)
    if not host:
        raise ListenError(
            f"address {_show(text)}: give the host too (0.0.0.0:PORT for every interface, "
            "127.0.0.1:PORT for this machine only)"
        )
    if not (port.isascii() and port.isdigit() and int(port) <= 65535):
        raise ListenError(f"address {_show(text)}: the port must be a number from 0 to 65535")
    if host != "localhost":
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            raise ListenError(
                f"address {_show(text)}: the host must be an IP address or localhost"
            ) from None
        host = f"[{ip}]" if ip.version == 6 else str(ip)
    return f"{host}:{int(port)}"


def _ip_is_loopback(text: str) -> bool:
    try:
        ip = ipaddress.ip_address(text.partition("%")[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def _localhost_is_loopback() -> bool:
    """True when ``localhost`` resolves, and only to loopback addresses (an /etc/hosts that
    maps it elsewhere must not turn a plain listener into a LAN one)."""
    try:
        infos = socket.getaddrinfo("localhost", None, proto=socket.IPPROTO_TCP)
    except OSError:
        return False
    return bool(infos) and all(_ip_is_loopback(str(info[4][0])) for info in infos)


def is_loopback(address: str) -> bool:
    """Whether ``address`` (``HOST:PORT``, ``[::1]:PORT``, ``unix:PATH``) reaches only this
    machine: 127.0.0.0/8, ::1, a unix socket, or ``localhost`` resolving only to those.

    Anything unparsable is not loopback (so a plain listener on it is refused).
    """
    address = address.strip()
    if address.startswith("unix:"):
        return True
    try:
        host, _ = _split(address)
    except ListenError:
        return False
    if host == "localhost":
        return _localhost_is_loopback()
    return _ip_is_loopback(host)


# ---------------------------------------------------------------------------
# TLS


def _no_password() -> bytes:
    raise ValueError("the key is encrypted (gRPC needs an unencrypted PEM key)")


def _read_pem(path: Path, what: str, marker: bytes) -> bytes:
    """The bytes of a PEM file that contains ``marker``, or ListenError naming it."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_PEM_BYTES + 1)
    except OSError as error:
        raise ListenError(f"TLS {what} {_show(path)}: {_show(error.strerror or error)}") from None
    if len(data) > MAX_PEM_BYTES:
        raise ListenError(f"TLS {what} {_show(path)}: larger than {MAX_PEM_BYTES} bytes")
    if marker not in data:
        raise ListenError(
            f"TLS {what} {_show(path)}: not a PEM {what} (no '{marker.decode()}' line)"
        )
    return data


def _fingerprint(*paths: Path) -> tuple[tuple[int, int, int, int], ...] | None:
    """What changes when a file is rewritten or replaced: device, inode, mtime, size."""
    try:
        stats = [os.stat(path) for path in paths]
    except OSError:
        return None
    return tuple((s.st_dev, s.st_ino, s.st_mtime_ns, s.st_size) for s in stats)


def _load_pair(cert: Path, key: Path) -> tuple[bytes, bytes]:
    """``(key PEM, certificate chain PEM)`` checked by OpenSSL to parse and match."""
    chain = _read_pem(cert, "certificate", b"-----BEGIN CERTIFICATE-----")
    private = _read_pem(key, "key", b"PRIVATE KEY-----")
    if b"ENCRYPTED" in private:
        raise ListenError(f"TLS key {_show(key)}: encrypted (gRPC needs an unencrypted PEM key)")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert, key, password=_no_password)
    except (ssl.SSLError, ValueError, OSError) as error:
        reason = getattr(error, "reason", None) or str(error) or type(error).__name__
        raise ListenError(
            f"TLS certificate {_show(cert)} and key {_show(key)} cannot be used together: "
            f"{_show(reason)}"
        ) from None
    return private, chain


class ServerTls:
    """TLS server credentials read from two PEM files, re-read when they change.

    gRPC calls the fetcher at each new connection's handshake; it only stats the two
    files and, when their inode, mtime or size changed, reads and checks them and hands
    gRPC the new certificate. A bad file at that point (half-written, wrong key) keeps the
    old certificate serving: ``last_error`` says why and ``on_reload_error`` is called
    once per change with that one line; a good one calls ``on_reload``. Both callbacks
    run on a gRPC thread: keep them quick (a log call), they must not raise.
    """

    def __init__(
        self,
        cert: Path,
        key: Path,
        *,
        on_reload: Callable[[str], None] | None = None,
        on_reload_error: Callable[[str], None] | None = None,
    ) -> None:
        self.cert, self.key = Path(cert), Path(key)
        self.on_reload, self.on_reload_error = on_reload, on_reload_error
        self.last_error: str | None = None
        self.reloads = 0
        self._lock = threading.Lock()
        before = _fingerprint(self.cert, self.key)
        private, chain = _load_pair(self.cert, self.key)
        self._seen = before if before == _fingerprint(self.cert, self.key) else None
        self.credentials: grpc.ServerCredentials = grpc.dynamic_ssl_server_credentials(
            grpc.ssl_server_certificate_configuration([(private, chain)]), self._fetch
        )

    def _fetch(self) -> grpc.ServerCertificateConfiguration | None:
        """gRPC's certificate fetcher: a new configuration when the files changed and
        are good, else None (keep the current one). Never raises."""
        try:
            with self._lock:
                return self._fetch_locked()
        except Exception as error:  # a fetcher that raises would fail the handshake
            self._report(f"TLS reload failed unexpectedly: {_show(error)}", error=True)
            return None

    def _fetch_locked(self) -> grpc.ServerCertificateConfiguration | None:
        now = _fingerprint(self.cert, self.key)
        if now is None:
            if self._seen is not None:
                self._seen = None
                self._report(
                    f"TLS certificate {_show(self.cert)} or key {_show(self.key)} is gone: "
                    "kept the current certificate",
                    error=True,
                )
            return None
        if now == self._seen:
            return None
        try:
            private, chain = _load_pair(self.cert, self.key)
        except ListenError as error:
            self._seen = now  # report once per change, retry when the files change again
            self._report(f"{error}; kept the current certificate", error=True)
            return None
        if _fingerprint(self.cert, self.key) != now:
            return None  # changed while being read: take it at a later handshake
        self._seen = now
        self.reloads += 1
        self.last_error = None
        self._report(f"TLS certificate reloaded from {_show(self.cert)}", error=False)
        return grpc.ssl_server_certificate_configuration([(private, chain)])

    def _report(self, line: str, *, error: bool) -> None:
        if error:
            self.last_error = line
        callback = self.on_reload_error if error else self.on_reload
        if callback is not None:
            with contextlib.suppress(Exception):
                callback(line)


def tls_credentials(
    cert: Path,
    key: Path,
    *,
    on_reload: Callable[[str], None] | None = None,
    on_reload_error: Callable[[str], None] | None = None,
) -> grpc.ServerCredentials:
    """Server credentials from ``cert`` (PEM chain) and ``key`` (PEM, unencrypted) that
    follow the files as they are renewed; ListenError naming the file if they are missing,
    unreadable, not PEM or do not match. Keep a :class:`ServerTls` instead to read its
    ``last_error``."""
    return ServerTls(cert, key, on_reload=on_reload, on_reload_error=on_reload_error).credentials


# ---------------------------------------------------------------------------
# Listeners


def _check_unix_path(address: str) -> None:
    """gRPC unlinks whatever socket is at the path: refuse one that a live server answers
    on (it would be stolen silently) and anything that is not a socket."""
    path = address[len("unix:") :]
    if path.startswith("//"):
        path = path[2:]
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as error:
        raise ListenError(f"cannot listen on {_show(address)}: {_show(error.strerror)}") from None
    if not stat.S_ISSOCK(mode):
        raise ListenError(f"cannot listen on {_show(address)}: the path exists and is not a socket")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(1.0)
        probe.connect(path)
    except OSError:
        return  # a stale socket left by a dead server: gRPC replaces it
    finally:
        probe.close()
    raise ListenError(f"cannot listen on {_show(address)}: another server is listening there")


def add_listener(
    server: grpc.aio.Server, address: str, *, tls: grpc.ServerCredentials | None
) -> str:
    """Bind ``server`` to ``address`` (TLS when ``tls`` is given) and return the address
    bound, with the real port when 0 was asked. Call it before ``server.start()``.

    Plain text on an address that is not loopback is refused before anything is bound.
    A port that cannot be bound (in use: give the server ``grpc.so_reuseport=0``, as
    :func:`server_options` does, or gRPC would share it) is a ListenError.
    """
    address = parse_listen(address)
    if tls is None and not is_loopback(address):
        raise ListenError(f"address {_show(address)} is not loopback: {PLAIN_REFUSED}")
    unix = address.startswith("unix:")
    if unix:
        _check_unix_path(address)
    try:
        if tls is not None:
            port = server.add_secure_port(address, tls)
        else:
            port = server.add_insecure_port(address)
    except RuntimeError:
        port = 0
    if port == 0:
        problem = (
            "the folder is missing or not writable"
            if unix
            else "the port is in use or the address is not one of this machine's"
        )
        raise ListenError(f"cannot listen on {_show(address)}: {problem}")
    if unix:
        return address
    host, _ = address.rsplit(":", 1)
    return f"{host}:{port}"


def server_options(
    *,
    max_receive_bytes: int = 16384,
    keepalive_time: float = 5.0,
    keepalive_timeout: float = 5.0,
    min_client_ping_interval: float = 20.0,
    max_ping_strikes: int = 2,
    max_streams_per_connection: int = 16,
    handshake_timeout: float = 5.0,
) -> list[tuple[str, int]]:
    """The ``grpc.aio.server(options=...)`` of the dial-in server (times in seconds).

    Keepalive (a frozen bot found within ``keepalive_time + keepalive_timeout``):
    - ``grpc.keepalive_time_ms``: the server pings each connection this often;
    - ``grpc.keepalive_timeout_ms`` and ``grpc.http2.ping_timeout_ms``: the connection is
      closed when a ping is not answered this soon (grpcio 1.85 times a keepalive ping
      with the second, 60 s by default: without it a stopped peer lasts a minute);
    - ``grpc.keepalive_permit_without_calls=1``: ping idle connections too;
    - ``grpc.http2.max_pings_without_data=0``: keep pinging when no data flows (a Play
      stream is silent until the bot is seated);
    - ``grpc.http2.min_ping_interval_without_data_ms``: a bot's own pings closer than
      ``min_client_ping_interval`` are ping strikes (its client keepalive must be >= 20 s);
    - ``grpc.http2.max_ping_strikes``: after that many the connection ends with GOAWAY
      "too_many_pings".
    Limits:
    - ``grpc.max_receive_message_length``: a larger message from a bot ends its stream with
      RESOURCE_EXHAUSTED (the handler sees only EOF and is cancelled);
    - ``grpc.max_send_message_length`` 1 MB: the dealer's messages are far smaller;
    - ``grpc.max_concurrent_streams``: streams one connection may hold open at once;
    - ``grpc.so_reuseport=0``: a second server on the port fails instead of sharing it.
    The total number of RPCs is ``grpc.aio.server(maximum_concurrent_rpcs=...)``, not an
    option; the per-bot message rate is the handler's.
    """

    def ms(seconds: float) -> int:
        return max(1, round(seconds * 1000))

    return [
        ("grpc.keepalive_time_ms", ms(keepalive_time)),
        ("grpc.keepalive_timeout_ms", ms(keepalive_timeout)),
        ("grpc.http2.ping_timeout_ms", ms(keepalive_timeout)),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.max_pings_without_data", 0),
        ("grpc.http2.min_ping_interval_without_data_ms", ms(min_client_ping_interval)),
        ("grpc.http2.max_ping_strikes", max_ping_strikes),
        ("grpc.max_receive_message_length", max_receive_bytes),
        ("grpc.max_send_message_length", 1 << 20),
        ("grpc.max_concurrent_streams", max_streams_per_connection),
        ("grpc.so_reuseport", 0),
        # a connection that never finishes its (TLS) handshake is closed after this, not
        # gRPC's 120 s: otherwise a stranger's half-open connections use up the descriptors
        ("grpc.server_handshake_timeout_ms", ms(handshake_timeout)),
    ]

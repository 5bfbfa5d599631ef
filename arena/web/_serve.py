"""Serving the live app with hypercorn's Trio worker, inside the caller's nursery.

:func:`watching` starts the server in the match's (or tournament's) own Trio run, so it
shares the dealer's loop but never its pace: the hub publishes without waiting, and the
server's tasks only read the hub. Leaving the block ends every stream and stops the
server. It binds 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial

import trio
from hypercorn.config import Config
from hypercorn.trio import serve

from arena.web._hub import LiveHub
from arena.web._live import LiveApp

DEFAULT_HOST = "127.0.0.1"


class AddressError(ValueError):
    """A ``--watch`` address that is not ``HOST``, ``HOST:PORT``, ``:PORT`` or ``[IPv6]:PORT``."""


def parse_address(text: str) -> tuple[str, int]:
    """``(host, port)`` from a watch address; port 0 (a free one) when none is given.

    The host must be an IP address or ``localhost``: a name would be resolved, and a
    typo must not bind something unexpected.
    """
    text = text.strip()
    host, port_text = text, ""
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            raise AddressError(f"{text!r}: an IPv6 address is written [ADDRESS]:PORT")
        port_text = rest[1:]
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    host = host or DEFAULT_HOST
    if host != "localhost":
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise AddressError(f"{text!r}: the host must be an IP address or localhost") from None
    if port_text and not (port_text.isdigit() and int(port_text) <= 65535):
        raise AddressError(f"{text!r}: the port must be a number from 0 to 65535")
    return host, int(port_text or 0)


def is_loopback(host: str) -> bool:
    return host == "localhost" or ipaddress.ip_address(host).is_loopback


@dataclass(frozen=True)
class LiveServer:
    """Where the live page is served, and the director's URL (holding its token)."""

    url: str
    director_url: str
    hub: LiveHub


def _config(host: str, port: int) -> Config:
    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.accesslog = None
    quiet = logging.getLogger("arena.web.hypercorn")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    config.errorlog = quiet  # hypercorn's banner and errors never reach the match's terminal
    config.graceful_timeout = (
        3.0  # time for a viewer to get the last hands (a loaded machine needs it)
    )
    return config


@contextlib.asynccontextmanager
async def watching(
    hub: LiveHub, address: str = DEFAULT_HOST, *, title: str = "arena"
) -> AsyncIterator[LiveServer]:
    """Serve ``hub`` at ``address`` for the duration of the block."""
    host, port = parse_address(address)
    token = secrets.token_urlsafe(24)
    app = LiveApp(hub, token=token, title=title)
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(
            partial(serve, app, _config(host, port), shutdown_trigger=stop.wait)  # type: ignore[arg-type]  # hypercorn types ASGI with its TypedDicts; the app takes plain dicts
        )
        url = binds[0].rstrip("/") + "/"
        releasing = trio.CancelScope()  # the spectator delay's clock, stopped with the page
        nursery.start_soon(_release, hub, releasing)
        try:
            yield LiveServer(url=url, director_url=f"{url}director?token={token}", hub=hub)
        finally:
            hub.close()
            stop.set()
            releasing.cancel()


async def _release(hub: LiveHub, scope: trio.CancelScope) -> None:
    """Publish the spectators' delayed events as they come due, until ``scope`` ends."""
    if hub.delay <= 0:
        return
    with scope:
        await hub.run_delay()

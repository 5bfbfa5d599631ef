"""The live spectator app (ASGI): the page, its Server-Sent Events, the director's view.

``GET /`` the page; ``GET /events`` the public channel of a :class:`~arena.web._hub.LiveHub`
(event ids are sequence numbers; ``Last-Event-ID`` resumes from the backlog). ``GET
/director`` and ``/director/events`` need ``?token=`` (the token in the file named at start;
anything else is 403) and carry every card, each hand's only once it has ended.
The page is one template with everything inline under a nonce-based CSP; bot names reach
it only as JSON data put on the page with ``textContent``.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

import jinja2
import trio

from arena.web._hub import Channel, LiveHub, TooManyViewers

KEEPALIVE_SECONDS = 15.0
"""A comment line this often, so a vanished viewer's stream fails and is reaped."""
RETRY_MS = 2000
"""How soon a browser reconnects after its stream ends (it then sends Last-Event-ID)."""

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

_templates = jinja2.Environment(
    loader=jinja2.PackageLoader("arena.web", "templates"),
    autoescape=True,  # everything, whatever the file name
    undefined=jinja2.StrictUndefined,
)


def _csp(nonce: str) -> str:
    return (
        "default-src 'none'; "
        f"script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
        "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )


_COMMON_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
]


class LiveApp:
    """The ASGI application serving one hub; ``token`` guards the director's view."""

    def __init__(self, hub: LiveHub, *, token: str | None = None, title: str = "arena") -> None:
        self.hub = hub
        self.token = token or secrets.token_urlsafe(24)
        self.title = title

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1003})
            return
        path = scope.get("path", "/")
        method = scope.get("method", "GET")
        routes = {"/": False, "/events": False, "/director": True, "/director/events": True}
        if path not in routes:
            await _plain(send, 404, "not found")
            return
        if method not in ("GET", "HEAD"):
            await _plain(send, 405, "method not allowed", [(b"allow", b"GET, HEAD")])
            return
        director = routes[path]
        if director and not self._authorised(scope):
            await _plain(
                send,
                403,
                "the director's view needs ?token= (its URL is in the file named at start)",
            )
            return
        if path.endswith("/events"):
            channel = self.hub.director if director else self.hub.public
            await self._stream(channel, scope, receive, send)
        else:
            await self._page(send, director=director, head=method == "HEAD")

    def _authorised(self, scope: Scope) -> bool:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = query.get("token", [""])
        return len(given) == 1 and hmac.compare_digest(given[0].encode(), self.token.encode())

    async def _page(self, send: Send, *, director: bool, head: bool) -> None:
        nonce = secrets.token_urlsafe(16)
        events = f"/director/events?token={self.token}" if director else "/events"
        body = (
            _templates.get_template("live.html.j2")
            .render(
                title=self.title,
                events_url=events,
                director=director,
                nonce=nonce,
                delay=f"{self.hub.delay:g}" if self.hub.delay else "",
            )
            .encode()
        )
        headers = [
            (b"content-type", b"text/html; charset=utf-8"),
            (b"content-security-policy", _csp(nonce).encode()),
            (b"content-length", str(len(body)).encode()),
            *_COMMON_HEADERS,
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if head else body})

    async def _stream(self, channel: Channel, scope: Scope, receive: Receive, send: Send) -> None:
        """Send the catch-up events, then every new one, until the viewer goes or is dropped."""
        last = _header(scope, b"last-event-id")
        client = scope.get("client")
        host = client[0] if isinstance(client, list | tuple) and client else None
        try:
            viewer, catch_up = channel.attach(last, client=host if isinstance(host, str) else None)
        except TooManyViewers:
            await _plain(send, 503, "too many viewers", [(b"retry-after", b"30")])
            return
        try:
            with viewer.scope:
                headers = [
                    (b"content-type", b"text/event-stream; charset=utf-8"),
                    (b"x-accel-buffering", b"no"),
                    *_COMMON_HEADERS,
                ]
                await send({"type": "http.response.start", "status": 200, "headers": headers})
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(_until_disconnect, receive, nursery.cancel_scope)
                    await _body(send, f"retry: {RETRY_MS}\n\n".encode())
                    for event in catch_up:
                        await _body(send, event.encode())
                    await _pump(viewer.receive, send)
                    nursery.cancel_scope.cancel()
        finally:
            channel.detach(viewer)


async def _pump(events: trio.MemoryReceiveChannel, send: Send) -> None:
    while True:
        with trio.move_on_after(KEEPALIVE_SECONDS):
            try:
                event = await events.receive()
            except (trio.EndOfChannel, trio.ClosedResourceError):
                return
            await _body(send, event.encode())
            continue
        await _body(send, b": keepalive\n\n")


async def _body(send: Send, data: bytes) -> None:
    await send({"type": "http.response.body", "body": data, "more_body": True})


async def _until_disconnect(receive: Receive, scope: trio.CancelScope) -> None:
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            scope.cancel()
            return


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


async def _plain(
    send: Send, status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = (text + "\n").encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        *_COMMON_HEADERS,
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return

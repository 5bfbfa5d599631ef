"""A tiny in-process ASGI client over Trio for the live app's tests: no socket at all."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio


@dataclass
class Response:
    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    def events(self) -> list[tuple[int | None, str, Any]]:
        """The Server-Sent Events in the body: (id, event, data as JSON)."""
        return parse_events(self.body)


def parse_events(body: bytes) -> list[tuple[int | None, str, Any]]:
    events = []
    for block in body.decode().split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if line and not line.startswith(":") and ":" in line:
                key, _, value = line.partition(":")
                fields[key] = value[1:] if value.startswith(" ") else value
        if "data" in fields:
            ident = int(fields["id"]) if "id" in fields else None
            events.append((ident, fields.get("event", "message"), json.loads(fields["data"])))
    return events


async def get(
    app: Any,
    path: str,
    *,
    query: str = "",
    headers: tuple[tuple[str, str], ...] = (),
    method: str = "GET",
    until: Callable[[Response], bool] | None = None,
    client: str | None = None,
) -> Response:
    """One request; a stream is read until ``until(response)`` holds, then the client leaves."""
    response = Response()
    leave = trio.Event()
    first = True

    async def receive() -> dict[str, Any]:
        nonlocal first
        if first:
            first = False
            return {"type": "http.request", "body": b"", "more_body": False}
        await leave.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            response.status = message["status"]
            response.headers = {k.decode(): v.decode() for k, v in message["headers"]}
        elif message["type"] == "http.response.body":
            response.body += message.get("body", b"")
        if until is not None and until(response):
            leave.set()

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "query_string": query.encode(),
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers],
    }
    if client is not None:  # the peer's address, as a server puts it in the scope
        scope["client"] = (client, 40000)
    with trio.fail_after(30):  # a hang guard, not a timing assertion
        await app(scope, receive, send)
    return response

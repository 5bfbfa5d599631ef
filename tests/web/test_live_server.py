"""The live page under real hypercorn on 127.0.0.1 (issue 10 item 3), beside a real match.

A viewer that never reads does not delay a single hand: the 300-hand match plays to the
end, the stuck viewer is dropped and its stream closed, while a viewer that reconnects
with Last-Event-ID receives every hand exactly once, in order, each the public view.
"""

from __future__ import annotations

import json
import re
import socket

import pytest
import trio

from arena.dealer import MatchSettings, policy_driver, run_match
from arena.engine import GameConfig
from arena.web import LiveHub, public_hand, watching

pytestmark = pytest.mark.trio

HANDS = 300
EVENT = re.compile(rb"id: (\d+)\nevent: (\w+)\ndata: ([^\n]*)\n\n")


def host_port(url: str) -> tuple[str, int]:
    host, port = url.split("//", 1)[1].rstrip("/").rsplit(":", 1)
    assert host == "127.0.0.1"  # loopback only, unless told
    return host, int(port)


async def open_stream(url: str, last_id: int | None, *, rcvbuf: int | None = None):
    sock = trio.socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    await sock.connect(host_port(url))
    resume = b"" if last_id is None else b"Last-Event-ID: %d\r\n" % last_id
    await sock.send(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n" + resume + b"\r\n")
    return sock


async def follow(url: str, hands: dict[int, dict], reconnects: list[int]) -> None:
    """Read the public stream, reconnecting with Last-Event-ID, until every hand is in."""
    last_id: int | None = None
    while len(hands) < HANDS:
        sock = await open_stream(url, last_id)
        buffer = b""
        with sock:
            while len(hands) < HANDS:
                chunk = await sock.recv(65536)
                if not chunk:
                    break
                buffer += chunk
                end = 0
                for match in EVENT.finditer(buffer):
                    end = match.end()
                    ident, kind, data = int(match[1]), match[2], json.loads(match[3])
                    assert last_id is None or ident > last_id  # never twice, never backwards
                    last_id = ident
                    if kind == b"hand":
                        assert data["hand"]["number"] not in hands
                        hands[data["hand"]["number"]] = data["hand"]
                buffer = buffer[end:]
        reconnects.append(last_id or 0)


async def test_item3_stuck_viewer_does_not_delay_a_300_hand_match():
    hub = LiveHub()
    expected: dict[int, dict] = {}
    received: dict[int, dict] = {}
    reconnects: list[int] = []

    def on_hand(number, hand, seats, names):
        expected[number] = public_hand(hand, seats, names, number=number)
        hub.hand_finished("table-1", number, hand, seats, names)

    settings = MatchSettings(config=GameConfig(), hands=HANDS, seed=7, match_id="table-1")
    drivers = [policy_driver("rb", "rule-based", 1), policy_driver("cs", "calling-station", 2)]
    with trio.fail_after(120):  # a hang guard, not a timing assertion
        async with watching(hub) as server, trio.open_nursery() as nursery:
            stuck = await open_stream(server.url, None, rcvbuf=2048)  # never reads
            while not hub.public.viewers:
                await trio.sleep(0.01)
            nursery.start_soon(follow, server.url, received, reconnects)
            while len(hub.public.viewers) < 2:  # the follower too, before hand 1 is public
                await trio.sleep(0.01)
            hub.match_started("table-1", ["rb", "cs"])
            result = await run_match(drivers, settings, on_hand=on_hand)
            filler = 0
            while hub.public.dropped == 0:  # more events until the stuck viewer's queue is full
                filler += 1
                hub.match_started(f"filler-{filler}", ["x" * 4000, "y"])
                await trio.sleep(0)
            assert result.hands_played == HANDS
            while len(received) < HANDS:
                await trio.sleep(0.01)
            closed = b""
            with stuck:  # its stream was closed: reading it ends
                while chunk := await stuck.recv(1 << 20):
                    closed += chunk
    assert hub.public.dropped >= 1
    assert received == {number: json.loads(json.dumps(v)) for number, v in expected.items()}
    assert all(not hand["reveal"] for hand in received.values())
    assert closed.startswith(b"HTTP/1.1 200")

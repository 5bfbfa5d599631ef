"""The start of every Play stream: connect, MatchStart out, one Hello back in time.

Connecting (which may restart a launched bot) has the driver's own time limits;
``hello_timeout`` bounds only the wait from MatchStart to the Hello, so a bot that
connects and never speaks costs its table that long, not the start-up timeout.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import trio

from arena import protocol
from arena.dealer._deal import seat_seed
from arena.dealer._seat import BotDriver, MalformedStreamError, SeatBrokenError, SeatConnection
from arena.dealer._settings import MatchSettings
from arena.protocol import PROTOCOL_VERSION, pb


@dataclass(frozen=True)
class Handshake:
    """A stream that said a good Hello (``connection`` and ``hello`` set), or why not.

    ``reason`` is the FaultReason: DISCONNECTED when the bot could not be reached or
    its stream broke (not counted against it), else a fault the bot committed.
    """

    connection: SeatConnection | None = None
    hello: pb.Hello | None = None
    reason: int = pb.FAULT_REASON_UNSPECIFIED
    detail: str = ""


def match_start_for(
    settings: MatchSettings, seat: int, names: Sequence[str], deck_seed: int
) -> pb.DealerMessage:
    """The MatchStart ``seat`` is sent: the match as ``settings`` describe it to a bot
    (``settings`` with its deal key: the seat's seed is keyed)."""
    if settings.deal_key is None:
        raise ValueError("match_start_for needs settings with a deal key (with_seed)")
    return protocol.match_start(
        match_id=settings.match_id,
        table_id=settings.table_id,
        seat=seat,
        names=list(names),
        config=settings.config,
        action_timeout=settings.action_timeout,
        time_bank=settings.time_bank,
        hands=settings.hands,
        starting_stack=settings.starting_stack,
        seat_seed=seat_seed(deck_seed, settings.deal_key, settings.table_id, seat),
    )


def hello_record(hello: pb.Hello) -> dict[str, object]:
    """What the result keeps of a Hello: the bot's own name and version, cut to 64 characters.

    The name the user gave the seat stands in the records; this is only what the bot said.
    """
    return {
        "name": hello.name[:64],
        "version": hello.version[:64],
        "protocol_version": hello.protocol_version,
    }


def check_hello(reply: pb.BotMessage) -> tuple[pb.FaultReason, str]:
    """``(FAULT_REASON_UNSPECIFIED, "")`` for a Hello this dealer accepts, else the fault.

    ``protocol_version`` must be this file's major version; 0 (not set) is taken as it.
    """
    kind = reply.WhichOneof("kind")
    if kind != "hello":
        return pb.FAULT_REASON_MALFORMED, f"first message was {kind!r}, not hello"
    version = reply.hello.protocol_version
    if version not in (0, PROTOCOL_VERSION):
        return pb.FAULT_REASON_MALFORMED, (
            f"Hello says protocol_version {version}; "
            f"this dealer speaks {PROTOCOL_VERSION} (arena.v{PROTOCOL_VERSION})"
        )
    return pb.FAULT_REASON_UNSPECIFIED, ""


async def open_stream(
    driver: BotDriver, start: pb.DealerMessage, hello_timeout: float
) -> Handshake:
    """Connect to ``driver``, send ``start`` (its MatchStart, from
    :func:`arena.protocol.match_start`) and wait up to ``hello_timeout`` for its Hello."""
    try:
        connection = await driver.connect()
    except SeatBrokenError as error:
        return Handshake(reason=pb.FAULT_REASON_DISCONNECTED, detail=f"could not start: {error}")
    reason, detail = pb.FAULT_REASON_TIMEOUT, f"no Hello within {hello_timeout:g} s"
    with trio.move_on_after(hello_timeout):
        try:
            await connection.send(start)
            reply = await connection.receive()
        except MalformedStreamError as error:
            reason, detail = pb.FAULT_REASON_MALFORMED, f"instead of a Hello: {error}"
        except SeatBrokenError as error:
            reason, detail = pb.FAULT_REASON_DISCONNECTED, f"no Hello: {error}"
        else:
            reason, detail = check_hello(reply)
            if reason == pb.FAULT_REASON_UNSPECIFIED:
                return Handshake(connection, reply.hello)
    await connection.aclose()
    return Handshake(reason=reason, detail=detail)

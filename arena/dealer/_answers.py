"""Reading a bot's answer to one decision off its stream.

Bots are untrusted and their streams are ordered, so an answer that arrives after its
decision timed out, or an answer sent twice, is still on the stream when the next
decision waits. This module tells those stale answers from the one awaited: a stale
answer (or an extra Hello) is dropped and counted, never taken for the pending
decision; more than :data:`MAX_STALE` of them while one decision waits is a flood
(:class:`StaleFlood`), and the match runner cuts the stream. Decision ids are
``HAND.N`` with N counting the match's decisions, so "earlier" is a number compare.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from arena.dealer._seat import SeatConnection
from arena.protocol import MessageFault, pb, short_name

MAX_STALE = 16
"""Answers to earlier decisions a bot may send while one decision waits before its stream is cut."""

_DECISION_ID = re.compile(r"([1-9][0-9]{0,9})\.([1-9][0-9]{0,15})", re.ASCII)


class StaleFlood(Exception):
    """A bot sent more than MAX_STALE answers to earlier decisions during one decision."""


def is_stale(decision_id: str, asked: int) -> bool:
    """Whether ``decision_id`` names a decision of this match before decision ``asked``.

    An id that is not the dealer's shape is not stale: it is a wrong id, a fault.
    """
    match = _DECISION_ID.fullmatch(decision_id)
    return match is not None and 0 < int(match[2]) < asked


async def receive_action(
    connection: SeatConnection,
    *,
    asked: int,
    decision_id: str,
    on_dropped: Callable[[], None],
) -> pb.Action:
    """The next Action on the stream that does not answer a decision before ``asked``.

    Answers to earlier decisions (late, or sent twice) and extra Hellos are dropped,
    each reported through ``on_dropped`` so the result can count them; more than
    :data:`MAX_STALE` of them while ``decision_id`` waits raise :class:`StaleFlood`.
    A message that is neither raises a MALFORMED :class:`MessageFault`.
    """
    dropped = 0
    while True:
        message = await connection.receive()
        kind = message.WhichOneof("kind")
        if kind == "action" and not is_stale(message.action.decision_id, asked):
            return message.action
        if kind not in ("action", "hello"):
            raise MessageFault(
                pb.FAULT_REASON_MALFORMED, "an empty message where an Action was due"
            )
        dropped += 1
        on_dropped()
        if dropped > MAX_STALE:
            raise StaleFlood(
                f"more than {MAX_STALE} answers to earlier decisions (or Hellos) while "
                f"{decision_id} waited: the stream is cut"
            )


def describe_action(action: pb.Action) -> str:
    """The action the dealer played instead, as a fault record says it (``raise 4``)."""
    kind = short_name(pb.ActionKind, action.kind).lower()
    if action.kind == pb.ACTION_KIND_BET_RAISE:
        return f"{kind} {action.amount}"
    if action.kind == pb.ACTION_KIND_DISCARD:
        return f"{kind} {len(action.cards)}" if action.cards else "stand pat"
    return kind

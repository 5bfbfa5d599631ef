"""Reading a bot's answer to one decision off its stream.

Bots are untrusted and their streams are ordered, so an answer that arrives after its
decision timed out, or an answer sent twice, is still on the stream when the next
decision waits. This module tells those stale answers from the one awaited: a stale
answer (or an extra Hello) is dropped and counted, never taken for the pending
decision; more than :data:`MAX_STALE` of them while one decision waits is a flood
(:class:`StaleFlood`), and the match runner cuts the stream.

"Earlier" means issued to this seat: each seat keeps the ids it was asked
(:class:`IssuedIds`). An id it was never asked (a hand that never happened, the
opponent's decision, a later or a garbage id) is not stale: it is taken as the answer,
and the runner records WRONG_DECISION_ID.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Container

from arena.dealer._seat import SeatConnection
from arena.protocol import MessageFault, pb, short_name

MAX_STALE = 16
"""Answers to earlier decisions a bot may send while one decision waits before its stream is cut."""

MAX_REMEMBERED = 1024
"""Decision ids a seat remembers having been asked; an answer to an older one is a wrong id."""


class StaleFlood(Exception):
    """A bot sent more than MAX_STALE answers to earlier decisions during one decision."""


class IssuedIds(Container[str]):
    """The decision ids one seat was asked, the last ``limit`` of them.

    Bounded so a long match costs a fixed amount per seat; a bot answering a decision
    more than ``limit`` of its own decisions late is taken to send a wrong id.
    """

    def __init__(self, limit: int = MAX_REMEMBERED) -> None:
        self._order: collections.deque[str] = collections.deque()
        self._ids: set[str] = set()
        self._limit = limit

    def add(self, decision_id: str) -> None:
        """Remember that this seat was asked ``decision_id`` (forgetting the oldest past the limit)."""
        if decision_id in self._ids:
            return
        self._order.append(decision_id)
        self._ids.add(decision_id)
        if len(self._order) > self._limit:
            self._ids.discard(self._order.popleft())

    def __contains__(self, decision_id: object) -> bool:
        return decision_id in self._ids

    def __len__(self) -> int:
        return len(self._ids)


async def receive_action(
    connection: SeatConnection,
    *,
    decision_id: str,
    issued: Container[str],
    on_dropped: Callable[[], None],
) -> pb.Action:
    """The next Action on the stream that is not a stale answer while ``decision_id`` waits.

    Stale means an id in ``issued`` (the ids this seat was asked) other than
    ``decision_id``. Those answers (late, or sent twice) and extra Hellos are dropped,
    each reported through ``on_dropped`` so the result can count them; more than
    :data:`MAX_STALE` of them while ``decision_id`` waits raise :class:`StaleFlood`.
    A message that is neither raises a MALFORMED :class:`MessageFault`.
    """
    dropped = 0
    while True:
        message = await connection.receive()
        kind = message.WhichOneof("kind")
        if kind == "action":
            answered = message.action.decision_id
            if answered == decision_id or answered not in issued:
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

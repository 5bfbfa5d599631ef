"""Batched wake-ups between Trio and the gRPC loop, for the Play streams (issue 12 item 6).

Every cross-thread wake-up is a syscall on one side and a scheduler round on the other,
and with many tables at once most of them are for work that is already due anyway. So:

* Trio to the loop: :func:`kick` queues a callback, and only the first one queued since
  the loop last drained the queue wakes the loop (``call_soon_threadsafe``); the loop
  then runs every queued callback in one go. A Trio tick that writes to sixteen streams
  wakes the loop once, not sixteen times.
* The loop to Trio: a :class:`Deliveries` per Trio run collects the items the loop's
  readers push during one loop iteration and hands them over in one
  ``TrioToken.run_sync_soon`` at the end of it.

Order is kept: callbacks run in the order they were queued, items arrive in the order
they were pushed (so each stream's messages, and its end marker, stay in order).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import threading
import weakref
from collections.abc import Callable
from typing import Any

import trio

from arena.dealer import _bridge

_queue: collections.deque[Callable[[], None]] = collections.deque()
_scheduled = False  # a _drain is scheduled on the loop and has not started yet


def kick(callback: Callable[[], None]) -> None:
    """Run ``callback()`` on the loop soon (from any thread); wakes the loop at most once per batch."""
    global _scheduled
    _queue.append(callback)
    if not _scheduled:
        _scheduled = True
        _bridge.call_soon(_drain)


def _drain() -> None:
    global _scheduled
    # clear the flag first: a kick that still sees it set was queued before this drain
    _scheduled = False
    queue = _queue
    while queue:
        callback = queue.popleft()
        with contextlib.suppress(Exception):  # one stream's callback must not stop the others'
            callback()


def _deliver(batch: list[tuple[trio.MemorySendChannel[Any], object]]) -> None:
    """Trio side: put each item into its channel (dropped if the channel is gone)."""
    for channel, item in batch:
        with contextlib.suppress(
            trio.WouldBlock, trio.BrokenResourceError, trio.ClosedResourceError
        ):
            channel.send_nowait(item)


class Deliveries:
    """Loop side: items for one Trio run's memory channels, one wake-up per loop iteration.

    :meth:`push` returns False once the Trio run is over (nobody is listening). Give the
    channels an unbounded buffer and bound them on the producer's side.
    """

    def __init__(self, token: trio.lowlevel.TrioToken) -> None:
        self._token = token
        self._batch: list[tuple[trio.MemorySendChannel[Any], object]] = []
        self._alive = True

    def push(self, channel: trio.MemorySendChannel[Any], item: object) -> bool:
        """Loop side: queue ``item`` for ``channel``; False once the Trio run is over."""
        if not self._alive:
            return False
        if not self._batch:
            try:
                asyncio.get_running_loop().call_soon(self._flush)
            except RuntimeError:  # no loop running: hand it over at once
                self._batch.append((channel, item))
                self._flush()
                return self._alive
        self._batch.append((channel, item))
        return True

    def _flush(self) -> None:
        batch, self._batch = self._batch, []
        if not batch:
            return
        try:
            self._token.run_sync_soon(_deliver, batch)
        except trio.RunFinishedError:
            self._alive = False


_lock = threading.Lock()
_by_token: weakref.WeakValueDictionary[trio.lowlevel.TrioToken, Deliveries] = (
    weakref.WeakValueDictionary()
)


def deliveries_for(token: trio.lowlevel.TrioToken) -> Deliveries:
    """The :class:`Deliveries` of the Trio run behind ``token`` (kept while anyone holds it)."""
    with _lock:
        found = _by_token.get(token)
        if found is None:
            found = _by_token[token] = Deliveries(token)
        return found

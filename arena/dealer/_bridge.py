"""One asyncio event loop in a daemon thread, shared by every gRPC driver, and the
few ways Trio code talks to it.

``grpc.aio`` needs asyncio; the dealer is Trio. Every gRPC object (channels, calls)
lives on ONE process-wide loop started lazily by :func:`get_loop` in a daemon thread
("arena-grpc"), and is touched only from that thread. Trio code reaches it three ways:

* :func:`run_on_loop` runs a coroutine function there and awaits its result without
  blocking Trio; cancelling the Trio side cancels the asyncio task.
* :func:`call_soon` schedules a plain callback there (fire and forget).
* :func:`trio_pusher` gives loop-side code a callable that drops items into a Trio
  memory channel (through ``TrioToken.run_sync_soon``), for streams of results.

At interpreter exit the loop runs the registered shutdown hooks (drivers close their
channels), cancels what is left and stops.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import trio

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None
_shutdown_hooks: list[Callable[[], Awaitable[None]]] = []
_SHUTDOWN_TIMEOUT = 2.0


def get_loop() -> asyncio.AbstractEventLoop:
    """The shared asyncio loop, started on first use; never blocks once it runs."""
    global _loop, _thread
    loop = _loop
    if loop is not None:
        return loop
    with _lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            ready = threading.Event()
            thread = threading.Thread(
                target=_run_loop, args=(loop, ready), name="arena-grpc", daemon=True
            )
            thread.start()
            ready.wait()
            _loop, _thread = loop, thread
            atexit.register(shutdown)
        return _loop


def _run_loop(loop: asyncio.AbstractEventLoop, ready: threading.Event) -> None:
    asyncio.set_event_loop(loop)
    loop.call_soon(ready.set)
    try:
        loop.run_forever()
        loop.run_until_complete(_cleanup())
    finally:
        loop.close()


async def _cleanup() -> None:
    for hook in list(_shutdown_hooks):
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(hook(), _SHUTDOWN_TIMEOUT)
    me = asyncio.current_task()
    tasks = [task for task in asyncio.all_tasks() if task is not me]
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=_SHUTDOWN_TIMEOUT)
    await asyncio.get_running_loop().shutdown_asyncgens()


def add_shutdown_hook(hook: Callable[[], Awaitable[None]]) -> None:
    """Run ``hook()`` on the loop at shutdown, before the remaining tasks are cancelled."""
    _shutdown_hooks.append(hook)


def shutdown() -> None:
    """Stop the loop and wait (briefly) for its thread; called at interpreter exit."""
    global _loop, _thread
    with _lock:
        loop, thread = _loop, _thread
        _loop = _thread = None
    if loop is None or thread is None:
        return
    try:
        loop.call_soon_threadsafe(loop.stop)
    except RuntimeError:  # already closed
        return
    thread.join(timeout=3 * _SHUTDOWN_TIMEOUT)


def call_soon(fn: Callable[..., Any], *args: Any) -> None:
    """Schedule ``fn(*args)`` on the loop from any thread; never blocks, never raises."""
    with contextlib.suppress(RuntimeError):  # the loop is closed: the process is exiting
        get_loop().call_soon_threadsafe(fn, *args)


async def run_on_loop(async_fn: Callable[..., Coroutine[Any, Any, T]], *args: Any) -> T:
    """Run ``async_fn(*args)`` on the shared loop; await its result from Trio.

    Exceptions propagate. If the Trio caller is cancelled, the asyncio task is
    cancelled too (without waiting for it to finish: loop-side code must clean up in
    its own ``finally``, and code that must run even if the task never starts belongs
    in a :func:`call_soon` callback).
    """
    loop = get_loop()
    token = trio.lowlevel.current_trio_token()
    future = asyncio.run_coroutine_threadsafe(async_fn(*args), loop)
    done = trio.Event()

    def wake(_: object) -> None:
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(done.set)

    future.add_done_callback(wake)
    try:
        await done.wait()
    except BaseException:
        future.cancel()
        raise
    return future.result()


def trio_pusher(
    token: trio.lowlevel.TrioToken, channel: trio.MemorySendChannel[T]
) -> Callable[[T], bool]:
    """A callable for loop-side code that puts items into ``channel`` in Trio's thread.

    It returns False once the Trio run is over (the consumer is gone). Items that do
    not fit, or arrive after the channel closed, are dropped: give the channel an
    unbounded buffer and bound it on the producer's side.
    """

    def deliver(item: T) -> None:
        with contextlib.suppress(
            trio.WouldBlock, trio.BrokenResourceError, trio.ClosedResourceError
        ):
            channel.send_nowait(item)

    def push(item: T) -> bool:
        try:
            token.run_sync_soon(deliver, item)
        except trio.RunFinishedError:
            return False
        return True

    return push

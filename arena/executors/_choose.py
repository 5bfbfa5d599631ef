"""The executor a tournament file asks for (issue 12 item 3): ``tournament.executor``.

``executor = "local"`` plays in this process (``workers = 1``, the in-process executor:
``None`` here) or in a pool of worker processes (``workers > 1``); ``executor = "ray"``
plays each match as a Ray task on the cluster at ``ray_address``, its bots pinned by
their ``ray_resources``. :func:`open_executor` connects to Ray before the store is
touched, so a missing Ray or an address with no cluster is one line and nothing else.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from arena.executors._pool import executor_for
from arena.executors._ray import RayExecutor
from arena.tournament import Executor, TournamentConfig


def executor_of(config: TournamentConfig) -> Executor | None:
    """The executor ``config`` asks for, not yet connected (``None``: in-process)."""
    if config.executor == "ray":
        return RayExecutor(
            config.ray_address or "auto", resources=config.ray_resources, source=config.source
        )
    return executor_for(config.workers)


@contextlib.contextmanager
def open_executor(config: TournamentConfig) -> Iterator[Executor | None]:
    """:func:`executor_of`, connected for the ``with`` block (Ray: in the main thread,
    before anything is recorded) and disconnected after it; raises TournamentError."""
    executor = executor_of(config)
    if not isinstance(executor, RayExecutor):
        yield executor
        return
    executor.connect()
    try:
        yield executor
    finally:
        executor.close()

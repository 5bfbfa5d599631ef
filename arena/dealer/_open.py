"""Drivers from a bot spec: a command to launch or an address to dial, ready for a block."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import trio

from arena.dealer._grpc import GrpcBot
from arena.dealer._launch import LaunchedBot
from arena.dealer._seat import BotDriver
from arena.dealer._settings import STARTUP_TIMEOUT


def driver_from_spec(
    name: str,
    *,
    command: str | Sequence[str] | None = None,
    address: str | None = None,
    **options: object,
) -> GrpcBot | LaunchedBot:
    """A driver for a bot given as a ``command`` to launch, or an ``address`` to dial.

    A :class:`LaunchedBot` still needs :meth:`~LaunchedBot.start` (or use :func:`open_bot`).
    ``options`` go to the driver's constructor.
    """
    if (command is None) == (address is None):
        raise ValueError(f"{name}: give exactly one of command= or address=")
    if command is not None:
        return LaunchedBot(name, command, **options)  # type: ignore[arg-type]  # the constructor checks its own keyword options
    grpc_options = {k: v for k, v in options.items() if k != "startup_timeout"}
    return GrpcBot(name, address, **grpc_options)  # type: ignore[arg-type]  # the constructor checks its own keyword options


@asynccontextmanager
async def open_bot(
    name: str,
    *,
    command: str | Sequence[str] | None = None,
    address: str | None = None,
    startup_timeout: float = STARTUP_TIMEOUT,
    **options: object,
) -> AsyncIterator[BotDriver]:
    """A ready bot driver for the block: launched from ``command``, or dialled at ``address``.

    Either way the bot has answered its health check (within ``startup_timeout``) when
    the block starts; at its end the channel is closed and a launched process stopped.
    Raises :class:`BotStartError` if the bot does not come up.
    """
    driver = driver_from_spec(
        name, command=command, address=address, startup_timeout=startup_timeout, **options
    )
    try:
        async with trio.open_nursery() as nursery:  # holds only the log tasks, which never raise
            try:
                if isinstance(driver, LaunchedBot):
                    await driver.start(nursery)
                else:
                    await driver.wait_healthy(startup_timeout)
                yield driver
            finally:
                await driver.aclose()
    except BaseExceptionGroup as group:
        # the group can only hold the block's own exception: give it back unwrapped
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise

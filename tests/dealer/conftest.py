"""Fixtures for the dealer's gRPC tests: launch test bots (tests/dealer/bots) as processes."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import pytest
import trio

from arena.dealer import LaunchedBot

BOTS = Path(__file__).parent / "bots"


def bot_command(script: str, *args: str) -> list[str]:
    """The command that runs ``tests/dealer/bots/<script>`` with this interpreter."""
    return [sys.executable, str(BOTS / script), *args]


@pytest.fixture(name="bot_command")
def bot_command_fixture() -> Callable[..., list[str]]:
    """:func:`bot_command`, for test modules (which cannot import this conftest)."""
    return bot_command


Launcher = Callable[..., AbstractAsyncContextManager[list[LaunchedBot]]]


@pytest.fixture
def launch(tmp_path: Path) -> Launcher:
    """``async with launch("calling.py", ("oversize.py", "hello"), **options) as bots``.

    Starts the bots concurrently (logs in ``tmp_path``), yields them in order, and
    stops every process at the end, whatever happened.
    """

    @asynccontextmanager
    async def launcher(
        *scripts: str | tuple[str, ...], **options
    ) -> AsyncIterator[list[LaunchedBot]]:
        bots = []
        for index, spec in enumerate(scripts):
            script, *args = (spec,) if isinstance(spec, str) else spec
            name = f"{index}-{Path(script).stem}"
            options.setdefault("log_dir", tmp_path)
            bots.append(LaunchedBot(name, bot_command(script, *args), **options))
        async with trio.open_nursery() as nursery:
            try:
                async with trio.open_nursery() as starters:
                    for bot in bots:
                        starters.start_soon(bot.start, nursery)
                yield bots
            finally:
                with trio.CancelScope(shield=True):
                    for bot in bots:
                        await bot.aclose()

    return launcher

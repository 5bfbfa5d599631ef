"""A launched bot's Play stream that says, when it breaks, how the bot's process ended."""

from __future__ import annotations

from typing import Protocol

import trio

from arena.dealer._grpc import GrpcConnection
from arena.dealer._seat import SeatBrokenError
from arena.protocol import pb


class ExitExplainer(Protocol):
    """What a :class:`LaunchedConnection` asks of its bot: how its process ended."""

    async def exit_description(self, process: trio.Process, timeout: float = ...) -> str: ...


class LaunchedConnection:
    """A launched bot's Play stream: when it breaks, say how the process ended."""

    def __init__(self, bot: ExitExplainer, process: trio.Process, stream: GrpcConnection) -> None:
        self._bot = bot
        self._process = process
        self._stream = stream
        self._why: SeatBrokenError | None = None

    async def _explain(self, error: SeatBrokenError) -> SeatBrokenError:
        if self._why is None:
            exit_text = await self._bot.exit_description(self._process)
            self._why = type(error)(f"{error}{exit_text}") if exit_text else error
        return self._why

    async def send(self, message: pb.DealerMessage) -> None:
        try:
            await self._stream.send(message)
        except SeatBrokenError as error:
            raise await self._explain(error) from None

    async def receive(self) -> pb.BotMessage:
        try:
            return await self._stream.receive()
        except SeatBrokenError as error:
            raise await self._explain(error) from None

    async def aclose(self) -> None:
        await self._stream.aclose()

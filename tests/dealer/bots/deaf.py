"""Says Hello, then never reads another message (its stream stays open)."""

import asyncio

from _common import Calling

import arena.sdk._server as server
from arena.sdk import run


class Deaf(server._PlayServicer):
    async def Play(self, request_iterator, context):
        await anext(aiter(request_iterator))
        yield self._bot.hello()
        await asyncio.sleep(3600)


if __name__ == "__main__":
    server._PlayServicer = Deaf
    run(Calling())

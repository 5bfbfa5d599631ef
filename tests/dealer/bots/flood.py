"""Answers MatchStart with 1000 Hellos nobody asked for."""

from _common import Calling

import arena.sdk._server as server
from arena.sdk import run


class Flood(server._PlayServicer):
    async def Play(self, request_iterator, context):
        async for message in request_iterator:
            if message.WhichOneof("kind") == "match_start":
                for _ in range(1000):
                    yield self._bot.hello()


if __name__ == "__main__":
    server._PlayServicer = Flood
    run(Calling())

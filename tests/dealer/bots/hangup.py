"""Ends its first Play stream (cleanly, status OK) at its 3rd decision; plays normally after."""

from _common import Calling

import arena.sdk._server as server
from arena.sdk import run


class HangUpOnce(server._PlayServicer):
    hung_up = False

    async def Play(self, request_iterator, context):
        decisions = 0
        async for message in request_iterator:
            if message.WhichOneof("kind") == "decision":
                decisions += 1
                if decisions == 3 and not HangUpOnce.hung_up:
                    HangUpOnce.hung_up = True
                    return
            reply = self._bot.handle(message)
            if reply is not None:
                yield reply
            if message.WhichOneof("kind") == "match_end":
                return


if __name__ == "__main__":
    server._PlayServicer = HangUpOnce
    run(Calling())

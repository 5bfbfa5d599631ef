"""Answers its first decision twice (per stream), then every decision once and correctly.

With ``flood`` as argument it also repeats its previous answer 40 times before each
later answer: a flood of answers to earlier decisions.
"""

import sys

from _common import Calling

import arena.sdk._server as server
from arena.sdk import run

REPEATS = 40 if sys.argv[1:] == ["flood"] else 0


class Twice(server._PlayServicer):
    async def Play(self, request_iterator, context):
        decisions = 0
        previous = None
        async for message in request_iterator:
            reply = self._bot.handle(message)
            if message.WhichOneof("kind") == "decision":
                decisions += 1
                if decisions == 1:
                    yield reply
                elif previous is not None:
                    for _ in range(REPEATS):
                        yield previous
                previous = reply
            if reply is not None:
                yield reply
            if message.WhichOneof("kind") == "match_end":
                return


if __name__ == "__main__":
    sys.argv[1:] = []
    server._PlayServicer = Twice
    run(Calling())

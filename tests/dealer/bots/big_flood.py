"""Answers MatchStart with a Hello, then 40 stale Actions of ~0.9 MB each, then hangs up.

Forty is far below the dealer's message-count bound, but ~36 MB is far above its
byte bound on unread messages.
"""

from _common import Calling

import arena.sdk._server as server
from arena.protocol import pb
from arena.sdk import run

BIG = ["x" * 1000] * 900


class BigFlood(server._PlayServicer):
    async def Play(self, request_iterator, context):
        async for message in request_iterator:
            if message.WhichOneof("kind") == "match_start":
                yield self._bot.hello()
                for _ in range(40):
                    yield pb.BotMessage(
                        action=pb.Action(decision_id="1.1", kind=pb.ACTION_KIND_FOLD, cards=BIG)
                    )
                return


if __name__ == "__main__":
    server._PlayServicer = BigFlood
    run(Calling())

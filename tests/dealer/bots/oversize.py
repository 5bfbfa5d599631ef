"""Sends a 2 MB message: its Hello (argument "hello") or its 3rd action per stream ("action").

The SDK's own send limit is raised so that the oversize message reaches the wire and
the DEALER's receive limit is what breaks the stream (RESOURCE_EXHAUSTED).
"""

import sys

from _common import Calling

import arena.sdk._server as server
from arena.protocol import pb
from arena.sdk import run

BIG = "x" * (2 << 20)


class Oversize(Calling):
    name = "oversize"

    def __init__(self, where: str) -> None:
        super().__init__()
        self.where = where

    def on_match_start(self, message):
        self.decisions = 0

    def hello(self):
        message = super().hello()
        if self.where == "hello":
            message.hello.version = BIG
        return message

    def decide(self, decision):
        action = super().decide(decision)
        if self.where == "action" and self.decisions == 3:
            return pb.Action(kind=pb.ACTION_KIND_FOLD, cards=[BIG])
        return action


if __name__ == "__main__":
    server.MAX_MESSAGE_BYTES = 16 << 20
    run(Oversize(sys.argv.pop(1)))

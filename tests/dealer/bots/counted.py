"""Plays normally for N decisions (argument, default 30), then raises in every decision:
a bot whose state carries over from one scenario to the next (issue 21 item 2)."""

import sys

from _common import Calling

from arena.sdk import run

LIMIT = int(sys.argv[1]) if len(sys.argv) > 1 else 30
del sys.argv[1:2]  # the SDK's own options follow


class Counted(Calling):
    name = "counted"

    def decide(self, decision):
        action = super().decide(decision)
        if self.decisions > LIMIT:
            raise RuntimeError(f"decision {self.decisions}: past {LIMIT}")
        return action


if __name__ == "__main__":
    run(Counted())

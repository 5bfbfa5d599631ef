"""Dies (os._exit(1)) on its 3rd decision."""

import os
import sys

from _common import Calling

from arena.sdk import run


class Crash(Calling):
    name = "crash"

    def decide(self, decision):
        action = super().decide(decision)
        if self.decisions == 3:
            print("crash bot: exiting on purpose", file=sys.stderr, flush=True)
            os._exit(1)
        return action


if __name__ == "__main__":
    run(Crash())

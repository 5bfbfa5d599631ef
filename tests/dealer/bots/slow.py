"""Spins 0.8 s of CPU on every 4th decision (past any test deadline, on the CPU clock
and the wall clock alike: issue 9 item 5), otherwise plays normally."""

import time

from _common import Calling

from arena.sdk import run


class Slow(Calling):
    name = "slow"

    def decide(self, decision):
        action = super().decide(decision)
        if self.decisions % 4 == 0 and self.decisions <= 12:
            start = time.process_time()
            while time.process_time() - start < 0.8:
                pass
        return action


if __name__ == "__main__":
    run(Slow())

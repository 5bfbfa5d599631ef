"""Sleeps 0.8 s on every 4th decision (past any test deadline), otherwise plays normally."""

import time

from _common import Calling

from arena.sdk import run


class Slow(Calling):
    name = "slow"

    def decide(self, decision):
        action = super().decide(decision)
        if self.decisions % 4 == 0 and self.decisions <= 12:
            time.sleep(0.8)
        return action


if __name__ == "__main__":
    run(Slow())

"""Plays like a calling station, but holds its first decision until the file $GATE exists.

A tournament with this bot is running for as long as the test wants it to be.
"""

import os
import time

from arena.sdk import Bot, run


class Gated(Bot):
    name = "gated"

    def decide(self, decision):
        gate = os.environ.get("GATE", "")
        deadline = time.monotonic() + 120
        while gate and not os.path.exists(gate) and time.monotonic() < deadline:
            time.sleep(0.05)
        if decision.is_draw:
            return decision.discard([])
        return decision.check_or_call()


if __name__ == "__main__":
    run(Gated())

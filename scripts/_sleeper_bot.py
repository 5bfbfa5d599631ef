"""A launched bot for ``bench_slow_bot.py``: it plays like a calling station and sleeps
SECONDS (wall time, no CPU) before every decision; 0 is the same bot without the sleep.

Usage: ``_sleeper_bot.py SECONDS``.
"""

import sys
import time

from arena.sdk import Bot, run

PAUSE = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
del sys.argv[1:2]  # the SDK's own options follow


class Sleeper(Bot):
    name = "sleeper"

    def decide(self, decision):
        time.sleep(PAUSE)
        if decision.is_draw:
            return decision.stand_pat()
        return decision.check_or_call()


if __name__ == "__main__":
    run(Sleeper())

"""A calling station that plays hand N only once the number in GATE_FILE is at least N.

Hands are counted in ``GATE_FILE.played`` (one line per hand ended), so the count runs on
across every process of this bot (a tournament may start one per match or rotation).

The live page test paces a real match with it (``--sandbox off``, so it can read the
file): hands arrive when the test says, and the match cannot end, taking its server with
it, before the page has been checked. It waits at most two minutes per decision, so a
test that dies never leaves it hanging.

Usage: python gated_bot.py GATE_FILE (the arena passes ``$ARENA_BOT_ADDRESS``).
"""

import sys
import time
from pathlib import Path

from arena.sdk import Bot, run

GIVE_UP_SECONDS = 120.0


class GatedBot(Bot):
    name = "gated"
    version = "1.0"

    def __init__(self, gate: Path) -> None:
        self.gate = gate
        self.played = gate.with_name(gate.name + ".played")

    def on_hand_end(self, message):
        with self.played.open("a") as record:
            record.write("1\n")

    def _ended(self) -> int:
        try:
            return len(self.played.read_text().splitlines())
        except OSError:
            return 0

    def _open_until(self) -> int:
        try:
            return int(self.gate.read_text().strip() or 0)
        except (OSError, ValueError):
            return 0

    def decide(self, decision):
        give_up = time.monotonic() + GIVE_UP_SECONDS
        while self._open_until() < self._ended() + 1 and time.monotonic() < give_up:
            time.sleep(0.02)
        if decision.is_draw:
            return decision.stand_pat()
        return decision.check_or_call()


if __name__ == "__main__":
    gate_file = Path(sys.argv.pop(1))
    run(GatedBot(gate_file))

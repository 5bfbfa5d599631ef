"""An honest bot that thinks hard (issue 19 item 6): each decision burns SECONDS of CPU
on one thread (0.3 by default), then checks or calls. Usage: ``burner.py TOKEN [SECONDS]``."""

import sys
import time

from _base import Calling, mark, run

mark(sys.argv[1])
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 0.3


class Burner(Calling):
    name = "burner"

    def decide(self, decision):
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass
        return super().decide(decision)


run(Burner(), argv=[])

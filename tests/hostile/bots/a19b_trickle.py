"""Trickles its stdout and stderr one byte per write from two threads while it serves
(audit 19b, item 6 of issue 19): before the log's cap the arena wakes for every read, so
each byte the bot writes (one cheap syscall) costs the arena a whole Trio wake-up, a
read, a log write and a 2,000-byte tail copy. ``N``: the bytes per stream (1 MB cap); ``PAUSE``: seconds between writes, so each
read the arena makes finds one byte."""

import os
import sys
import threading
import time

from _base import Calling, mark, report, run

mark(sys.argv[1])
total = int(sys.argv[2]) if len(sys.argv) > 2 else 1_100_000
pause = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0  # seconds between writes


def trickle(fd: int) -> None:
    for _ in range(total):
        os.write(fd, b"x")
        if pause:
            time.sleep(pause)
    report(f"trickled {total} on {fd}")


for fd in (1, 2):
    threading.Thread(target=trickle, args=(fd,), daemon=True).start()
run(Calling(), argv=[])

"""Floods its stdout with 64 KB writes from a thread while it serves (issue 19, audit
item 6: the arena read and dropped it as fast as it came, about a core). ``quiet``:
serves and writes nothing (the neighbour)."""

import os
import sys
import threading

from _base import Calling, mark, report, run

mark(sys.argv[1])


def flood() -> None:
    chunk = b"x" * 65536
    report("flooding")
    while True:
        os.write(1, chunk)


if sys.argv[2:] != ["quiet"]:
    threading.Thread(target=flood, daemon=True).start()
run(Calling(), argv=[])

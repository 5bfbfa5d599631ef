"""Once serving, allocates (and touches) memory 32 MB at a time until something stops it."""

import sys
import threading
import time

from _base import mark, report, serve

mark(sys.argv[1])


def hog() -> None:
    time.sleep(0.3)
    held = []
    try:
        for _ in range(256):  # 8 GB at most
            held.append(bytearray(32 << 20))
    except MemoryError:
        report(f"MemoryError after {32 * len(held)} MB")
        held.clear()
        return
    report(f"allocated {32 * len(held)} MB")


threading.Thread(target=hog, daemon=True).start()
serve()

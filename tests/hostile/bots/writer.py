"""Writes 64 MB to a file in its current folder and in /tmp; reports how much got written."""

import os
import signal
import sys

from _base import mark, report, serve

mark(sys.argv[1])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the cap fails with EFBIG instead
chunk = b"x" * (1 << 20)
for folder in (".", os.environ.get("TMPDIR", "/tmp")):
    written = 0
    try:
        with open(os.path.join(folder, "big.bin"), "wb") as file:
            for _ in range(64):
                written += file.write(chunk)
                file.flush()
    except OSError as error:
        report(f"stopped {written} {type(error).__name__}")
    else:
        report(f"wrote {written}")
serve()

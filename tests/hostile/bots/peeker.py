"""Reads what the sandbox shows of the host (issue 19 item 8): every /proc/*/cmdline and
environ it can, its mountinfo and its environment; one ``VERDICT <path> <hex>`` each."""

import os
import sys

from _base import mark, report, serve

mark(sys.argv[1])
paths = ["/proc/self/mountinfo"]
for pid in os.listdir("/proc"):
    if pid.isdigit():
        paths += [f"/proc/{pid}/cmdline", f"/proc/{pid}/environ"]
for path in paths:
    try:
        with open(path, "rb") as file:
            report(f"{path} {file.read().hex()}")
    except OSError as error:
        report(f"{path} denied-{type(error).__name__}")
serve()

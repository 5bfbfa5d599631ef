"""Starts up to 300 sleeping children (a bounded fork loop) before it serves."""

import os
import sys
import time

from _base import mark, report, serve

mark(sys.argv[1])
children = []
try:
    for _ in range(300):
        pid = os.fork()
        if pid == 0:
            mark(sys.argv[1])
            time.sleep(120)
            os._exit(0)
        children.append(pid)
    report(f"forked {len(children)}")
except OSError as error:
    report(f"fork failed after {len(children)}: {type(error).__name__}")
    for pid in children[:16]:  # room for the threads it needs to serve; the rest live on
        os.kill(pid, 9)
        os.waitpid(pid, 0)
serve()

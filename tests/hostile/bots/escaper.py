"""Leaves a grandchild that calls setsid (a double fork), then serves, or with 'crash' exits."""

import os
import sys
import time

from _base import mark, report, serve

mark(sys.argv[1])
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        mark(sys.argv[1])
        time.sleep(120)
        os._exit(0)
    os._exit(0)
os.wait()
report("grandchild left")
if sys.argv[2:] == ["crash"]:
    time.sleep(0.5)
    os._exit(1)
serve()

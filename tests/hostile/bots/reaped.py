"""CPU charged to no one, unless every process of the seat is counted (issue 19 item 7):
SIGCHLD ignored, so its children are reaped by the kernel and their CPU time never reaches
its own; each decision forks WORKERS short workers, one after another, each burning
0.1 s of CPU, while the bot itself sleeps. Usage: ``reaped.py TOKEN [WORKERS]`` (15)."""

import os
import signal
import sys
import time

from _base import Calling, mark, run

mark(sys.argv[1])
workers = int(sys.argv[2]) if len(sys.argv) > 2 else 15
signal.signal(signal.SIGCHLD, signal.SIG_IGN)


def _burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


class Reaped(Calling):
    name = "reaped"

    def decide(self, decision):
        for _ in range(workers):
            pid = os.fork()
            if pid == 0:
                _burn(0.1)
                os._exit(0)
            while True:  # gone (reaped by the kernel) once it has burnt its share
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.01)
        return super().decide(decision)


run(Reaped(), argv=[])

"""A CPU hog (issue 19 item 6): N children, each in a session of its own, spin between
its own decisions; they stop (SIGSTOP) while it decides, so its own CPU clock stays
clean, and go on once it has answered. Each child first tries to leave the seat's CPU
share: write itself into any ``cgroup.procs`` / ``tasks`` it can find or mount, raise its
priority, switch to a real-time policy. Each attempt is one verdict line.

Usage: ``spinners.py TOKEN [N] [idle]`` (N: 60 by default; 0 makes it a plain calling
bot; ``idle``: the children sleep instead, for a test that needs them only alive).
"""

import contextlib
import ctypes
import glob
import os
import signal
import sys
import threading

from _base import Calling, mark, report, run

CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000

mark(sys.argv[1])
count = int(sys.argv[2]) if len(sys.argv) > 2 else 60
idle = sys.argv[3:4] == ["idle"]


def _write(path: str, text: str) -> str | None:
    try:
        with open(path, "w") as file:
            file.write(text)
    except OSError as error:
        return type(error).__name__
    return None


def _leave(index: int) -> None:
    """Every way out this child can think of; a verdict per attempt (only the first child's)."""
    pid = str(os.getpid())
    targets = [
        *glob.glob("/sys/fs/cgroup/cgroup.procs"),
        *glob.glob("/sys/fs/cgroup/*/cgroup.procs"),
        *glob.glob("/sys/fs/cgroup/*/tasks"),
    ]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0:  # its own mount of cgroup2, if it can
        with contextlib.suppress(OSError):
            os.makedirs("/tmp/cg2", exist_ok=True)
        if libc.mount(b"none", b"/tmp/cg2", b"cgroup2", 0, None) == 0:
            targets.append("/tmp/cg2/cgroup.procs")
        elif index == 0:
            report(f"denied mount cgroup2 errno {ctypes.get_errno()}")
    elif index == 0:
        report(f"denied unshare errno {ctypes.get_errno()}")
    for path in targets:
        why = _write(path, pid)
        if index == 0:
            report(f"denied {path} {why}" if why else f"escaped {path}")
    for attempt, call in (
        ("nice -20", lambda: os.setpriority(os.PRIO_PROCESS, 0, -20)),
        ("SCHED_FIFO", lambda: os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))),
        ("SCHED_RR", lambda: os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(1))),
    ):
        try:
            call()
        except OSError as error:
            if index == 0:
                report(f"denied {attempt} {type(error).__name__}")
        else:
            if index == 0:
                report(f"escaped {attempt}")
    why = _write("/proc/self/autogroup", "-20")
    if index == 0:
        report(f"denied autogroup {why}" if why else "escaped autogroup")


children = []
for index in range(count):
    pid = os.fork()
    if pid == 0:
        os.setsid()
        mark(sys.argv[1])
        _leave(index)
        if index == 0:
            report("spinning")
        while True:
            if idle:
                signal.pause()
    children.append(pid)


def _signal_children(signum: int) -> None:
    for pid in children:
        with contextlib.suppress(OSError):
            os.kill(pid, signum)


class Hog(Calling):
    name = "spinners"

    def decide(self, decision):
        _signal_children(signal.SIGSTOP)
        threading.Timer(0.02, _signal_children, (signal.SIGCONT,)).start()
        return super().decide(decision)


run(Hog(), argv=[])

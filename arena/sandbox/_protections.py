"""Which of the sandbox's kernel-surface protections work on this machine (issue 19 item 10).

``arena doctor`` asks: it starts one probe the way a match starts a bot (a
:class:`~arena.sandbox._seatbox.SeatBox` at the highest of L1/L2 that works, the real
supervisor, bubblewrap and seccomp filter), lets the probe look at its own sandbox and
bind its socket, and pins that socket with the dealer's own check. So each answer is what
a match would get here, not what the code intends.
"""

from __future__ import annotations

import json
import os
import platform
import select
import subprocess
import sys
import time
from typing import Any

from arena.sandbox._bwrap import DENIED_SYSCALLS
from arena.sandbox._endpoint import process_tree
from arena.sandbox._errors import BotStartError
from arena.sandbox._sandbox import BotLimits, LayerCheck, SandboxError, resolve_sandbox
from arena.sandbox._seatbox import SeatBox

_PROBE = r"""
import ctypes, json, os, socket, sys, time
libc = ctypes.CDLL(None, use_errno=True)
found = {}
with open("/proc/self/status") as status:
    found["seccomp"] = next((l.split()[1] for l in status if l.startswith("Seccomp:")), "?")
context = ctypes.c_ulong(0)
found["io_setup"] = 0 if libc.syscall(206, 1, ctypes.byref(context)) == 0 else ctypes.get_errno()
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()
    found["udp"] = 0
except OSError as error:
    found["udp"] = error.errno
found["proc_sys"] = len(os.listdir("/proc/sys"))
disk = os.statvfs("/tmp")
found["tmp"] = [disk.f_blocks * disk.f_frsize, disk.f_files]
server = socket.socket(socket.AF_UNIX)
server.bind(os.environ["ARENA_BOT_ADDRESS"].removeprefix("unix:"))
server.listen()
print(json.dumps(found), flush=True)
time.sleep(60)
"""
_TIMEOUT = 20.0


def check_protections() -> list[LayerCheck]:
    """One line per protection: the seccomp filter, ``/proc/sys`` masked, the socket
    folder size-capped, the endpoint check; each says whether it works here and why not."""
    try:
        layer = resolve_sandbox("auto")
    except SandboxError as error:
        return [LayerCheck("kernel", False, str(error))]
    if layer not in ("L1", "L2"):
        return [LayerCheck("kernel", False, f"{layer}: no seccomp filter, /proc/sys or socket cap")]
    box = SeatBox("doctor", layer, BotLimits(), [])
    try:
        return _run_probe(box)
    finally:
        box.release()


def _run_probe(box: SeatBox) -> list[LayerCheck]:
    address, _port = box.address("unix")
    box.acquire()
    env = box.environment(address, {})
    argv = box.command(
        [sys.executable, "-I", "-S", "-c", _PROBE], workdir=None, env=env, rlimits={}, grace=0.5
    )
    read_end, write_end = os.pipe()  # the supervisor's stdin: closed, it stops the probe
    process = subprocess.Popen(
        argv, env=env, stdin=read_end, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd="/"
    )
    os.close(read_end)
    try:
        return _read_probe(box, process)
    finally:
        os.close(write_end)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _read_probe(box: SeatBox, process: subprocess.Popen[bytes]) -> list[LayerCheck]:
    assert process.stdout is not None
    ready, _w, _x = select.select([process.stdout], [], [], _TIMEOUT)
    line = process.stdout.readline() if ready else b""
    if not line:
        why = "the probe did not start in its sandbox"
        return [LayerCheck(name, False, why) for name in ("seccomp", "/proc/sys", "socket cap")]
    found = json.loads(line)
    return [
        _seccomp(found),
        LayerCheck(
            "/proc/sys",
            found["proc_sys"] == 0,
            "masked, with the machine-wide counters in /proc (stat, loadavg, meminfo...)"
            if found["proc_sys"] == 0
            else f"NOT masked: {found['proc_sys']} entries visible",
        ),
        _socket_cap(box, found),
        _endpoint(box, process.pid),
    ]


def _seccomp(found: dict[str, Any]) -> LayerCheck:
    if platform.machine() != "x86_64":
        return LayerCheck(
            "seccomp", False, f"not loaded: its numbers are x86_64's, this is {platform.machine()}"
        )
    works = found["seccomp"] == "2" and found["io_setup"] == 1 and found["udp"] == 1  # EPERM
    detail = (
        f"loaded: {len(DENIED_SYSCALLS)} system calls denied (AIO, io_uring, keyrings, locks, "
        "watches, page-cache probes), no new namespaces, no vsock, no UDP or raw sockets"
        if works
        else f"NOT working: seccomp mode {found['seccomp']}, io_setup errno "
        f"{found['io_setup']}, UDP socket errno {found['udp']}"
    )
    return LayerCheck("seccomp", works, detail)


def _socket_cap(box: SeatBox, found: dict[str, Any]) -> LayerCheck:
    folder = box.folder
    assert folder is not None
    size, files = found["tmp"]
    if folder.mounted:
        return LayerCheck(
            "socket cap",
            True,
            f"the socket folder and /tmp: one tmpfs per seat of {int(size) >> 20} MB and "
            f"{files} files (tmp_mb)",
        )
    return LayerCheck(
        "socket cap",
        False,
        f"the socket folder is on the host's disk ({folder.unmounted_why}); /tmp is "
        f"{int(size) >> 20} MB of memory",
    )


def _endpoint(box: SeatBox, root: int) -> LayerCheck:
    try:
        for _ in range(int(_TIMEOUT * 100)):
            if box.pin_endpoint(lambda: process_tree(root)) is not None:
                return LayerCheck(
                    "endpoint",
                    True,
                    "the dealer dials its own hard link to the bot's socket, checked "
                    "(socket, uid, SO_PEERCRED pid of the bot's tree)",
                )
            time.sleep(0.01)
    except BotStartError as error:
        return LayerCheck("endpoint", False, f"the check refused the probe's own socket: {error}")
    except OSError as error:
        return LayerCheck("endpoint", False, f"cannot pin a socket here: {error}")
    return LayerCheck("endpoint", False, "the probe's socket never listened")

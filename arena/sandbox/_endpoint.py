"""A launched bot's process tree, seen from ``/proc``: its pids, CPU time, TCP listeners.

Used to check that the TCP endpoint a launched bot was told to serve on is served by
that bot and nothing else (another process could bind the same port with SO_REUSEPORT,
or be there first), and to charge a decision the CPU time of the bot's whole tree.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK")
_LISTEN = "0A"


def _read(path: str) -> bytes:
    """A ``/proc`` file's bytes, without ``pathlib``'s buffered layer: the CPU clock reads
    the tree at every decision, where that layer cost 3 to 4 times the reads (issue 12 item 6)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def process_tree(root: int) -> list[int]:
    """``root`` and its live descendants, by the kernel's per-thread children lists."""
    found, frontier = [], [root]
    while frontier:
        pid = frontier.pop()
        found.append(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            with contextlib.suppress(OSError, ValueError):
                frontier.extend(int(c) for c in _read(f"/proc/{pid}/task/{tid}/children").split())
    return found


def tree_cpu_seconds(root: int) -> float | None:
    """User + system CPU time of ``root``'s live tree (with the children each has reaped)."""
    total = 0
    seen = False
    for pid in process_tree(root):
        try:
            fields = _read(f"/proc/{pid}/stat").rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        total += sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime stime cutime cstime
        seen = True
    return total / _TICKS if seen else None


def _socket_inodes(pids: list[int]) -> set[int]:
    inodes: set[int] = set()
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(int(target[8:-1]))
    return inodes


def tcp_listeners(port: int, net: str = "/proc/net") -> list[int]:
    """Inodes of the sockets listening on ``port`` (any local address, IPv4 and IPv6)."""
    inodes = []
    for table in ("tcp", "tcp6"):
        try:
            lines = Path(net, table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) < 10 or fields[3] != _LISTEN:
                continue
            if int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.append(int(fields[9]))
    return inodes


def foreign_listener(port: int, root: int) -> str | None:
    """Why the TCP endpoint ``127.0.0.1:port`` is not served by ``root``'s tree alone, or None."""
    listeners = tcp_listeners(port)
    if not listeners:
        return f"nothing listens on 127.0.0.1:{port} in the arena's network namespace"
    ours = _socket_inodes(process_tree(root))
    if any(inode not in ours for inode in listeners):
        return f"another process listens on 127.0.0.1:{port}"
    if len(listeners) > 1:
        return (
            f"{len(listeners)} sockets listen on 127.0.0.1:{port} (SO_REUSEPORT): exactly one may"
        )
    return None

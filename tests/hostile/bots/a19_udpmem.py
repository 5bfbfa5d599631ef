"""Audit 19: kernel memory outside the seat's memory cap (and a machine-wide counter).

argv: TOKEN MEGABYTES [ARENA_ROOT]. Queues datagrams on loopback UDP sockets it never
reads: socket buffers are kernel memory that cgroup v1's memory.limit_in_bytes does not
charge, counted in the machine-wide UDP "mem" of /proc/net/sockstat (the same number in
every network namespace; net.ipv4.udp_mem caps it for the whole host). Holds it while it
plays. Reports the machine-wide count before and after, and its own RSS.
"""

import os
import socket
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
if len(sys.argv) > 3:
    sys.path.insert(0, sys.argv[3])
from _base import Calling, mark, report

from arena.sdk import run

mark(sys.argv[1])
want = int(sys.argv[2]) << 20


def udp_pages():
    for line in Path("/proc/self/net/sockstat").read_text().splitlines():
        if line.startswith("UDP:"):
            return int(line.split()[4])


held = []


def fill():
    before = udp_pages()
    global held
    try:
        held, w = [], socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    except OSError as error:
        report(f"udp refused: {error.errno} {error.strerror}")
        return
    w.setblocking(False)
    w.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
    end = time.monotonic() + 20
    while (udp_pages() - before) * 4096 < want and len(held) < 200 and time.monotonic() < end:
        r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        r.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 30)  # capped at 2 x rmem_max
        r.bind(("127.0.0.1", 0))
        held.append(r)
        for _ in range(4096):
            try:
                w.sendto(b"\0" * 65000, r.getsockname())
            except BlockingIOError:
                time.sleep(0.001)
            except OSError:
                break
            if (udp_pages() - before) * 4096 >= want:
                break
    after = udp_pages()
    status = Path("/proc/self/status").read_text().splitlines()
    rss = next(line.split()[1] for line in status if line.startswith("VmRSS"))
    report(
        f"udp mem pages before {before} after {after} (+{(after - before) * 4096 >> 20} MB) "
        f"sockets {len(held)} rss_kb {rss}"
    )


class Slow(Calling):
    def decide(self, decision):  # slow on the wall clock only: the match lasts while it holds
        time.sleep(0.05)
        return super().decide(decision)


threading.Thread(target=fill, daemon=True).start()
run(Slow(), argv=[])

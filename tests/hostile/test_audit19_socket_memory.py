"""Audit 19 (items 5 and 7): socket buffers are memory outside the seat's cap, and a
machine-wide counter.

A bot queues datagrams on loopback UDP sockets it never reads. Under cgroup v1 (this
machine; the arena's own default) socket buffers are not charged to the seat's
``memory.limit_in_bytes``, so a bot with ``memory_mb = 128`` holds 384 MB of kernel
memory (128 processes x 256 files each could hold the host's whole ``net.ipv4.udp_mem``
and ``tcp_mem``: every UDP and TCP socket of the host then drops or stalls). The same
number, UDP "mem" in ``/proc/net/sockstat``, is one count for the machine whatever the
network namespace, so it is also a clean channel between two sandboxes. FAILED on d63a72e
(384 MB held with memory_mb = 128); now the seccomp filter refuses IPv4 and IPv6
datagram (and raw) sockets with EPERM, and under cgroup v1 the seat's
memory.kmem.tcp.limit_in_bytes is its memory cap (TCP buffers charged).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import trio

import arena
from arena.dealer import BotLimits, LaunchedBot

pytestmark = [pytest.mark.trio, pytest.mark.timeout(120)]
ROOT = str(Path(arena.__file__).resolve().parents[1])


def host_udp_pages() -> int:
    for line in Path("/proc/1/net/sockstat").read_text().splitlines():
        if line.startswith("UDP:"):
            return int(line.split()[4])
    raise AssertionError("no UDP line")


@pytest.mark.parametrize("layer", ["L2", "L1"])
async def test_a19_socket_buffers_stay_inside_the_memory_cap(tools, tmp_path, token, layer):
    tools.need_layer(layer)
    if os.geteuid() != 0:
        pytest.skip("the memory cap needs root")
    before = host_udp_pages()
    bot = LaunchedBot(
        "a19_udpmem.py",
        tools.bot_command("a19_udpmem.py", token, "384", ROOT),
        sandbox=layer, limits=BotLimits(memory_mb=128), log_dir=tmp_path, startup_timeout=30,
    )  # fmt: skip
    held = 0
    async with trio.open_nursery() as nursery:
        try:
            await bot.start(nursery)
            with trio.move_on_after(40):
                while not any(v.startswith("udp") for v in tools.verdicts(bot.stderr_log)):
                    await trio.sleep(0.2)
            held = (host_udp_pages() - before) * 4096
        finally:
            await bot.aclose()
    verdicts = tools.verdicts(bot.stderr_log)
    print(verdicts, f"host UDP memory +{held >> 20} MB")
    assert any(v.startswith("udp refused: 1 ") for v in verdicts), verdicts  # EPERM
    assert held <= 160 << 20, f"{layer}: a bot capped at 128 MB holds {held >> 20} MB in sockets"

"""Audit 19b (issue 19 item 6, the output flood drain): below the log's cap the arena still
reads a pipe as fast as the bot writes it, one Trio wake-up per read, so a bot that
writes one byte per ``write`` (two threads: stdout and stderr) costs the arena far more
CPU than it costs itself, and the cap (1 MB a pipe, per start) is counted in bytes, not
reads. Each wake-up is an epoll round, a ``read``, a log ``write`` and a 2,000-byte tail
copy for one byte. A write every 10 us (slept, so each read finds one byte): FAILS on
4d5fccd, 400 KB (200 KB a pipe) cost the arena 11.75 s of CPU in 28 s (29 us a byte, 41%
of a core), the bot 7.2 s with its start-up; the full 2 MB before the cap is about a minute
of the arena's CPU per start of the bot. Written all at once (no pause) it held: 2 MB cost
0.42 s (the reads merge). Now a short read is followed by a 10 ms pause (the bytes
gather in the pipe): asserted as bytes per read (1 before), the CPU printed, never asserted.
"""

from __future__ import annotations

import time

import pytest
import trio

from arena.dealer import BotLimits, LaunchedBot

pytestmark = [pytest.mark.trio, pytest.mark.timeout(180)]


@pytest.mark.parametrize("layer", ["L2"])
async def test_a19b_a_trickling_bot_costs_the_arena_little(tools, tmp_path, token, layer):
    tools.need_layer(layer)
    bot = LaunchedBot(
        "trickle", tools.bot_command("a19b_trickle.py", token, "200000", "0.00001"), sandbox=layer,
        limits=BotLimits(), log_dir=tmp_path, startup_timeout=60,
    )  # fmt: skip
    async with trio.open_nursery() as nursery:
        try:
            await bot.start(nursery)
            cpu, wall = time.process_time(), time.monotonic()
            with trio.move_on_after(60):
                while sum(log.read_bytes for log in bot._logs) < 400_000:
                    await trio.sleep(0.2)
            arena = time.process_time() - cpu
            elapsed = time.monotonic() - wall
            mine = bot.cpu_seconds() or 0.0
            read = sum(log.read_bytes for log in bot._logs)
            reads = sum(log.reads for log in bot._logs)
        finally:
            await bot.aclose()
    print(
        f"{layer}: read {read} bytes in {reads} reads, {elapsed:.1f} s; the arena spent "
        f"{arena:.2f} s of CPU, the bot {mine:.2f} s (all of it, start-up included)"
    )
    assert read >= 10 * reads, f"{layer}: {read} bytes trickled took {reads} reads"

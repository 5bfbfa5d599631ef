"""Audit 19b (item 1, the folder copy): a 1000 MB sparse file (4 KB on disk) in a bot's
folder makes each of its duplicate instances k > 0 cost the arena 1000 MB of unswappable
memory, outside the seat's memory cap, and blocks the dealer's event loop while it is
copied.

``FolderCopy.create`` sizes the copy by ``st_size`` (apparent size, not blocks) and copies
with ``sendfile``, which writes every hole out as zero pages into the tmpfs: 1000 MB of
shmem, charged to the arena, not to the seat's ``memory_mb``. The copy runs in
``LaunchedBot._prepare`` on the Trio thread itself, so every other table of the process
(a tournament's live bots, a worker) is frozen meanwhile: 3.5 s here, past the default
1 s decision clock of whichever bot is deciding at another table. A bot that exits at
start is restarted and copied again. FAILED on 4d5fccd (loop blocked 3.5 s, +1000 MB);
now only data ranges are copied (holes stay holes), the cap counts allocated and copied
bytes, and the seat is prepared in a worker thread (asserted: the copy never runs on the
event loop's thread; the loop's worst gap is printed, never asserted).
"""

from __future__ import annotations

import shutil
import sys
import threading
from pathlib import Path

import pytest
import trio

from arena.dealer import BotLimits, LaunchedBot
from arena.sandbox import _seatbox

pytestmark = [pytest.mark.trio, pytest.mark.timeout(120)]
BOTS = Path(__file__).parent / "bots"


def shmem() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("Shmem:"):
            return int(line.split()[1]) << 10
    raise AssertionError("no Shmem line")


@pytest.mark.parametrize("layer", ["L2", "L1"])
async def test_a19b_a_sparse_file_costs_neither_memory_nor_the_event_loop(
    tools, tmp_path, token, layer, monkeypatch
):
    tools.need_layer(layer)
    copied_in: list[threading.Thread] = []
    real_create = _seatbox.FolderCopy.create

    def create(*args, **kwargs):
        copied_in.append(threading.current_thread())
        return real_create(*args, **kwargs)

    monkeypatch.setattr(_seatbox.FolderCopy, "create", create)
    folder = tmp_path / "bot"
    folder.mkdir()
    folder.chmod(0o755)
    tmp_path.chmod(0o755)
    shutil.copy(BOTS / "_base.py", folder / "_base.py")
    (folder / "bot.py").write_text("from _base import serve\nserve()\n")
    with open(folder / "model.bin", "wb") as f:
        f.truncate(1000 << 20)  # 1000 MB apparent, no block on disk
    bot = LaunchedBot(
        "sparse", [sys.executable, str(folder / "bot.py")], sandbox=layer,
        limits=BotLimits(memory_mb=128), log_dir=tmp_path, startup_timeout=60,
        private_copy=True,
    )  # fmt: skip
    gaps: list[float] = []

    async def ticker() -> None:
        last = trio.current_time()
        while True:
            await trio.sleep(0.01)
            now = trio.current_time()
            gaps.append(now - last)
            last = now

    before = shmem()
    held = 0
    async with trio.open_nursery() as nursery:
        nursery.start_soon(ticker)
        await trio.sleep(0.1)
        try:
            await bot.start(nursery)
            held = shmem() - before
        finally:
            await bot.aclose()
            nursery.cancel_scope.cancel()
    worst = max(gaps)
    print(f"{layer}: event loop blocked {worst:.2f} s, shmem +{held >> 20} MB (cap 128 MB)")
    assert copied_in and threading.main_thread() not in copied_in, (
        f"{layer}: the folder copy ran on the event loop's thread (blocked {worst:.2f} s)"
    )
    assert held < 128 << 20, f"{layer}: a 4 KB-on-disk folder holds {held >> 20} MB of RAM"

"""A duplicate instance's own copy of its folders, in a real sandbox (issue 19 item 1).

The bot is started as the arena starts a duplicate instance k > 0 (``private_copy``): it
must see its files at their usual paths but as other inodes than the host's (so no page
cache is shared with its instance 0), unable to write them; a plain start binds the
folder itself (zero copy); the copy is gone once the bot is closed.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
import trio

from arena.dealer import BotLimits, LaunchedBot
from arena.sandbox._leftovers import COPY_PREFIX

pytestmark = [pytest.mark.trio, pytest.mark.timeout(90)]
BOTS = Path(__file__).parent / "bots"


def _copies() -> set[str]:
    return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith(COPY_PREFIX)}


@pytest.mark.parametrize("private_copy", [True, False])
async def test_i19_1_a_duplicate_instance_reads_its_own_copy(
    tools, tmp_path, token, namespaced_layer, private_copy
):
    """Item 1: with ``private_copy`` the bot's script folder and a file of ``binds`` are
    other inodes inside (same bytes, read-only); without it, the host's own inodes."""
    folder = tmp_path / "bot"
    folder.mkdir()
    for name in ("_base.py", "inodes.py"):
        shutil.copy(BOTS / name, folder / name)
    (folder / "model.bin").write_bytes(os.urandom(1 << 20))
    extra = tmp_path / "elsewhere" / "weights.bin"
    extra.parent.mkdir()
    extra.write_bytes(os.urandom(4096))
    for path in (tmp_path, folder, extra.parent):
        path.chmod(0o755)
    for path in (folder / "model.bin", extra, folder / "inodes.py", folder / "_base.py"):
        path.chmod(0o644)
    files = [folder / "model.bin", extra]
    before = _copies()
    bot = LaunchedBot(
        "inodes", [sys.executable, str(folder / "inodes.py"), token, *map(str, files)],
        sandbox=namespaced_layer, log_dir=tmp_path / "logs", startup_timeout=30,
        private_copy=private_copy, limits=BotLimits(binds=(str(extra),)),
    )  # fmt: skip
    async with trio.open_nursery() as nursery:
        try:
            await bot.start(nursery)
            if private_copy:
                assert _copies() - before, "no copy folder while the bot runs"
        finally:
            await bot.aclose()
    seen = tools.verdicts(bot.stderr_log)
    inodes = [line.split() for line in seen if line.startswith("inode ")]
    assert len(inodes) == 2, seen
    for (_, path, inode, head), host in zip(inodes, files, strict=True):
        assert path == str(host) and head == host.read_bytes()[:16].hex(), seen
        assert (int(inode) != host.stat().st_ino) is private_copy, (seen, host.stat().st_ino)
    writes = [line for line in seen if line.startswith("write")]
    assert len(writes) == 2 and all(w.startswith("write denied") for w in writes), seen
    assert _copies() == before
    assert not (folder / "planted").exists()

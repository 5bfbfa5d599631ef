"""Audit 19 (item 1, the variant left open): the page-cache channel of
``test_audit19_pagecache_channel`` through a file *outside* the bot's folder, one that
every sandbox mounts read-only as the runtime (a large, rarely read file under ``/usr``
or the venv). Each duplicate instance now reads its own copy of its folder, but the
runtime is bound from the host: one page cache for all. The bot is the same
(bots/a19_pagecache.py), given that file instead of a model of its own.

The test makes the file cold first (as root on the host: what a rarely read file is
anyway on a competition server), then scores the guesses like the folder variant.
FAILED on e9bb93a (L2: knew the opponent's dealt hand in 90 of 200 hands): the channel
works, and the bot recognised its partner's finished deck from the draw. Each rotation
now draws its own stub (``arena.dealer._deal.private_draws``): the channel still carries
the partner's notes, but nothing names which of them is the deck it holds (0 of 200).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import arena

sys.path.insert(0, str(Path(__file__).parent))
from a19_score import score

BOTS = Path(__file__).parent / "bots"
ROOT = Path(arena.__file__).resolve().parents[1]
NEED = 64 << 20


def _shared_file() -> Path:
    """The largest regular file of at least 64 MB under /usr/lib or /usr/share (mounted in
    every sandbox)."""
    best: tuple[int, Path] | None = None
    for top in ("/usr/lib", "/usr/share"):
        for folder, _dirs, files in os.walk(top):
            for name in files:
                path = Path(folder, name)
                try:
                    size = path.lstat().st_size if path.is_file() and not path.is_symlink() else 0
                except OSError:
                    continue
                if size >= NEED and os.access(path, os.R_OK) and (best is None or size > best[0]):
                    best = (size, path)
    if best is None:
        pytest.skip("no file of 64 MB or more under /usr/lib or /usr/share")
    return best[1]


@pytest.fixture
def bot_folder():
    folder = Path(tempfile.mkdtemp(prefix="a19-usr-"))
    folder.chmod(0o755)
    for name in ("_base.py", "a19_pagecache.py"):
        shutil.copy(BOTS / name, folder / name)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _cold(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("layer", ["L2", "L1"])
def test_a19_usr_page_cache_channel_knows_no_opponent_hand(tools, bot_folder, tmp_path, layer):
    tools.need_layer(layer)
    shared = _shared_file()
    _cold(shared)
    bot = f"pc={sys.executable} {bot_folder}/a19_pagecache.py a19pc {shared} {ROOT}"
    run = subprocess.run(
        [sys.executable, "-m", "arena", "match", bot, "builtin:calling-station",
         "--hands", "200", "--seed", "7", "--duplicate", "--sandbox", layer,
         "--out", str(tmp_path / "runs"), "--no-plugins"],
        capture_output=True, text=True, timeout=200, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    (match,) = (tmp_path / "runs").iterdir()
    hits, _guesses, hands = score(match, "pc")
    print(f"{layer} via {shared}: knew the opponent's dealt hand in {hits} of {hands} hands")
    assert hits <= 5, f"{layer}: knew the opponent's dealt hand in {hits} of {hands} hands"

"""Audit 19 (item 1, end to end at L2 and L1): the two instances of a bot in one
``--duplicate`` match talk through the page cache of a file both sandboxes mount
read-only (a "model" in the bot's own folder), read by timing page faults (mincore,
fadvise and RWF_NOWAIT are denied; ``madvise(MADV_RANDOM)`` and a clock are not), and
recognise the partner's finished decks from the *draw* (no showdown used). Issue 19 item
1 asks that a bot with a live channel knows its opponent's cards no more often than
chance; on d63a72e it knew the opponent's dealt hand in ~85 of 200 hands (88 and 90
at L2 and L1 on 898c51b). Each duplicate instance k > 0 now reads its own copy of its
folder (:mod:`arena.sandbox._botcopy`): 0 of 200, no record intact. The same channel
through the shared runtime (``/usr``) is still open: ``open/test_audit19_usr_pagecache.py``.

The bot (bots/a19_pagecache.py) reports ``VERDICT GUESS <table hand> <cards>``; the test
scores the guesses against the referee's events.jsonl.
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


@pytest.fixture
def bot_folder():
    folder = Path(tempfile.mkdtemp(prefix="a19-pc-"))
    folder.chmod(0o755)
    for name in ("_base.py", "a19_pagecache.py"):
        shutil.copy(BOTS / name, folder / name)
    model = folder / "model.bin"
    with open(model, "wb") as out:  # 64 MB, then out of the page cache (a cold file)
        for _ in range(64):
            out.write(os.urandom(1 << 20))
        out.flush()
        os.fsync(out.fileno())
        os.posix_fadvise(out.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    model.chmod(0o644)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("layer", ["L2", "L1"])
def test_a19_page_cache_channel_knows_no_opponent_hand(tools, bot_folder, tmp_path, layer):
    tools.need_layer(layer)
    bot = f"pc={sys.executable} {bot_folder}/a19_pagecache.py a19pc {bot_folder}/model.bin {ROOT}"
    run = subprocess.run(
        [sys.executable, "-m", "arena", "match", bot, "builtin:calling-station",
         "--hands", "200", "--seed", "7", "--duplicate", "--sandbox", layer,
         "--out", str(tmp_path / "runs"), "--no-plugins"],
        capture_output=True, text=True, timeout=200, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    (match,) = (tmp_path / "runs").iterdir()
    hits, guesses, hands = score(match, "pc")
    print(f"{layer}: knew the opponent's dealt hand in {hits} of {hands} hands ({guesses} guesses)")
    assert hits <= 5, f"{layer}: knew the opponent's dealt hand in {hits} of {hands} hands"

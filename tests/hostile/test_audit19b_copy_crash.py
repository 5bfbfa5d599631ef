"""Audit 19b (item 1, the folder copy): a bot folder whose copy raises a plain OSError
crashes the whole tournament, every other table with it.

A duplicate instance k > 0 gets its own copy of its folder (``_botcopy.FolderCopy``).
The copy opens each copied folder by its absolute path (``os.open(made[top])``), so a
folder nested deeper than PATH_MAX (4096 bytes; 20 levels of 250-character names, which
any student can make with ``mkdir``/``cd``) raises ``OSError: [Errno 36] File name too
long``. That is not a ``BotStartError``: ``arena tournament run`` does not mark the bot
as not started, it re-raises, and the tournament ends (rc 1, a traceback) before the
two honest bots have played. FAILED on 4d5fccd (rc 1, 0 matches recorded); now each
folder of the copy is made and opened in its parent's descriptor (any depth copies) and
any OSError of the copy is a BotStartError (the bot not started, with the reason).
Since audit 19c the copy is refused past 4096 bytes of path below the bot folder, so this
uses 16 levels of 255-character names (4095 bytes below it, past PATH_MAX with the
folder's own path), which copy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BOTS = Path(__file__).parent / "bots"
ROOT = Path(__file__).resolve().parents[2]


def _deep(folder: Path, levels: int = 16) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir("d" * 255, dir_fd=fd)
            inner = os.open("d" * 255, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("layer", ["L2", "L1"])
def test_a19b_a_deep_bot_folder_does_not_crash_the_tournament(tools, tmp_path, layer):
    tools.need_layer(layer)
    bot = tmp_path / "bot"
    bot.mkdir()
    shutil.copy(BOTS / "_base.py", bot / "_base.py")
    (bot / "bot.py").write_text("from _base import serve\nserve()\n")
    _deep(bot)
    (tmp_path / "t.toml").write_text(
        f"""
[tournament]
name = "deep"
format = "round_robin"
hands_per_match = 10
duplicate = true
concurrency = 1
output = "runs"
database = "arena.db"
sandbox = "{layer}"

[[bots]]
name = "random"
builtin = "random"

[[bots]]
name = "calling-station"
builtin = "calling-station"

[[bots]]
name = "deep"
command = "{{python}} bot/bot.py"
"""
    )
    run = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "run", str(tmp_path / "t.toml"),
         "--no-plugins"],
        capture_output=True, text=True, timeout=280, cwd=ROOT,
    )  # fmt: skip
    played = sorted(p.name for p in (tmp_path / "runs").rglob("*") if p.is_dir())
    print(f"{layer}: rc {run.returncode}, folders under runs: {played}")
    last = (run.stderr.strip().splitlines() or [""])[-1][:200]
    assert run.returncode == 0 and "Traceback" not in run.stderr, (
        f"{layer}: rc {run.returncode}: {last}"
    )

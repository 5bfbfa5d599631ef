"""Helpers for tests about bot processes outliving the arena: is a pid alive, wait for it to go.

Imported as ``processes`` (``tests/conftest.py`` puts this folder on ``sys.path``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

LAUNCHER = """
import sys
from pathlib import Path

import trio

from arena.dealer import LaunchedBot


async def main():
    pid_file, *command = sys.argv[1:]
    bot = LaunchedBot("victim", command, log_dir=pid_file + ".logs", startup_timeout=60)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(bot.start, nursery)
        while bot.process is None:
            await trio.sleep(0.001)
        Path(pid_file).write_text(str(bot.process.pid))
        await trio.sleep(120)


trio.run(main)
"""
"""Starts a bot with the arena's launcher, writes its pid as soon as it runs, then waits:
the test kills this process with SIGKILL while the bot is still starting."""


def alive(pid: int) -> bool:
    """Running, not a zombie waiting for a reaper (a re-parented process is init's to reap)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def assert_exits(pid: int, why: str, seconds: float = 20) -> None:
    """Wait up to ``seconds`` for ``pid`` to end; else kill it (it is ours) and fail with ``why``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    pytest.fail(why)


def kill_launcher_while_the_bot_starts(tmp_path: Path, command: list[str]) -> int:
    """Run LAUNCHER on ``command``, SIGKILL it as soon as the bot runs; the bot's pid."""
    pid_file = tmp_path / "bot.pid"
    parent = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(pid_file), *command])
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the launcher did not start the bot"
        assert parent.poll() is None, "the launcher died"
        time.sleep(0.005)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    return int(pid_file.read_text())

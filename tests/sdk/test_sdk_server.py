"""The SDK's server: a bot launched by the arena does not outlive it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(60)
def test_launched_bot_exits_when_the_arena_is_killed(tmp_path: Path) -> None:
    """A bot started with ARENA_BOT_ADDRESS stops once its parent dies (kill -9 leaves no orphan)."""
    pid_file = tmp_path / "bot.pid"
    launcher = textwrap.dedent(
        f"""
        import os, subprocess, sys, time
        env = dict(os.environ, ARENA_BOT_ADDRESS="127.0.0.1:0")
        bot = subprocess.Popen([sys.executable, {str(ROOT / "examples_bots" / "calling_station.py")!r}], env=env)
        open({str(pid_file)!r}, "w").write(str(bot.pid))
        time.sleep(120)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", launcher])
    deadline = time.monotonic() + 20
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the launcher did not start the bot"
        time.sleep(0.05)
    bot_pid = int(pid_file.read_text())
    time.sleep(1.5)  # let the bot start serving
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if not _alive(bot_pid):
            return
        time.sleep(0.2)
    os.kill(bot_pid, signal.SIGKILL)
    pytest.fail("the bot outlived the process that launched it")


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for a reaper (containers' PID 1 may not reap)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"

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
from processes import assert_exits, kill_launcher_while_the_bot_starts

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
    assert_exits(bot_pid, "the bot outlived the process that launched it")


CALLING_STATION = ROOT / "examples_bots" / "calling_station.py"


def slow_starting(tmp_path: Path, script: Path) -> Path:
    """A bot that sleeps 1 s before it even imports the SDK (so a kill finds it starting)."""
    wrapper = tmp_path / f"slow_{script.stem}.py"
    wrapper.write_text(
        f"import runpy, time\ntime.sleep(1.0)\nrunpy.run_path({str(script)!r}, run_name='__main__')\n"
    )
    return wrapper


@pytest.mark.timeout(60)
def test_bot_exits_when_the_arena_is_killed_while_it_starts(tmp_path: Path) -> None:
    """SIGKILL of the arena before the bot serves: the bot is re-parented before its
    watchdog runs, yet it still stops (it knows the arena's pid and its stdin closes)."""
    bot = slow_starting(tmp_path, CALLING_STATION)
    pid = kill_launcher_while_the_bot_starts(tmp_path, [sys.executable, str(bot)])
    assert_exits(pid, "the bot outlived the arena killed while it started")


def _dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    return gone.pid


@pytest.mark.timeout(60)
def test_bot_stops_when_the_arena_pid_it_was_given_is_gone(tmp_path: Path) -> None:
    """ARENA_PARENT_PID names a process that no longer runs: the bot stops (stdin is not a pipe)."""
    env = dict(os.environ, ARENA_BOT_ADDRESS="127.0.0.1:0", ARENA_PARENT_PID=str(_dead_pid()))
    bot = subprocess.Popen(
        [sys.executable, str(CALLING_STATION)], env=env, stdin=subprocess.DEVNULL
    )
    try:
        bot.wait(timeout=30)
    except subprocess.TimeoutExpired:
        bot.kill()
        bot.wait()
        pytest.fail("the bot kept running after the arena's pid was gone")


@pytest.mark.timeout(60)
def test_bot_stops_when_its_stdin_pipe_from_the_arena_closes(tmp_path: Path) -> None:
    """End-of-file on the stdin pipe means the arena died: the bot stops, cleanly."""
    env = dict(os.environ, ARENA_BOT_ADDRESS="127.0.0.1:0", ARENA_PARENT_PID=str(os.getpid()))
    bot = subprocess.Popen([sys.executable, str(CALLING_STATION)], env=env, stdin=subprocess.PIPE)
    time.sleep(1.0)  # whether starting or serving, the close must stop it
    assert bot.poll() is None, "the bot stopped while the arena was alive"
    bot.stdin.close()
    try:
        # serving: a clean shutdown (0); still starting on a loaded machine: SIGTERM's
        # default action ends it (watch_the_arena's docstring). Either way it stops.
        assert bot.wait(timeout=30) in (0, -signal.SIGTERM)
    except subprocess.TimeoutExpired:
        bot.kill()
        bot.wait()
        pytest.fail("the bot kept running after its stdin pipe closed")


def test_parent_pid_env_matches_the_launcher() -> None:
    """The launcher and the SDK name the same variable."""
    from arena.sandbox._seatbox import PARENT_PID_ENV
    from arena.sdk._server import PARENT_PID_ENV as SDK_PARENT_PID_ENV

    assert PARENT_PID_ENV == SDK_PARENT_PID_ENV == "ARENA_PARENT_PID"

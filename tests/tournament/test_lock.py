"""One process per tournament: a second run, resume or database on the same folder is refused.

Two processes writing one tournament corrupted it (issue 7). A running tournament holds
an OS lock (``flock``) on its database and on its records folder; a second process is
refused with a line naming the holder's pid, host and start time, and a holder killed
with SIGKILL leaves no stale lock: the OS releases it.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_runner import write_tournament

from arena.store import StoreError
from arena.store._lock import InUseError, hold

GATED = Path(__file__).resolve().parent / "bots" / "gated.py"


def arena(*args: str, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args, "--no-plugins"],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def gated_tournament(folder: Path, name: str, database: str = "arena.db") -> Path:
    # the sandbox gives a bot a clean environment and hides the rest of the file system:
    # the gate's variable and folder are passed on as the bot's own settings (issue 9)
    # (its own world-readable folder: at L2 the bot runs as another uid)
    gates = (folder if folder.name != "elsewhere" else folder.parent) / "gates"
    gates.mkdir(mode=0o755, exist_ok=True)
    gates.chmod(0o755)
    gate = gates / "gate"
    extra = (
        f'\n[[bots]]\nname = "gated"\ncommand = "{sys.executable} {GATED}"\n'
        f'[bots.limits]\nenv = {{ GATE = "{gate}" }}\nbinds = ["{gates}"]\n'
    )
    path = write_tournament(folder, name, extra_bots=extra, hands=4)
    text = path.read_text().replace('database = "arena.db"', f'database = "{database}"')
    path.write_text(text + "\n[timeouts]\naction = 60\n")
    return path


def holder_pid(lock_file: Path) -> int | None:
    try:
        return json.loads(lock_file.read_text())["pid"]
    except (OSError, ValueError, KeyError):
        return None


@pytest.mark.timeout(240)
def test_a_second_process_is_refused_and_a_killed_holder_leaves_no_lock(tmp_path: Path) -> None:
    """run holds the tournament; resume and a run into the same folder from another
    database are refused naming the holder; after SIGKILL, resume finishes it."""
    gate = tmp_path / "gates" / "gate"
    env = {**os.environ, "GATE": str(gate)}
    path = gated_tournament(tmp_path, "locked")
    (tmp_path / "elsewhere").mkdir()
    other = gated_tournament(tmp_path / "elsewhere", "locked", database=str(tmp_path / "b.db"))
    other.write_text(other.read_text().replace('output = "runs"', f'output = "{tmp_path}/runs"'))
    holder = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "run", str(path), "--no-plugins"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    try:
        lock_file = tmp_path / "arena.db.lock"
        deadline = time.monotonic() + 60
        while holder_pid(lock_file) != holder.pid and time.monotonic() < deadline:
            assert holder.poll() is None, holder.stderr.read()
            time.sleep(0.05)
        assert holder.pid == holder_pid(lock_file)

        resumed = arena("tournament", "resume", str(path), env=env)
        assert 1 == resumed.returncode, resumed.stderr
        assert "running" in resumed.stderr and f"pid {holder.pid}" in resumed.stderr
        assert socket.gethostname() in resumed.stderr
        assert "Traceback" not in resumed.stderr

        same_folder = arena("tournament", "run", str(other), env=env)
        assert 1 == same_folder.returncode, same_folder.stderr
        assert str(tmp_path / "runs" / "locked") in same_folder.stderr
        assert f"pid {holder.pid}" in same_folder.stderr
        assert holder.poll() is None, "the refused processes must not disturb the holder"
    finally:
        os.killpg(holder.pid, signal.SIGKILL)
        holder.wait()
    gate.touch()
    finished = arena("tournament", "resume", str(path), env=env, timeout=120)
    assert 0 == finished.returncode, finished.stderr
    with sqlite3.connect(tmp_path / "arena.db") as db:
        keys = [key for (key,) in db.execute("select match_key from matches")]
    assert 6 == len(keys) == len(set(keys))  # 4 bots, every pair once


def test_the_lock_is_exclusive_and_released(tmp_path: Path) -> None:
    """In one process too: a second hold of the same file is refused, a released one is free."""
    lock = tmp_path / "x.lock"
    with (
        hold(lock, what="folder x", info={"tournament": "t"}),
        pytest.raises(InUseError, match=rf"folder x is in use: tournament 't' .*pid {os.getpid()}"),
        hold(lock, what="folder x", info={"tournament": "t"}),
    ):
        pass
    with hold(lock, what="folder x", info={}):
        pass
    assert issubclass(InUseError, StoreError)

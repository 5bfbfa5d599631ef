"""Issue 12 item 4 (audit): the PostgreSQL server hangs mid-tournament (SIGSTOP of the
postmaster and its backends: a hung host or a network partition look the same to libpq).

The store's connections have ``connect_timeout=10`` but no ``statement_timeout``, no
``tcp_user_timeout``/keepalives: a write waits for ever (over TCP, until the kernel gives
up, about 2 hours), and the coordinator hangs with nothing said. Expected: one line
within a bounded time (arena.store._db.DEADLINE; the 60 s bound here only turns a hang into a failure).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import postgres
import pytest
from kit import cmdline, descendants, gated_bot
from test_executor import write


def _server_pids(server) -> list[int]:
    """The postmaster (from its pid file) and its children: this test's own server."""
    master = int((server.data / "postmaster.pid").read_text().split()[0])
    return [master, *sorted(descendants(master))]


@pytest.mark.timeout(120)
def test_a_hung_server_is_one_line_not_a_silent_hang(tmp_path: Path) -> None:
    bindir = postgres.find_binaries()
    if bindir is None:
        pytest.skip("no PostgreSQL binaries (initdb, pg_ctl): apt-get install postgresql")
    pytest.importorskip("psycopg", reason="psycopg is not installed")
    server = postgres.start(bindir)
    try:
        url = server.new_database()
        gate = tmp_path / "gate"
        bots = gated_bot(gate)
        path = write(tmp_path, "hung", workers=2, bots=bots)
        path.write_text(path.read_text().replace('database = "arena.db"', f'database = "{url}"'))
        run = subprocess.Popen(
            [sys.executable, "-m", "arena", "tournament", "run", str(path), "--no-plugins"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            cwd=tmp_path,
        )
        frozen: list[int] = []
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                if any("gated.py" in cmdline(pid) for pid in descendants(run.pid)):
                    break
                assert run.poll() is None, run.stderr.read() if run.stderr else ""
                time.sleep(0.05)
            frozen = _server_pids(server)
            for pid in frozen:
                os.kill(pid, signal.SIGSTOP)
            gate.write_text("open")
            try:
                _, err = run.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                pytest.fail("the server hung: the coordinator waited 60 s and said nothing")
        finally:
            for pid in frozen:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)
            if run.poll() is None:
                run.kill()
                run.wait()
        text = err.decode(errors="replace").strip()
        assert run.returncode == 1, text
        assert "Traceback" not in text and len(text.splitlines()) == 1, text
        assert text.startswith("Error:"), text
    finally:
        postgres.stop(server)

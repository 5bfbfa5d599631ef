"""What goes wrong around a tournament is one clear line, never a traceback (issue 7).

Disk full, unwritable folders, a corrupt or missing database, Ctrl-C: each ends the run
with one line naming the problem and where, a non-zero exit status, and every match
recorded before it still there, so ``arena tournament resume`` finishes the job.
"""

from __future__ import annotations

import errno
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_runner import write_tournament

from arena.cli import cli
from arena.cli._app import _register
from arena.dealer._records import MatchRecorder
from arena.tournament import Store, StoreError, load_tournament
from arena.tournament._errors import expected_error, leaves

_register()


def invoke(*args: str):
    return CliRunner().invoke(cli, [*args, "--no-plugins"])


def assert_one_clean_line(result, *fragments: str) -> None:
    assert result.exit_code not in (0, None), result.output
    assert "Traceback" not in result.output and "ExceptionGroup" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert 1 == len(lines), result.output
    for fragment in fragments:
        assert fragment in lines[0], result.output


def recorded(database: Path) -> dict[str, str]:
    with sqlite3.connect(database) as db:
        return dict(db.execute("select match_key, summary_json from matches"))


class TestGroups:
    def test_leaves_flatten_nested_groups(self):
        """Every leaf of nested exception groups, in order."""
        a, b, c = ValueError("a"), OSError("b"), KeyError("c")
        group = BaseExceptionGroup("outer", [a, ExceptionGroup("inner", [b, c])])
        assert [a, b, c] == leaves(group)
        assert [a] == leaves(a)

    def test_expected_error_only_when_every_leaf_is_expected(self):
        """One expected error inside a group is found; an unexpected one keeps the group."""
        disk = OSError(errno.ENOSPC, "No space left on device")
        assert disk is expected_error(ExceptionGroup("g", [disk, OSError("x")]), OSError)
        assert expected_error(ExceptionGroup("g", [disk, KeyError("k")]), OSError) is None
        assert disk is expected_error(disk, OSError)


def test_disk_full_in_a_match_is_one_line_and_keeps_what_was_recorded(tmp_path, monkeypatch):
    """A match whose records cannot be written stops the run cleanly; earlier matches stay."""
    path = write_tournament(tmp_path, "full", hands=4)
    path.write_text(path.read_text().replace("concurrency = 2", "concurrency = 1"))
    calls = {"hands": 0}
    real = MatchRecorder.on_hand

    def on_hand(self, *args):
        calls["hands"] += 1
        if calls["hands"] > 6:  # the first match (4 hands) is recorded, then the disk fills
            raise OSError(errno.ENOSPC, "No space left on device", str(self.folder / "x"))
        real(self, *args)

    monkeypatch.setattr(MatchRecorder, "on_hand", on_hand)
    result = invoke("tournament", "run", str(path))
    assert_one_clean_line(result, "No space left on device", "r1-m002", "resume")
    assert ["r1-m001"] == sorted(recorded(tmp_path / "arena.db"))
    monkeypatch.setattr(MatchRecorder, "on_hand", real)
    assert 0 == invoke("tournament", "resume", str(path)).exit_code
    assert 3 == len(recorded(tmp_path / "arena.db"))


def test_a_database_that_refuses_a_write_is_one_line(tmp_path, monkeypatch):
    """A read-only or full database (the store's error inside a worker) is one line."""
    path = write_tournament(tmp_path, "readonly", hands=4)

    def refuse(self, *args, **kwargs):
        raise StoreError(f"{self.path}: attempt to write a readonly database")

    monkeypatch.setattr(Store, "record_match", refuse)
    result = invoke("tournament", "run", str(path))
    assert_one_clean_line(result, "readonly database", "arena.db")


def test_unwritable_output_folder_on_resume_is_one_line(tmp_path, monkeypatch):
    """On resume the match folders are made by the workers; a refusal there is one line."""
    path = write_tournament(tmp_path, "ro", hands=4)
    config = load_tournament(path)
    with Store.open(config.database) as store:
        from arena.tournament._runner import prepare

        prepare(config, store, resume=False)

    def refuse(self, folder, settings):
        raise PermissionError(errno.EACCES, "Permission denied", str(folder))

    monkeypatch.setattr(MatchRecorder, "__init__", refuse)
    result = invoke("tournament", "resume", str(path))
    assert_one_clean_line(result, "Permission denied", str(tmp_path / "runs" / "ro"))


def test_resume_on_a_missing_database_is_refused_and_creates_nothing(tmp_path):
    """``resume`` of a database that does not exist says so instead of creating an empty one."""
    path = write_tournament(tmp_path, "nodb")
    result = invoke("tournament", "resume", str(path))
    assert_one_clean_line(result, "no such database", "arena.db")
    assert not (tmp_path / "arena.db").exists()


def test_a_corrupt_database_is_one_line(tmp_path):
    """A database with garbage pages is refused with one line naming the file."""
    path = write_tournament(tmp_path, "first", hands=4)
    assert 0 == invoke("tournament", "run", str(path)).exit_code
    database = tmp_path / "arena.db"
    with sqlite3.connect(database) as db:
        db.execute("pragma wal_checkpoint(truncate)")
    data = bytearray(database.read_bytes())
    page = 4096
    for offset in range(page, len(data), 997):  # keep the header, break every page after it
        data[offset : offset + 64] = b"\xa5" * 64
    database.write_bytes(bytes(data))
    second = write_tournament(tmp_path, "second", hands=4)
    result = invoke("tournament", "run", str(second))
    assert_one_clean_line(result, "arena.db")


def test_a_nul_byte_in_the_name_is_one_line(tmp_path):
    """A name with a NUL byte is a config error naming the key, not a ValueError traceback."""
    path = write_tournament(tmp_path, "nul", hands=4)
    path.write_text(path.read_text().replace('name = "nul"', 'name = "a\\u0000b"', 1))
    result = invoke("tournament", "run", str(path))
    assert_one_clean_line(result, "tournament.name", "folder name")


@pytest.mark.timeout(180)
def test_ctrl_c_exits_130_with_one_line_and_resume_finishes(tmp_path):
    """SIGINT mid-tournament: exit 130, one line, recorded matches kept, resume completes."""
    extra = "".join(f'\n[[bots]]\nname = "extra-{i}"\nbuiltin = "random"\n' for i in range(2))
    path = write_tournament(tmp_path, "interrupted", extra_bots=extra, hands=300)
    database = tmp_path / "arena.db"
    command = [sys.executable, "-m", "arena", "tournament", "run", str(path), "--no-plugins"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
        try:
            if database.exists() and len(recorded(database)) >= 1:
                break
        except sqlite3.Error:
            continue
    assert process.poll() is None, "the tournament ended before it could be interrupted"
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert 130 == process.returncode, err
    assert "Traceback" not in err and "ExceptionGroup" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert 1 == len(lines), err
    assert "interrupted" in lines[0] and "resume" in lines[0]
    before = recorded(database)
    assert 1 <= len(before) < 10
    resumed = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "resume", str(path), "--no-plugins"],
        capture_output=True,
        text=True,
        timeout=150,
        cwd=tmp_path,
    )
    assert 0 == resumed.returncode, resumed.stderr
    after = recorded(database)
    assert 10 == len(after)
    assert all(after[key] == before[key] for key in before)

"""A records folder belongs to one tournament of one database (issue 7, README "Records").

The lock only protects a folder while a run is live. A finished tournament's folder was
overwritten by a second database's tournament of the same name and output: its
``hands.phhs`` replaced, the first database left pointing at another run's records. The
folder is now stamped with its owner (``.owner``) when the tournament is created; a
run or resume from any other database is refused in one line naming both. A folder
moved with its database still resumes (settings are compared relative to the
database's folder, not by absolute path).
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path

from click.testing import CliRunner
from flags import flag_limits
from test_runner import write_tournament

from arena.cli import cli
from arena.cli._app import _register
from arena.tournament import NOT_STARTED

_register()

BROKEN = Path(__file__).resolve().parent / "bots" / "broken_until.py"


def _run(*args: str):
    return CliRunner().invoke(cli, ["tournament", *args, "--no-plugins"])


def _twin(tmp_path: Path, database: str) -> Path:
    """Same name and output as ``same.toml`` but another database and seed."""
    path = write_tournament(tmp_path, "same", hands=4)
    twin = tmp_path / f"twin-{database}.toml"
    text = path.read_text().replace('database = "arena.db"', f'database = "{database}"')
    twin.write_text(text.replace("seed = 5", "seed = 6"))
    return twin


def test_another_database_cannot_replace_a_finished_tournaments_records(tmp_path: Path) -> None:
    """The second database is refused naming both databases; no record is replaced and
    the second database stores no tournament."""
    first = write_tournament(tmp_path, "same", hands=4)
    assert 0 == _run("run", str(first)).exit_code
    records = sorted((tmp_path / "runs" / "same").glob("*/hands.phhs"))
    assert records
    before = {path: path.read_bytes() for path in records}
    twin = _twin(tmp_path, "c.db")

    for command in ("run", "resume"):
        refused = _run(command, str(twin))
        assert 0 != refused.exit_code, refused.output
        assert "Traceback" not in refused.output
        line = refused.output.strip().splitlines()[-1]
        if command == "run":
            assert str(tmp_path / "arena.db") in line and "c.db" in line, line
        assert {path: path.read_bytes() for path in records} == before
    with sqlite3.connect(tmp_path / "c.db") as db:
        assert [] == db.execute("select name from tournaments").fetchall()


def test_a_folder_with_records_but_no_owner_is_not_taken_over(tmp_path: Path) -> None:
    """Records written before the stamp existed are not replaced by a new tournament."""
    first = write_tournament(tmp_path, "same", hands=4)
    assert 0 == _run("run", str(first)).exit_code
    (tmp_path / "runs" / "same" / ".owner").unlink()
    refused = _run("run", str(_twin(tmp_path, "c.db")))
    assert 0 != refused.exit_code
    assert "records folder" in refused.output and "Traceback" not in refused.output


def test_a_moved_tournament_folder_resumes_and_unfinished_runs_exit_3(
    tmp_path: Path, monkeypatch
) -> None:
    """run and resume exit 3 while a match is still not started (scripts can tell);
    the folder moved with its database resumes there and finishes with exit 0."""
    old = tmp_path / "old"
    old.mkdir()
    fixed = tmp_path / "flags" / "fixed"
    monkeypatch.setenv("FIXED", str(fixed))
    extra = f'\n[[bots]]\nname = "broken"\ncommand = "{sys.executable} {BROKEN}"\n'
    extra += flag_limits("FIXED", fixed)
    path = write_tournament(old, "league", extra_bots=extra, hands=4)
    path.write_text(path.read_text() + "\n[timeouts]\nstartup = 5\n")

    first = _run("run", str(path))
    assert 3 == first.exit_code, first.output
    assert "not started" in first.output
    again = _run("resume", str(path))
    assert 3 == again.exit_code, again.output

    new = tmp_path / "new"
    shutil.move(old, new)
    fixed.touch()
    moved = _run("resume", str(new / "league.toml"))
    assert 0 == moved.exit_code, moved.output
    with sqlite3.connect(new / "arena.db") as db:
        reasons = [reason for (reason,) in db.execute("select reason from matches")]
        status = db.execute("select status from tournaments").fetchone()[0]
    assert 6 == len(reasons) and NOT_STARTED not in reasons
    assert "finished" == status

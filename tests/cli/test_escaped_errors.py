"""Every error line the `arena` command prints is escaped, whatever text it quotes.

An error may quote a file a bot could have written (a records folder's owner stamp, a
tournament file's bot command) or text a bot sent; a control character in it must not
reach the organiser's terminal as such.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TOURNAMENT = """
[tournament]
name = "o"
hands_per_match = 4
output = "runs"
database = "{db}"
[[bots]]
name = "r"
builtin = "random"
[[bots]]
name = "c"
builtin = "calling-station"
"""


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_an_error_quoting_a_forged_owner_stamp_is_escaped(tmp_path: Path) -> None:
    records = tmp_path / "runs" / "o"
    records.mkdir(parents=True)
    forged = {"tournament": "o", "id": 9, "created_at": "x", "database": "\x1b]0;pwned\x07\x1b[2J"}
    (records / ".owner").write_text(json.dumps(forged))
    (tmp_path / "t.toml").write_text(TOURNAMENT.format(db="c.db"))
    result = arena("tournament", "run", "t.toml", cwd=tmp_path)
    assert 1 == result.returncode, result.stderr
    assert "records folder" in result.stderr
    assert "\x1b" not in result.stderr + result.stdout
    assert "\x07" not in result.stderr + result.stdout
    assert "\\x1b]0;pwned" in result.stderr


def test_a_usage_error_quoting_a_control_character_is_escaped(tmp_path: Path) -> None:
    result = arena("match", "builtin:no\x1b[31mbody", "builtin:random", cwd=tmp_path)
    assert 2 == result.returncode, result.stderr
    assert "\x1b" not in result.stderr

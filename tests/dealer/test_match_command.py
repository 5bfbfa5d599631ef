"""What `arena match` records and which dealer settings it takes (the dealer's own command)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli, main  # noqa: F401 - main registers the commands
from arena.cli._app import _register

BOTS = Path(__file__).parent / "bots"

_register()

pytestmark = pytest.mark.timeout(60)


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def log_lines(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "log.jsonl").read_text().splitlines()]


def test_a_drawn_seed_is_recorded_before_the_first_hand(tmp_path: Path) -> None:
    """No --seed: the seed drawn from the CSPRNG is in log.jsonl's first line (match
    start), so a match cut short can still be replayed; the same seed deals the same."""
    result = run("match", "builtin:random", "builtin:calling-station", "--hands", "5",
                 "--out", str(tmp_path / "drawn"))  # fmt: skip
    assert result.exit_code == 0, result.output
    (folder,) = (tmp_path / "drawn").iterdir()
    first, *_ = log_lines(folder)
    assert first["event"] == "match_started"
    assert isinstance(first["seed"], int)
    summary = json.loads((folder / "result.json").read_text())
    assert summary["seed"] == first["seed"]
    again = run("match", "builtin:random", "builtin:calling-station", "--hands", "5",
                "--seed", str(first["seed"]), "--out", str(tmp_path / "again"))  # fmt: skip
    assert again.exit_code == 0, again.output
    (replayed,) = (tmp_path / "again").iterdir()
    assert (replayed / "hands.phhs").read_text() == (folder / "hands.phhs").read_text()


def test_hello_timeout_option_bounds_the_wait_for_hello(tmp_path: Path) -> None:
    """--hello-timeout reaches the dealer: a bot that never says Hello gets a TIMEOUT fault."""
    result = run("match", "builtin:random", f"{sys.executable} {BOTS / 'mute.py'}",
                 "--hands", "2", "--hello-timeout", "0.5", "--out", str(tmp_path))  # fmt: skip
    assert result.exit_code == 0, result.output
    (folder,) = tmp_path.iterdir()
    faults = [line for line in log_lines(folder) if line["event"] == "fault"]
    assert faults and faults[0]["reason"] == "TIMEOUT"
    assert "no Hello within 0.5 s" in faults[0]["detail"]


def test_hello_timeout_must_be_positive() -> None:
    """A zero wait for Hello is a usage error naming the option."""
    result = run("match", "builtin:random", "builtin:random", "--hello-timeout", "0")
    assert result.exit_code == 2
    assert "--hello-timeout" in result.output


def test_check_bot_prints_a_bots_text_escaped(tmp_path: Path) -> None:
    """A bot's decision ids reach the terminal as plain text with control characters
    escaped: no rich markup error, no terminal escape sequence."""
    result = CliRunner().invoke(
        cli,
        ["check-bot", f"{sys.executable} {BOTS / 'markup.py'}", "--logs", str(tmp_path)],
    )
    assert result.exit_code == 1, result.output
    assert "WRONG_DECISION_ID" in result.output
    assert "\x1b[2J" not in result.output and "\x07" not in result.output
    assert "[/red][bold]" in result.output

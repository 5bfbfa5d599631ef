"""What the browser tests open, made by the real commands: a tiny tournament's database and
its report, a recorded match and its replay page. Each helper skips (with why) when the
command it needs does not exist yet, so a page's test runs as soon as its command lands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ARENA = [sys.executable, "-m", "arena"]
BOTS = ("random", "calling-station", "rule-based")
TOURNAMENT = """
[tournament]
name = "browser"
format = "round_robin"
hands_per_match = 30
duplicate = true
rounds = 1
concurrency = 2
seed = 3
output = "runs"
database = "arena.db"

[game]
structure = "fixed_limit"
big_blind = 2
stack = 200

[ratings]
anchor = "random"
anchor_rating = 1000
""" + "".join(f'\n[[bots]]\nname = "{bot}"\nbuiltin = "{bot}"\n' for bot in BOTS)


def arena(*args: str, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run ``arena ARGS`` in ``cwd`` (this interpreter's arena); fail with its output if it fails."""
    run = subprocess.run([*ARENA, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0, (
        f"arena {' '.join(args)} exited {run.returncode}:\n{run.stdout}\n{run.stderr}"
    )
    return run


def require_command(*words: str, option: str | None = None) -> None:
    """Skip unless ``arena WORDS --help`` works (and lists ``option``, when given)."""
    run = subprocess.run([*ARENA, *words, "--help"], capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        pytest.skip(f"`arena {' '.join(words)}` does not exist yet")
    if option is not None and option not in run.stdout:
        pytest.skip(f"`arena {' '.join(words)}` has no {option} option yet")


def tiny_tournament(folder: Path) -> Path:
    """Play a round robin of three builtin bots (30 duplicate hands a match); the database."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tiny.toml").write_text(TOURNAMENT, encoding="utf-8")
    arena("tournament", "run", "tiny.toml", "--no-plugins", cwd=folder)
    return folder / "arena.db"


def report_of(database: Path, output: Path) -> Path:
    """``arena report --db DATABASE -o OUTPUT``; the report's path."""
    require_command("report")
    arena("report", "--db", str(database), "-o", str(output), cwd=database.parent)
    assert output.is_file(), f"arena report wrote no {output}"
    return output


def recorded_match(folder: Path, hands: int = 12) -> Path:
    """A seeded match of two builtin bots; its ``hands.phhs``."""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "runs"
    arena(
        "match", "builtin:rule-based", "builtin:calling-station",
        "--hands", str(hands), "--seed", "11", "--sandbox", "off", "--no-plugins", "--out", str(out),
        cwd=folder,
    )  # fmt: skip
    found = sorted(out.glob("**/hands.phhs"))
    assert found, f"the match wrote no hands.phhs under {out}"
    return found[0]


def replay_page(hands: Path, output: Path, *, reveal: bool = False) -> Path:
    """``arena replay --html HANDS -o OUTPUT [--reveal]``; the page's path."""
    require_command("replay", option="--html")
    arena(
        "replay",
        "--html",
        str(hands),
        "-o",
        str(output),
        *(["--reveal"] if reveal else []),
        cwd=hands.parent,
    )
    assert output.is_file(), f"arena replay --html wrote no {output}"
    return output

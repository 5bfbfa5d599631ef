"""docs/teaching.md works as written (issue 13 items 5 and 6): its ``bash`` blocks run in
order in an empty folder (lines marked ``# not run by the test`` aside), and its
``python`` blocks run (the ``arena.rl`` one only where the ``rl`` extra is installed)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "teaching.md"
SKIP_MARK = "# not run by the test"


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", DOC.read_text(), flags=re.M | re.S)


def test_the_doc_has_commands_for_each_part() -> None:
    """The recipe covers new-bot, check-bot, tournament init/run/resume, report, play, rl."""
    script = "\n".join(blocks("bash"))
    for command in (
        "arena new-bot", "arena check-bot", "arena match", "arena tournament init",
        "arena tournament run", "arena tournament resume", "arena report", "arena ratings",
    ):  # fmt: skip
        assert command in script, command
    python = "\n".join(blocks("python"))
    assert "arena.play(" in python and "arena.rl.gym_env(" in python


def test_the_bash_blocks_run_in_order(tmp_path: Path) -> None:
    """Every command a teacher or student copies from the page works (exit status 0)."""
    lines = [
        line
        for block in blocks("bash")
        for line in block.splitlines()
        if line.strip() and SKIP_MARK not in line
    ]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    script = "set -euo pipefail\n" + "\n".join(lines) + "\n"
    done = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=280
    )
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert (tmp_path / "week-2.html").is_file()
    assert (tmp_path / "alice" / "bot.toml").is_file()


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_the_python_blocks_run(tmp_path: Path, index: int) -> None:
    """The notebook-style examples run as printed."""
    code = blocks("python")[index]
    if "arena.rl" in code and importlib.util.find_spec("gymnasium") is None:
        reason = "the rl extra is not installed (pip install -e '.[rl]')"
        print(f"tests/test_teaching_doc.py python block {index} skipped: {reason}")
        pytest.skip(reason)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=200
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip()


def test_the_commands_not_run_still_exist() -> None:
    """A line the test cannot run (a network, a toolchain) names a real command: --help works."""
    from click.testing import CliRunner

    from arena.cli import cli
    from arena.cli._app import _register

    _register()
    skipped = [
        line.split("#")[0].split()
        for block in blocks("bash")
        for line in block.splitlines()
        if SKIP_MARK in line and line.startswith("arena ")
    ]
    assert skipped
    for words in skipped:
        command = [w for w in words[1:3] if re.fullmatch(r"[a-z][a-z-]*", w)]
        if len(command) == 2 and command[0] != "tournament":
            command = command[:1]
        result = CliRunner().invoke(cli, [*command, "--help"])
        assert result.exit_code == 0, (command, result.output)

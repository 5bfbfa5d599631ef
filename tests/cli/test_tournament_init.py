"""``arena tournament init --bots-dir DIR`` (issue 13 item 5): a tournament file for a
folder of student bots, one sub-folder each, skipping with a note what it cannot use."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.cli._app import _register
from arena.cli._init import sanitised
from arena.tournament import load_tournament

EXAMPLES = Path(__file__).resolve().parents[2] / "examples_bots"

_register()


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def _class(tmp_path: Path) -> Path:
    """Students: a new-bot folder, a lone bot.py (a space in its name), a lone bot.js,
    a CMake project without a manifest, a folder of notes, a broken manifest."""
    root = tmp_path / "class"
    root.mkdir()
    assert invoke("new-bot", str(root / "alice")).exit_code == 0
    (root / "bob smith").mkdir()
    shutil.copy(EXAMPLES / "calling_station.py", root / "bob smith" / "bot.py")
    (root / "erin").mkdir()
    (root / "erin" / "bot.js").write_text("// a node bot\n")
    (root / "dave").mkdir()
    (root / "dave" / "CMakeLists.txt").write_text("project(x)\n")
    (root / "carol").mkdir()
    (root / "carol" / "notes.txt").write_text("todo")
    (root / "frank").mkdir()
    (root / "frank" / "bot.toml").write_text('run = "x"\nrn = "y"\n')
    return root


def test_init_writes_a_file_that_loads_with_a_bot_per_usable_folder(tmp_path: Path) -> None:
    """issue 13 item 5: folder, command and requires entries; the rest skipped with a note."""
    root = _class(tmp_path)
    out = tmp_path / "league.toml"
    result = invoke("tournament", "init", "--bots-dir", str(root), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "skipped carol: no bot.toml, bot.py, bot.js or CMakeLists.txt" in result.output
    assert "skipped dave: a CMake project without a bot.toml" in result.output
    assert "skipped frank:" in result.output and "rn: unknown key" in result.output
    assert "erin: run `npm ci` there first" in result.output
    assert "bob smith is named 'bob-smith'" in result.output
    config = load_tournament(out)
    by_name = {bot.name: bot for bot in config.bots}
    assert list(by_name) == [
        "alice", "bob-smith", "erin", "random", "calling-station", "rule-based",
    ]  # fmt: skip
    assert by_name["alice"].folder == (root / "alice").resolve()
    assert by_name["bob-smith"].workdir == (root / "bob smith").resolve()
    assert by_name["erin"].requires == "node"
    assert config.ratings.anchor == "calling-station"
    assert config.name == "class"


def test_init_file_plays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The written file runs as it is: a short league of two students and the baselines;
    its database is the working folder's arena-data/arena.db (issue 21 item 3)."""
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "class"
    root.mkdir()
    assert invoke("new-bot", str(root / "alice")).exit_code == 0
    (root / "bob").mkdir()
    shutil.copy(EXAMPLES / "rule_based.py", root / "bob" / "bot.py")
    out = tmp_path / "league.toml"
    made = invoke("tournament", "init", "--bots-dir", str(root), "--out", str(out),
                  "--hands", "10", "--no-baselines")  # fmt: skip
    assert made.exit_code == 0, made.output
    result = invoke("tournament", "run", str(out))
    assert result.exit_code == 0, result.output
    assert "1/1 matches recorded" in result.output
    assert (tmp_path / "arena-data" / "arena.db").is_file()


def test_init_refuses_to_overwrite_and_names_an_empty_class(tmp_path: Path) -> None:
    """An existing --out needs --force; fewer than two bots is one line."""
    (tmp_path / "empty").mkdir()
    out = tmp_path / "t.toml"
    out.write_text("mine")
    result = invoke("tournament", "init", "--bots-dir", str(tmp_path / "empty"), "--out", str(out))
    assert result.exit_code == 1 and "already exists (--force to overwrite)" in result.output
    assert out.read_text() == "mine"
    result = invoke("tournament", "init", "--bots-dir", str(tmp_path / "empty"),
                    "--out", str(out), "--force", "--no-baselines")  # fmt: skip
    assert result.exit_code == 1 and "fewer than two bots" in result.output


def test_names_are_sanitised_to_bot_names() -> None:
    """Folder names become bot names: other characters to '-', no leading dot, 64 at most."""
    assert sanitised("bob smith") == "bob-smith"
    assert sanitised("..evil/../x") == "evil-..-x"  # a bot name, never a path
    assert sanitised("\x1b[31mred") == "31mred"
    assert sanitised("é") == "bot"
    assert len(sanitised("a" * 100)) == 64

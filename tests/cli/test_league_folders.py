"""A league of student folders over the weeks (issue 13 audit): a student who breaks
their ``bot.toml`` after ``arena tournament init`` forfeits, with a warning, and the
league plays on; a student folder cannot take a baseline's name."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.cli._app import _register
from arena.cli._tournament import NOT_STARTED_EXIT
from arena.tournament import load_tournament

_register()


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test runs in its own folder: init's database is the working folder's
    arena-data/arena.db (issue 21 item 3)."""
    monkeypatch.chdir(tmp_path)


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def _league(tmp_path: Path) -> Path:
    root = tmp_path / "class"
    root.mkdir()
    for student in ("alice", "bob"):
        assert invoke("new-bot", str(root / student)).exit_code == 0
    out = tmp_path / "league.toml"
    made = invoke("tournament", "init", "--bots-dir", str(root), "--out", str(out), "--hands", "6")
    assert made.exit_code == 0, made.output
    text = out.read_text().replace("duplicate = true", "duplicate = false")
    out.write_text(text)
    return out


def _standings(database: Path) -> dict[str, tuple[int, int]]:
    """Each bot's (matches played, matches forfeited) from the stored results."""
    with sqlite3.connect(database) as db:
        rows = db.execute(
            "SELECT bots.name, COUNT(*), SUM(forfeited) FROM seat_results"
            " JOIN bots ON bots.id = seat_results.bot_id GROUP BY bots.name"
        ).fetchall()
    return {bot: (played, forfeits or 0) for bot, played, forfeits in rows}


def test_a_manifest_broken_after_init_forfeits_and_the_league_plays_on(tmp_path: Path) -> None:
    out = _league(tmp_path)
    (tmp_path / "class" / "bob" / "bot.toml").write_text("run = [broken\n")
    config = load_tournament(out)  # not an error for the whole league
    assert {bot.name for bot in config.bots} >= {"alice", "bob"}
    result = invoke("tournament", "run", str(out))
    assert result.exit_code == NOT_STARTED_EXIT, result.output  # scripts can tell
    warning = [line for line in result.output.splitlines() if "bob" in line and "warning" in line]
    assert warning and "bot.toml" in warning[0] and "forfeits" in warning[0], result.output
    assert "Traceback" not in result.output
    played = _standings(tmp_path / "arena-data" / "arena.db")
    assert played["alice"] == (4, 0) and played["bob"][1] == 4, played


def test_a_deleted_student_folder_forfeits_too(tmp_path: Path) -> None:
    out = _league(tmp_path)
    manifest = tmp_path / "class" / "bob" / "bot.toml"
    manifest.unlink()
    result = invoke("tournament", "run", str(out))
    assert result.exit_code == NOT_STARTED_EXIT, result.output
    assert any("bob" in line and "warning" in line for line in result.output.splitlines())


def test_a_student_folder_named_like_a_baseline_does_not_take_its_name(tmp_path: Path) -> None:
    root = tmp_path / "class"
    root.mkdir()
    for student in ("calling-station", "Rule-Based", "alice"):
        assert invoke("new-bot", str(root / student)).exit_code == 0
    out = tmp_path / "league.toml"
    made = invoke("tournament", "init", "--bots-dir", str(root), "--out", str(out))
    assert made.exit_code == 0, made.output
    by_name = {bot.name: bot for bot in load_tournament(out).bots}
    assert by_name["calling-station"].kind == "builtin"
    assert by_name["rule-based"].kind == "builtin"
    students = {name for name, bot in by_name.items() if bot.folder is not None}
    assert len(students) == 3 and "alice" in students
    assert not students & {"calling-station", "rule-based", "random"}
    assert not {name.lower() for name in students} & {"calling-station", "rule-based"}
    assert "baseline" in made.output
    # no look-alike of a baseline's name either (not calling-station-2)
    assert {"student-calling-station", "student-Rule-Based"} <= students


def test_without_bubblewrap_the_warning_comes_before_any_build(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """issue 13 audit: at L0 a build can read and write anything the user can: say so
    before the first build runs, once."""
    import arena.cli._bots as bots_module
    import arena.tournament._folder as folder_module
    from arena.cli._bots import build_folder_bots
    from arena.tournament import parse_bot_text

    monkeypatch.setattr(bots_module, "build_layer", lambda: "L0")
    monkeypatch.setattr(folder_module, "build_layer", lambda: "L0")
    specs = []
    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "bot.toml").write_text('run = "x"\nbuild = ["true"]\n')
        specs.append(parse_bot_text(str(folder)))
    build_folder_bots(specs, strict=False)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("warning: bubblewrap does not work here"), lines
    assert [line.split()[0] for line in lines[1:]] == ["built", "built"], lines

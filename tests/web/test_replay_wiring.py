"""Every match folder gets its replayer once the match is recorded (issue 10 item 2)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tournament"))
from test_runner import write_tournament

from arena.cli import cli
from arena.cli._app import _register
from arena.cli._replays import write_tournament_replays

_register()


def _is_spectator_page(page: Path) -> bool:
    """The replayer page in its spectator form (the director's carries a banner)."""
    text = page.read_text()
    return "replay" in text.lower() and "director's view" not in text


def test_arena_match_writes_the_replay_into_its_folder(tmp_path):
    out = tmp_path / "runs"
    result = CliRunner().invoke(
        cli,
        ["match", "builtin:random", "builtin:calling-station", "--hands", "6", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    (folder,) = out.iterdir()
    page = folder / "replay.html"
    assert f"replay: {page}" in result.output
    assert page.stat().st_mode & 0o777 == 0o600 and _is_spectator_page(page)


def test_a_tournament_writes_one_replay_per_match_and_refreshes_stale_ones(tmp_path):
    path = write_tournament(tmp_path, "league", hands=4)
    result = CliRunner().invoke(cli, ["tournament", "run", str(path), "--no-plugins"])
    assert result.exit_code == 0, result.output
    records = tmp_path / "runs" / "league"
    folders = [hands.parent for hands in records.glob("*/hands.phhs")]
    assert folders and all((f / "replay.html").exists() for f in folders)
    # a page older than its hands (a match played again) is written again; a broken file
    # is a note, never an error
    (folders[0] / "hands.phhs").write_text("not toml [")
    notes = write_tournament_replays(records)
    assert len(notes) == 1 and str(folders[0]) in notes[0] and notes[0].startswith("note:")
    assert json.loads(json.dumps(notes))  # plain text, one line each

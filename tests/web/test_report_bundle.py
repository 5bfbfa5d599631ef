"""Issue 21 item 4: ``arena report --bundle DIR`` writes the report and every replay page as
one folder to publish: links relative inside it (they still resolve once it is moved), no
referee record, no deal key, and no card that the referee's records hold hidden."""

from __future__ import annotations

import re
import shutil
import sqlite3
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
from click.testing import CliRunner

from arena.cli._app import _register, cli
from arena.web import public_match

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))
from arena_runs import tiny_tournament


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.links += [v for k, v in attrs if k in ("href", "src") and v]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_tournament(tmp_path_factory.mktemp("bundle"))


def _bundle(database: Path, folder: Path) -> str:
    _register()
    run = CliRunner().invoke(cli, ["report", "--db", str(database), "--bundle", str(folder)])
    assert run.exit_code == 0, run.output
    return run.output


def _hidden_hands(records: Path) -> list[list[str]]:
    """Each dealt hand the spectator never sees anywhere (duplicate deals repeat a hand that
    may be shown at another table's showdown), as the referee recorded it."""
    shown, dealt = set(), []
    for hands in sorted(records.glob("*/hands.phhs")):
        for hand in public_match(hands, reveal=False):
            shown |= {tuple(step["cards"]) for step in hand["steps"] if step["cards"]}
        for hand in public_match(hands, reveal=True):
            dealt += [
                tuple(s["cards"]) for s in hand["steps"] if s["kind"] == "deal" and s["cards"]
            ]
    return [list(cards) for cards in dealt if cards not in shown]


def test_a_moved_bundle_has_working_links_and_nothing_secret(played: Path, tmp_path: Path) -> None:
    out = _bundle(played, tmp_path / "site")
    assert "replays: 3" in out
    moved = tmp_path / "elsewhere" / "published"
    moved.parent.mkdir()
    shutil.move(tmp_path / "site", moved)
    files = sorted(p.relative_to(moved).as_posix() for p in moved.rglob("*") if p.is_file())
    assert "index.html" in files and len(files) == 4, files
    assert all(f == "index.html" or re.fullmatch(r"replays/\d{4}-[\w-]+\.html", f) for f in files)

    parser = _Links()
    parser.feed((moved / "index.html").read_text(encoding="utf-8"))
    replays = [link for link in parser.links if not link.startswith("#")]
    assert len(replays) >= 3
    for link in replays:
        assert not link.startswith(("/", "file:")) and ".." not in link, link
        assert (moved / unquote(link)).is_file(), f"{link} does not resolve in the moved bundle"

    text = "\n".join((moved / f).read_text(encoding="utf-8") for f in files)
    with sqlite3.connect(played) as db:
        keys = [row[0] for row in db.execute("SELECT deal_key FROM deal_keys")]
    assert keys and not any(key in text for key in keys), "a deal key is in the bundle"
    hidden = _hidden_hands(played.parent / "runs" / "browser")
    assert hidden, "the tiny tournament had no hidden hand to look for"
    for cards in hidden:
        pattern = r"\W{1,4}".join(map(re.escape, cards))
        assert not re.search(pattern, text), f"hidden cards {cards} are in the bundle"
    referee = [p.read_text() for p in (played.parent / "runs" / "browser").rglob("hands.phhs")]
    assert any("".join(hidden[0]) in t for t in referee), "the search would find them there"

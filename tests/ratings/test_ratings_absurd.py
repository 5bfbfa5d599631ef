"""Absurd stored ratings (Inf, +-1e308) neither abort a tournament nor break the table.

README: live Elo "cannot overflow, even on a database that already holds absurd
ratings". A stored ``rating_after`` of Inf (``9e999`` in SQLite) made the next
tournament's Elo NaN, stored as NULL: "record refused: NOT NULL constraint failed".
Ratings read back are now clamped to ``[-RATING_LIMIT, RATING_LIMIT]`` and a non-finite
one counts as the start rating; ``arena ratings --live-elo`` prints bounded figures.
"""

from __future__ import annotations

import math
import sqlite3
import sys
from pathlib import Path

from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tournament"))
from test_runner import write_tournament

from arena.cli import cli
from arena.cli._app import _register
from arena.ratings import MAX_K_FACTOR, RATING_LIMIT, bounded_rating
from arena.tournament import Store

_register()


def test_bounded_rating_clamps_and_replaces_non_finite() -> None:
    assert RATING_LIMIT == bounded_rating(1e308, 1500.0)
    assert -RATING_LIMIT == bounded_rating(-1e308, 1500.0)
    assert 1500.0 == bounded_rating(math.inf, 1500.0)
    assert 1500.0 == bounded_rating(math.nan, 1500.0)
    assert 1234.5 == bounded_rating(1234.5, 1500.0)


def _absurd_database(tmp_path: Path) -> Path:
    first = write_tournament(tmp_path, "first", hands=4)
    result = CliRunner().invoke(cli, ["tournament", "run", str(first), "--no-plugins"])
    assert 0 == result.exit_code, result.output
    database = tmp_path / "arena.db"
    with sqlite3.connect(database) as db:
        ids = dict(db.execute("select name, id from bots"))
        for name, value in (("random", "9e999"), ("calling-station", "1e308")):
            db.execute(
                f"update ratings set rating_after = {value} where id = "
                "(select max(id) from ratings where bot_id = ?)",
                (ids[name],),
            )
        db.execute(
            "update ratings set rating_after = -1e308 where id = "
            "(select max(id) from ratings where bot_id = ?)",
            (ids["rule-based"],),
        )
    return database


def test_a_tournament_on_absurd_stored_ratings_records_bounded_ones(tmp_path: Path) -> None:
    database = _absurd_database(tmp_path)
    second = write_tournament(tmp_path, "second", hands=4)
    result = CliRunner().invoke(cli, ["tournament", "run", str(second), "--no-plugins"])
    assert 0 == result.exit_code, result.output
    with sqlite3.connect(database) as db:
        rows = db.execute(
            "select rating_before, rating_after from ratings r join matches m "
            "on m.id = r.match_id join tournaments t on t.id = m.tournament_id "
            "where t.name = 'second'"
        ).fetchall()
    assert rows
    for before, after in rows:
        assert before is not None and after is not None
        assert abs(before) <= RATING_LIMIT
        assert abs(after) <= RATING_LIMIT + MAX_K_FACTOR * len(rows)
    with Store.open(database, create=False) as store:
        current = store.current_ratings("elo", "fixed_limit")
    assert all(abs(value) <= RATING_LIMIT for value in current.values())


def test_live_elo_of_absurd_ratings_prints_bounded_figures(tmp_path: Path) -> None:
    database = _absurd_database(tmp_path)
    # 120 columns: at 80 a long name may fold onto two lines, depending on the figures
    result = CliRunner().invoke(
        cli, ["ratings", "--db", str(database), "--live-elo"], env={"COLUMNS": "120"}
    )
    assert 0 == result.exit_code, result.output
    assert "1" * 30 not in result.output and "0" * 30 not in result.output
    assert all(len(line) <= 120 for line in result.output.splitlines()), result.output
    for bot in ("random", "calling-station", "rule-based"):
        assert bot in result.output

"""Results recorded at once, Elo in schedule order (issue 12 items 1-2, audit).

A match's rows are committed as soon as it ends, ``rated = 0``; its rating updates are
written in schedule order (:meth:`Store.rate_match`). These cover what that adds: a
coordinator that died with matches recorded and not rated resumes to the very Elo an
uninterrupted run gives (the unrated ones rated in schedule order, those before a
pending match first, the rest after it), and a database of schema version 1 (before
``matches.rated``) opens, counts its matches as rated, and resumes.
"""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

import trio
from test_executor import write

from arena.store._schema import SCHEMA_VERSION
from arena.tournament import Store, game_type_of, load_tournament, run_tournament

MORE_BOTS = """
[[bots]]
name = "random"
builtin = "random"

[[bots]]
name = "random-2"
builtin = "random"
"""


def _run(path: Path, *, resume: bool = False):
    config = load_tournament(path)

    async def main():
        with Store.open(config.database) as store:
            return await run_tournament(config, store, resume=resume)

    return config, trio.run(main)


def _elo_and_chains(config) -> dict[str, float]:
    """The live Elo; every bot's history checked to be a chain on the way."""
    game_type = game_type_of(config.game)
    with Store.open(config.database, create=False) as store:
        for bot in config.bot_names:
            rows = store.rating_history(bot=bot, system="elo", game_type=game_type)
            for previous, row in itertools.pairwise(rows):
                assert row.rating_before == previous.rating_after, (bot, rows)
        return store.current_ratings("elo", game_type)


def _keys(database: Path) -> list[str]:
    with sqlite3.connect(database) as db:
        return [
            k for (k,) in db.execute("SELECT match_key FROM scheduled_matches ORDER BY position")
        ]


def _forget(db: sqlite3.Connection, keys: list[str], *, rows: bool) -> None:
    """Take back these matches' ratings (``rows=False``: they stay recorded, unrated) or
    everything of them (they are pending again), as a coordinator killed earlier left."""
    for key in keys:
        (match_id,) = db.execute("SELECT id FROM matches WHERE match_key = ?", (key,)).fetchone()
        db.execute("DELETE FROM ratings WHERE match_id = ?", (match_id,))
        if rows:
            for table in ("faults", "seat_results"):
                db.execute(f"DELETE FROM {table} WHERE match_id = ?", (match_id,))
            db.execute("DELETE FROM matches WHERE id = ?", (match_id,))
        else:
            db.execute("UPDATE matches SET rated = 0 WHERE id = ?", (match_id,))


def test_recorded_unrated_matches_are_rated_in_schedule_order_on_resume(tmp_path: Path) -> None:
    """Killed with m1 and m3 recorded unrated, m2 and m4.. pending: resume rates m1 before
    play goes on, m3 once m2 is rated, and ends with the uninterrupted run's Elo."""
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    whole, _ = _run(write(tmp_path / "one", "rated", bots=MORE_BOTS))
    expected = _elo_and_chains(whole)
    path = write(tmp_path / "two", "rated", bots=MORE_BOTS)
    config, _ = _run(path)
    keys = _keys(config.database)
    assert len(keys) >= 5
    with sqlite3.connect(config.database) as db:
        _forget(db, keys[3:], rows=True)  # played later: pending
        _forget(db, [keys[2], keys[0]], rows=False)  # recorded, not rated
        _forget(db, [keys[1]], rows=True)  # still playing when it died: pending
        db.execute("UPDATE tournaments SET status = 'running', finished_at = NULL")
    with Store.open(config.database, create=False) as store:
        assert [key for _, key in store.unrated_matches(1)] == [keys[0], keys[2]]
    config, progress = _run(path, resume=True)
    assert progress.done == progress.total == len(keys)
    with Store.open(config.database, create=False) as store:
        assert store.unrated_matches(1) == []
        order = [row.match_key for row in store.rating_history(system="elo")]
    assert list(dict.fromkeys(order)) == keys  # rated in schedule order
    assert _elo_and_chains(config) == expected


def test_a_version_1_database_opens_and_resumes(tmp_path: Path) -> None:
    """A database written before ``matches.rated`` (schema 1) is migrated when opened: its
    matches count as rated (they were recorded with their ratings), and a tournament
    left running in it resumes to the Elo an uninterrupted run gives."""
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    whole, _ = _run(write(tmp_path / "one", "old", bots=MORE_BOTS))
    expected = _elo_and_chains(whole)
    path = write(tmp_path / "two", "old", bots=MORE_BOTS)
    config, _ = _run(path)
    keys = _keys(config.database)
    with sqlite3.connect(config.database) as db:
        _forget(db, keys[2:], rows=True)
        db.execute("UPDATE tournaments SET status = 'running', finished_at = NULL")
        db.execute("ALTER TABLE matches DROP COLUMN rated")  # as version 1 wrote it
        db.execute("DROP TABLE deal_keys")  # (schema 3, issue 19)
        db.execute("UPDATE schema_version SET version = 1")
    with Store.open(config.database, create=False) as store:
        assert store.unrated_matches(1) == []
    with sqlite3.connect(config.database) as db:
        assert db.execute("SELECT version FROM schema_version").fetchone() == (SCHEMA_VERSION,)
        assert db.execute("SELECT count(*), sum(rated) FROM matches").fetchone() == (2, 2)
    config, progress = _run(path, resume=True)
    assert progress.done == progress.total == len(keys)
    assert _elo_and_chains(config) == expected


def test_the_finished_match_callbacks_run_in_trio_s_thread(tmp_path: Path) -> None:
    """``on_match_finished`` (the live page's hub publishes on Trio channels there) is
    called from the Trio run, not from the thread that wrote the ratings."""
    config = load_tournament(write(tmp_path, "thread", bots=MORE_BOTS))
    seen: list[str] = []

    def finished(match_id: str, result: object) -> None:
        try:
            trio.lowlevel.current_task()
            seen.append("trio")
        except RuntimeError:
            seen.append("a worker thread")

    async def main():
        with Store.open(config.database) as store:
            return await run_tournament(config, store, on_match_finished=finished)

    progress = trio.run(main)
    assert seen == ["trio"] * progress.total

"""Item 17: repeated standings on one store read only what changed, and equal a fresh read."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from arena.store._columns import columns_cache
from arena.store._schema import NOT_STARTED
from arena.tournament import Store, compute_standings
from arena.tournament._standings import open_reader

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from bench_standings import build_database

GAME = "fixed_limit"


def fresh(path: Path, **options):
    """The standings from a new connection: nothing cached."""
    with Store.open(path) as store:
        return compute_standings(store, GAME, **options)


def same(a, b) -> None:
    """Equal to the last bit, in the same order (repr shows every float exactly, NaN too)."""
    assert repr(a) == repr(b)


class League:
    """A second tournament on a benchmark database, whose matches the test records one by one."""

    def __init__(self, path: Path, keys: int, seed: int = 7) -> None:
        self.path = path
        self.rng = random.Random(seed)
        bots = [f"bot-{k:03d}" for k in range(8)]
        self.rows = [
            {"key": f"n{k}", "seats": self.rng.sample(bots, self.rng.choice([2, 2, 3])), "hands": 8}
            for k in range(keys)
        ]
        with Store.open(path) as store:
            self.id = store.create_tournament("more", json.dumps({}), self.rows)

    def record(self, store: Store, k: int, *, reason: str = "completed") -> int:
        row = self.rows[k]
        played = reason != NOT_STARTED
        units = 4 if played else 0
        seats = [
            {
                "bot": bot,
                "seat": s,
                "chips": self.rng.randint(-30, 30) if played else 0,
                "hands": 8 if played else 0,
                "faults": self.rng.randint(0, 1),
                "forfeited": not played and s == 0,
                "unit_chips": [self.rng.randint(-9, 9) for _ in range(units)],
            }
            for s, bot in enumerate(row["seats"])
        ]
        return store.record_match(
            self.id,
            row["key"],
            game_type=GAME,
            big_blind=2,
            duplicate_block=2,
            result_summary={"reason": reason, "hands_played": 8 if played else 0},
            seats=seats,
            records_dir="-",
        )


@pytest.fixture
def league(tmp_path: Path) -> League:
    return League(build_database(tmp_path / "l.db", bots=8, matches=30, units=5), keys=12)


def test_a_refit_reads_only_the_matches_recorded_since(league: League) -> None:
    """30 matches read once; then each refit reads the 1 or 2 new ones, and equals a fresh read."""
    with Store.open(league.path) as store:
        cache = columns_cache(store, GAME, None)
        compute_standings(store, GAME, anchor="bot-000")
        assert 30 == cache.reads
        for k, new in ((0, 1), (1, 2), (3, 1)):
            for i in range(k, k + new):
                league.record(store, i)
            before = cache.reads
            live = compute_standings(store, GAME, anchor="bot-000")
            assert new == cache.reads - before
            same(live, fresh(league.path, anchor="bot-000"))
        before = cache.reads
        same(live, compute_standings(store, GAME, anchor="bot-000"))  # nothing new
        assert before == cache.reads


def test_one_tournament_is_kept_apart(league: League) -> None:
    """A tournament's standings ignore the other tournament's new matches, and still equal a fresh read."""
    with Store.open(league.path) as store:
        first = compute_standings(store, GAME, tournament="bench")
        league.record(store, 0)
        cache = columns_cache(store, GAME, "bench")
        before = cache.reads
        same(first, compute_standings(store, GAME, tournament="bench"))
        assert before == cache.reads
        same(
            compute_standings(store, GAME, tournament="more"), fresh(league.path, tournament="more")
        )


def test_a_placeholder_replaced_under_its_own_id_is_read_again(league: League) -> None:
    """A 'not started' forfeit with the largest id, replaced by a played result that reuses the id."""
    with Store.open(league.path) as store:
        league.record(store, 0)
        placeholder = league.record(store, 1, reason=NOT_STARTED)
        forfeit = compute_standings(store, GAME)
        played = league.record(store, 1)
        assert played == placeholder  # SQLite reused the id: only the reason tells them apart
        live = compute_standings(store, GAME)
        same(live, fresh(league.path))
        assert repr(live) != repr(forfeit)


def test_a_placeholder_replaced_under_a_new_id_leaves_its_place(league: League) -> None:
    """A forfeit in the middle, replaced after later matches: the result moves to its new place."""
    with Store.open(league.path) as store:
        placeholder = league.record(store, 0, reason=NOT_STARTED)
        league.record(store, 1)
        league.record(store, 2, reason=NOT_STARTED)
        compute_standings(store, GAME, anchor="bot-001")
        played = league.record(store, 0)
        assert played > placeholder
        league.record(store, 3)
        same(compute_standings(store, GAME, anchor="bot-001"), fresh(league.path, anchor="bot-001"))
        league.record(store, 2)  # the other forfeit, now at the largest id but one
        league.record(store, 4)
        same(compute_standings(store, GAME, anchor="bot-001"), fresh(league.path, anchor="bot-001"))


def test_a_match_deleted_behind_its_back_is_dropped(league: League) -> None:
    """Nothing but a placeholder is ever deleted; if a row goes anyway, the cache follows."""
    with Store.open(league.path) as store:
        compute_standings(store, GAME)
        with store._write() as db:
            (match_id,) = db.execute(
                "SELECT id FROM matches ORDER BY id LIMIT 1 OFFSET 4"
            ).fetchone()
            for table in ("faults", "ratings", "seat_results"):
                db.execute(f"DELETE FROM {table} WHERE match_id = ?", (match_id,))
            db.execute("DELETE FROM matches WHERE id = ?", (match_id,))
        same(compute_standings(store, GAME), fresh(league.path))


def test_the_live_reader_refits_incrementally_in_one_snapshot(league: League) -> None:
    """The refresher's read-only connection (legacy transactions) keeps its cache between refits."""
    reader = open_reader(league.path)
    try:
        compute_standings(reader, GAME)
        with Store.open(league.path) as writer:
            for k in range(5):
                league.record(writer, k)
        cache = columns_cache(reader, GAME, None)
        before = cache.reads
        same(compute_standings(reader, GAME), fresh(league.path))
        assert 5 == cache.reads - before
        assert not reader._db.in_transaction  # the snapshot was closed
    finally:
        reader.close()


def test_a_placeholder_changed_in_place_goes_back_to_its_place(league: League) -> None:
    """Were a forfeit in the middle ever rewritten where it is, it is re-read into record order."""
    with Store.open(league.path) as store:
        league.record(store, 0, reason=NOT_STARTED)
        league.record(store, 1)
        compute_standings(store, GAME)
        with store._write() as db:
            db.execute("UPDATE matches SET reason = 'completed' WHERE reason = ?", (NOT_STARTED,))
        same(compute_standings(store, GAME), fresh(league.path))
        with store._read() as db:
            order = columns_cache(store, GAME, None).refresh(db).match_id
        assert sorted(order.tolist()) == order.tolist()


def test_reading_in_chunks_gives_the_same_bits(league: League, monkeypatch) -> None:
    """The read goes a few hundred matches at a time; 7 at a time gives exactly the same."""
    import arena.store._columns as columns

    for k in range(0, 12, 3):
        with Store.open(league.path) as store:
            league.record(store, k, reason=NOT_STARTED if k == 3 else "completed")
    whole = fresh(league.path, anchor="bot-002")
    monkeypatch.setattr(columns, "_CHUNK", 7)
    same(fresh(league.path, anchor="bot-002"), whole)
    with Store.open(league.path) as store, store._read() as db:
        assert 34 == len(columns.read_columns(db, GAME, None).match_id)

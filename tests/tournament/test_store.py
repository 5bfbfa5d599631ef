"""The store: schema, atomic and idempotent match records, crash safety, queries.

Every test that uses a :class:`Store` runs twice through the ``store_url`` fixture: on a
SQLite file and on a fresh database of a throwaway PostgreSQL server (issue 12 item 4,
``tests/tournament/postgres.py``); the file-only checks (WAL, PRAGMAs, a garbage file)
are SQLite's, and ``test_store_postgres.py`` has PostgreSQL's own.
"""

from __future__ import annotations

import json
import math
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from postgres import postgres_server, store_url  # noqa: F401 (fixtures)

import arena
from arena.dealer import FaultRecord, MatchResult
from arena.store._schema import APPLICATION_ID, SCHEMA_VERSION
from arena.store._store import (
    AlreadyRecorded,
    BotFaults,
    RatingUpdate,
    SeatResult,
    Store,
    StoreError,
    TournamentExists,
    UnknownMatch,
)
from arena.tournament import seat_results

REPO = Path(arena.__file__).resolve().parents[1]


def schedule_rows(
    n: int, bots: tuple[str, ...] = ("alice", "bob", "carol")
) -> list[dict[str, Any]]:
    """``n`` two-seat matches cycling through ``bots``."""
    rows = []
    for i in range(n):
        a, b = bots[i % len(bots)], bots[(i + 1) % len(bots)]
        rows.append({"key": f"m{i:04d}", "seats": [a, b], "hands": 10, "seed": i, "round": i // 3})
    return rows


def record(
    store: Store, tournament_id: int, row_key: str, bots: tuple[str, ...], **overrides: Any
) -> int:
    """Record a plausible result for a scheduled match: seat 0 wins 6 chips."""
    arguments: dict[str, Any] = {
        "game_type": "five-card-draw/nl",
        "big_blind": 2,
        "duplicate_block": 1,
        "result_summary": {"match_id": row_key, "hands_played": 10, "reason": "completed"},
        "seats": [
            SeatResult(
                bot=bot,
                seat=seat,
                chips=6 if seat == 0 else -6,
                hands=10,
                faults=seat,
                unit_chips=(3, 3) if seat == 0 else (-3, -3),
            )
            for seat, bot in enumerate(bots)
        ],
        "records_dir": f"records/{row_key}",
        "rating_updates": [
            RatingUpdate(bot, "elo", "five-card-draw/nl", 1500.0, 1508.0 if s == 0 else 1492.0)
            for s, bot in enumerate(bots)
        ],
        "faults": [FaultRecord(hand_number=3, seat=1, reason="TIMEOUT", detail="", applied="fold")],
    }
    arguments.update(overrides)
    return store.record_match(tournament_id, row_key, **arguments)


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:  # noqa: F811
    with Store.open(store_url) as opened:
        yield opened


def counts(where: Path | str) -> dict[str, int]:
    """Rows per table, read on a connection of its own."""
    with Store.open(where, create=False) as other:
        return {
            table: other._db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for table in ("matches", "seat_results", "faults", "ratings")
        }


class TestOpen:
    def test_creates_schema_with_wal_and_full_sync(self, tmp_path: Path) -> None:
        """A new file gets the schema, its version, our application id, WAL and FULL sync."""
        path = tmp_path / "sub" / "arena.db"
        with Store.open(path) as store:
            assert 1 == store._db.execute("PRAGMA foreign_keys").fetchone()[0]
            assert 2 == store._db.execute("PRAGMA synchronous").fetchone()[0]  # FULL
        with sqlite3.connect(path) as db:
            assert "wal" == db.execute("PRAGMA journal_mode").fetchone()[0]
            assert APPLICATION_ID == db.execute("PRAGMA application_id").fetchone()[0]
            assert [(SCHEMA_VERSION,)] == db.execute(
                "SELECT version FROM schema_version"
            ).fetchall()

    def test_reopen_keeps_data(self, tmp_path: Path) -> None:
        """Reopening finds what was stored and does not add a second version row."""
        path = tmp_path / "arena.db"
        with Store.open(path) as store:
            store.upsert_bot("alice", "python alice.py")
            store.create_tournament("t", "{}", schedule_rows(2))
        with Store.open(path) as store:
            assert "python alice.py" == store.bots()["alice"]
            tournament = store.get_tournament("t")
            assert tournament is not None
            assert 2 == len(store.schedule(tournament.id))
        with sqlite3.connect(path) as db:
            assert 1 == db.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0]

    def test_garbage_file_names_the_file(self, tmp_path: Path) -> None:
        """A file that is not SQLite at all gives a StoreError naming it."""
        path = tmp_path / "notes.db"
        path.write_bytes(b"this is not a database, just some text\n" * 200)
        with pytest.raises(StoreError, match=r"notes\.db") as info:
            Store.open(path)
        assert "not an arena database or corrupt" in str(info.value)

    def test_someone_elses_sqlite_file(self, tmp_path: Path) -> None:
        """A SQLite file with other tables is refused, not written into."""
        path = tmp_path / "other.db"
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE customers (id INTEGER)")
        with pytest.raises(StoreError, match=r"other\.db: not an arena database"):
            Store.open(path)
        with sqlite3.connect(path) as db:
            assert [("customers",)] == db.execute("SELECT name FROM sqlite_schema").fetchall()

    def test_newer_schema_is_refused(self, tmp_path: Path) -> None:
        """A file from a newer arena says so instead of being misread."""
        path = tmp_path / "arena.db"
        Store.open(path).close()
        with sqlite3.connect(path) as db:
            db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
        with pytest.raises(StoreError, match="newer arena"):
            Store.open(path)

    def test_close_twice(self, tmp_path: Path) -> None:
        """Closing twice is harmless."""
        store = Store.open(tmp_path / "arena.db")
        store.close()
        store.close()


class TestTournaments:
    def test_create_and_get(self, store: Store) -> None:
        """A tournament starts running with its schedule in order; finishing stamps it."""
        tournament_id = store.create_tournament("spring", '{"hands": 10}', schedule_rows(4))
        row = store.get_tournament("spring")
        assert row is not None
        assert (tournament_id, "spring", '{"hands": 10}', "running", None) == (
            row.id,
            row.name,
            row.config_json,
            row.status,
            row.finished_at,
        )
        schedule = store.schedule(tournament_id)
        assert ["m0000", "m0001", "m0002", "m0003"] == [s.key for s in schedule]
        assert ("bob", "carol") == schedule[1].seats
        assert (10, 1, False, 0) == (
            schedule[1].hands,
            schedule[1].seed,
            schedule[1].duplicate,
            schedule[1].round,
        )
        assert schedule[3].round == 1
        assert schedule_rows(4)[2] == schedule[2].data
        store.finish_tournament(tournament_id)
        finished = store.get_tournament("spring")
        assert finished is not None
        assert "finished" == finished.status and finished.finished_at
        assert store.get_tournament("autumn") is None
        assert ["spring"] == [t.name for t in store.tournaments()]

    def test_name_taken(self, store: Store) -> None:
        """A second tournament with the same name is refused."""
        store.create_tournament("t", "{}", schedule_rows(1))
        with pytest.raises(TournamentExists):
            store.create_tournament("t", "{}", schedule_rows(1))

    def test_bad_schedule_stores_nothing(self, store: Store) -> None:
        """A duplicate match key refuses the whole tournament, schedule and all."""
        rows = schedule_rows(3)
        rows[2]["key"] = rows[0]["key"]
        with pytest.raises(StoreError):
            store.create_tournament("t", "{}", rows)
        assert store.get_tournament("t") is None
        with pytest.raises(ValueError, match="'hands'"):
            store.create_tournament("u", "{}", [{"key": "x", "seats": ["a", "b"]}])

    def test_pending_shrinks_as_results_are_recorded(self, store: Store) -> None:
        """Pending is the schedule minus recorded keys, still in schedule order."""
        tournament_id = store.create_tournament("t", "{}", schedule_rows(5))
        schedule = store.schedule(tournament_id)
        assert schedule == store.pending_matches(tournament_id)
        for done in (schedule[1], schedule[3]):
            record(store, tournament_id, done.key, done.seats)
        assert ["m0000", "m0002", "m0004"] == [s.key for s in store.pending_matches(tournament_id)]
        for row in store.pending_matches(tournament_id):
            record(store, tournament_id, row.key, row.seats)
        assert [] == store.pending_matches(tournament_id)


class TestRecordMatch:
    def test_failure_mid_transaction_stores_nothing(self, store: Store, store_url: str) -> None:  # noqa: F811
        """A NaN rating (refused after the match and seat rows went in) rolls all of it back."""
        tournament_id = store.create_tournament("t", "{}", schedule_rows(2))
        first = store.schedule(tournament_id)[0]
        record(store, tournament_id, first.key, first.seats)
        before = counts(store_url)
        bad = [
            RatingUpdate("alice", "elo", "five-card-draw/nl", 1500.0, 1510.0),
            RatingUpdate("bob", "elo", "five-card-draw/nl", 1500.0, math.nan),
        ]
        second = store.schedule(tournament_id)[1]
        with pytest.raises(StoreError, match="record refused"):
            record(store, tournament_id, second.key, second.seats, rating_updates=bad)
        assert before == counts(store_url)
        assert [second.key] == [s.key for s in store.pending_matches(tournament_id)]
        record(store, tournament_id, second.key, second.seats)  # the store still works

    def test_two_results_for_one_seat_store_nothing(self, store: Store, store_url: str) -> None:  # noqa: F811
        """A seat given twice breaks the primary key; the match row goes too."""
        tournament_id = store.create_tournament("t", "{}", schedule_rows(1))
        seat = SeatResult(bot="alice", seat=0, chips=1, hands=10)
        with pytest.raises(StoreError):
            record(store, tournament_id, "m0000", ("alice",), seats=[seat, seat])
        assert {"matches": 0, "seat_results": 0, "faults": 0, "ratings": 0} == counts(store_url)

    def test_second_record_of_a_key_raises_and_counts_once(
        self,
        store: Store,
        store_url: str,  # noqa: F811
    ) -> None:
        """Recording a key twice raises AlreadyRecorded with the first id; nothing doubles."""
        tournament_id = store.create_tournament("t", "{}", schedule_rows(1))
        match_id = record(store, tournament_id, "m0000", ("alice", "bob"))
        before = counts(store_url)
        with pytest.raises(AlreadyRecorded) as info:
            record(store, tournament_id, "m0000", ("alice", "bob"))
        assert match_id == info.value.match_id
        assert before == counts(store_url)
        assert {"alice": 1508.0, "bob": 1492.0} == store.current_ratings("elo", "five-card-draw/nl")

    def test_unscheduled_key_is_refused(self, store: Store) -> None:
        """A key that is not in the schedule cannot be recorded."""
        tournament_id = store.create_tournament("t", "{}", schedule_rows(1))
        with pytest.raises(UnknownMatch):
            record(store, tournament_id, "nope", ("alice", "bob"))

    def test_same_key_in_two_tournaments(self, store: Store) -> None:
        """Keys are unique per tournament, not across tournaments."""
        for name in ("a", "b"):
            tournament_id = store.create_tournament(name, "{}", schedule_rows(1))
            record(store, tournament_id, "m0000", ("alice", "bob"))
        assert 2 == len(store.match_rows())

    def test_seat_results_from_a_dealer_result(self) -> None:
        """seat_results cuts units like summarize and counts each seat's faults."""
        result = MatchResult(
            match_id="m",
            names=["a", "b"],
            seed=1,
            hands_played=4,
            chips_won=[3, -3],
            payoffs=[[1, -1], [2, -2], [-1, 1], [1, -1]],
            faults=[FaultRecord(1, 1, "TIMEOUT", "", "fold")],
            sat_out=[False, True],
            forfeited=[False, False],
        )
        rows = seat_results(result, duplicate_block=2)
        assert SeatResult(bot="a", seat=0, chips=3, hands=4, unit_chips=(3, 0)) == rows[0]
        assert (1, True, (-3, 0)) == (rows[1].faults, rows[1].sat_out, rows[1].unit_chips)


class TestQueries:
    @pytest.fixture
    def filled(self, store: Store) -> Store:
        """Two tournaments in two game types, with a later Elo update for alice."""
        nl = store.create_tournament("nl", "{}", schedule_rows(2))
        for row in store.schedule(nl):
            record(store, nl, row.key, row.seats)
        fl = store.create_tournament(
            "fl", "{}", [{"key": "x", "seats": ["dave", "alice"], "hands": 4}]
        )
        record(
            store,
            fl,
            "x",
            ("dave", "alice"),
            game_type="five-card-draw/fl",
            duplicate_block=2,
            rating_updates=[("alice", "elo", "five-card-draw/fl", 1500.0, 1490.0)],
            faults=[],
        )
        return store

    def test_match_rows(self, filled: Store) -> None:
        """Rows come back in record order with seats, per-unit chips and where records are."""
        rows = filled.match_rows()
        assert ["m0000", "m0001", "x"] == [r.key for r in rows]
        first = rows[0]
        assert ("nl", "five-card-draw/nl", 2, 1, 10, "completed", "records/m0000") == (
            first.tournament,
            first.game_type,
            first.big_blind,
            first.duplicate_block,
            first.hands_played,
            first.reason,
            first.records_dir,
        )
        assert [("alice", 0, 6, (3, 3)), ("bob", 1, -6, (-3, -3))] == [
            (s.bot, s.seat, s.chips, s.unit_chips) for s in first.seats
        ]
        assert "m0000" == first.summary["match_id"]
        assert ["x"] == [r.key for r in filled.match_rows(game_type="five-card-draw/fl")]
        assert ["m0000", "m0001"] == [r.key for r in filled.match_rows(tournament="nl")]
        assert [] == filled.match_rows(game_type="five-card-draw/fl", tournament="nl")

    def test_rating_history_and_current(self, filled: Store) -> None:
        """History is in commit order; current ratings are each bot's latest."""
        history = filled.rating_history("alice")
        assert [1508.0, 1490.0] == [r.rating_after for r in history]
        assert [("nl", "m0000"), ("fl", "x")] == [(r.tournament, r.match_key) for r in history]
        assert 1 == len(filled.rating_history("alice", game_type="five-card-draw/nl"))
        assert [] == filled.rating_history(system="glicko")
        assert {"alice": 1508.0, "bob": 1508.0, "carol": 1492.0} == filled.current_ratings(
            "elo", "five-card-draw/nl"
        )
        assert {"alice": 1490.0} == filled.current_ratings("elo", "five-card-draw/fl")

    def test_standing_pool(self, filled: Store) -> None:
        """Only bots with a recorded match in the game type are in its pool."""
        assert ["alice", "bob", "carol"] == filled.standing_pool("five-card-draw/nl")
        assert ["alice", "dave"] == filled.standing_pool("five-card-draw/fl")
        assert [] == filled.standing_pool("five-card-draw/pl")

    def test_faults_by_bot(self, filled: Store) -> None:
        """Fault counts come from seat rows, reasons from the fault records."""
        faults = filled.faults_by_bot()
        assert BotFaults("bob", 2, 20, 1, 0, 0, {"TIMEOUT": 1}) == faults["bob"]
        assert {"TIMEOUT": 1} == faults["bob"].reasons
        assert {"TIMEOUT": 1} == faults["carol"].reasons
        assert {"TIMEOUT": ""} == faults["bob"].details  # the most common detail per reason
        assert (2, 1, {}) == (
            faults["alice"].matches,
            faults["alice"].faults,
            faults["alice"].reasons,
        )
        assert ["alice", "dave"] == sorted(filled.faults_by_bot(tournament="fl"))


# --- crash safety ---------------------------------------------------------------------

CHILD = textwrap.dedent(
    """
    import sys, time
    import arena.store._writer as writer_module
    from arena.store._store import RatingUpdate, SeatResult, Store

    path, hang_after = sys.argv[1], int(sys.argv[2])
    store = Store.open(path)
    tournament = store.get_tournament("crash")
    for done, row in enumerate(store.pending_matches(tournament.id)):
        if done == hang_after:
            # Stop for good inside the transaction, after the match and seat rows went in.
            def hang(value):
                print("inside", flush=True)
                time.sleep(600)
            writer_module.finite_rating = hang
        seats = [
            SeatResult(bot=bot, seat=i, chips=(-1) ** i * 5, hands=row.hands, faults=i,
                       unit_chips=tuple(range(row.hands)))
            for i, bot in enumerate(row.seats)
        ]
        store.record_match(
            tournament.id, row.key, game_type="fcd", big_blind=2, duplicate_block=1,
            result_summary={"hands_played": row.hands}, seats=seats,
            records_dir="records/" + row.key,
            rating_updates=[RatingUpdate(bot, "elo", "fcd", 1500.0, 1500.0 + i)
                            for i, bot in enumerate(row.seats)],
            faults=[{"hand_number": 1, "seat": 1, "reason": "TIMEOUT"}],
        )
        print("recorded", row.key, flush=True)
    print("done", flush=True)
    """
)

SEATS = 4


def run_child(path: Path | str, *, kill_after: int | None, hang_after: int = -1) -> list[str]:
    """Run the recording loop in a fresh interpreter; SIGKILL it after ``kill_after`` commits
    (or once it hangs inside a transaction). Returns the keys it reported as committed."""
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), str(hang_after)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert process.stdout is not None
    committed: list[str] = []
    try:
        for line in process.stdout:
            if line.startswith("recorded"):
                committed.append(line.split()[1])
            if line.startswith("inside") or (
                kill_after is not None and len(committed) >= kill_after
            ):
                process.send_signal(signal.SIGKILL)
                break
    finally:
        process.wait(timeout=60)
        process.stdout.close()
    if kill_after is None and hang_after < 0:
        assert 0 == process.returncode
    else:
        assert -signal.SIGKILL == process.returncode
    return committed


def assert_consistent(path: Path | str) -> set[str]:
    """The file reopens; every recorded match has all its rows. Returns the recorded keys."""
    with Store.open(path) as store:
        if isinstance(store._db, sqlite3.Connection):  # PostgreSQL checks its keys as it writes
            assert [("ok",)] == store._db.execute("PRAGMA integrity_check").fetchall()
            assert [] == store._db.execute("PRAGMA foreign_key_check").fetchall()
        rows = store.match_rows(tournament="crash")
        for row in rows:
            assert SEATS == len(row.seats), row.key
            assert all(len(seat.unit_chips) == 10 for seat in row.seats)
            assert row.records_dir == "records/" + row.key
        per_match = dict(
            store._db.execute("SELECT match_id, COUNT(*) FROM ratings GROUP BY match_id")
        )
        assert {row.id: SEATS for row in rows} == per_match
        faults = dict(store._db.execute("SELECT match_id, COUNT(*) FROM faults GROUP BY match_id"))
        assert {row.id: 1 for row in rows} == faults
        keys = [row.key for row in rows]
        assert len(keys) == len(set(keys))
        tournament = store.get_tournament("crash")
        assert tournament is not None
        pending = {row.key for row in store.pending_matches(tournament.id)}
        assert set() == pending & set(keys)
        assert 300 == len(pending) + len(keys)
    return set(keys)


class TestCrashSafety:
    @pytest.fixture
    def path(self, store_url: str) -> str:  # noqa: F811
        path = store_url
        bots = [f"bot{i}" for i in range(6)]
        schedule = [
            {"key": f"k{i:03d}", "seats": [bots[(i + s) % 6] for s in range(SEATS)], "hands": 10}
            for i in range(300)
        ]
        with Store.open(path) as store:
            store.create_tournament("crash", json.dumps({"seats": SEATS}), schedule)
        return path

    def test_kill_inside_a_transaction_leaves_no_partial_match(self, path: str) -> None:
        """SIGKILL between a match's seat rows and its ratings: the match is simply absent."""
        committed = run_child(path, kill_after=None, hang_after=3)
        assert ["k000", "k001", "k002"] == committed
        assert {"k000", "k001", "k002"} == assert_consistent(path)
        assert {
            "matches": 3,
            "seat_results": 3 * SEATS,
            "faults": 3,
            "ratings": 3 * SEATS,
        } == counts(path)

    def test_kill_and_resume_loses_nothing_and_counts_nothing_twice(self, path: str) -> None:
        """Killed three times mid-loop then resumed to the end: all 300 matches, each once."""
        confirmed: set[str] = set()
        for _ in range(3):
            confirmed |= set(run_child(path, kill_after=25))
            recorded = assert_consistent(path)
            assert confirmed <= recorded  # no committed match lost
            assert len(recorded) < 300  # killed mid-way, not after the end
        run_child(path, kill_after=None)
        assert len(assert_consistent(path)) == 300
        with Store.open(path) as store:
            tournament = store.get_tournament("crash")
            assert tournament is not None
            assert [] == store.pending_matches(tournament.id)
            with pytest.raises(AlreadyRecorded):
                store.record_match(
                    tournament.id,
                    "k000",
                    game_type="fcd",
                    big_blind=2,
                    duplicate_block=1,
                    result_summary={},
                    seats=[],
                    records_dir="",
                )
        assert {
            "matches": 300,
            "seat_results": 300 * SEATS,
            "faults": 300,
            "ratings": 1200,
        } == counts(path)


def test_store_readers_delegate_their_sql_to_the_queries_module() -> None:
    """Every Store method that reads (``self._read()``) runs no SQL itself: it calls one
    function of arena.store._queries, so the read queries live in one module."""
    import ast

    source = (REPO / "arena" / "store" / "_store.py").read_text()
    store = next(
        node
        for node in ast.parse(source).body
        if isinstance(node, ast.ClassDef) and node.name == "Store"
    )
    readers = {}
    for method in store.body:
        if not isinstance(method, ast.FunctionDef) or method.name == "_read":
            continue
        calls = [node for node in ast.walk(method) if isinstance(node, ast.Call)]
        names = {ast.unparse(call.func) for call in calls}
        if "self._read" in names:
            readers[method.name] = names
    assert {"bots", "match_rows", "faults_by_bot", "schedule", "rating_history"} <= set(readers)
    for name, called in readers.items():
        assert not any(text.endswith(".execute") for text in called), name
        assert any(text.startswith("_queries.") for text in called), name


class TestNotStarted:
    def test_a_forfeit_is_listed_replaced_once_and_the_standings_follow(self, store: Store) -> None:
        """A NOT_STARTED forfeit is listed for resume, a played result replaces its rows in
        one transaction (never the other way round), and the cached standings columns then
        equal a fresh read (the placeholder is re-read)."""
        from arena.store._columns import columns_cache, read_columns, snapshot
        from arena.tournament import NOT_STARTED, compute_standings

        tournament_id = store.create_tournament("t", "{}", schedule_rows(3))
        first, second, _third = store.schedule(tournament_id)
        record(store, tournament_id, first.key, first.seats)
        forfeit = [
            SeatResult(bot=second.seats[0], seat=0, chips=0, hands=0, forfeited=True),
            SeatResult(bot=second.seats[1], seat=1, chips=0, hands=0),
        ]
        summary = {"reason": NOT_STARTED, "hands_played": 0}
        record(
            store, tournament_id, second.key, second.seats, seats=forfeit, result_summary=summary
        )
        assert [second.key] == [row.key for row in store.not_started_matches(tournament_id)]
        assert ["m0002"] == [row.key for row in store.pending_matches(tournament_id)]
        before = compute_standings(store, "five-card-draw/nl")
        assert 2 == before.matches
        record(store, tournament_id, second.key, second.seats)  # played: replaces it
        assert [] == store.not_started_matches(tournament_id)
        rows = store.match_rows()
        assert [first.key, second.key] == [row.key for row in rows]
        assert ["completed", "completed"] == [row.reason for row in rows]
        assert [(6, 10), (-6, 10)] == [(seat.chips, seat.hands) for seat in rows[1].seats]
        with pytest.raises(AlreadyRecorded):  # a forfeit never replaces a played result
            record(
                store,
                tournament_id,
                second.key,
                second.seats,
                seats=forfeit,
                result_summary=summary,
            )
        cached = compute_standings(store, "five-card-draw/nl")
        with store._read() as db, snapshot(db):
            kept = columns_cache(store, "five-card-draw/nl", None).refresh(db)
            fresh = read_columns(db, "five-card-draw/nl", None)
        assert fresh.match_id.tolist() == kept.match_id.tolist()
        assert [True, True] == kept.completed.tolist() == fresh.completed.tolist()
        assert fresh.chips.tolist() == kept.chips.tolist() == [6, -6, 6, -6]
        assert before.rows != cached.rows
        assert {r.bot: (r.matches, r.hands) for r in cached.rows} == {
            "alice": (1, 10),
            "bob": (2, 20),
            "carol": (1, 10),
        }

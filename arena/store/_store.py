"""Persistence: bots, tournaments, matches, per-seat results and rating history.

By default one SQLite file, no server; a ``postgresql://`` URL instead names a
PostgreSQL database that the machines of a league share (:mod:`arena.store._db`:
the same tables, the same transactions and errors). Each finished match is committed in one transaction together with
its seat results, faults and rating updates (or, ``rated = 0``, with its ratings in a
later one, :meth:`Store.rate_match`), so after ``kill -9`` a match is either all
there or not there at all; ``UNIQUE (tournament_id, match_key)`` makes sure a resumed
tournament never counts one twice (:class:`AlreadyRecorded`).

Durability: the file runs in WAL mode with ``synchronous = FULL``. WAL with ``NORMAL``
already survives the process being killed (a commit is in the WAL file, in the OS page
cache, before ``COMMIT`` returns); ``FULL`` also fsyncs the WAL at every commit, so a
recorded match survives a power cut or kernel crash too. That is one fsync per match,
which is nothing next to the match itself.

The queries behind the readers are in :mod:`arena.store._queries`, the rows a
match writes in :mod:`arena.store._writer`; this module opens the file and owns
the lock and the transactions. Every method is synchronous and short (one small
transaction). A :class:`Store` may be shared between threads, e.g. called through
``trio.to_thread.run_sync``; a lock serialises the calls. Another process may open the same file: writers wait up to
``busy_timeout`` seconds for each other. On PostgreSQL every write transaction first
takes one advisory lock, so writers also go one at a time, and a connection that breaks
is a :class:`StoreError` like any other.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from arena.store import _db, _queries, _writer
from arena.store._db import Connection
from arena.store._schema import (
    AlreadyRecorded,
    BotFaults,
    MatchRow,
    RatingReader,
    RatingRow,
    RatingUpdate,
    ScheduledRow,
    SchemaError,
    SeatResult,
    SeatRow,
    StoreError,
    TournamentExists,
    TournamentRow,
    UnknownMatch,
    migrate,
    read_version,
)
from arena.store._writer import get_field, now

Updates = Sequence[RatingUpdate | tuple[str, str, str, float, float]]
"""Rating updates as :class:`RatingUpdate` s or plain tuples."""

RatingsFrom = Callable[[RatingReader], Updates]
"""``updates(current)``: a match's rating updates from the current ratings."""

RateFrom = Callable[[RatingReader, Sequence[SeatRow], str | None], Updates]
"""``updates(current, seats, reason)``: a recorded match's updates from its stored rows."""

__all__ = [
    "AlreadyRecorded",
    "BotFaults",
    "MatchRow",
    "RatingRow",
    "RatingUpdate",
    "ScheduledRow",
    "SeatResult",
    "SeatRow",
    "Store",
    "StoreError",
    "TournamentExists",
    "TournamentRow",
    "UnknownMatch",
]


_ERRORS: tuple[type[Exception], ...] = (*_db.ERRORS, UnicodeDecodeError)
"""What a statement may raise besides a refused row (sqlite3 fails to decode some
messages about garbage pages)."""


# --- the store ----------------------------------------------------------------------


def _as_dict(item: Any) -> dict[str, Any]:
    if isinstance(item, Mapping):
        return dict(item)
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return dataclasses.asdict(item)
    if hasattr(item, "_asdict"):
        return dict(item._asdict())
    return dict(vars(item))


def _seed(value: Any) -> int | None:
    if value is None:
        return None
    seed = int(value)
    if not -(2**63) <= seed < 2**63:
        raise ValueError(f"seed {seed} does not fit in 64 signed bits")
    return seed


class Store:
    """An open arena database. Use :meth:`open`; close it, or use it as a context manager."""

    BUSY_TIMEOUT = 30.0
    """Seconds a writer waits for another process's transaction before giving up."""

    def __init__(self, connection: Connection, path: str) -> None:
        self._db = connection
        self.path = path
        """The database's name for messages: the file, or the URL without its password."""
        self._lock = threading.Lock()

    # --- opening and closing --------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True) -> Store:
        """Open (creating it and its parent folder if missing) the database at ``path``.

        With ``create=False`` a missing file is refused instead (``resume`` and ``arena
        ratings`` must not leave an empty database behind a typo).

        Raises :class:`StoreError` naming the file when it is missing (``create=False``),
        cannot be opened, is not an arena database, is corrupt, or was written by a
        newer arena.
        """
        if _db.is_url(path):
            return cls._open_postgres(str(path), create=create)
        name = str(path)
        if name != ":memory:" and not create and not Path(name).is_file():
            raise StoreError(f"{name}: no such database")
        if name != ":memory:":
            try:
                Path(name).parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise StoreError(f"{name}: cannot create its folder: {error.strerror}") from None
        try:
            connection = sqlite3.connect(
                name, isolation_level=None, check_same_thread=False, timeout=cls.BUSY_TIMEOUT
            )
        except sqlite3.Error as error:
            raise StoreError(f"{name}: cannot open: {error}") from error
        try:
            # The first read of the header tells a garbage file from a database.
            connection.execute("PRAGMA foreign_keys = ON")
            connection.execute("PRAGMA journal_mode = WAL").fetchone()
            connection.execute("PRAGMA synchronous = FULL")
            migrate(connection)
        except SchemaError as error:
            connection.close()
            raise StoreError(f"{name}: {error}") from None
        except sqlite3.OperationalError as error:
            connection.close()
            if name != ":memory:" and not os.access(Path(name).resolve().parent, os.W_OK):
                raise StoreError(
                    f"{name}: cannot open: {_why(error)}; its folder is not writable "
                    "(SQLite keeps its -wal and -shm files next to the database)"
                ) from None
            raise StoreError(f"{name}: not an arena database or corrupt: {_why(error)}") from None
        except (sqlite3.Error, UnicodeDecodeError) as error:
            # sqlite3 fails to decode some messages about garbage pages: corrupt as well
            connection.close()
            raise StoreError(f"{name}: not an arena database or corrupt: {_why(error)}") from None
        return cls(connection, name)

    @classmethod
    def _open_postgres(cls, url: str, *, create: bool) -> Store:
        """Open a PostgreSQL database (it must exist; its tables are created if missing)."""
        name = _db.redact(url)
        try:
            connection = _db.connect(url)
        except _db.DatabaseError as error:
            raise StoreError(f"{name}: {error}") from None
        try:
            if not create and read_version(connection) == 0:
                raise StoreError(f"{name}: no arena database there (no arena tables)")
            migrate(connection)
        except SchemaError as error:
            connection.close()
            raise StoreError(f"{name}: {error}") from None
        except _db.DatabaseError as error:
            connection.close()
            raise StoreError(f"{name}: cannot open: {error}") from None
        except BaseException:
            connection.close()
            raise
        return cls(connection, name)

    def close(self) -> None:
        """Close the file; closing twice is fine."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self._lock, self._errors():
            yield self._db

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """One ``BEGIN IMMEDIATE`` ... ``COMMIT``; any exception rolls all of it back."""
        with self._lock, self._errors():
            _db.begin_write(self._db)
            try:
                yield self._db
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except _db.INTEGRITY_ERRORS as error:
            raise StoreError(f"{self.path}: record refused: {error}") from error
        except _ERRORS as error:
            raise StoreError(f"{self.path}: {_why(error)}") from error

    # --- bots -----------------------------------------------------------------------

    def upsert_bot(self, name: str, spec: str = "") -> int:
        """The bot's id, adding it if new; a non-empty ``spec`` replaces the stored one."""
        with self._write() as db:
            return self._bot_id(db, name, spec)

    @staticmethod
    def _bot_id(db: Connection, name: str, spec: str = "") -> int:
        db.execute(
            "INSERT INTO bots (name, spec, created_at) VALUES (?, ?, ?) "
            "ON CONFLICT (name) DO UPDATE SET spec = excluded.spec WHERE excluded.spec <> ''",
            (name, spec, now()),
        )
        (bot_id,) = db.execute("SELECT id FROM bots WHERE name = ?", (name,)).fetchone()
        return int(bot_id)

    def bots(self) -> dict[str, str]:
        """Every bot's name and spec, by name."""
        with self._read() as db:
            return _queries.bots(db)

    # --- tournaments ----------------------------------------------------------------

    def create_tournament(
        self, name: str, config_json: str, schedule: Sequence[Mapping[str, Any]]
    ) -> int:
        """Store a tournament and its whole schedule in one transaction; returns its id.

        Each schedule row is a mapping (or an object with these attributes): ``key``
        (unique within the tournament), ``seats`` (bot names in seat order), ``hands``,
        and optionally ``seed`` (int or None), ``duplicate`` (bool) and ``round`` (int).
        The row is also kept as given, in :attr:`ScheduledRow.data`. Bots named in the
        seats are added if new. Raises :class:`TournamentExists` if the name is taken and
        ``ValueError`` for a malformed row (nothing is stored then).
        """
        rows = []
        for position, item in enumerate(schedule):
            key = str(get_field(item, "key"))
            seats = [str(seat) for seat in get_field(item, "seats")]
            data = _as_dict(item)
            rows.append(
                (
                    position,
                    key,
                    int(get_field(item, "round", 0)),
                    seats,
                    int(get_field(item, "hands")),
                    _seed(get_field(item, "seed", None)),
                    bool(get_field(item, "duplicate", False)),
                    json.dumps(data, sort_keys=True, default=str),
                )
            )
        with self._write() as db:
            if db.execute("SELECT 1 FROM tournaments WHERE name = ?", (name,)).fetchone():
                raise TournamentExists(f"{self.path}: a tournament named {name!r} exists")
            [(tournament_id,)] = db.execute(
                "INSERT INTO tournaments (name, config_json, status, created_at) "
                "VALUES (?, ?, 'running', ?) RETURNING id",
                (name, config_json, now()),
            ).fetchall()
            for bot in dict.fromkeys(bot for row in rows for bot in row[3]):  # first seen first
                self._bot_id(db, bot)
            db.executemany(  # one round trip per batch on PostgreSQL, not per row
                "INSERT INTO scheduled_matches (tournament_id, position, match_key, round, "
                "seats_json, hands, seed, duplicate, row_json) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (tournament_id, p, key, round_, json.dumps(seats), hands, seed, int(dup), data)
                    for p, key, round_, seats, hands, seed, dup, data in rows
                ],
            )
            return int(tournament_id)

    def get_tournament(self, name: str) -> TournamentRow | None:
        with self._read() as db:
            return _queries.tournament(db, name)

    def deal_key(self, tournament_id: int, default: str) -> str:
        """The tournament's deal key (``default`` stored first if it has none: an older one)."""
        with self._write() as db:
            row = db.execute(
                "SELECT deal_key FROM deal_keys WHERE tournament_id = ?", (tournament_id,)
            ).fetchone()
            if row is not None:
                return str(row[0])
            db.execute(
                "INSERT INTO deal_keys (tournament_id, deal_key) VALUES (?, ?)",
                (tournament_id, default),
            )
            return default

    def tournaments(self) -> list[TournamentRow]:
        """Every tournament, oldest first."""
        with self._read() as db:
            return _queries.tournaments(db)

    def finish_tournament(self, tournament_id: int) -> None:
        """Mark it finished (the first finish time is kept if called again)."""
        with self._write() as db:
            cursor = db.execute(
                "UPDATE tournaments SET status = 'finished', finished_at = COALESCE(finished_at, ?) "
                "WHERE id = ?",
                (now(), tournament_id),
            )
            if cursor.rowcount != 1:
                raise UnknownMatch(f"{self.path}: no tournament with id {tournament_id}")

    def schedule(self, tournament_id: int) -> list[ScheduledRow]:
        """The whole schedule, in order."""
        with self._read() as db:
            return _queries.scheduled(db, tournament_id, pending_only=False)

    def pending_matches(self, tournament_id: int) -> list[ScheduledRow]:
        """Schedule rows with no recorded result yet, in schedule order."""
        with self._read() as db:
            return _queries.scheduled(db, tournament_id, pending_only=True)

    def not_started_matches(self, tournament_id: int) -> list[ScheduledRow]:
        """Schedule rows recorded as :data:`NOT_STARTED` forfeits, which resume plays."""
        with self._read() as db:
            return _queries.scheduled(db, tournament_id, pending_only=False, not_started=True)

    # --- results --------------------------------------------------------------------

    def record_match(
        self,
        tournament_id: int,
        match_key: str,
        *,
        game_type: str,
        big_blind: int,
        duplicate_block: int,
        result_summary: Mapping[str, Any],
        seats: Sequence[SeatResult | Mapping[str, Any]],
        records_dir: str | Path,
        rating_updates: Updates | RatingsFrom = (),
        faults: Sequence[Any] = (),
        rated: bool = True,
    ) -> int:
        """Record a finished match, its seats, faults and rating updates atomically.

        All of it is one ``BEGIN IMMEDIATE`` ... ``COMMIT``: if anything fails, nothing
        of the match is stored. ``seats`` are :class:`SeatResult` s (or mappings with
        the same keys); ``faults`` are :class:`arena.dealer.FaultRecord` -like objects
        or mappings; ``records_dir`` is where the match's hand histories are. Returns the
        new match id.

        ``rating_updates`` may be a function ``updates(current)`` instead of a list: it
        is called inside the transaction, once this writer has the database to itself,
        with a reader of the current ratings (:data:`RatingReader`), so ratings read and
        written by two coordinators at once never interleave. ``rated=False`` records the
        match without its ratings (none may be given): :meth:`rate_match` adds them later.

        Raises :class:`AlreadyRecorded` (nothing written) when the key already has a
        result: a match is never counted twice. The one exception is a
        :data:`NOT_STARTED` forfeit, a placeholder for a match a bot could not start:
        a played result (any other reason) replaces it, its rows deleted in the same
        transaction. Raises :class:`UnknownMatch` when the key
        is not in the tournament's schedule, and :class:`StoreError` when a row breaks a
        constraint (e.g. a NaN rating or two results for one seat).
        """
        rows = _writer.seat_rows(seats)  # bad values fail before the transaction
        if not rated and (callable(rating_updates) or rating_updates):
            raise ValueError("a match recorded with rated=False takes no rating updates")
        with self._write() as db:
            _writer.refuse_or_replace(db, self.path, tournament_id, match_key, result_summary)
            match_id = _writer.insert_match(
                db,
                tournament_id,
                match_key,
                game_type=game_type,
                big_blind=big_blind,
                duplicate_block=duplicate_block,
                result_summary=result_summary,
                records_dir=records_dir,
                rated=rated,
            )
            _writer.insert_seats(db, match_id, rows, self._bot_id)
            _writer.insert_faults(db, match_id, faults)
            updates = (
                rating_updates(self._reader(db)) if callable(rating_updates) else rating_updates
            )
            _writer.insert_ratings(db, match_id, [RatingUpdate(*u) for u in updates], self._bot_id)
            return match_id

    def rate_match(self, tournament_id: int, match_key: str, updates: RateFrom) -> bool:
        """Write the ratings of a match recorded with ``rated=False``; False if it has them.

        ``updates(current, seats, reason)`` is called inside the write transaction (as in
        :meth:`record_match`) with the current ratings' reader and the match's stored
        seats (seat order) and reason. Raises :class:`UnknownMatch` when no such match
        is recorded.
        """
        with self._write() as db:
            row = db.execute(
                "SELECT id, rated, reason FROM matches WHERE tournament_id = ? AND match_key = ?",
                (tournament_id, match_key),
            ).fetchone()
            if row is None:
                raise UnknownMatch(
                    f"{self.path}: match {match_key!r} of tournament {tournament_id} "
                    "is not recorded"
                )
            match_id, rated, reason = int(row[0]), bool(row[1]), row[2]
            if rated:
                return False
            seats = _queries.match_seats(db, match_id)
            rows = [RatingUpdate(*u) for u in updates(self._reader(db), seats, reason)]
            _writer.insert_ratings(db, match_id, rows, self._bot_id)
            db.execute("UPDATE matches SET rated = 1 WHERE id = ?", (match_id,))
            return True

    def unrated_matches(self, tournament_id: int) -> list[tuple[int, str]]:
        """``(position, key)`` of matches recorded without their ratings, schedule order."""
        with self._read() as db:
            return _queries.unrated(db, tournament_id)

    @staticmethod
    def _reader(db: Connection) -> RatingReader:
        return lambda system, game_type: _queries.current_ratings(db, system, game_type)

    # --- queries --------------------------------------------------------------------

    def match_rows(
        self, game_type: str | None = None, tournament: str | None = None
    ) -> list[MatchRow]:
        """Recorded matches in the order they were recorded, optionally filtered."""
        with self._read() as db:
            return _queries.match_rows(db, game_type=game_type, tournament=tournament)

    def rating_history(
        self, bot: str | None = None, system: str = "elo", game_type: str | None = None
    ) -> list[RatingRow]:
        """Rating changes in the order they were recorded."""
        with self._read() as db:
            return _queries.rating_history(db, bot=bot, system=system, game_type=game_type)

    def current_ratings(self, system: str, game_type: str) -> dict[str, float]:
        """Each rated bot's latest ``rating_after`` in this system and game type."""
        with self._read() as db:
            return _queries.current_ratings(db, system, game_type)

    def standing_pool(self, game_type: str) -> list[str]:
        """Bots with at least one recorded match in this game type, by name."""
        with self._read() as db:
            return _queries.standing_pool(db, game_type)

    def faults_by_bot(
        self, game_type: str | None = None, tournament: str | None = None
    ) -> dict[str, BotFaults]:
        """Per bot with a recorded match: matches, hands, faults, sit-outs, forfeits, reasons."""
        with self._read() as db:
            return _queries.faults_by_bot(db, game_type=game_type, tournament=tournament)


def _why(error: Exception) -> str:
    """SQLite's message in one printable line (a corrupt file's message may hold its bytes)."""
    if isinstance(error, UnicodeDecodeError):
        text = bytes(error.object).decode("utf-8", "replace")
    else:
        text = str(error)
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text if len(text) <= 200 else text[:200] + "..."

"""The arena database's schema, its version and its migrations.

One SQLite file holds everything a tournament leaves besides the hand histories (those
stay on disk; ``matches.records_dir`` says where). The file is marked as ours twice:
``PRAGMA application_id`` and a one-row ``schema_version`` table. To change the schema,
append a script to :data:`MIGRATIONS`; :func:`migrate` runs every script past the file's
version in one transaction, so a file is always at one version or the next, never between.

PostgreSQL gets the same tables (:func:`postgres_script`: 64-bit integer columns, an
identity for each ``INTEGER PRIMARY KEY``, bytewise ``COLLATE "C"`` text so names sort as
in SQLite); its mark is a comment on ``schema_version`` instead of the application id,
and a migration there runs under the writers' advisory lock, so two machines opening a
new database at once create it once.

It also holds the records that go in and come out of :class:`~arena.tournament.Store`
(frozen rows mirroring the tables) and the store's errors.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from arena.store._db import Connection, PgConnection, begin_write

APPLICATION_ID = 0x4152_4E41
"""``PRAGMA application_id`` of an arena database ("ARNA")."""

_V1 = """
CREATE TABLE schema_version (
    version INTEGER NOT NULL
);

CREATE TABLE bots (
    id         INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL UNIQUE CHECK (name <> ''),
    spec       TEXT    NOT NULL DEFAULT '',          -- how it is started; informational
    created_at TEXT    NOT NULL
);

CREATE TABLE tournaments (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE CHECK (name <> ''),
    config_json TEXT    NOT NULL,
    status      TEXT    NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'finished')),
    created_at  TEXT    NOT NULL,
    finished_at TEXT
);

-- The plan, written once when the tournament is created. A row with no `matches` row
-- is pending; that is all `arena tournament resume` needs to know.
CREATE TABLE scheduled_matches (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    position      INTEGER NOT NULL,                 -- schedule order, 0-based
    match_key     TEXT    NOT NULL CHECK (match_key <> ''),
    round         INTEGER NOT NULL DEFAULT 0,
    seats_json    TEXT    NOT NULL,                 -- JSON list of bot names, seat order
    hands         INTEGER NOT NULL CHECK (hands > 0),
    seed          INTEGER,                          -- NULL: drawn when the match starts
    duplicate     INTEGER NOT NULL DEFAULT 0 CHECK (duplicate IN (0, 1)),
    row_json      TEXT    NOT NULL,                 -- the schedule row as given
    UNIQUE (tournament_id, match_key),
    UNIQUE (tournament_id, position)
);

-- One row per finished match, written in the same transaction as its seats, faults and
-- rating updates. UNIQUE (tournament_id, match_key) is what stops double counting.
CREATE TABLE matches (
    id              INTEGER PRIMARY KEY,
    tournament_id   INTEGER NOT NULL REFERENCES tournaments (id),
    match_key       TEXT    NOT NULL,
    game_type       TEXT    NOT NULL CHECK (game_type <> ''),
    big_blind       INTEGER NOT NULL CHECK (big_blind > 0),
    duplicate_block INTEGER NOT NULL CHECK (duplicate_block > 0),
    hands_played    INTEGER,
    reason          TEXT,
    summary_json    TEXT    NOT NULL,               -- arena.dealer.summarize(...)
    records_dir     TEXT    NOT NULL,               -- where the hand histories are
    finished_at     TEXT    NOT NULL,
    UNIQUE (tournament_id, match_key),
    FOREIGN KEY (tournament_id, match_key)
        REFERENCES scheduled_matches (tournament_id, match_key)
);

CREATE TABLE seat_results (
    match_id        INTEGER NOT NULL REFERENCES matches (id),
    seat            INTEGER NOT NULL CHECK (seat >= 0),
    bot_id          INTEGER NOT NULL REFERENCES bots (id),
    chips           INTEGER NOT NULL,               -- net chips won (negative: lost)
    hands           INTEGER NOT NULL CHECK (hands >= 0),
    faults          INTEGER NOT NULL CHECK (faults >= 0),
    sat_out         INTEGER NOT NULL CHECK (sat_out IN (0, 1)),
    forfeited       INTEGER NOT NULL CHECK (forfeited IN (0, 1)),
    unit_chips_json TEXT    NOT NULL,               -- chips per independent unit (intervals)
    PRIMARY KEY (match_id, seat)
) WITHOUT ROWID;

CREATE INDEX seat_results_bot ON seat_results (bot_id);

CREATE TABLE faults (
    id          INTEGER PRIMARY KEY,
    match_id    INTEGER NOT NULL REFERENCES matches (id),
    hand_number INTEGER NOT NULL,
    seat        INTEGER NOT NULL,
    reason      TEXT    NOT NULL,
    detail      TEXT    NOT NULL DEFAULT '',
    applied     TEXT    NOT NULL DEFAULT '',
    decision_id TEXT    NOT NULL DEFAULT '',
    FOREIGN KEY (match_id, seat) REFERENCES seat_results (match_id, seat)
);

CREATE INDEX faults_match ON faults (match_id);

-- Rating history in commit order (id). rating_before/after NOT NULL also refuses NaN,
-- which SQLite stores as NULL.
CREATE TABLE ratings (
    id            INTEGER PRIMARY KEY,
    bot_id        INTEGER NOT NULL REFERENCES bots (id),
    system        TEXT    NOT NULL CHECK (system <> ''),
    game_type     TEXT    NOT NULL CHECK (game_type <> ''),
    match_id      INTEGER NOT NULL REFERENCES matches (id),
    rating_before REAL    NOT NULL,
    rating_after  REAL    NOT NULL
);

CREATE INDEX ratings_lookup ON ratings (system, game_type, bot_id, id);
CREATE INDEX ratings_match ON ratings (match_id);
"""

_V2 = """
-- Issue 12: a match's rows are recorded as soon as it ends, its rating updates later,
-- in schedule order (live Elo is then the same whatever order the matches end in).
-- rated = 0: its ratings rows are still to come (resume writes them first, in order).
-- Every match of an older database was recorded with its ratings: 1.
ALTER TABLE matches ADD COLUMN rated INTEGER NOT NULL DEFAULT 1 CHECK (rated IN (0, 1));
"""

_V3 = """
-- Issue 19: each tournament's deal key, the secret that with a match's seed gives its
-- decks, their order at each rotation and the seats' seeds. Apart from config_json,
-- which reports and tools read: never shown, only read back by resume. A tournament
-- of an older database gets one at its next resume (its unplayed matches use it).
CREATE TABLE deal_keys (
    tournament_id INTEGER NOT NULL UNIQUE REFERENCES tournaments (id),
    deal_key      TEXT    NOT NULL
);
"""

MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3)
"""``MIGRATIONS[n]`` takes a database from version ``n`` to ``n + 1``."""

SCHEMA_VERSION = len(MIGRATIONS)
"""The version this code writes and reads."""


class SchemaError(Exception):
    """The file is not an arena database this code can read (reason in the message)."""


POSTGRES_MARK = f"arena database {APPLICATION_ID:#x}"
"""The comment on ``schema_version`` that marks a PostgreSQL database as ours."""

_PG_TYPES = (
    (r"\bINTEGER PRIMARY KEY\b", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"),
    (r"\bINTEGER\b", "BIGINT"),
    (r"\bREAL\b", "DOUBLE PRECISION"),
    (r"\bTEXT\b", 'TEXT COLLATE "C"'),
    (r"\)\s*WITHOUT ROWID", ")"),
)


def postgres_script(script: str) -> str:
    """A migration script in PostgreSQL's types (the same tables, keys and checks)."""
    for pattern, replacement in _PG_TYPES:
        script = re.sub(pattern, replacement, script)
    return script


def read_version(connection: Connection) -> int:
    """The file's schema version: 0 for an empty database.

    Raises :class:`SchemaError` when the file holds someone else's tables, or a version
    newer than this code knows.
    """
    if isinstance(connection, PgConnection):
        tables = {
            row[0]
            for row in connection.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema()"
            )
        }
        if not tables:
            return 0
        mark = (
            connection.execute(
                "SELECT obj_description(to_regclass('schema_version'), 'pg_class')"
            ).fetchone()[0]
            if "schema_version" in tables
            else None
        )
        if mark != POSTGRES_MARK:
            raise SchemaError("not an arena database (it holds other data)")
    else:
        (application_id,) = connection.execute("PRAGMA application_id").fetchone()
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_schema")}
        if not tables and application_id == 0:
            return 0
        if application_id != APPLICATION_ID or "schema_version" not in tables:
            raise SchemaError("not an arena database (it holds other data)")
    row = connection.execute("SELECT version FROM schema_version").fetchone()
    if row is None or not isinstance(row[0], int):
        raise SchemaError("not an arena database (schema_version is empty)")
    version = row[0]
    if version > SCHEMA_VERSION:
        raise SchemaError(
            f"written by a newer arena (schema version {version}; "
            f"this one reads up to {SCHEMA_VERSION})"
        )
    return version


def migrate(connection: Connection) -> int:
    """Bring the database to :data:`SCHEMA_VERSION` in one transaction; returns it.

    The connection must be in autocommit mode (``isolation_level=None``).
    """
    postgres = isinstance(connection, PgConnection)
    begin_write(connection)
    try:
        version = read_version(connection)
        for script in MIGRATIONS[version:]:
            # executescript() would COMMIT first; run the statements one by one instead.
            for statement in _statements(postgres_script(script) if postgres else script):
                connection.execute(statement)
        if version == 0:
            if postgres:
                connection.execute(f"COMMENT ON TABLE schema_version IS '{POSTGRES_MARK}'")
            else:
                connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            connection.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
        elif version < SCHEMA_VERSION:
            connection.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    return SCHEMA_VERSION


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (comments are fine, ';' in strings not)."""
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    return [part.strip() for part in "\n".join(lines).split(";") if part.strip()]


NOT_STARTED = "not started"
"""``matches.reason`` of a match not played because a bot in it could not start.

The bot forfeits it (its seat is ``forfeited``, 0 hands), which the standings count as
a loss, like a bot absent at the end of a cut-short match. It is a placeholder, not a
result: a resumed tournament tries the bot again, and a played result replaces it in
one transaction (:meth:`Store.record_match`). Nothing else ever replaces a record.
"""

# --- errors -----------------------------------------------------------------------


class StoreError(Exception):
    """The database cannot do what was asked; the message names the file.

    Raised when the file is not an arena database, is corrupt, is locked for longer than
    the busy timeout, or a record breaks a constraint (the caller passed bad data).
    """


class AlreadyRecorded(StoreError):
    """This tournament already has a result for this match key; nothing was written.

    A resumed tournament runs only :meth:`Store.pending_matches`, so this means two
    runners raced or a caller retried; ``match_id`` is the row that is already there.
    """

    def __init__(self, message: str, *, match_id: int) -> None:
        super().__init__(message)
        self.match_id = match_id


class ClaimError(StoreError):
    """A database or records folder that another process or tournament holds, or whose
    lock or owner stamp cannot be read or written; the message says what to do."""


class TournamentExists(StoreError):
    """:meth:`Store.create_tournament` was given a name that is taken."""


class UnknownMatch(StoreError):
    """:meth:`Store.record_match` was given a tournament or key that was never scheduled."""


# --- records ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatResult:
    """What one seat did in one match, as :meth:`Store.record_match` takes it.

    ``unit_chips`` are the chips won per independent unit (one hand, or one duplicate
    block), which is what confidence intervals are computed from.
    """

    bot: str
    seat: int
    chips: int
    hands: int
    faults: int = 0
    sat_out: bool = False
    forfeited: bool = False
    unit_chips: tuple[int, ...] = ()


RatingReader = Callable[[str, str], dict[str, float]]
"""``current(system, game_type)``: each bot's latest rating, read inside the write
transaction that records the new ones (:meth:`Store.record_match`, :meth:`Store.rate_match`)."""


class RatingUpdate(NamedTuple):
    """One rating change; a plain ``(bot, system, game_type, before, after)`` tuple works."""

    bot: str
    system: str
    game_type: str
    rating_before: float
    rating_after: float


@dataclass(frozen=True, slots=True)
class TournamentRow:
    id: int
    name: str
    config_json: str
    status: str  # "running" or "finished"
    created_at: str
    finished_at: str | None


@dataclass(frozen=True, slots=True)
class ScheduledRow:
    """One planned match. ``data`` is the schedule row exactly as it was given."""

    id: int
    tournament_id: int
    position: int
    key: str
    round: int
    seats: tuple[str, ...]
    hands: int
    seed: int | None
    duplicate: bool
    data: dict[str, Any] = field(compare=False)


@dataclass(frozen=True, slots=True)
class SeatRow:
    bot: str
    seat: int
    chips: int
    hands: int
    faults: int
    sat_out: bool
    forfeited: bool
    unit_chips: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchRow:
    """One recorded match with its seats in seat order."""

    id: int
    key: str
    tournament: str
    game_type: str
    big_blind: int
    duplicate_block: int
    hands_played: int | None
    reason: str | None
    finished_at: str
    records_dir: str
    seats: tuple[SeatRow, ...]
    summary: dict[str, Any] = field(compare=False)


@dataclass(frozen=True, slots=True)
class RatingRow:
    id: int
    bot: str
    system: str
    game_type: str
    tournament: str
    match_key: str
    rating_before: float
    rating_after: float
    recorded_at: str


@dataclass(frozen=True, slots=True)
class BotFaults:
    """One bot's fault tally: matches played, faults in total and by reason code, with
    each reason's most common detail (``details``: "decide raised IndexError at bot.py:12")."""

    bot: str
    matches: int
    hands: int
    faults: int
    sat_out: int
    forfeited: int
    reasons: dict[str, int] = field(compare=False)
    details: dict[str, str] = field(default_factory=dict, compare=False)

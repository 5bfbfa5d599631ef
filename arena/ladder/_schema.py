"""The ladder's own tables: teams, versions, jobs, batches and the results it has rated.

They live apart from the tournament store (``ladder-data/ladder.db`` by default) because a
ladder plays many tournaments one after another into the store while its web pages,
builds and gates read and write these rows at the same time. Each table is prefixed
``ladder_``, so a PostgreSQL database may hold both. The store's helpers give the SQL
dialect (``?`` placeholders, PostgreSQL's identity columns and types).

Every job (a build, a gate, a batch of matches) is a row with a lease: a killed server
leaves it ``running`` with a lease that runs out, and the next server takes it again
(at most :data:`MAX_ATTEMPTS` times). A batch's results are rated once: each rated
match is a row of ``ladder_rated`` whose key is the match's, inserted in the same
transaction as the ratings it moved.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from arena.store._db import Connection, begin_write, connect, is_url, redact
from arena.store._schema import postgres_script

MAX_ATTEMPTS = 3
"""How often a job is started before it fails for good (a build that kills the server)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS ladder_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ladder_teams (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    token_hash  TEXT NOT NULL UNIQUE,
    disabled    INTEGER NOT NULL DEFAULT 0,
    pinned      INTEGER,
    created_at  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS ladder_versions (
    id          INTEGER PRIMARY KEY,
    team_id     INTEGER NOT NULL REFERENCES ladder_teams (id),
    number      INTEGER NOT NULL,
    sha256      TEXT NOT NULL,
    filename    TEXT NOT NULL,
    source      TEXT NOT NULL,
    status      TEXT NOT NULL,
    reason      TEXT,
    log_tail    TEXT,
    mu          REAL NOT NULL,
    sigma       REAL NOT NULL,
    matches     INTEGER NOT NULL DEFAULT 0,
    hands       INTEGER NOT NULL DEFAULT 0,
    faults      INTEGER NOT NULL DEFAULT 0,
    last_played REAL,
    fingerprint TEXT,
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL,
    UNIQUE (team_id, number)
);
CREATE TABLE IF NOT EXISTS ladder_jobs (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,
    subject     INTEGER NOT NULL,
    state       TEXT NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    lease_until REAL,
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL,
    UNIQUE (kind, subject)
);
CREATE TABLE IF NOT EXISTS ladder_batches (
    id          INTEGER PRIMARY KEY,
    tournament  TEXT NOT NULL UNIQUE,
    tables      TEXT NOT NULL,
    created_at  REAL NOT NULL,
    finished_at REAL
);
CREATE TABLE IF NOT EXISTS ladder_rated (
    tournament  TEXT NOT NULL,
    match_key   TEXT NOT NULL,
    rated_at    REAL NOT NULL,
    PRIMARY KEY (tournament, match_key)
);
CREATE TABLE IF NOT EXISTS ladder_seats (
    tournament  TEXT NOT NULL,
    match_key   TEXT NOT NULL,
    version_id  INTEGER NOT NULL REFERENCES ladder_versions (id),
    seat        INTEGER NOT NULL,
    chips       INTEGER NOT NULL,
    hands       INTEGER NOT NULL,
    faults      INTEGER NOT NULL,
    shown_after REAL NOT NULL,
    records     TEXT NOT NULL,
    finished_at REAL NOT NULL,
    PRIMARY KEY (tournament, match_key, version_id)
);
CREATE TABLE IF NOT EXISTS ladder_flags (
    id          INTEGER PRIMARY KEY,
    version_a   INTEGER NOT NULL REFERENCES ladder_versions (id),
    version_b   INTEGER NOT NULL REFERENCES ladder_versions (id),
    kind        TEXT NOT NULL,
    score       REAL NOT NULL,
    created_at  REAL NOT NULL,
    UNIQUE (version_a, version_b, kind)
);
CREATE INDEX IF NOT EXISTS ladder_versions_by_status ON ladder_versions (status);
CREATE INDEX IF NOT EXISTS ladder_seats_by_version ON ladder_seats (version_id);
"""


class LadderDatabaseError(Exception):
    """The ladder's database cannot be opened or used: one line naming it."""


def open_connection(database: Path | str) -> Connection:
    """Open (creating the tables if missing) the ladder's database."""
    name = redact(str(database)) if is_url(database) else str(database)
    if is_url(database):
        try:
            connection: Connection = connect(str(database), application_name="arena-ladder")
        except Exception as error:
            raise LadderDatabaseError(f"{name}: {error}") from None
        script = postgres_script(SCHEMA)
    else:
        path = Path(database)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            raw = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
            raw.execute("PRAGMA journal_mode = WAL").fetchone()
            raw.execute("PRAGMA foreign_keys = ON")
            raw.execute("PRAGMA synchronous = FULL")
        except (OSError, sqlite3.Error) as error:
            raise LadderDatabaseError(
                f"{path}: cannot open the ladder's database: {error}"
            ) from None
        connection = raw
        script = SCHEMA
    try:
        begin_write(connection)
        for statement in (part.strip() for part in script.split(";")):
            if statement:
                connection.execute(statement)
        connection.execute("COMMIT")
    except Exception as error:
        connection.close()
        raise LadderDatabaseError(f"{name}: not a ladder database or corrupt: {error}") from None
    return connection

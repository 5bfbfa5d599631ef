"""Where the store's rows live: a SQLite file (the default) or a PostgreSQL database.

A database is named by a path (SQLite, no server) or by a ``postgresql://`` URL (one
database shared by the machines of a league). Everything above this module speaks
SQLite's SQL with ``?`` placeholders to a :class:`Connection`; for PostgreSQL,
:class:`PgConnection` turns ``?`` into psycopg's ``%s`` and psycopg's errors into
:class:`DatabaseError` s, and the few statements whose meaning differs (how a write or
a read snapshot begins, an aggregate that joins values into text) are asked of this
module by name (:func:`begin_write`, :func:`begin_read`, :func:`joined`).

psycopg is imported only when a URL is opened: SQLite users never need it, and a
missing psycopg is one line saying which extra to install. A URL may carry a password;
:func:`redact` gives the name shown in messages and stored with a tournament, and only
:func:`connection_url` (for the tournament's advisory lock, :mod:`arena.tournament._lock`)
gets the full URL back, from this process's memory.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Protocol

URL_SCHEMES = ("postgresql://", "postgres://")
"""How a database name that is a PostgreSQL URL begins."""

INSTALL_HINT = "PostgreSQL support needs psycopg: pip install 'arena[postgres]'"

_WRITE_LOCK = "arena:write"
"""The advisory lock key every write transaction takes, so writers go one at a time (as
SQLite's ``BEGIN IMMEDIATE``): two runners' check-then-insert of one match never race."""


class Cursor(Protocol):
    """What the store reads from a statement (sqlite3's and psycopg's cursors both are)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """What the store needs of a connection: ``execute`` with ``?`` placeholders."""

    @property
    def in_transaction(self) -> bool: ...

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Any: ...

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Any: ...

    def close(self) -> None: ...


class DatabaseError(Exception):
    """PostgreSQL refused a statement or the connection broke (message: the server's)."""


class IntegrityError(DatabaseError):
    """A row broke a constraint (a unique key, a check, a foreign key)."""


class DataError(DatabaseError):
    """A value or a result is beyond what the server takes (e.g. a 1 GB text)."""


def is_url(database: object) -> bool:
    """Whether ``database`` names a PostgreSQL database rather than a SQLite file."""
    return isinstance(database, str) and database.lower().startswith(URL_SCHEMES)


def redact(url: str) -> str:
    """``url`` without its password (in the user part or as ``password=``): for messages.

    Everything else is kept as written (not re-encoded).
    """
    scheme, sep, rest = url.partition("://")
    end = min((i for i in (rest.find(ch) for ch in "/?#") if i >= 0), default=len(rest))
    authority, tail = rest[:end], rest[end:]
    if "@" in authority:
        user, host = authority.rsplit("@", 1)
        user = user.split(":", 1)[0]
        authority = f"{user}@{host}" if user else host
    path, question, query = tail.partition("?")
    if question:
        query, hash_, fragment = query.partition("#")
        kept = [part for part in query.split("&") if part.split("=", 1)[0] != "password"]
        tail = path + ("?" + "&".join(kept) if kept else "") + hash_ + fragment
    return scheme + sep + authority + tail


def scrub(text: str, url: str) -> str:
    """``text`` with ``url``'s password replaced by ``***`` wherever it appears."""
    text = text.replace(url, redact(url))
    authority = url.partition("://")[2].split("/", 1)[0].split("?", 1)[0]
    secrets = [authority.rsplit("@", 1)[0].partition(":")[2]] if "@" in authority else []
    query = url.partition("?")[2].partition("#")[0]
    secrets += [
        part[len("password=") :] for part in query.split("&") if part.startswith("password=")
    ]
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


_urls: dict[str, str] = {}
"""Each opened URL by its redacted name, so the lock can open its own connection."""


def connection_url(name: str) -> str:
    """The full URL of a database this process opened as ``name`` (its redacted form)."""
    return _urls.get(name, name)


def lock_key(text: str) -> int:
    """A signed 64-bit advisory lock key for ``text`` (the same on every machine)."""
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise DatabaseError(INSTALL_HINT) from None
    return psycopg


def connect(url: str, *, application_name: str = "arena") -> PgConnection:
    """Open ``url`` in autocommit mode (the store says BEGIN and COMMIT itself).

    Raises :class:`DatabaseError` with one line (no password) when psycopg is missing or
    the server cannot be reached.
    """
    psycopg = _psycopg()
    name = redact(url)
    try:
        raw = psycopg.connect(
            url, autocommit=True, connect_timeout=10, application_name=application_name[:63]
        )
    except psycopg.Error as error:  # libpq may quote the URL back: never its password
        raise DatabaseError(f"cannot connect: {scrub(one_line(error), url)}") from None
    _urls[name] = url
    return PgConnection(raw, psycopg)


def one_line(error: BaseException) -> str:
    """The first line of a driver's message, printable and at most 200 characters."""
    lines = str(error).strip().splitlines() or [type(error).__name__]
    text = "".join(ch if ch.isprintable() else "?" for ch in lines[0])
    return text if len(text) <= 200 else text[:200] + "..."


@lru_cache(maxsize=512)
def _translate(sql: str) -> str:
    """SQLite's ``?`` placeholders as psycopg's ``%s`` (a literal ``%`` doubled)."""
    return sql.replace("%", "%%").replace("?", "%s")


class PgConnection:
    """A psycopg connection that takes the store's SQL (``?`` placeholders)."""

    def __init__(self, raw: Any, psycopg: Any) -> None:
        self._raw = raw
        self._psycopg = psycopg

    @property
    def in_transaction(self) -> bool:
        return bool(self._raw.info.transaction_status != self._psycopg.pq.TransactionStatus.IDLE)

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Any:
        """Run one statement; psycopg's errors come back as :class:`DatabaseError` s."""
        with self._errors():
            return self._raw.execute(_translate(sql), tuple(parameters))

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Any:
        """Run one statement per parameter row, pipelined (one round trip per batch)."""
        with self._errors():
            cursor = self._raw.cursor()
            cursor.executemany(_translate(sql), [tuple(row) for row in parameters])
            return cursor

    @contextmanager
    def _errors(self) -> Iterator[None]:
        errors = self._psycopg.errors
        try:
            yield
        except errors.IntegrityError as error:
            raise IntegrityError(one_line(error)) from error
        except (errors.DataError, errors.ProgramLimitExceeded) as error:
            raise DataError(one_line(error)) from error
        except self._psycopg.Error as error:
            raise DatabaseError(one_line(error)) from error

    def close(self) -> None:
        self._raw.close()


# --- statements that differ --------------------------------------------------------------


def begin_write(db: Connection) -> None:
    """Begin a write transaction that waits for any other writer (one writer at a time)."""
    if isinstance(db, PgConnection):
        db.execute("BEGIN")
        db.execute("SELECT pg_advisory_xact_lock(?)", (lock_key(_WRITE_LOCK),))
    else:
        db.execute("BEGIN IMMEDIATE")


def begin_read(db: Connection) -> None:
    """Begin a read transaction whose statements all see one snapshot."""
    if isinstance(db, PgConnection):
        db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    else:
        db.execute("BEGIN")  # SQLite in WAL: a read transaction is one snapshot


def joined(db: Connection, expression: str, separator: str, order: Sequence[str]) -> str:
    """An aggregate joining ``expression`` over the rows into text, in ``order``.

    SQLite's ``group_concat`` feeds the rows in scan order (the callers check it is
    ``order``); PostgreSQL is told the order.
    """
    if isinstance(db, PgConnection):
        return f"string_agg(CAST({expression} AS TEXT), {separator} ORDER BY {', '.join(order)})"
    return f"group_concat({expression}, {separator})"


ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, DatabaseError)
"""A failed statement, from either database."""

INTEGRITY_ERRORS: tuple[type[Exception], ...] = (sqlite3.IntegrityError, IntegrityError)
"""A row refused by a constraint, from either database."""

DATA_ERRORS: tuple[type[Exception], ...] = (sqlite3.DataError, DataError)
"""A value or result too large, from either database."""

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
:func:`connection_url` (for the tournament's advisory lock, :mod:`arena.store._lock`)
gets the full URL back, from this process's memory.
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Protocol
from urllib.parse import quote, unquote

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
    """The name ``url`` is shown and stored by: scheme, user, host, port and database only.

    What the password is, is libpq's call, not a URL parser's: ``u:se#cret@host`` and
    ``?pass%77ord=x`` both give libpq a password. So ``url`` is parsed as libpq parses it
    (psycopg's ``conninfo_to_dict``) and the name rebuilt from the four harmless fields;
    every other parameter is left out (one may be a secret). Without psycopg, or when
    the parse is in doubt, a cautious reading keeps less (:func:`_cautious`).
    """
    if not is_url(url):
        return url
    scheme = url[: url.index("://")]
    params = _libpq_params(url)
    if params is None or not _plain(params):
        return _cautious(url)
    return _rebuild(scheme, params)


def _libpq_params(url: str) -> dict[str, str] | None:
    """``url``'s parameters as libpq reads them, or None (no psycopg, or libpq refuses it)."""
    try:
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        return None
    try:
        return {key: str(value) for key, value in conninfo_to_dict(url).items()}
    except Exception:  # libpq's message may quote the URL: never shown from here
        return None


def _plain(params: dict[str, str]) -> bool:
    """Whether the shown fields look like what they are (``u:pa/ss@h`` reads as host ``u``,
    port ``pa``: a password misread; shown cautiously instead)."""
    shown = [params.get(key, "") for key in ("user", "host", "port", "dbname")]
    return (
        not any("@" in value for value in shown)
        and re.fullmatch(r"[0-9,]*", params.get("port", "")) is not None
    )


_HOSTNAME = re.compile(r"[A-Za-z0-9._-]+|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*")
"""A host the URL's authority can hold: a name, an IPv4 or an IPv6 address."""


def _rebuild(scheme: str, params: dict[str, str]) -> str:
    """``scheme://user@host:port/dbname``; a socket folder or a host list as ``?host=``."""
    user, host = params.get("user", ""), params.get("host", "")
    port, dbname = params.get("port", ""), params.get("dbname", "")
    query: list[tuple[str, str]] = []
    netloc = ""
    if host and _HOSTNAME.fullmatch(host):
        netloc = f"[{host}]" if ":" in host else host
    elif host:
        query.append(("host", host))
    if port and netloc and port.isdigit():
        netloc += ":" + port
    elif port:
        query.append(("port", port))
    if user:
        netloc = quote(user, safe="") + "@" + netloc
    path = "/" + quote(dbname, safe="") if dbname else ""
    tail = "&".join(f"{key}={quote(value, safe='/,:')}" for key, value in query)
    return f"{scheme}://{netloc}{path}" + (f"?{tail}" if tail else "")


def _cautious(url: str) -> str:
    """``scheme://user@host/dbname`` read cautiously: everything up to the LAST ``@`` is
    the user part (a password may hold ``/``, ``?``, ``#`` or ``@``), and no parameter."""
    scheme, _, rest = url.partition("://")
    user = ""
    if "@" in rest:
        userinfo, _, rest = rest.rpartition("@")
        user = userinfo.split(":", 1)[0]
        if any(ch in user for ch in "/?#&=%"):
            user = ""
    location, _, _ = rest.partition("?")
    host, _, dbname = location.partition("/")
    host = host.split(":", 1)[0] if not host.startswith("[") else host.split("]", 1)[0] + "]"
    return f"{scheme}://{user + '@' if user else ''}{host}" + (f"/{dbname}" if dbname else "")


def _secrets(url: str) -> list[str]:
    """Every text that may be ``url``'s password: libpq's reading, and cautious ones."""
    found = []
    params = _libpq_params(url)
    if params is not None:
        found += [params.get("password", ""), params.get("sslpassword", "")]
    rest = url.partition("://")[2]
    if "@" in rest:
        found.append(rest.rpartition("@")[0].partition(":")[2])
    for part in rest.partition("?")[2].split("&"):
        key, equals, value = part.partition("=")
        if equals and "password" in unquote(key).lower():
            found.append(value)
    found += [unquote(text) for text in found]
    return sorted({text for text in found if text}, key=len, reverse=True)


def scrub(text: str, url: str) -> str:
    """``text`` with ``url`` shown as :func:`redact` shows it, and any password in ``***``."""
    secrets = _secrets(url)
    pieces = text.split(url)
    for secret in secrets:
        pieces = [piece.replace(secret, "***") for piece in pieces]
    return redact(url).join(pieces)


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


STATEMENT_TIMEOUT = 15.0
"""Seconds the server lets one statement run (``statement_timeout``). The store's
statements are small: one that runs longer is a server in trouble."""

LOCK_TIMEOUT = 10.0
"""Seconds a statement waits for a lock (``lock_timeout``): the writers' advisory lock,
which another coordinator holds for one short transaction at a time."""

DEADLINE = STATEMENT_TIMEOUT + 5.0
"""Seconds this process waits for any answer to a statement. A server that hangs (a
stopped host, a cut network) cannot enforce its own timeouts: past this the connection
is cut from this side and the statement fails (:class:`PgConnection`)."""

TCP_OPTIONS: dict[str, Any] = {
    "connect_timeout": 10,
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "tcp_user_timeout": int(DEADLINE * 1000),  # ms: unacknowledged data fails the socket
    "options": f"-c statement_timeout={int(STATEMENT_TIMEOUT * 1000)} "
    f"-c lock_timeout={int(LOCK_TIMEOUT * 1000)}",
}
"""libpq settings of every connection: an idle TCP link that died is noticed by the
keepalives; a busy one by ``tcp_user_timeout`` (both ignored over a unix socket, where
:data:`DEADLINE` still applies)."""


def connect(url: str, *, application_name: str = "arena") -> PgConnection:
    """Open ``url`` in autocommit mode (the store says BEGIN and COMMIT itself).

    Raises :class:`DatabaseError` with one line (no password) when psycopg is missing or
    the server cannot be reached.
    """
    psycopg = _psycopg()
    name = redact(url)
    try:
        raw = psycopg.connect(
            url, autocommit=True, application_name=application_name[:63], **TCP_OPTIONS
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
    """A psycopg connection that takes the store's SQL (``?`` placeholders).

    Each statement has :data:`DEADLINE` seconds (a batch a second more per 500 rows):
    past it a timer shuts the connection's socket down, so the blocked call returns
    and the statement fails with one line, instead of the coordinator hanging on a
    server that no longer answers.
    """

    def __init__(self, raw: Any, psycopg: Any) -> None:
        self._raw = raw
        self._psycopg = psycopg
        self._fd = int(raw.pgconn.socket)

    @property
    def in_transaction(self) -> bool:
        return bool(self._raw.info.transaction_status != self._psycopg.pq.TransactionStatus.IDLE)

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Any:
        """Run one statement; psycopg's errors come back as :class:`DatabaseError` s."""
        with self._errors(DEADLINE):
            return self._raw.execute(_translate(sql), tuple(parameters))

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Any:
        """Run one statement per parameter row, pipelined (one round trip per batch)."""
        rows = [tuple(row) for row in parameters]
        with self._errors(DEADLINE + len(rows) / 500):
            cursor = self._raw.cursor()
            cursor.executemany(_translate(sql), rows)
            return cursor

    @contextmanager
    def _errors(self, deadline: float) -> Iterator[None]:
        errors = self._psycopg.errors
        cut = threading.Event()
        timer = threading.Timer(deadline, self._cut, (cut,))
        timer.daemon = True
        timer.start()
        try:
            yield
        except errors.IntegrityError as error:
            raise IntegrityError(one_line(error)) from error
        except (errors.DataError, errors.ProgramLimitExceeded) as error:
            raise DataError(one_line(error)) from error
        except self._psycopg.Error as error:
            if cut.is_set():
                raise DatabaseError(
                    f"the server did not answer for {deadline:.0f} s (it hangs, or the "
                    "network to it is down); the connection was cut"
                ) from error
            raise DatabaseError(one_line(error)) from error
        finally:
            timer.cancel()

    def _cut(self, cut: threading.Event) -> None:
        """Shut the socket down under a blocked statement (it then fails at once)."""
        cut.set()
        try:
            with socket.socket(fileno=os.dup(self._fd)) as sock:
                sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # already closed: nothing blocks on it

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

"""One process per tournament: OS locks on the database and on the records folder.

Two processes playing one tournament (``run`` in one shell, ``resume`` in another, or
two databases whose tournaments write the same output folder) would both play the
same pending matches into the same folders. A running tournament therefore holds an
exclusive ``flock`` on ``<database>.lock`` and on ``<output>/<name>/.lock``; a second
process is refused with :class:`InUseError`, naming the holder (pid, host, start time)
from what the holder wrote into the lock file.

``flock`` belongs to the open file, so the OS releases it when the holder exits in any
way, SIGKILL included: no stale lock to clean up, and the file's text is only a label
(the next holder overwrites it). Lock files are opened close-on-exec, so launched bots
never inherit the lock. One lock per database means one running tournament per
database at a time. (Live Elo does not depend on it: each update is read and written
in one write transaction, :mod:`arena.tournament._commit`.)

A PostgreSQL database is shared by machines, where a file lock means nothing: there the
tournament holds ``pg_try_advisory_lock`` on a key derived from its name, on a
connection of its own, for the whole run. The server releases it when that session
ends, the holder killed included; a coordinator on another machine is refused, named
by the holder's ``application_name`` (pid, host). Two different tournaments may run on
one PostgreSQL database at once (each writes its own matches; the writers' transactions
still go one at a time, and an Elo update reads the ratings inside its own, so two
tournaments' updates of one bot never interleave).
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.store import _db
from arena.store._schema import ClaimError


class InUseError(ClaimError):
    """Another process holds the lock; the message names it and what to do."""


def _describe(holder: Mapping[str, Any]) -> str:
    """``tournament 'x' (a.db) is running in pid 12 on host since 2026-...``."""
    parts = []
    if holder.get("tournament"):
        parts.append(f"tournament {holder['tournament']!r}")
        if holder.get("database"):
            parts.append(f"of {holder['database']}")
    parts.append("is running")
    if holder.get("pid"):
        parts.append(f"in pid {holder['pid']}")
    if holder.get("host"):
        parts.append(f"on {holder['host']}")
    if holder.get("started"):
        parts.append(f"since {holder['started']}")
    return " ".join(parts)


def _read_holder(fd: int) -> dict[str, Any]:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        data = json.loads(os.read(fd, 4096).decode("utf-8", "replace") or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@contextmanager
def hold(path: Path, *, what: str, info: Mapping[str, Any]) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` for the block, or raise :class:`InUseError`.

    ``what`` names the locked thing in messages ("database a.db"); ``info`` (the
    tournament, the database) is written into the file with this pid, host and time,
    for the message another process gets.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as error:
        raise ClaimError(f"{path}: cannot create the lock file: {error.strerror}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            raise InUseError(
                f"{what} is in use: {_describe(holder) if holder else 'another process holds it'}; "
                "wait for it to end (or stop it), then resume"
            ) from None
        label = {
            **info,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "command": " ".join(sys.argv)[:500],
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(label).encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)  # released: no label left to mislead anyone
    finally:
        os.close(fd)  # closing the file releases the flock


@contextmanager
def hold_advisory(name: str, database: str) -> Iterator[None]:
    """Hold the PostgreSQL advisory lock of tournament ``name`` for the block, or raise
    :class:`InUseError` naming the session that holds it."""
    label = f"arena {os.getpid()}@{socket.gethostname()}"
    try:
        connection = _db.connect(_db.connection_url(database), application_name=label)
    except _db.DatabaseError as error:
        raise ClaimError(f"{database}: cannot take the tournament's lock: {error}") from None
    key = _db.lock_key(f"arena:tournament:{name}")
    try:
        (locked,) = connection.execute("SELECT pg_try_advisory_lock(?)", (key,)).fetchone()
        if not locked:
            holder = _advisory_holder(connection, key)
            raise InUseError(
                f"tournament {name!r} of {database} is in use: "
                f"{'it ' + holder if holder else 'another session holds its lock'}; "
                "wait for it to end (or stop it), then resume"
            )
        yield
    except _db.DatabaseError as error:
        raise ClaimError(f"{database}: the tournament's lock: {error}") from None
    finally:
        connection.close()  # ending the session releases the lock


def _advisory_holder(connection: _db.Connection, key: int) -> str:
    """``running in pid 12 on host since ...`` from the holder's session, or ``""``."""
    row = connection.execute(
        "SELECT a.application_name, a.backend_start FROM pg_locks l "
        "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
        "AND l.classid = ? AND l.objid = ? AND l.objsubid = 1",
        ((key >> 32) & 0xFFFFFFFF, key & 0xFFFFFFFF),
    ).fetchone()
    if row is None or not str(row[0] or "").startswith("arena "):
        return ""
    pid, _, host = str(row[0])[len("arena ") :].partition("@")
    started = row[1].isoformat(timespec="seconds") if row[1] is not None else ""
    return _describe({"pid": pid, "host": host, "started": started})


@contextmanager
def hold_tournament(name: str, database: str, records: Path) -> Iterator[None]:
    """Lock the database (unless it is in memory), then the tournament's records folder."""
    info = {"tournament": name, "database": database}
    with ExitStack() as stack:
        if _db.is_url(database):
            stack.enter_context(hold_advisory(name, database))
        elif database != ":memory:":
            stack.enter_context(
                hold(Path(f"{database}.lock"), what=f"database {database}", info=info)
            )
        stack.enter_context(hold(records / ".lock", what=f"records folder {records}", info=info))
        yield

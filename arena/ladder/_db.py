"""The ladder's rows: teams (a hashed token each), versions and their statuses, ratings.

Every change a page or a job makes is one write transaction (one writer at a time, as the
store's), so a server killed at any point leaves each row at its old value or its new one.
The jobs, batches and rated results are in :mod:`arena.ladder._jobs`.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from arena.ladder._rating import Skill, new_version_skill
from arena.ladder._schema import LadderDatabaseError, open_connection
from arena.store._db import ERRORS, INTEGRITY_ERRORS, Connection, begin_write, one_line

TEAM_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]{0,39}\Z")
"""A team's name: it names the team's bots (``NAME-vN``) and its pages."""

TOKEN_PREFIX = "ladder_"

QUEUED, BUILDING, BUILD_FAILED, VALIDATING = "queued", "building", "build failed", "validating"
REJECTED, ACTIVE, RETIRED, BENCHED = "rejected", "active", "retired", "benched"
STATUSES = (QUEUED, BUILDING, BUILD_FAILED, VALIDATING, REJECTED, ACTIVE, RETIRED, BENCHED)
IN_FLIGHT = (QUEUED, BUILDING, VALIDATING)
"""A version on its way: a team has at most one (one build in flight per team)."""
ACCEPTED = (ACTIVE, RETIRED)
"""A version that passed the gate and is not benched: it may be the team's active one."""
FINAL = (BUILD_FAILED, REJECTED, ACTIVE, RETIRED, BENCHED)
DAY = 86_400.0


class Refused(Exception):
    """A request the ladder turns down; ``status`` is the HTTP status a page answers with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class Team:
    id: int
    name: str
    disabled: bool
    pinned: int | None
    """The version number the team pinned (None: its newest accepted version plays)."""


@dataclass(frozen=True, slots=True)
class Version:
    id: int
    team_id: int
    team: str
    number: int
    sha256: str
    filename: str
    source: str
    status: str
    reason: str | None
    log_tail: str | None
    skill: Skill
    matches: int
    hands: int
    faults: int
    last_played: float | None
    created_at: float

    @property
    def bot_name(self) -> str:
        """The version's name as a bot in the store: ``TEAM-vN``."""
        return f"{self.team}-v{self.number}"


def hash_token(token: str) -> str:
    """The stored form of a team's token: its SHA-256 (a copy of the database lets nobody
    submit as anyone)."""
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


_VERSION_COLUMNS = (
    "v.id, v.team_id, t.name, v.number, v.sha256, v.filename, v.source, v.status, v.reason, "
    "v.log_tail, v.mu, v.sigma, v.matches, v.hands, v.faults, v.last_played, v.created_at"
)
_VERSIONS = (
    f"SELECT {_VERSION_COLUMNS} FROM ladder_versions v JOIN ladder_teams t ON t.id = v.team_id"
)


def _version(row: Sequence[Any]) -> Version:
    (id_, team_id, team, number, sha, filename, source, status, reason, tail) = row[:10]
    mu, sigma, matches, hands, faults, last, created = row[10:]
    return Version(id_, team_id, team, number, sha, filename, source, status, reason, tail,
                   Skill(mu, sigma), matches, hands, faults, last, created)  # fmt: skip


class LadderDB:
    """The open ladder database; use :meth:`open`, close it or use it as a context manager.

    Thread-safe (one lock): the web app's handlers and the jobs' threads share it.
    """

    def __init__(self, connection: Connection, name: str) -> None:
        self._db = connection
        self.name = name
        self._lock = threading.RLock()

    @classmethod
    def open(cls, database: Path | str) -> LadderDB:
        return cls(open_connection(database), str(database))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """One write transaction: all of it or none of it."""
        with self._lock, self._errors():
            begin_write(self._db)
            try:
                yield self._db
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with self._lock, self._errors():
            yield self._db

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except INTEGRITY_ERRORS as error:
            raise Refused(409, f"refused by the ladder's database: {one_line(error)}") from None
        except ERRORS as error:
            raise LadderDatabaseError(f"{self.name}: {one_line(error)}") from None

    # --- the ladder's switches ----------------------------------------------------------

    def meta(self, key: str) -> str | None:
        with self.read() as db:
            row = db.execute("SELECT value FROM ladder_meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self.write() as db:
            db.execute(
                "INSERT INTO ladder_meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    @property
    def frozen(self) -> bool:
        """Whether ``arena ladder freeze`` stopped submissions (the final is being played)."""
        return self.meta("frozen") is not None

    # --- teams ------------------------------------------------------------------------

    def add_team(self, name: str) -> str:
        """Add team ``name``; its token, to print once (only its hash is kept)."""
        if not TEAM_NAME.match(name):
            raise Refused(422, f"{name!r} is not a team name: 1-40 of A-Z a-z 0-9 _ - (not first)")
        token = f"{TOKEN_PREFIX}{name}_{secrets.token_hex(32)}"
        with self.write() as db:
            if db.execute("SELECT 1 FROM ladder_teams WHERE name = ?", (name,)).fetchone():
                raise Refused(
                    409, f"team {name!r} already exists (a new token: teams token {name})"
                )
            db.execute(
                "INSERT INTO ladder_teams (name, token_hash, created_at) VALUES (?, ?, ?)",
                (name, hash_token(token), time.time()),
            )
        return token

    def new_token(self, name: str) -> str:
        """A new token for team ``name`` (the old one stops working at once)."""
        token = f"{TOKEN_PREFIX}{name}_{secrets.token_hex(32)}"
        with self.write() as db:
            changed = db.execute(
                "UPDATE ladder_teams SET token_hash = ? WHERE name = ?", (hash_token(token), name)
            ).rowcount
        if not changed:
            raise Refused(404, f"no team is named {name!r}")
        return token

    def team_for_token(self, token: str) -> Team | None:
        """The enabled team whose token this is, or None."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > 256:
            return None
        with self.read() as db:
            row = db.execute(
                "SELECT id, name, disabled, pinned FROM ladder_teams WHERE token_hash = ?",
                (hash_token(token),),
            ).fetchone()
        if row is None or row[2]:
            return None
        return Team(row[0], row[1], bool(row[2]), row[3])

    def team(self, name_or_id: str | int) -> Team | None:
        column = "id" if isinstance(name_or_id, int) else "name"
        with self.read() as db:
            row = db.execute(
                f"SELECT id, name, disabled, pinned FROM ladder_teams WHERE {column} = ?",
                (name_or_id,),
            ).fetchone()
        return None if row is None else Team(row[0], row[1], bool(row[2]), row[3])

    def teams(self) -> list[Team]:
        with self.read() as db:
            rows = db.execute(
                "SELECT id, name, disabled, pinned FROM ladder_teams ORDER BY name"
            ).fetchall()
        return [Team(r[0], r[1], bool(r[2]), r[3]) for r in rows]

    def set_disabled(self, name: str, disabled: bool) -> None:
        """Disable (or enable) a team: its token stops working and its versions stop playing."""
        with self.write() as db:
            changed = db.execute(
                "UPDATE ladder_teams SET disabled = ? WHERE name = ?", (int(disabled), name)
            ).rowcount
        if not changed:
            raise Refused(404, f"no team is named {name!r}")

    def pin(self, team_id: int, number: int | None) -> None:
        """Play version ``number`` of the team (an accepted one), or its newest (None)."""
        with self.write() as db:
            if number is not None:
                row = db.execute(
                    "SELECT status FROM ladder_versions WHERE team_id = ? AND number = ?",
                    (team_id, number),
                ).fetchone()
                if row is None or row[0] not in ACCEPTED:
                    raise Refused(
                        422, f"version {number} has not passed the gate; it cannot be pinned"
                    )
            db.execute("UPDATE ladder_teams SET pinned = ? WHERE id = ?", (number, team_id))
            choose_active(db, team_id)

    # --- versions ---------------------------------------------------------------------

    def add_version(
        self, team: Team, sha256: str, filename: str, source: str, per_day: int
    ) -> Version:
        """Record an upload as the team's next version, queued for its build; ``source``:
        its unpacked folder, relative to the ladder's storage.

        Refused (429) past ``per_day`` uploads in 24 hours or while another of the team's
        versions is queued, building or validating; (503) once the ladder is frozen.
        """
        now = time.time()
        with self.write() as db:
            if db.execute("SELECT 1 FROM ladder_meta WHERE key = 'frozen'").fetchone():
                raise Refused(503, "the ladder is frozen for the final: no more submissions")
            (recent,) = db.execute(
                "SELECT COUNT(*) FROM ladder_versions WHERE team_id = ? AND created_at > ?",
                (team.id, now - DAY),
            ).fetchone()
            if recent >= per_day:
                raise Refused(429, f"{per_day} submissions in 24 hours is this ladder's limit")
            busy = db.execute(
                "SELECT number, status FROM ladder_versions WHERE team_id = ? AND status IN (?, ?, ?)",
                (team.id, *IN_FLIGHT),
            ).fetchone()
            if busy is not None:
                raise Refused(429, f"version {busy[0]} is still {busy[1]}: one build at a time")
            last = db.execute(
                "SELECT MAX(number) FROM ladder_versions WHERE team_id = ?", (team.id,)
            ).fetchone()[0]
            rated = db.execute(
                "SELECT mu, sigma FROM ladder_versions WHERE team_id = ? AND matches > 0 "
                "ORDER BY number DESC LIMIT 1",
                (team.id,),
            ).fetchone()
            skill = new_version_skill(None if rated is None else Skill(rated[0], rated[1]))
            (version_id,) = db.execute(
                "INSERT INTO ladder_versions (team_id, number, sha256, filename, source, status, "
                "mu, sigma, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "RETURNING id",
                (
                    team.id,
                    (last or 0) + 1,
                    sha256,
                    filename,
                    source,
                    QUEUED,
                    skill.mu,
                    skill.sigma,
                    now,
                    now,
                ),
            ).fetchone()
            db.execute(
                "INSERT INTO ladder_jobs (kind, subject, state, created_at, updated_at) "
                "VALUES ('build', ?, 'queued', ?, ?)",
                (version_id, now, now),
            )
            return _version(db.execute(f"{_VERSIONS} WHERE v.id = ?", (version_id,)).fetchone())

    def version(self, version_id: int) -> Version | None:
        with self.read() as db:
            row = db.execute(f"{_VERSIONS} WHERE v.id = ?", (version_id,)).fetchone()
        return None if row is None else _version(row)

    def versions(self, team_id: int | None = None, statuses: Sequence[str] = ()) -> list[Version]:
        """The versions of a team (all teams: None), newest first; only ``statuses`` if given."""
        where: list[str] = []
        params: list[object] = []
        if team_id is not None:
            where.append("v.team_id = ?")
            params.append(team_id)
        if statuses:
            where.append(f"v.status IN ({', '.join('?' * len(statuses))})")
            params.extend(statuses)
        sql = _VERSIONS + (f" WHERE {' AND '.join(where)}" if where else "")
        with self.read() as db:
            rows = db.execute(sql + " ORDER BY v.id DESC", params).fetchall()
        return [_version(row) for row in rows]

    def set_status(
        self, version_id: int, status: str, reason: str | None = None, log_tail: str | None = None
    ) -> None:
        """Move a version on; an accepted or benched one re-chooses its team's active one."""
        if status not in STATUSES:
            raise ValueError(status)
        with self.write() as db:
            team_id = db.execute(
                "UPDATE ladder_versions SET status = ?, reason = ?, log_tail = ?, updated_at = ? "
                "WHERE id = ? RETURNING team_id",
                (status, reason, log_tail, time.time(), version_id),
            ).fetchone()
            if team_id is not None and status in (*ACCEPTED, BENCHED):
                choose_active(db, team_id[0])

    def set_fingerprint(self, version_id: int, fingerprint: str) -> None:
        with self.write() as db:
            db.execute(
                "UPDATE ladder_versions SET fingerprint = ? WHERE id = ?", (fingerprint, version_id)
            )

    def fingerprints(self) -> list[tuple[Version, str]]:
        """Every accepted (or benched) version with its behaviour fingerprint."""
        with self.read() as db:
            rows = db.execute(
                f"SELECT {_VERSION_COLUMNS}, v.fingerprint FROM ladder_versions v JOIN "
                "ladder_teams t ON t.id = v.team_id WHERE v.fingerprint IS NOT NULL ORDER BY v.id"
            ).fetchall()
        return [(_version(row[:-1]), row[-1]) for row in rows]

    def playing(self) -> list[Version]:
        """The versions in the pool: each enabled team's active one, best shown rating first."""
        with self.read() as db:
            rows = db.execute(
                f"{_VERSIONS} WHERE v.status = ? AND t.disabled = 0", (ACTIVE,)
            ).fetchall()
        return sorted((_version(row) for row in rows), key=lambda v: (-v.skill.shown, v.bot_name))

    # --- the copy check's flags -------------------------------------------------------

    def add_flags(self, flags: Sequence[Any]) -> int:
        """Record copy flags (``CopyFlag`` s whose versions are version ids); new ones' count."""
        added = 0
        with self.write() as db:
            for flag in flags:
                low, high = sorted((flag.version_a, flag.version_b))
                added += db.execute(
                    "INSERT INTO ladder_flags (version_a, version_b, kind, score, created_at) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (low, high, flag.kind, flag.score, time.time()),
                ).rowcount
        return added

    def flags(self) -> list[tuple[Version, Version, str, float]]:
        """Every copy flag: the two versions, the kind (behaviour, source) and the score."""
        with self.read() as db:
            rows = db.execute(
                "SELECT version_a, version_b, kind, score FROM ladder_flags ORDER BY id"
            ).fetchall()
        found = []
        for a, b, kind, score in rows:
            one, other = self.version(a), self.version(b)
            if one is not None and other is not None:
                found.append((one, other, kind, score))
        return found


def choose_active(db: Connection, team_id: int) -> None:
    """The team's pinned accepted version, else its newest accepted one, is active; every
    other accepted version is retired."""
    pinned = db.execute("SELECT pinned FROM ladder_teams WHERE id = ?", (team_id,)).fetchone()[0]
    accepted = [
        (row[0], row[1])
        for row in db.execute(
            "SELECT id, number FROM ladder_versions WHERE team_id = ? AND status IN (?, ?) "
            "ORDER BY number DESC",
            (team_id, *ACCEPTED),
        )
    ]
    chosen = next((vid for vid, number in accepted if number == pinned), None)
    if chosen is None and accepted:
        chosen = accepted[0][0]
    for vid, _ in accepted:
        status = ACTIVE if vid == chosen else RETIRED
        db.execute("UPDATE ladder_versions SET status = ? WHERE id = ?", (status, vid))

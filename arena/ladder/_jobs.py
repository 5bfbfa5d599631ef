"""Jobs with leases, batches of matches and the results the ladder has rated.

A job is claimed with a lease (``lease_until``); the worker renews it while it works and
marks it done or failed at the end. A server killed mid-job leaves the row ``running``:
the next server, holding the ladder's lock, puts every running job back in the queue
(:func:`requeue_running`), and a lease that ran out is claimable in any case. A job
started :data:`MAX_ATTEMPTS` times without finishing fails for good.

A batch is one tournament of the store (``ladder-bN``); its matches' results are rated
by :func:`rate_match` once each: the ``ladder_rated`` row and the ratings it moved are one
transaction, so a kill between a match's record and its rating rates it on the next
start, and never twice.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.ladder._db import BENCHED, LadderDB, choose_active
from arena.ladder._rating import Skill
from arena.ladder._schema import MAX_ATTEMPTS
from arena.store._db import Connection

BUILD, GATE, BATCH = "build", "gate", "batch"


@dataclass(frozen=True, slots=True)
class Job:
    id: int
    kind: str
    subject: int
    attempts: int


@dataclass(frozen=True, slots=True)
class Batch:
    id: int
    tournament: str
    tables: tuple[tuple[int, ...], ...]
    """Version ids per table, in seat order."""
    finished: bool


@dataclass(frozen=True, slots=True)
class SeatOutcome:
    """One version's part of a recorded match, as the ladder rates it."""

    version_id: int
    seat: int
    chips: int
    hands: int
    faults: int


@dataclass(frozen=True, slots=True)
class MatchLine:
    """A rated match as a team's page lists it."""

    tournament: str
    match_key: str
    version_id: int
    bot: str
    seat: int
    chips: int
    hands: int
    faults: int
    shown_after: float
    records: str
    finished_at: float


def enqueue(ladder: LadderDB, kind: str, subject: int) -> None:
    """Queue a job (again: a finished one of the same kind and subject is reset)."""
    now = time.time()
    with ladder.write() as db:
        db.execute(
            "INSERT INTO ladder_jobs (kind, subject, state, created_at, updated_at) "
            "VALUES (?, ?, 'queued', ?, ?) ON CONFLICT (kind, subject) DO UPDATE SET "
            "state = 'queued', attempts = 0, lease_until = NULL, updated_at = excluded.updated_at",
            (kind, subject, now, now),
        )


def claim(ladder: LadderDB, kind: str, lease: float) -> Job | None:
    """The oldest queued job of ``kind`` (or one whose lease ran out), now running."""
    now = time.time()
    with ladder.write() as db:
        row = db.execute(
            "SELECT id, subject, attempts FROM ladder_jobs WHERE kind = ? AND (state = 'queued' "
            "OR (state = 'running' AND lease_until < ?)) ORDER BY id LIMIT 1",
            (kind, now),
        ).fetchone()
        if row is None:
            return None
        job_id, subject, attempts = row
        if attempts >= MAX_ATTEMPTS:
            db.execute(
                "UPDATE ladder_jobs SET state = 'failed', updated_at = ? WHERE id = ?",
                (now, job_id),
            )
            return Job(job_id, kind, subject, -attempts)  # given up: the caller records why
        db.execute(
            "UPDATE ladder_jobs SET state = 'running', attempts = attempts + 1, lease_until = ?, "
            "updated_at = ? WHERE id = ?",
            (now + lease, now, job_id),
        )
    return Job(job_id, kind, subject, attempts + 1)


def renew(ladder: LadderDB, job: Job, lease: float) -> None:
    with ladder.write() as db:
        db.execute(
            "UPDATE ladder_jobs SET lease_until = ? WHERE id = ? AND state = 'running'",
            (time.time() + lease, job.id),
        )


def finish(ladder: LadderDB, job: Job, state: str = "done") -> None:
    with ladder.write() as db:
        db.execute(
            "UPDATE ladder_jobs SET state = ?, lease_until = NULL, updated_at = ? WHERE id = ?",
            (state, time.time(), job.id),
        )


def requeue_running(ladder: LadderDB) -> int:
    """Put back every running job (a server starting holds the ladder alone); how many."""
    with ladder.write() as db:
        return db.execute(
            "UPDATE ladder_jobs SET state = 'queued', lease_until = NULL WHERE state = 'running'"
        ).rowcount


def queue_depth(ladder: LadderDB) -> dict[str, dict[str, int]]:
    """Jobs by kind and state, for the organiser's page."""
    depth: dict[str, dict[str, int]] = {}
    with ladder.read() as db:
        for kind, state, count in db.execute(
            "SELECT kind, state, COUNT(*) FROM ladder_jobs GROUP BY kind, state"
        ):
            depth.setdefault(kind, {})[state] = count
    return depth


# --- batches ------------------------------------------------------------------------


def create_batch(ladder: LadderDB, tables: Sequence[Sequence[int]]) -> Batch:
    """A new batch of ``tables`` (version ids in seat order) and its job."""
    now = time.time()
    with ladder.write() as db:
        (next_id,) = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM ladder_batches").fetchone()
        tournament = f"ladder-b{next_id}"
        data = json.dumps([list(table) for table in tables])
        (batch_id,) = db.execute(
            "INSERT INTO ladder_batches (id, tournament, tables, created_at) VALUES (?, ?, ?, ?) "
            "RETURNING id",
            (next_id, tournament, data, now),
        ).fetchone()
        db.execute(
            "INSERT INTO ladder_jobs (kind, subject, state, created_at, updated_at) "
            "VALUES (?, ?, 'queued', ?, ?)",
            (BATCH, batch_id, now, now),
        )
    return Batch(batch_id, tournament, tuple(tuple(t) for t in tables), False)


def batch(ladder: LadderDB, batch_id: int) -> Batch | None:
    with ladder.read() as db:
        row = db.execute(
            "SELECT id, tournament, tables, finished_at FROM ladder_batches WHERE id = ?",
            (batch_id,),
        ).fetchone()
    if row is None:
        return None
    return Batch(row[0], row[1], tuple(tuple(t) for t in json.loads(row[2])), row[3] is not None)


def finish_batch(ladder: LadderDB, batch_id: int) -> None:
    with ladder.write() as db:
        db.execute(
            "UPDATE ladder_batches SET finished_at = ? WHERE id = ?", (time.time(), batch_id)
        )


def busy_versions(ladder: LadderDB) -> set[int]:
    """Versions seated in a batch not yet finished (they are not matched again meanwhile)."""
    with ladder.read() as db:
        rows = db.execute("SELECT tables FROM ladder_batches WHERE finished_at IS NULL").fetchall()
    return {version for (data,) in rows for table in json.loads(data) for version in table}


# --- rated results ------------------------------------------------------------------


def rate_match(
    ladder: LadderDB,
    tournament: str,
    match_key: str,
    seats: Sequence[SeatOutcome],
    skills: Mapping[int, Skill],
    *,
    records: str,
    bench: tuple[float, int],
) -> bool:
    """Store one match's new skills, tallies and lines; False if it was rated already.

    ``bench``: (fault rate, minimum hands): a version past that rate after at least that
    many hands is benched (its team's previous accepted version, if any, plays on).
    """
    now = time.time()
    with ladder.write() as db:
        seen = db.execute(
            "SELECT 1 FROM ladder_rated WHERE tournament = ? AND match_key = ?",
            (tournament, match_key),
        ).fetchone()
        if seen is not None:
            return False
        db.execute(
            "INSERT INTO ladder_rated (tournament, match_key, rated_at) VALUES (?, ?, ?)",
            (tournament, match_key, now),
        )
        for seat in seats:
            skill = skills[seat.version_id]
            row = db.execute(
                "UPDATE ladder_versions SET mu = ?, sigma = ?, matches = matches + 1, "
                "hands = hands + ?, faults = faults + ?, last_played = ? WHERE id = ? "
                "RETURNING hands, faults, status, team_id",
                (skill.mu, skill.sigma, seat.hands, seat.faults, now, seat.version_id),
            ).fetchone()
            db.execute(
                "INSERT INTO ladder_seats (tournament, match_key, version_id, seat, chips, hands, "
                "faults, shown_after, records, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    tournament,
                    match_key,
                    seat.version_id,
                    seat.seat,
                    seat.chips,
                    seat.hands,
                    seat.faults,
                    skill.shown,
                    records,
                    now,
                ),
            )
            _bench_if_faulty(db, seat.version_id, row, bench)
    return True


def _bench_if_faulty(
    db: Connection, version_id: int, row: Sequence[Any], bench: tuple[float, int]
) -> None:
    """Bench a version past the fault rate (its team's previous accepted one plays on)."""
    rate, min_hands = bench
    hands, faults, status, team_id = row
    if hands >= min_hands and faults > rate * hands and status != BENCHED:
        reason = f"benched: {faults} faults in {hands} hands (limit {rate:.0%})"
        db.execute(
            "UPDATE ladder_versions SET status = ?, reason = ? WHERE id = ?",
            (BENCHED, reason, version_id),
        )
        choose_active(db, team_id)


def match_lines(
    ladder: LadderDB, *, team_id: int | None = None, limit: int = 50
) -> list[MatchLine]:
    """The newest rated matches' seats (a team's only, if given), newest first."""
    sql = (
        "SELECT s.tournament, s.match_key, s.version_id, t.name || '-v' || v.number, s.seat, "
        "s.chips, s.hands, s.faults, s.shown_after, s.records, s.finished_at FROM ladder_seats s "
        "JOIN ladder_versions v ON v.id = s.version_id JOIN ladder_teams t ON t.id = v.team_id"
    )
    params: list[object] = []
    if team_id is not None:
        sql += " WHERE v.team_id = ?"
        params.append(team_id)
    sql += " ORDER BY s.finished_at DESC, s.match_key LIMIT ?"
    params.append(limit)
    with ladder.read() as db:
        return [MatchLine(*row) for row in db.execute(sql, params).fetchall()]


def match_seats(ladder: LadderDB, tournament: str, match_key: str) -> list[MatchLine]:
    """Every seat of one rated match, in seat order."""
    with ladder.read() as db:
        rows = db.execute(
            "SELECT s.tournament, s.match_key, s.version_id, t.name || '-v' || v.number, s.seat, "
            "s.chips, s.hands, s.faults, s.shown_after, s.records, s.finished_at FROM ladder_seats s "
            "JOIN ladder_versions v ON v.id = s.version_id JOIN ladder_teams t ON t.id = v.team_id "
            "WHERE s.tournament = ? AND s.match_key = ? ORDER BY s.seat",
            (tournament, match_key),
        ).fetchall()
    return [MatchLine(*row) for row in rows]

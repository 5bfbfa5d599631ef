"""Reading the arena database: the queries behind :class:`~arena.tournament.Store`'s readers.

Each function takes an open connection and runs inside the store's read lock
(:meth:`Store._read`), so a caller that needs several reads in one snapshot can pass
the same connection; none of them writes. Rows come back as the frozen records of
:mod:`arena.store._schema`. The writes are in :mod:`arena.store._writer`.
"""

from __future__ import annotations

import json
import math
from typing import Any

from arena.ratings import bounded_rating
from arena.store._db import Connection
from arena.store._schema import (
    NOT_STARTED,
    BotFaults,
    MatchRow,
    RatingRow,
    ScheduledRow,
    SeatRow,
    TournamentRow,
)

_TOURNAMENT_COLUMNS = "id, name, config_json, status, created_at, finished_at"


def bots(db: Connection) -> dict[str, str]:
    """Every bot's name and spec, by name."""
    return dict(db.execute("SELECT name, spec FROM bots ORDER BY name"))


def tournament(db: Connection, name: str) -> TournamentRow | None:
    """The tournament called ``name``, or None."""
    row = db.execute(
        f"SELECT {_TOURNAMENT_COLUMNS} FROM tournaments WHERE name = ?", (name,)
    ).fetchone()
    return TournamentRow(*row) if row else None


def tournaments(db: Connection) -> list[TournamentRow]:
    """Every tournament, oldest first."""
    rows = db.execute(f"SELECT {_TOURNAMENT_COLUMNS} FROM tournaments ORDER BY id").fetchall()
    return [TournamentRow(*row) for row in rows]


def scheduled(
    db: Connection, tournament_id: int, *, pending_only: bool, not_started: bool = False
) -> list[ScheduledRow]:
    """Schedule rows in order: all, those with no result (``pending_only``), or those
    recorded as :data:`NOT_STARTED` forfeits (``not_started``)."""
    where = (
        " AND NOT EXISTS (SELECT 1 FROM matches m WHERE m.tournament_id = s.tournament_id "
        "AND m.match_key = s.match_key)"
        if pending_only
        else ""
    )
    if not_started:
        where += (
            " AND EXISTS (SELECT 1 FROM matches m WHERE m.tournament_id = s.tournament_id "
            f"AND m.match_key = s.match_key AND m.reason = '{NOT_STARTED}')"
        )
    rows = db.execute(
        "SELECT id, tournament_id, position, match_key, round, seats_json, hands, seed, "
        "duplicate, row_json FROM scheduled_matches s WHERE tournament_id = ?"
        + where
        + " ORDER BY position",
        (tournament_id,),
    ).fetchall()
    return [
        ScheduledRow(
            id=row[0],
            tournament_id=row[1],
            position=row[2],
            key=row[3],
            round=row[4],
            seats=tuple(json.loads(row[5])),
            hands=row[6],
            seed=row[7],
            duplicate=bool(row[8]),
            data=json.loads(row[9]),
        )
        for row in rows
    ]


def match_rows(db: Connection, *, game_type: str | None, tournament: str | None) -> list[MatchRow]:
    """Recorded matches in the order they were recorded, with their seats, optionally filtered."""
    where, args = filters(game_type=game_type, tournament=tournament)
    matches = db.execute(
        "SELECT m.id, m.match_key, t.name, m.game_type, m.big_blind, m.duplicate_block, "
        "m.hands_played, m.reason, m.finished_at, m.records_dir, m.summary_json "
        "FROM matches m JOIN tournaments t ON t.id = m.tournament_id" + where + " ORDER BY m.id",
        args,
    ).fetchall()
    seats = _seat_rows(db, where, args)
    return [
        MatchRow(
            id=row[0],
            key=row[1],
            tournament=row[2],
            game_type=row[3],
            big_blind=row[4],
            duplicate_block=row[5],
            hands_played=row[6],
            reason=row[7],
            finished_at=row[8],
            records_dir=row[9],
            seats=tuple(seats.get(row[0], ())),
            summary=json.loads(row[10]),
        )
        for row in matches
    ]


def _seat_rows(db: Connection, where: str, args: list[Any]) -> dict[int, list[SeatRow]]:
    """The seat rows of the matches ``where`` selects, by match id, in seat order."""
    seats: dict[int, list[SeatRow]] = {}
    for row in db.execute(
        "SELECT r.match_id, b.name, r.seat, r.chips, r.hands, r.faults, r.sat_out, "
        "r.forfeited, r.unit_chips_json FROM seat_results r "
        "JOIN matches m ON m.id = r.match_id JOIN tournaments t ON t.id = m.tournament_id "
        "JOIN bots b ON b.id = r.bot_id" + where + " ORDER BY r.match_id, r.seat",
        args,
    ):
        seats.setdefault(row[0], []).append(
            SeatRow(
                bot=row[1],
                seat=row[2],
                chips=row[3],
                hands=row[4],
                faults=row[5],
                sat_out=bool(row[6]),
                forfeited=bool(row[7]),
                unit_chips=tuple(json.loads(row[8])),
            )
        )
    return seats


def match_seats(db: Connection, match_id: int) -> list[SeatRow]:
    """One match's seat rows, in seat order."""
    return _seat_rows(db, " WHERE m.id = ?", [match_id]).get(match_id, [])


def unrated(db: Connection, tournament_id: int) -> list[tuple[int, str]]:
    """``(position, key)`` of the tournament's matches recorded without their ratings yet,
    in schedule order."""
    rows = db.execute(
        "SELECT s.position, m.match_key FROM matches m JOIN scheduled_matches s "
        "ON s.tournament_id = m.tournament_id AND s.match_key = m.match_key "
        "WHERE m.tournament_id = ? AND m.rated = 0 ORDER BY s.position",
        (tournament_id,),
    ).fetchall()
    return [(int(position), str(key)) for position, key in rows]


def rating_history(
    db: Connection, *, bot: str | None, system: str, game_type: str | None
) -> list[RatingRow]:
    """Rating changes in the order they were recorded."""
    where = " WHERE r.system = ?"
    args: list[Any] = [system]
    if bot is not None:
        where += " AND b.name = ?"
        args.append(bot)
    if game_type is not None:
        where += " AND r.game_type = ?"
        args.append(game_type)
    rows = db.execute(
        "SELECT r.id, b.name, r.system, r.game_type, t.name, m.match_key, "
        "r.rating_before, r.rating_after, m.finished_at FROM ratings r "
        "JOIN bots b ON b.id = r.bot_id JOIN matches m ON m.id = r.match_id "
        "JOIN tournaments t ON t.id = m.tournament_id" + where + " ORDER BY r.id",
        args,
    ).fetchall()
    return [RatingRow(*row) for row in rows]


def current_ratings(db: Connection, system: str, game_type: str) -> dict[str, float]:
    """Each rated bot's latest ``rating_after`` in this system and game type.

    Absurd stored values are bounded (``bounded_rating``): one beyond ``RATING_LIMIT``
    reads as the limit, and a NaN, infinite or NULL one as unrated (the caller's start
    rating then applies), so no Elo computed from them overflows.
    """
    rows = db.execute(
        "SELECT b.name, r.rating_after FROM ratings r JOIN bots b ON b.id = r.bot_id "
        "WHERE r.id IN (SELECT MAX(id) FROM ratings WHERE system = ? AND game_type = ? "
        "GROUP BY bot_id) ORDER BY b.name",
        (system, game_type),
    ).fetchall()
    ratings = {}
    for name, rating in rows:
        if isinstance(rating, int | float) and math.isfinite(rating):
            ratings[name] = bounded_rating(rating, 0.0)
    return ratings


def standing_pool(db: Connection, game_type: str) -> list[str]:
    """Bots with at least one recorded match in this game type, by name."""
    rows = db.execute(
        "SELECT DISTINCT b.name FROM seat_results r JOIN bots b ON b.id = r.bot_id "
        "JOIN matches m ON m.id = r.match_id WHERE m.game_type = ? ORDER BY b.name",
        (game_type,),
    ).fetchall()
    return [name for (name,) in rows]


def faults_by_bot(
    db: Connection, *, game_type: str | None, tournament: str | None
) -> dict[str, BotFaults]:
    """Per bot with a recorded match: matches, hands, faults, sit-outs, forfeits, reasons
    (with the most common detail of each)."""
    where, args = filters(game_type=game_type, tournament=tournament)
    totals = db.execute(
        "SELECT b.name, COUNT(*), SUM(r.hands), SUM(r.faults), SUM(r.sat_out), "
        "SUM(r.forfeited) FROM seat_results r JOIN bots b ON b.id = r.bot_id "
        "JOIN matches m ON m.id = r.match_id JOIN tournaments t ON t.id = m.tournament_id"
        + where
        + " GROUP BY b.name ORDER BY b.name",
        args,
    ).fetchall()
    reasons: dict[str, dict[str, int]] = {}
    details: dict[str, dict[str, tuple[int, str]]] = {}  # the most common detail, its count
    for name, reason, detail, count in db.execute(
        "SELECT b.name, f.reason, f.detail, COUNT(*) FROM faults f "
        "JOIN seat_results r ON r.match_id = f.match_id AND r.seat = f.seat "
        "JOIN bots b ON b.id = r.bot_id JOIN matches m ON m.id = f.match_id "
        "JOIN tournaments t ON t.id = m.tournament_id"
        + where
        + " GROUP BY b.name, f.reason, f.detail ORDER BY b.name, f.reason, f.detail",
        args,
    ):
        tally = reasons.setdefault(name, {})
        tally[reason] = tally.get(reason, 0) + int(count)
        best = details.setdefault(name, {})
        if int(count) > best.get(reason, (0, ""))[0]:
            best[reason] = (int(count), detail)
    return {
        name: BotFaults(  # int(): PostgreSQL's SUM of integers is a Decimal
            bot=name,
            matches=int(matches),
            hands=int(hands),
            faults=int(n_faults),
            sat_out=int(sat_out),
            forfeited=int(forfeited),
            reasons=reasons.get(name, {}),
            details={reason: text for reason, (_, text) in details.get(name, {}).items()},
        )
        for name, matches, hands, n_faults, sat_out, forfeited in totals
    }


def filters(*, game_type: str | None, tournament: str | None) -> tuple[str, list[Any]]:
    """A ``WHERE`` clause on matches ``m`` and tournaments ``t``, and its arguments."""
    clauses, args = [], []
    if game_type is not None:
        clauses.append("m.game_type = ?")
        args.append(game_type)
    if tournament is not None:
        clauses.append("t.name = ?")
        args.append(tournament)
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), args

"""Writing one finished match: the rows :meth:`Store.record_match` commits at once.

Each function runs inside the caller's write transaction (``BEGIN IMMEDIATE``) and never
commits, so a match is stored whole or not at all (:mod:`arena.store._store`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.store._db import Connection
from arena.store._schema import (
    NOT_STARTED,
    AlreadyRecorded,
    RatingUpdate,
    SeatResult,
    UnknownMatch,
)

BotId = Callable[[Connection, str], int]
"""The id of a bot by name, created if new (:meth:`Store._bot_id`)."""


def now() -> str:
    """The time rows are stamped with: UTC, ISO 8601, microseconds."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def get_field(row: Any, name: str, default: Any = ...) -> Any:
    """A field of a mapping or an object; ``default`` if given and missing."""
    if isinstance(row, Mapping):
        if name in row:
            return row[name]
    elif hasattr(row, name):
        return getattr(row, name)
    if default is ...:
        raise ValueError(f"{row!r} has no {name!r}")
    return default


def refuse_or_replace(
    db: Connection,
    path: str,
    tournament_id: int,
    match_key: str,
    result_summary: Mapping[str, Any],
) -> None:
    """Refuse a second result (:class:`AlreadyRecorded`) or a key off the schedule
    (:class:`UnknownMatch`); a played result replaces a :data:`NOT_STARTED` forfeit."""
    existing = db.execute(
        "SELECT id, reason FROM matches WHERE tournament_id = ? AND match_key = ?",
        (tournament_id, match_key),
    ).fetchone()
    if existing and existing[1] == NOT_STARTED != result_summary.get("reason"):
        delete_match(db, int(existing[0]))
        existing = None
    if existing:
        raise AlreadyRecorded(
            f"{path}: match {match_key!r} of tournament {tournament_id} is already recorded",
            match_id=int(existing[0]),
        )
    if not db.execute(
        "SELECT 1 FROM scheduled_matches WHERE tournament_id = ? AND match_key = ?",
        (tournament_id, match_key),
    ).fetchone():
        raise UnknownMatch(
            f"{path}: match {match_key!r} is not in the schedule of tournament {tournament_id}"
        )


SeatValues = tuple[str, int, int, int, int, int, int, str]
"""One seat's row: bot name, seat, chips, hands, faults, sat out, forfeited, unit chips."""


def insert_match(
    db: Connection,
    tournament_id: int,
    match_key: str,
    *,
    game_type: str,
    big_blind: int,
    duplicate_block: int,
    result_summary: Mapping[str, Any],
    records_dir: str | Path,
    rated: bool = True,
) -> int:
    """The match row; returns its id. ``rated=False``: its ratings rows come later."""
    [(match_id,)] = db.execute(
        "INSERT INTO matches (tournament_id, match_key, game_type, big_blind, "
        "duplicate_block, hands_played, reason, summary_json, records_dir, finished_at, "
        "rated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (
            tournament_id,
            match_key,
            game_type,
            big_blind,
            duplicate_block,
            result_summary.get("hands_played"),
            result_summary.get("reason"),
            json.dumps(result_summary, sort_keys=True, default=str),
            str(records_dir),
            now(),
            int(rated),
        ),
    ).fetchall()
    return int(match_id)


def seat_row(seat: Any) -> SeatValues:
    """One seat's values in column order (bot name first); checks types before writing."""
    return (
        str(get_field(seat, "bot")),
        int(get_field(seat, "seat")),
        int(get_field(seat, "chips")),
        int(get_field(seat, "hands")),
        int(get_field(seat, "faults", 0)),
        int(bool(get_field(seat, "sat_out", False))),
        int(bool(get_field(seat, "forfeited", False))),
        json.dumps([int(x) for x in get_field(seat, "unit_chips", ())]),
    )


def seat_rows(seats: Sequence[SeatResult | Mapping[str, Any]]) -> list[SeatValues]:
    """Each seat's values in column order, checked before the transaction starts."""
    return [seat_row(seat) for seat in seats]


def insert_seats(db: Connection, match_id: int, rows: Sequence[SeatValues], bot_id: BotId) -> None:
    """One ``seat_results`` row per seat (values from :func:`seat_rows`)."""
    for bot, seat, chips, hands, n_faults, sat_out, forfeited, units in rows:
        db.execute(
            "INSERT INTO seat_results (match_id, seat, bot_id, chips, hands, faults, "
            "sat_out, forfeited, unit_chips_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (match_id, seat, bot_id(db, bot), chips, hands, n_faults, sat_out, forfeited, units),
        )


def insert_faults(db: Connection, match_id: int, faults: Sequence[Any]) -> None:
    """One ``faults`` row per :class:`arena.dealer.FaultRecord` (or alike)."""
    for fault in faults:
        db.execute(
            "INSERT INTO faults (match_id, hand_number, seat, reason, detail, applied, "
            "decision_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                match_id,
                int(get_field(fault, "hand_number")),
                int(get_field(fault, "seat")),
                str(get_field(fault, "reason")),
                str(get_field(fault, "detail", "")),
                str(get_field(fault, "applied", "")),
                str(get_field(fault, "decision_id", "")),
            ),
        )


def insert_ratings(
    db: Connection, match_id: int, updates: Sequence[RatingUpdate], bot_id: BotId
) -> None:
    """One ``ratings`` row per update; a non-finite rating is refused by the schema."""
    for update in updates:
        db.execute(
            "INSERT INTO ratings (bot_id, system, game_type, match_id, rating_before, "
            "rating_after) VALUES (?, ?, ?, ?, ?, ?)",
            (
                bot_id(db, update.bot),
                update.system,
                update.game_type,
                match_id,
                finite_rating(update.rating_before),
                finite_rating(update.rating_after),
            ),
        )


def delete_match(db: Connection, match_id: int) -> None:
    """Remove one match and everything that refers to it (inside the caller's transaction)."""
    for table in ("faults", "ratings", "seat_results"):
        db.execute(f"DELETE FROM {table} WHERE match_id = ?", (match_id,))
    db.execute("DELETE FROM matches WHERE id = ?", (match_id,))


def finite_rating(value: float) -> float | None:
    """A finite rating; NaN and infinities become NULL, which the schema refuses."""
    number = float(value)
    return number if math.isfinite(number) else None

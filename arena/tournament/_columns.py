"""Recorded matches as numpy columns: read from the store in one snapshot, kept up to date.

The standings need, per match, its blinds and how it ended, and per seat its bot, chips,
hands, faults and per-unit chips; the units are summed per row straight away
(:class:`arena.ratings.UnitSummary`) and dropped. :class:`ColumnsCache` keeps the columns
of one store between refits and reads only what changed since: matches recorded since
(their ids are larger), and a :data:`NOT_STARTED` placeholder that a played result
replaced (deleted and re-inserted in one transaction, possibly under the same id, since
``matches.id`` is not AUTOINCREMENT). Nothing else in a recorded match ever changes; a
match that disappears for any other reason is dropped all the same.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from arena.ratings import MARGIN_SCALE_MBB, UnitSummary, UnitTable
from arena.ratings._summary import take_rows
from arena.tournament._schema import NOT_STARTED
from arena.tournament._store import MatchRow, Store

Ints = NDArray[np.int64]
Bools = NDArray[np.bool_]

_MAX_DIGITS = 18  # any 18-digit number fits an int64
_MAX_REREAD = 500  # re-read ids named in one query; more, and everything is read again


_COLUMNS = (
    "match_id",
    "completed",
    "placeholder",
    "kept_units",
    "chips",
    "hands",
    "faults",
    "gone",
)


@dataclass(frozen=True, eq=False)
class MatchColumns:
    """Some recorded matches in record order, with their seats, their units already summed.

    Per match: ``match_id`` (increasing), ``completed``, ``placeholder`` (a
    :data:`NOT_STARTED` forfeit) and ``kept_units``, the units every seat keeps (the
    match's fewest; none at all for a seatless match). Per seat row, aligned with the
    summary's seat rows: ``chips``, ``hands``, ``faults`` and ``gone`` (sat out or
    forfeited). The summary's ``names`` is the bot registry.
    """

    match_id: Ints
    completed: Bools
    placeholder: Bools
    kept_units: Ints
    chips: Ints
    hands: Ints
    faults: Ints
    gone: Bools
    summary: UnitSummary

    @classmethod
    def build(
        cls,
        names: tuple[str, ...],
        matches: tuple[Ints, Ints, Ints, list[str | None]],
        seats: tuple[Ints, list[str], Ints, Ints, Ints, Bools],
        units: Ints,
        unit_counts: Ints,
        *,
        scale_mbb: float = MARGIN_SCALE_MBB,
    ) -> MatchColumns:
        """Columns of ``matches`` (id, big blind, block, reason; by id) and their ``seats``.

        ``seats`` are (match id, bot, chips, hands, faults, gone) columns, ordered by match
        and seat; ``units`` holds each seat's per-unit chips back to back, ``unit_counts``
        how many. New bots are added to the registry ``names``, sorted.
        """
        match_id, big_blind, block, reasons = matches
        seat_match_id, bots, chips, hands, faults, gone = seats
        seat_match = np.searchsorted(match_id, seat_match_id).astype(np.int64)
        if len(seat_match) and (
            seat_match.max() >= len(match_id)
            or not np.array_equal(match_id[seat_match], seat_match_id)
            or np.any(np.diff(seat_match) < 0)
        ):
            raise ValueError("seat rows do not follow their matches")
        registry = names + tuple(sorted(set(bots) - set(names)))
        index = {name: k for k, name in enumerate(registry)}
        seat_bot = np.array([index[bot] for bot in bots], dtype=np.int64)
        fewest = np.full(len(match_id), np.iinfo(np.int64).max)
        np.minimum.at(fewest, seat_match, unit_counts)
        keep = fewest[seat_match]
        offsets = np.concatenate(([0], np.cumsum(unit_counts))).astype(np.int64)
        if not np.array_equal(keep, unit_counts):  # every bot keeps the match's fewest units
            units = units[
                np.repeat(offsets[:-1], keep)
                + (np.arange(int(keep.sum())) - np.repeat(np.cumsum(keep) - keep, keep))
            ]
        table = UnitTable(
            names=registry,
            seat_bot=seat_bot,
            seat_match=seat_match,
            offsets=np.concatenate(([0], np.cumsum(keep))).astype(np.int64),
            units=units.astype(np.float64),
            big_blind=big_blind.astype(np.float64),
            hands_per_unit=block.astype(np.int64),
        )
        return cls(
            match_id=match_id.astype(np.int64),
            completed=np.array([r == "completed" for r in reasons], dtype=bool),
            placeholder=np.array([r == NOT_STARTED for r in reasons], dtype=bool),
            kept_units=np.where(fewest == np.iinfo(np.int64).max, 0, fewest),
            chips=chips,
            hands=hands,
            faults=faults,
            gone=gone,
            summary=table.summary(scale_mbb),
        )

    @classmethod
    def from_rows(cls, rows: Sequence[MatchRow]) -> MatchColumns:
        """The columns of some :class:`MatchRow` s (in record order), without a database."""
        rows = sorted(rows, key=lambda row: row.id)
        flat = [(row.id, seat) for row in rows for seat in row.seats]
        return cls.build(
            (),
            (
                np.array([row.id for row in rows], dtype=np.int64),
                np.array([row.big_blind for row in rows], dtype=np.int64),
                np.array([row.duplicate_block for row in rows], dtype=np.int64),
                [row.reason for row in rows],
            ),
            (
                np.array([m for m, _ in flat], dtype=np.int64),
                [seat.bot for _, seat in flat],
                np.array([seat.chips for _, seat in flat], dtype=np.int64),
                np.array([seat.hands for _, seat in flat], dtype=np.int64),
                np.array([seat.faults for _, seat in flat], dtype=np.int64),
                np.array([seat.sat_out or seat.forfeited for _, seat in flat], dtype=bool),
            ),
            np.array([x for _, seat in flat for x in seat.unit_chips], dtype=np.int64),
            np.array([len(seat.unit_chips) for _, seat in flat], dtype=np.int64),
        )

    @classmethod
    def concat(cls, parts: Sequence[MatchColumns]) -> MatchColumns:
        """The matches of every part, in order (see :meth:`UnitSummary.concat`)."""
        joined = {name: np.concatenate([getattr(p, name) for p in parts]) for name in _COLUMNS}
        return cls(**joined, summary=UnitSummary.concat([p.summary for p in parts]))

    def take_matches(self, order: Ints) -> MatchColumns:
        """Only the matches at ``order`` (indices), in that order, with their seats."""
        new_index = np.full(len(self.match_id), -1, dtype=np.int64)
        new_index[order] = np.arange(len(order))
        seats = take_rows(new_index[self.summary.seat_match])
        return replace(
            self,
            match_id=self.match_id[order],
            completed=self.completed[order],
            placeholder=self.placeholder[order],
            kept_units=self.kept_units[order],
            chips=self.chips[seats],
            hands=self.hands[seats],
            faults=self.faults[seats],
            gone=self.gone[seats],
            summary=self.summary.take_matches(order),
        )


# --- reading ----------------------------------------------------------------------------


@contextmanager
def snapshot(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One read transaction, so that several SELECTs see the same matches (WAL: writers go on)."""
    if db.in_transaction:
        yield db
        return
    db.execute("BEGIN")
    try:
        yield db
    finally:
        db.execute("COMMIT")


def _where(game_type: str, tournament: str | None) -> tuple[str, str, list[object]]:
    """(FROM matches m ..., WHERE ..., arguments) of one game type, optionally one tournament."""
    source, where, args = " FROM matches m", " WHERE m.game_type = ?", [game_type]
    if tournament is not None:
        source += " JOIN tournaments t ON t.id = m.tournament_id"
        where += " AND t.name = ?"
        args.append(tournament)
    return source, where, args


def read_columns(
    db: sqlite3.Connection,
    game_type: str,
    tournament: str | None,
    *,
    after: int | None = None,
    ids: Sequence[int] = (),
    names: tuple[str, ...] = (),
) -> MatchColumns:
    """The matches of ``game_type`` (optionally one tournament's), in record order.

    With ``after``, only those with a larger id and those in ``ids``. Call inside
    :func:`snapshot`. Raises ``ValueError`` on a corrupt record.
    """
    source, where, args = _where(game_type, tournament)
    if after is not None:
        where += f" AND (m.id > ? OR m.id IN ({', '.join('?' * len(ids))}))"
        args += [after, *ids]
    matches = db.execute(
        "SELECT m.id, m.big_blind, m.duplicate_block, m.reason" + source + where + " ORDER BY m.id",
        args,
    ).fetchall()
    seats = db.execute(
        "SELECT r.match_id, r.bot_id, r.chips, r.hands, r.faults, r.sat_out + r.forfeited, "
        "r.unit_chips_json FROM seat_results r JOIN matches m ON m.id = r.match_id"
        + source.removeprefix(" FROM matches m")
        + where
        + " ORDER BY r.match_id, r.seat",
        args,
    ).fetchall()
    bot_names = dict(db.execute("SELECT id, name FROM bots").fetchall())
    match_columns = list(zip(*matches, strict=True)) if matches else [()] * 4
    seat_columns = list(zip(*seats, strict=True)) if seats else [()] * 7
    units, counts = parse_int_lists(seat_columns[6])
    return MatchColumns.build(
        names,
        (
            np.array(match_columns[0], dtype=np.int64),
            np.array(match_columns[1], dtype=np.int64),
            np.array(match_columns[2], dtype=np.int64),
            list(match_columns[3]),
        ),
        (
            np.array(seat_columns[0], dtype=np.int64),
            [bot_names[b] for b in seat_columns[1]],
            np.array(seat_columns[2], dtype=np.int64),
            np.array(seat_columns[3], dtype=np.int64),
            np.array(seat_columns[4], dtype=np.int64),
            np.array(seat_columns[5], dtype=np.int64) > 0,
        ),
        units,
        counts,
    )


class ColumnsCache:
    """The columns of one database's matches of one game type (and tournament), kept current.

    :meth:`refresh` lists the matches there now (id and placeholder flag: a few ms for
    20,000), keeps the cached ones that are unchanged, and reads only the others. The
    result equals a fresh read to the last bit: the rows stay in record order.
    """

    def __init__(self, game_type: str, tournament: str | None) -> None:
        self.game_type = game_type
        self.tournament = tournament
        self._columns: MatchColumns | None = None
        self._lock = threading.Lock()
        self.reads = 0  # matches read from the database so far (for tests and benchmarks)

    def refresh(self, db: sqlite3.Connection) -> MatchColumns:
        """The columns of every matching match in the database now."""
        with self._lock, snapshot(db):
            old = self._columns
            columns = self._read_all(db) if old is None else self._update(db, old)
            self._columns = columns
        return columns

    def _read_all(self, db: sqlite3.Connection) -> MatchColumns:
        columns = read_columns(db, self.game_type, self.tournament)
        self.reads += len(columns.match_id)
        return columns

    def _update(self, db: sqlite3.Connection, old: MatchColumns) -> MatchColumns:
        source, where, args = _where(self.game_type, self.tournament)
        listed = db.execute(
            "SELECT m.id, m.reason = ?" + source + where + " ORDER BY m.id", [NOT_STARTED, *args]
        ).fetchall()
        ids = np.array([row[0] for row in listed], dtype=np.int64)
        placeholder = np.array([bool(row[1]) for row in listed], dtype=bool)
        at = np.minimum(np.searchsorted(ids, old.match_id), max(len(ids) - 1, 0))
        same = (
            (ids[at] == old.match_id) & (placeholder[at] == old.placeholder)
            if len(ids)
            else np.zeros(len(old.match_id), dtype=bool)
        )
        keep = np.flatnonzero(same)
        wanted = np.setdiff1d(ids, old.match_id[keep])
        if not len(wanted) and len(keep) == len(old.match_id):
            return old
        kept = old if len(keep) == len(old.match_id) else old.take_matches(keep)
        last = int(kept.match_id[-1]) if len(keep) else -1
        again = wanted[wanted <= last].tolist()
        if len(again) > _MAX_REREAD or len(wanted) > len(ids) // 2:
            return self._read_all(db)
        new = read_columns(
            db, self.game_type, self.tournament, after=last, ids=again, names=kept.summary.names
        )
        self.reads += len(new.match_id)
        columns = MatchColumns.concat([kept, new])
        if again:  # a re-read placeholder goes back to its place in record order
            columns = columns.take_matches(np.argsort(columns.match_id, kind="stable"))
        return columns


_caches: weakref.WeakKeyDictionary[Store, dict[tuple[str, str | None], ColumnsCache]] = (
    weakref.WeakKeyDictionary()
)
_caches_lock = threading.Lock()


def columns_cache(store: Store, game_type: str, tournament: str | None) -> ColumnsCache:
    """The cache of ``store``'s columns for a game type (and tournament); lives as long as it."""
    with _caches_lock:
        per_store = _caches.setdefault(store, {})
        key = (game_type, tournament)
        if key not in per_store:
            per_store[key] = ColumnsCache(game_type, tournament)
        return per_store[key]


# --- the unit chips, parsed all at once -------------------------------------------------


def parse_int_lists(texts: Sequence[str]) -> tuple[Ints, Ints]:
    """Many JSON lists of integers (``"[3, -1, 0]"``) at once: the flat values and each list's length.

    A few numpy passes over the joined text instead of a ``json.loads`` per list (four
    million numbers: 1 s down to about a tenth). The fast path takes what the store
    writes (``json.dumps`` of a list of ints: ``", "`` between numbers); anything else
    goes through ``json.loads``, which raises ``ValueError`` for garbage.
    """
    n = len(texts)
    if not n:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    try:
        raw = np.frombuffer("".join(texts).encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return _parse_slowly(texts)
    length_of = np.fromiter(map(len, texts), dtype=np.int64, count=n)
    text_end = np.cumsum(length_of)
    if (
        length_of.min() < 2
        or np.any(raw[text_end - length_of] != ord("["))
        or np.any(raw[text_end - 1] != ord("]"))
    ):
        return _parse_slowly(texts)
    # only digits, "-", ", " pairs, and one "[" and "]" per text (at its ends, checked above)
    comma, space, close = raw == ord(","), raw == ord(" "), raw == ord("]")
    commas, minuses = np.count_nonzero(comma), np.count_nonzero(raw == ord("-"))
    digits = np.count_nonzero(np.less(raw - np.uint8(ord("0")), 10))
    if (
        digits + minuses + 2 * commas + 2 * n != len(raw)
        or np.count_nonzero(close) != n
        or np.count_nonzero(raw == ord("[")) != n
        or space[0]
        or not np.array_equal(comma[:-1], space[1:])
    ):
        return _parse_slowly(texts)
    # so each text is "[" tokens joined by ", " "]": a token ends at every "," and "]" and
    # starts two bytes after the one before (after ", " or after the "][" between texts)
    comma |= close
    ends = np.flatnonzero(comma)
    begins = np.empty_like(ends)
    begins[0] = 1
    begins[1:] = ends[:-1] + 2
    size = ends - begins
    empty = size == 0
    if np.count_nonzero(empty) != np.count_nonzero(length_of == 2):  # only "[]" is empty
        return _parse_slowly(texts)
    if empty.any():
        full = ~empty
        begins, ends, size = begins[full], ends[full], size[full]
    negative = raw[begins] == ord("-")
    if np.count_nonzero(negative) != minuses:  # a "-" inside a number
        return _parse_slowly(texts)
    size -= negative
    begins += negative
    if len(size) and (
        size.min() < 1
        or size.max() > _MAX_DIGITS
        or np.any((raw[begins] == ord("0")) & (size > 1))  # "01" is not JSON
    ):
        return _parse_slowly(texts)
    counts = np.diff(np.searchsorted(ends, text_end), prepend=0)
    # digit by digit from the last: a pass over the numbers long enough, not the text
    last = ends - 1
    values = (raw[last] - np.uint8(ord("0"))).astype(np.int64)
    scale = 1
    for k in range(1, int(size.max(initial=0))):
        scale *= 10
        more = np.flatnonzero(size > k)
        values[more] += (raw[last[more] - k] - np.uint8(ord("0"))).astype(np.int64) * scale
    values *= 1 - 2 * negative.astype(np.int64)
    return values, counts


def _parse_slowly(texts: Sequence[str]) -> tuple[Ints, Ints]:
    lists = [json.loads(text) for text in texts]
    if not all(isinstance(x, list) and all(type(v) is int for v in x) for x in lists):
        raise ValueError("a unit_chips record is not a list of whole numbers")
    counts = np.array([len(x) for x in lists], dtype=np.int64)
    try:
        values = np.array([v for x in lists for v in x], dtype=np.int64)
    except OverflowError:
        raise ValueError("a unit_chips record holds a number too large for 64 bits") from None
    return values, counts

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

import threading
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace

import numpy as np
from numpy.typing import NDArray

from arena.ratings import MARGIN_SCALE_MBB, UnitSummary, UnitTable
from arena.ratings._summary import take_rows
from arena.store._db import DATA_ERRORS, Connection, begin_read, joined
from arena.store._intlists import parse_int_lists, parse_joined_lists
from arena.store._schema import NOT_STARTED
from arena.store._store import MatchRow, Store

Ints = NDArray[np.int64]
Bools = NDArray[np.bool_]

_MAX_REREAD = 500  # re-read ids named in one query; more, and everything is read again
_CHUNK = 1000  # matches read, parsed and summed at a time
_PLACEHOLDER = f"CASE WHEN m.reason = '{NOT_STARTED}' THEN 1 ELSE 0 END"  # SQLite and PostgreSQL
_COMPLETED = "CASE WHEN m.reason = 'completed' THEN 1 ELSE 0 END"


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
        matches: tuple[Ints, Ints, Ints, Bools, Bools],
        seats: tuple[Ints, Ints, Ints, Ints, Ints, Bools],
        bot_names: Mapping[int, str],
        units: Ints,
        unit_counts: Ints,
        *,
        scale_mbb: float = MARGIN_SCALE_MBB,
    ) -> MatchColumns:
        """Columns of ``matches`` (id, big blind, block, completed, placeholder; by id) and ``seats``.

        ``seats`` are (match id, bot code, chips, hands, faults, gone) columns, ordered by
        match and seat; ``bot_names`` names each code. ``units`` holds each seat's per-unit
        chips back to back, ``unit_counts`` how many. New bots join the registry
        ``names``, sorted.
        """
        match_id, big_blind, block, completed, placeholder = matches
        seat_match_id, codes, chips, hands, faults, gone = seats
        seat_match = np.searchsorted(match_id, seat_match_id).astype(np.int64)
        if len(seat_match) and (
            seat_match.max() >= len(match_id)
            or not np.array_equal(match_id[seat_match], seat_match_id)
            or np.any(np.diff(seat_match) < 0)
        ):
            raise ValueError("seat rows do not follow their matches")
        if len(unit_counts) != len(seat_match):
            raise ValueError("every seat row needs its unit chips")
        registry, seat_bot = _registry(names, codes, bot_names)
        fewest = np.full(len(match_id), np.iinfo(np.int64).max)
        np.minimum.at(fewest, seat_match, unit_counts)
        keep = fewest[seat_match]
        if not np.array_equal(keep, unit_counts):  # every bot keeps the match's fewest units
            offsets = np.concatenate(([0], np.cumsum(unit_counts))).astype(np.int64)
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
            completed=completed.astype(bool),
            placeholder=placeholder.astype(bool),
            kept_units=np.where(fewest == np.iinfo(np.int64).max, 0, fewest),
            chips=chips,
            hands=hands,
            faults=faults,
            gone=gone.astype(bool),
            summary=table.summary(scale_mbb),
        )

    @classmethod
    def from_rows(cls, rows: Sequence[MatchRow]) -> MatchColumns:
        """The columns of some :class:`MatchRow` s (in record order), without a database."""
        rows = sorted(rows, key=lambda row: row.id)
        flat = [(row.id, seat) for row in rows for seat in row.seats]
        bots = sorted({seat.bot for _, seat in flat})
        code = {name: k for k, name in enumerate(bots)}

        def column(values: Iterable[object], kind: type = np.int64) -> NDArray:
            return np.array(list(values), dtype=kind)

        return cls.build(
            (),
            (
                column(row.id for row in rows),
                column(row.big_blind for row in rows),
                column(row.duplicate_block for row in rows),
                column((row.reason == "completed" for row in rows), bool),
                column((row.reason == NOT_STARTED for row in rows), bool),
            ),
            (
                column(m for m, _ in flat),
                column(code[seat.bot] for _, seat in flat),
                column(seat.chips for _, seat in flat),
                column(seat.hands for _, seat in flat),
                column(seat.faults for _, seat in flat),
                column((seat.sat_out or seat.forfeited for _, seat in flat), bool),
            ),
            dict(enumerate(bots)),
            column(x for _, seat in flat for x in seat.unit_chips),
            column(len(seat.unit_chips) for _, seat in flat),
        )

    @classmethod
    def concat(cls, parts: Sequence[MatchColumns]) -> MatchColumns:
        """The matches of every part, in order (see :meth:`UnitSummary.concat`)."""
        names = [field.name for field in fields(cls) if field.name != "summary"]
        joined = {name: np.concatenate([getattr(p, name) for p in parts]) for name in names}
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


def _registry(
    names: tuple[str, ...], codes: Ints, bot_names: Mapping[int, str]
) -> tuple[tuple[str, ...], Ints]:
    """``names`` with the new bots of ``codes`` added (sorted), and each code's index in it."""
    used = np.unique(codes)
    used_names = [bot_names[code] for code in used.tolist()]
    registry = names + tuple(sorted(set(used_names) - set(names)))
    position = {name: k for k, name in enumerate(registry)}
    to_registry = np.array([position[name] for name in used_names], dtype=np.int64)
    return registry, to_registry[np.searchsorted(used, codes)]


# --- reading ----------------------------------------------------------------------------


@contextmanager
def snapshot(db: Connection) -> Iterator[Connection]:
    """One read transaction, so that several SELECTs see the same matches (WAL: writers go on)."""
    if db.in_transaction:
        yield db
        return
    begin_read(db)
    try:
        yield db
    finally:
        db.execute("COMMIT")


def _where(game_type: str, tournament: str | None) -> tuple[str, list[object]]:
    """(WHERE ..., arguments) of the matches ``m`` of one game type, optionally one tournament."""
    where = " WHERE m.game_type = ?"
    args: list[object] = [game_type]
    if tournament is not None:
        # "+": not through the (tournament_id, match_key) index, whose order is the keys'
        where += " AND +m.tournament_id = (SELECT id FROM tournaments WHERE name = ?)"
        args.append(tournament)
    return where, args


def read_columns(
    db: Connection,
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
    where, args = _where(game_type, tournament)
    if after is not None and ids:
        where += f" AND (m.id > ? OR m.id IN ({', '.join('?' * len(ids))}))"
        args += [after, *ids]
    elif after is not None:
        where += " AND m.id > ?"
        args.append(after)
    matches, _ = _select(
        db,
        ["m.id", "m.big_blind", "m.duplicate_block", _COMPLETED, _PLACEHOLDER],
        " FROM matches m" + where,
        args,
        order=("m.id",),
    )
    if len(matches[0]) and np.any(np.diff(matches[0]) <= 0):
        raise ValueError("two matches with one id")
    bot_names = dict(db.execute("SELECT id, name FROM bots").fetchall())
    # A thousand matches at a time, every array a few MB. Every chunk is read and parsed
    # before any is summed, so the parsed units stay allocated meanwhile: freeing each
    # chunk's arrays at once let the allocator hand their pages back to the kernel and
    # fault them in again for the next (50,000 faults, 0.15 s of a 0.4 s read in a VM).
    chunks = [
        _read_chunk(db, where, args, [column[start : start + _CHUNK] for column in matches])
        for start in range(0, max(len(matches[0]), 1), _CHUNK)
    ]
    parts, registry = [], names
    for match_columns, seat_columns, units, counts in chunks:
        parts.append(
            MatchColumns.build(registry, match_columns, seat_columns, bot_names, units, counts)
        )
        registry = parts[-1].summary.names
    return parts[0] if len(parts) == 1 else MatchColumns.concat(parts)


_Chunk = tuple[
    tuple[Ints, Ints, Ints, Bools, Bools], tuple[Ints, Ints, Ints, Ints, Ints, Bools], Ints, Ints
]


def _read_chunk(db: Connection, where: str, args: list[object], matches: list[Ints]) -> _Chunk:
    """The match and seat columns of ``matches`` (id, big blind, block, completed,
    placeholder; by id) as :meth:`MatchColumns.build` takes them, units parsed."""
    match_id, big_blind, block, completed, placeholder = matches
    span = [int(match_id[0]), int(match_id[-1])] if len(match_id) else [0, -1]
    seats, units_text = _select(
        db,
        ["r.match_id", "r.seat", "r.bot_id", "r.chips", "r.hands", "r.faults"],
        " FROM seat_results r JOIN matches m ON m.id = r.match_id"
        + where
        + " AND m.id BETWEEN ? AND ?",
        args + span,
        order=("r.match_id", "r.seat"),
        flag="CASE WHEN r.sat_out + r.forfeited > 0 THEN 1 ELSE 0 END",
        text="r.unit_chips_json",
    )
    seat_match, _seat, bot, chips, hands, faults, gone = seats
    units, counts = parse_joined_lists(units_text)
    return (
        (match_id, big_blind, block, completed > 0, placeholder > 0),
        (seat_match, bot, chips, hands, faults, gone > 0),
        units,
        counts,
    )


def _select(
    db: Connection,
    numbers: list[str],
    tail: str,
    args: list[object],
    *,
    order: tuple[str, ...],
    flag: str | None = None,
    text: str | None = None,
) -> tuple[list[Ints], str]:
    """The integer columns ``numbers`` (then ``flag``) of the rows ``tail`` picks, ordered by
    ``order`` (their first columns), and the ``text`` column's values joined.

    One aggregate row (``group_concat``), parsed with numpy, instead of a Python object per
    value: 40,000 seat rows cost 0.05 s instead of 0.1 s. SQLite feeds an aggregate the rows
    in its scan order, which is normally ``order`` (the primary keys); that is checked, and
    when it is not so the rows are read one by one, sorted.
    """
    numbers = numbers + ([flag] if flag else [])
    aggregates = [joined(db, number, "', '", order) for number in numbers]
    if text:
        aggregates.append(joined(db, text, "''", order))
    try:
        row = db.execute(f"SELECT count(*), {', '.join(aggregates)}" + tail, args).fetchone()
    except DATA_ERRORS:  # over SQLite's string limit (1 GB): one by one
        row = None
    if row is not None and row[0]:
        values, counts = parse_int_lists([f"[{part}]" for part in row[1 : 1 + len(numbers)]])
        if np.any(counts != row[0]):
            raise ValueError("a number is missing")
        columns = np.split(values, len(numbers))
        if _in_order(columns[: len(order)]):
            return columns, row[-1] if text else ""
    elif row is not None:
        return [np.zeros(0, dtype=np.int64) for _ in numbers], ""
    select = ", ".join(numbers + ([text] if text else []))
    rows = db.execute(f"SELECT {select}{tail} ORDER BY {', '.join(order)}", args).fetchall()
    if not rows:
        return [np.zeros(0, dtype=np.int64) for _ in numbers], ""
    transposed = list(zip(*rows, strict=True))
    columns = [np.array(column, dtype=np.int64) for column in transposed[: len(numbers)]]
    return columns, "".join(transposed[-1]) if text else ""


def _in_order(keys: list[Ints]) -> bool:
    """Whether rows with these key columns are strictly increasing (lexicographically)."""
    first = keys[0]
    step = np.diff(first)
    if len(keys) == 1:
        return bool(np.all(step > 0))
    return bool(np.all((step > 0) | ((step == 0) & (np.diff(keys[1]) > 0))))


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

    def refresh(self, db: Connection) -> MatchColumns:
        """The columns of every matching match in the database now."""
        with self._lock, snapshot(db):
            old = self._columns
            columns = self._read_all(db) if old is None else self._update(db, old)
            self._columns = columns
        return columns

    def _read_all(self, db: Connection) -> MatchColumns:
        columns = read_columns(db, self.game_type, self.tournament)
        self.reads += len(columns.match_id)
        return columns

    def _update(self, db: Connection, old: MatchColumns) -> MatchColumns:
        where, args = _where(self.game_type, self.tournament)
        (ids, flags), _ = _select(
            db, ["m.id", _PLACEHOLDER], " FROM matches m" + where, args, order=("m.id",)
        )
        placeholder = flags > 0
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

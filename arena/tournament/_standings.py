"""The leaderboard: incremental Elo, the batch fit with intervals, and mbb/hand with intervals.

The batch fit counts every duplicate block (every hand, without duplicate dealing) as
one game between each pair at the table, scored by its margin
(:func:`arena.ratings.margin_results`): the rating follows how much a bot wins, with the
card luck cancelled by the duplicate rotation, and many games give tight intervals.

Computed from the store alone, so ``arena ratings`` shows the same figures as the end
of a tournament, across every tournament recorded for a game type. A league (200 bots,
20,000 matches of 100 blocks: two million units) is read straight into numpy columns
(:class:`arena.ratings.UnitTable`) and summarised there: ``scripts/bench_standings.py``.

The live leaderboard refits on a worker thread (:class:`StandingsRefresher`), so the
dealer's Trio loop never waits for a refit.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import numpy as np

from arena.engine import ForcedBets, GameConfig, JokerMode, Opening
from arena.ratings import (
    PairResult,
    Rating,
    UnitTable,
    check_rating_setting,
    fit_matrix,
    pairwise_results,
)
from arena.stats import WinRate
from arena.tournament._config import Ratings
from arena.tournament._schema import StoreError
from arena.tournament._store import MatchRow, Store


def absent_losses(bots: list[str], absent: set[str]) -> list[PairResult]:
    """A bot that was not there at the end of a cut-short match lost to everyone who was.

    Without this a bot that never answers would score draws (0 chips each) and rank
    above bots that played and lost. Absent bots draw with each other. Weights as in
    :func:`arena.ratings.pairwise_results`: the table counts as one game per bot.
    """
    if not absent or len(bots) < 2:
        return []
    weight = 1.0 / (len(bots) - 1)
    results = []
    for i, a in enumerate(bots):
        for b in bots[i + 1 :]:
            if a in absent or b in absent:
                score = 0.5 if (a in absent) == (b in absent) else (0.0 if a in absent else 1.0)
                results.append(PairResult(a, b, score, weight))
    return results


def match_results(chips: dict[str, int], absent: set[str]) -> list[PairResult]:
    """One match as pairwise results for Elo: by chips among those present, losses for the absent."""
    present = {bot: value for bot, value in chips.items() if bot not in absent}
    results = pairwise_results(present) if len(present) > 1 else []
    return results + absent_losses(list(chips), absent)


def game_type_of(config: GameConfig) -> str:
    """The label ratings are kept under: the structure, plus what changes the game."""
    parts = [config.structure.value]
    if config.forced_bets is ForcedBets.ANTES:
        parts.append("jackpots" if config.opening is Opening.JACKS_OR_BETTER else "antes")
    if config.joker is not JokerMode.OFF:
        parts.append(f"joker_{config.joker.value}")
    if config.max_draw != 5:
        parts.append(f"draw{config.max_draw}")
    return "+".join(parts)


@dataclass(frozen=True)
class Standing:
    """One bot's line on the leaderboard; every estimate carries its 95% interval."""

    bot: str
    elo: float
    fit: Rating
    win_rate: WinRate
    matches: int
    hands: int
    faults: int


@dataclass(frozen=True)
class Standings:
    """A game type's leaderboard, best first, with head-to-head figures and LOS.

    ``anchor`` is the bot whose rating was pinned at ``anchor_rating``; ``None`` when
    none was asked for or it has no match here (then the mean rating is ``anchor_rating``).
    """

    game_type: str
    rows: tuple[Standing, ...]
    los: dict[tuple[str, str], float]
    matches: int
    pairs: dict[tuple[str, str], WinRate]
    anchor: str | None = None
    anchor_rating: float = 1500.0


@dataclass(frozen=True, eq=False)
class _Seats:
    """The seat rows of some matches as columns (seat rows of a match consecutive, in seat order)."""

    bots: list[str]  # per seat row
    match: np.ndarray  # per seat row: index into the match columns
    chips: list[int]
    hands: np.ndarray
    faults: np.ndarray
    gone: np.ndarray  # sat out or forfeited
    unit_counts: np.ndarray
    units: np.ndarray  # flat, int64
    big_blind: np.ndarray  # per match
    block: np.ndarray
    completed: np.ndarray


def _parse_int_lists(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Many JSON lists of integers (``"[3, -1, 0]"``) at once: the flat values and each list's length.

    One numpy pass over the joined text instead of a ``json.loads`` per list (two
    million numbers: 1 s down to a few hundredths). Anything but plain lists of small
    integers goes through ``json.loads``, which raises ``ValueError`` for garbage.
    """
    counts_of = np.zeros(len(texts), dtype=np.int64)
    if not texts:
        return np.zeros(0, dtype=np.int64), counts_of
    joined = "".join(texts)
    try:
        raw = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return _parse_slowly(texts)
    # few passes over the text, each in place: a new 15 MB array costs more than a pass
    padded = np.zeros(len(raw) + 2, dtype=bool)  # "part of a number", False on both ends
    token = padded[1:-1]
    edge = np.empty(len(raw), dtype=bool)
    np.less(raw - np.uint8(48), 10, out=token)
    seen = {"digit": np.count_nonzero(token)}
    for name, code in (("-", 45), (",", 44), (" ", 32), ("[", 91), ("]", 93)):
        seen[name] = np.count_nonzero(np.equal(raw, code, out=edge))
        if name == "-":
            token |= edge
    if sum(seen.values()) != len(raw) or seen["["] != len(texts) or seen["]"] != len(texts):
        return _parse_slowly(texts)
    if not all(t[:1] == "[" and t[-1:] == "]" for t in texts):
        return _parse_slowly(texts)
    minuses, commas = seen["-"], seen[","]
    starts = np.flatnonzero(np.greater(token, padded[:-2], out=edge))
    ends = np.flatnonzero(np.greater(token, padded[2:], out=edge))
    minus = raw[starts] == 45
    first = starts + minus
    lengths = ends - first + 1
    follows = raw[np.minimum(ends + 1, len(raw) - 1)]
    if (
        int(minus.sum()) != minuses  # a minus inside a number
        or np.any(lengths < 1)
        or np.any(lengths > 18)
        or np.any((follows != 44) & (follows != 93))  # a number not followed by , or ]
    ):
        return _parse_slowly(texts)
    text_end = np.cumsum([len(t) for t in texts])
    counts_of = np.diff(np.concatenate(([0], np.searchsorted(starts, text_end))))
    if commas != np.maximum(counts_of - 1, 0).sum():
        return _parse_slowly(texts)
    # digit by digit across all numbers at once: a few passes over the numbers, not the text
    values = np.zeros(len(starts), dtype=np.int64)
    last = len(raw) - 1
    for k in range(int(lengths.max(initial=0))):
        digit = raw[np.minimum(first + k, last)].astype(np.int64) - 48
        values = np.where(k < lengths, values * 10 + digit, values)
    values[minus] = -values[minus]
    return values, counts_of


def _parse_slowly(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    lists = [json.loads(text) for text in texts]
    if not all(isinstance(x, list) and all(type(v) is int for v in x) for x in lists):
        raise ValueError("a unit_chips record is not a list of whole numbers")
    counts = np.array([len(x) for x in lists], dtype=np.int64)
    flat = [v for x in lists for v in x]
    return np.array(flat, dtype=np.int64), counts


def _read_seats(db: sqlite3.Connection, game_type: str, tournament: str | None) -> _Seats:
    """Every recorded match of ``game_type`` (optionally one tournament's), in record order."""
    where, args = " WHERE m.game_type = ?", [game_type]
    if tournament is not None:
        where += " AND t.name = ?"
        args.append(tournament)
    join = " FROM matches m JOIN tournaments t ON t.id = m.tournament_id"
    matches = db.execute(
        "SELECT m.id, m.big_blind, m.duplicate_block, m.reason" + join + where + " ORDER BY m.id",
        args,
    ).fetchall()
    seats = db.execute(
        "SELECT r.match_id, b.name, r.chips, r.hands, r.faults, r.sat_out + r.forfeited, "
        "r.unit_chips_json FROM seat_results r JOIN matches m ON m.id = r.match_id "
        "JOIN tournaments t ON t.id = m.tournament_id JOIN bots b ON b.id = r.bot_id"
        + where
        + " ORDER BY r.match_id, r.seat",
        args,
    ).fetchall()
    index = {row[0]: k for k, row in enumerate(matches)}
    columns = list(zip(*seats, strict=True)) if seats else [()] * 7
    units, counts = _parse_int_lists(columns[6])
    return _Seats(
        bots=list(columns[1]),
        match=np.array([index[m] for m in columns[0]], dtype=np.int64),
        chips=list(columns[2]),
        hands=np.array(columns[3], dtype=np.int64),
        faults=np.array(columns[4], dtype=np.int64),
        gone=np.array(columns[5], dtype=np.int64) > 0,
        unit_counts=counts,
        units=units,
        big_blind=np.array([row[1] for row in matches], dtype=np.float64),
        block=np.array([row[2] for row in matches], dtype=np.int64),
        completed=np.array([row[3] == "completed" for row in matches], dtype=bool),
    )


def _seats_of_rows(rows: Sequence[MatchRow]) -> _Seats:
    flat = [seat for row in rows for seat in row.seats]
    counts = np.array([len(seat.unit_chips) for seat in flat], dtype=np.int64)
    return _Seats(
        bots=[seat.bot for seat in flat],
        match=np.array([k for k, row in enumerate(rows) for _ in row.seats], dtype=np.int64),
        chips=[seat.chips for seat in flat],
        hands=np.array([seat.hands for seat in flat], dtype=np.int64),
        faults=np.array([seat.faults for seat in flat], dtype=np.int64),
        gone=np.array([seat.sat_out or seat.forfeited for seat in flat], dtype=bool),
        unit_counts=counts,
        units=np.array([x for seat in flat for x in seat.unit_chips], dtype=np.int64),
        big_blind=np.array([row.big_blind for row in rows], dtype=np.float64),
        block=np.array([row.duplicate_block for row in rows], dtype=np.int64),
        completed=np.array([row.reason == "completed" for row in rows], dtype=bool),
    )


def _standings_of(
    seats: _Seats,
    game_type: str,
    elo: dict[str, float],
    *,
    anchor: str | None,
    anchor_rating: float,
) -> Standings:
    names = sorted(set(seats.bots))
    index = {name: k for k, name in enumerate(names)}
    n, matches = len(names), len(seats.big_blind)
    seat_bot = np.array([index[bot] for bot in seats.bots], dtype=np.int64)
    # every bot of a match keeps the match's fewest units (they are aligned from the start)
    offsets = np.concatenate(([0], np.cumsum(seats.unit_counts)))
    fewest = np.full(matches, np.iinfo(np.int64).max)
    np.minimum.at(fewest, seats.match, seats.unit_counts)
    keep = fewest[seats.match] if len(seats.match) else seats.unit_counts
    units = seats.units
    if not np.array_equal(keep, seats.unit_counts):
        units = units[
            np.repeat(offsets[:-1], keep)
            + (np.arange(int(keep.sum())) - np.repeat(np.cumsum(keep) - keep, keep))
        ]
    table = UnitTable(
        names=tuple(names),
        seat_bot=seat_bot,
        seat_match=seats.match,
        offsets=np.concatenate(([0], np.cumsum(keep))).astype(np.int64),
        units=units.astype(np.float64),
        big_blind=seats.big_blind,
        hands_per_unit=seats.block,
    )
    scores, played = table.margin_sums()
    # matches with no units (whole-match results) and cut-short matches' absent bots
    extra: list[PairResult] = []
    bounds = np.searchsorted(seats.match, np.arange(matches + 1))
    for m in np.flatnonzero((fewest == 0) | ~seats.completed).tolist():
        rows = range(int(bounds[m]), int(bounds[m + 1]))
        bots = [seats.bots[s] for s in rows]
        if fewest[m] == 0:
            extra.extend(pairwise_results({seats.bots[s]: seats.chips[s] for s in rows}))
        if not seats.completed[m]:
            gone = {seats.bots[s] for s in rows if seats.gone[s]}
            extra.extend(absent_losses(bots, gone))
    for r in extra:
        i, j = index[r.a], index[r.b]
        scores[i, j] += r.score * r.weight
        scores[j, i] += (1.0 - r.score) * r.weight
        played[i, j] += r.weight
        played[j, i] += r.weight
    rated = [k for k in range(n) if played[k].any()]
    rated_names = [names[k] for k in rated]
    if anchor is not None and anchor not in rated_names:
        anchor = None
    fit = (
        fit_matrix(
            rated_names,
            scores[np.ix_(rated, rated)],
            played[np.ix_(rated, rated)],
            anchor=anchor,
            anchor_rating=anchor_rating,
        )
        if rated
        else {}
    )
    rates = table.bot_win_rates()
    count = np.bincount(seat_bot, minlength=n)
    hands = np.bincount(seat_bot, seats.hands, minlength=n)
    faults = np.bincount(seat_bot, seats.faults, minlength=n)
    rows_out = [
        Standing(
            bot=bot,
            elo=elo.get(bot, float("nan")),
            fit=fit[bot],
            win_rate=rates[bot],
            matches=int(count[index[bot]]),
            hands=int(hands[index[bot]]),
            faults=int(faults[index[bot]]),
        )
        for bot in fit
    ]
    rows_out.sort(key=lambda s: -s.fit.elo)
    return Standings(
        game_type,
        tuple(rows_out),
        table.los_matrix() if matches else {},
        matches,
        table.pair_win_rates() if matches else {},
        anchor=anchor,
        anchor_rating=anchor_rating,
    )


def standings_from_rows(
    rows: list[MatchRow],
    game_type: str,
    elo: dict[str, float],
    *,
    anchor: str | None = None,
    anchor_rating: float = 1500.0,
) -> Standings:
    """Fit and tabulate the given match rows (one game type)."""
    return _standings_of(
        _seats_of_rows(rows), game_type, elo, anchor=anchor, anchor_rating=anchor_rating
    )


def compute_standings(
    store: Store,
    game_type: str,
    *,
    tournament: str | None = None,
    anchor: str | None = None,
    anchor_rating: float = 1500.0,
) -> Standings:
    """The leaderboard of a game type from every stored match (or one tournament's).

    An ``anchor`` with no match here is not pinned (``Standings.anchor`` is then ``None``).
    Raises :class:`StoreError` naming the file when the database cannot be read.
    """
    try:
        with store._read() as db:  # one short read, columns straight from SQLite
            seats = _read_seats(db, game_type, tournament)
    except ValueError as error:
        raise StoreError(f"{store.path}: corrupt record: {error}") from None
    return _standings_of(
        seats,
        game_type,
        store.current_ratings("elo", game_type),
        anchor=anchor,
        anchor_rating=anchor_rating,
    )


# --- the anchor a game type was rated with --------------------------------------------


@dataclass(frozen=True)
class StoredAnchor:
    """The ``[ratings]`` anchor of the latest tournament of a game type, as stored with it."""

    tournament: str
    anchor: str | None
    anchor_rating: float


def stored_anchor(
    store: Store, game_type: str, tournament: str | None = None
) -> StoredAnchor | None:
    """The anchor of ``tournament`` (or of the latest one with a match of ``game_type``).

    Read from the tournament file the store keeps (``tournaments.config_json``). ``None``
    when no tournament has a match of that type; a stored copy without a usable
    ``[ratings]`` table gives no anchor and the default rating.
    """
    query = (
        "SELECT t.name FROM matches m JOIN tournaments t ON t.id = m.tournament_id "
        "WHERE m.game_type = ?" + (" AND t.name = ?" if tournament is not None else "")
    )
    args = [game_type] if tournament is None else [game_type, tournament]
    with store._read() as db:
        latest = db.execute(query + " ORDER BY m.id DESC LIMIT 1", args).fetchone()
    row = store.get_tournament(latest[0]) if latest else None
    if row is None:
        return None
    default = Ratings()
    try:
        ratings = json.loads(row.config_json).get("ratings") or {}
        anchor = ratings.get("anchor")
        rating = check_rating_setting(ratings.get("anchor_rating", default.anchor_rating))
    except (ValueError, AttributeError, TypeError):
        return StoredAnchor(row.name, None, default.anchor_rating)
    return StoredAnchor(row.name, anchor if isinstance(anchor, str) else None, rating)


# --- the live leaderboard's worker ------------------------------------------------------


def open_reader(path: str | Path) -> Store:
    """A read-only :class:`Store` on its own connection, for use by one worker thread."""
    uri = f"file:{quote(str(Path(path).resolve()))}?mode=ro"
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=Store.BUSY_TIMEOUT)
    except sqlite3.Error as error:
        raise StoreError(f"{path}: cannot open: {error}") from None
    return Store(connection, str(path))


class StandingsRefresher:
    """Refits the live leaderboard on a worker thread: the dealer's loop never waits for it.

    :meth:`request` only raises a flag; one thread does every refit, so there are never two
    at once, and requests made during a refit collapse into one more refit with the
    newest data (stale ones are skipped). Refits start at most every ``min_interval``
    seconds. ``open_store`` is called in the worker thread, so its SQLite connection never
    crosses threads; ``compute(store)`` returns the new standings, read by :attr:`latest`.
    A refit that fails keeps the previous standings and its message in :attr:`error`.
    """

    def __init__(
        self,
        compute: Callable[[Store], Standings],
        open_store: Callable[[], Store],
        *,
        min_interval: float = 1.0,
    ) -> None:
        self._compute = compute
        self._open_store = open_store
        self._min_interval = min_interval
        self._wake = threading.Condition()
        self._wanted = False
        self._closing = False
        self.latest: Standings | None = None
        self.error: str | None = None
        self.refits = 0
        self._thread = threading.Thread(target=self._run, name="standings", daemon=True)
        self._thread.start()

    def request(self) -> None:
        """Ask for a refit with the newest data; returns at once."""
        with self._wake:
            self._wanted = True
            self._wake.notify()

    def close(self) -> None:
        """Stop the worker after the refit in progress (if any); pending requests are dropped."""
        with self._wake:
            self._closing = True
            self._wake.notify()
        self._thread.join()

    def __enter__(self) -> StandingsRefresher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self) -> None:
        store: Store | None = None
        try:
            while True:
                with self._wake:
                    while not (self._wanted or self._closing):
                        self._wake.wait()
                    if self._closing:
                        return
                    self._wanted = False
                try:
                    if store is None:
                        store = self._open_store()
                    self.latest = self._compute(store)
                    self.error = None
                except Exception as error:  # a refit must never take the tournament down
                    self.error = str(error) or type(error).__name__
                self.refits += 1
                with self._wake:
                    self._wake.wait_for(lambda: self._closing, timeout=self._min_interval)
        finally:
            if store is not None:
                store.close()

"""The leaderboard: incremental Elo, the batch fit with intervals, and mbb/hand with intervals.

The batch fit counts every duplicate block (every hand, without duplicate dealing) as
one game between each pair at the table, scored by its margin
(:func:`arena.ratings.margin_results`): the rating follows how much a bot wins, with the
card luck cancelled by the duplicate rotation, and many games give tight intervals.

Computed from the store alone, so ``arena ratings`` shows the same figures as the end
of a tournament, across every tournament recorded for a game type. A league (200 bots,
20,000 matches of 100 blocks: two million units) is read straight into numpy columns,
summed per row (:class:`arena.ratings.UnitSummary`) and kept between refits
(:mod:`arena.store._columns`): ``scripts/bench_standings.py``.

The live leaderboard refits on a worker thread (:class:`StandingsRefresher`), so the
dealer's Trio loop never waits for a refit.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import quote

import numpy as np

from arena.engine import ForcedBets, GameConfig, JokerMode, Opening
from arena.ratings import (
    DEFAULT_START_RATING,
    PairResult,
    Rating,
    check_rating_setting,
    fit_matrix,
    pairwise_results,
)
from arena.stats import WinRate
from arena.store._columns import MatchColumns, columns_cache
from arena.store._db import is_url
from arena.store._schema import StoreError
from arena.store._store import MatchRow, Store
from arena.tournament._config import Ratings
from arena.tournament._standing_notes import NO_HANDS, did_not_play_reasons, reasons_from_rows


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
    anchor_rating: float = DEFAULT_START_RATING
    did_not_play: tuple[tuple[str, str], ...] = ()
    """(bot, why) for each bot with matches but no hand played (it never started):
    listed apart, never ranked (issue 21 item 3)."""


def _whole_match_results(columns: MatchColumns) -> list[PairResult]:
    """Results the units do not hold: matches with none (by chips), absent bots' losses."""
    summary = columns.summary
    names = np.array(summary.bots, dtype=object)
    seat_names = names[summary.bot_index()] if len(names) else names
    bounds = np.searchsorted(summary.seat_match, np.arange(len(columns.match_id) + 1))
    extra: list[PairResult] = []
    for m in np.flatnonzero((columns.kept_units == 0) | ~columns.completed).tolist():
        rows = range(int(bounds[m]), int(bounds[m + 1]))
        bots = [seat_names[s] for s in rows]
        if columns.kept_units[m] == 0:
            extra.extend(pairwise_results({seat_names[s]: int(columns.chips[s]) for s in rows}))
        if not columns.completed[m]:
            gone = {seat_names[s] for s in rows if columns.gone[s]}
            extra.extend(absent_losses(bots, gone))
    return extra


def _standings_of(
    columns: MatchColumns,
    game_type: str,
    elo: dict[str, float],
    *,
    anchor: str | None,
    anchor_rating: float,
) -> Standings:
    summary = columns.summary
    names = summary.bots
    index = {name: k for k, name in enumerate(names)}
    n, matches = len(names), len(columns.match_id)
    seat_bot = summary.bot_index()
    scores, played = summary.margin_sums()
    for r in _whole_match_results(columns):
        i, j = index[r.a], index[r.b]
        scores[i, j] += r.score * r.weight
        scores[j, i] += (1.0 - r.score) * r.weight
        played[i, j] += r.weight
        played[j, i] += r.weight
    count = np.bincount(seat_bot, minlength=n)
    hands = np.bincount(seat_bot, columns.hands, minlength=n)
    faults = np.bincount(seat_bot, columns.faults, minlength=n)
    # a bot with no hand played is not rated: its forfeits would rank it by no play at all
    rated = [k for k in range(n) if played[k].any() and hands[k] > 0]
    rated_names = [names[k] for k in rated]
    if anchor is not None and anchor not in rated_names:
        anchor = None
    pick = np.ix_(rated, rated)
    fit = {}
    if rated:
        fit = fit_matrix(
            rated_names, scores[pick], played[pick], anchor=anchor, anchor_rating=anchor_rating
        )
    rates = summary.bot_win_rates()
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
        summary.los_matrix() if matches else {},
        matches,
        summary.pair_win_rates() if matches else {},
        anchor=anchor,
        anchor_rating=anchor_rating,
        did_not_play=tuple((names[k], NO_HANDS) for k in range(n) if count[k] and not hands[k]),
    )


def _with_reasons(standings: Standings, reasons: dict[str, str]) -> Standings:
    """``standings`` with each bot that did not play given its reason from ``reasons``."""
    if not standings.did_not_play:
        return standings
    absent = tuple((bot, reasons.get(bot, why)) for bot, why in standings.did_not_play)
    return replace(standings, did_not_play=absent)


def standings_from_rows(
    rows: list[MatchRow],
    game_type: str,
    elo: dict[str, float],
    *,
    anchor: str | None = None,
    anchor_rating: float = DEFAULT_START_RATING,
) -> Standings:
    """Fit and tabulate the given match rows (one game type)."""
    standings = _standings_of(
        MatchColumns.from_rows(rows), game_type, elo, anchor=anchor, anchor_rating=anchor_rating
    )
    absent = [bot for bot, _ in standings.did_not_play]
    return _with_reasons(standings, reasons_from_rows(rows, absent))


def compute_standings(
    store: Store,
    game_type: str,
    *,
    tournament: str | None = None,
    anchor: str | None = None,
    anchor_rating: float = DEFAULT_START_RATING,
) -> Standings:
    """The leaderboard of a game type from every stored match (or one tournament's).

    The first call on a :class:`Store` reads every match; later calls on it read only
    the matches recorded since (:class:`~arena.store._columns.ColumnsCache`), so
    the live leaderboard's refits cost the fit, not the read. An ``anchor`` with no
    match here is not pinned (``Standings.anchor`` is then ``None``). Raises
    :class:`StoreError` naming the file when the database cannot be read.
    """
    cache = columns_cache(store, game_type, tournament)
    try:
        with store._read() as db:  # one snapshot, columns straight from SQLite
            columns = cache.refresh(db)
    except ValueError as error:
        raise StoreError(f"{store.path}: corrupt record: {error}") from None
    standings = _standings_of(
        columns,
        game_type,
        store.current_ratings("elo", game_type),
        anchor=anchor,
        anchor_rating=anchor_rating,
    )
    absent = [bot for bot, _ in standings.did_not_play]
    return _with_reasons(standings, did_not_play_reasons(store, game_type, tournament, absent))


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
    if is_url(path):  # PostgreSQL: a connection of its own (its reads never write)
        return Store.open(path, create=False)
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

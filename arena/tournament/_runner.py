"""Run a tournament: many tables at once, bots reused, every result committed atomically.

The schedule is stored before the first match, so a tournament killed at any point is
finished by :func:`run_tournament` with ``resume=True``: it plays exactly the matches
that have no committed result, none twice (the store refuses a second result for a key).
Each bot process is started once and plays all its tables; a per-bot limit keeps a
slow bot from being flooded, a global one caps the tables in flight. Under duplicate
dealing each bot is started once per rotation (a heads-up tournament starts every
launched bot twice) and instance ``k`` plays only the ``k``-th table of each match, so
no process ever sees a deck twice (issue 9): what it remembers of its own cards never
tells it what an opponent holds at another table.

Bots that dial in (``remote = true``, issue 11) are opened once, by ``arena serve``'s
opener, and lease one stream per table: :mod:`arena.tournament._dispatch` picks the
next match whose bots can all play now, and waits (saying for whom) when none can.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

import trio

from arena.dealer import (
    BotDriver,
    BotStartError,
    MatchRecorder,
    MatchResult,
    MatchSettings,
    SeatSummary,
    run_duplicate_match,
    run_match,
    sandbox_of,
)
from arena.engine import Hand
from arena.ratings import ChipSprt, EloSystem, bounded_rating
from arena.tournament._bots import REMOTE, BotSpec
from arena.tournament._config import TournamentConfig, TournamentConfigError
from arena.tournament._dispatch import Dispatcher, leasable, stream_notes
from arena.tournament._drivers import open_builtin_bot
from arena.tournament._errors import TournamentError, expected_error
from arena.tournament._formats import build_schedule
from arena.tournament._instances import Instances, rotations_needed, visibility_notes
from arena.tournament._lock import hold_tournament
from arena.tournament._not_started import error_tail, record_not_started, start_note
from arena.tournament._owner import check_free, claim, same_settings
from arena.tournament._scheduled import ScheduledMatch
from arena.tournament._standings import game_type_of, match_results
from arena.tournament._store import (
    AlreadyRecorded,
    RatingUpdate,
    Store,
    StoreError,
    seat_results,
)

MatchStarted = Callable[[str, Sequence[str], MatchSettings], None]
"""``on_match_started(match_id, names, settings)``: a match is about to deal its first hand."""

HandFinished = Callable[[str, int, Hand, Sequence[int], Sequence[str]], None]
"""``on_hand(match_id, hand_number, hand, seats, names)``: called between hands; be quick."""

MatchFinished = Callable[[str, MatchResult], None]
"""``on_match_finished(match_id, result)``: the match is over and committed."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Observers:
    """The runner's plain callbacks (the CLI adapts the plugin hooks to them)."""

    on_match_started: MatchStarted | None = None
    on_hand: HandFinished | None = None
    on_match_finished: MatchFinished | None = None


@dataclasses.dataclass
class Progress:
    """What the runner reports after each match (for progress bars and live leaderboards)."""

    tournament_id: int
    total: int
    done: int
    last_match: str = ""
    notes: list[str] = dataclasses.field(default_factory=list)
    not_started: int = 0
    """Matches recorded as forfeits because a bot could not start (resume retries them)."""
    waiting_for: list[str] = dataclasses.field(default_factory=list)
    """Bots that dial in whose streams the next matches wait for, while none can be played
    (sorted; empty when something plays). Reported once per change."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Played:
    """A match played and written to its folder, with its figures computed once.

    ``seats`` and ``summary`` are what the recorder computed for ``result.json``; the
    store's rows are made from the same values.
    """

    result: MatchResult
    block: int
    seats: list[SeatSummary]
    summary: dict[str, Any]


DriverOpener = Callable[[BotSpec], AbstractAsyncContextManager[BotDriver]]
"""Opens one bot of the tournament file for the whole tournament (the CLI passes the
plugins' :func:`arena.plugins.open_driver`; without one, arena's own kinds only)."""


async def _open_bots(
    config: TournamentConfig,
    needed: dict[str, int],
    stack: contextlib.AsyncExitStack,
    opener: DriverOpener | None,
) -> tuple[Instances, dict[str, str]]:
    """Start every bot (as many instances as it needs); returns the drivers and, for each
    bot that did not start, why. Instance k > 0 is named ``NAME.k+1`` (its log files).
    A bot that dials in is opened once: its driver leases a stream per table."""
    drivers: Instances = {}
    failed: dict[str, str] = {}
    for name in sorted(needed):
        entry = config.bot(name)
        try:
            for k in range(needed[name]):
                copy = entry if k == 0 else entry.renamed(f"{name}.{k + 1}")
                manager = (
                    opener(copy)
                    if opener is not None
                    else open_builtin_bot(copy, config.driver_context())
                )
                drivers.setdefault(name, []).append(await stack.enter_async_context(manager))
                if leasable(drivers[name][0]) is not None:
                    break
        except BaseException as error:  # LookupError: no driver for its kind
            cause = expected_error(error, (BotStartError, LookupError))
            if cause is None:
                raise
            failed[name] = error_tail(cause)
            if entry.kind == REMOTE and isinstance(cause, LookupError):
                failed[name] = (
                    "it dials in: remote bots need `arena serve` (nothing else opens them)"
                )
    return drivers, failed


def _schedule_rows(schedule: Sequence[ScheduledMatch]) -> list[dict[str, Any]]:
    return [
        {
            "key": m.key,
            "seats": list(m.seats),
            "hands": m.hands,
            "seed": m.seed,
            "duplicate": m.duplicate,
            "round": m.round,
        }
        for m in schedule
    ]


def prepare(
    config: TournamentConfig, store: Store, *, resume: bool
) -> tuple[TournamentConfig, int, list[str]]:
    """Create the tournament (schedule stored) or check a resumed one; returns (config, id, notes)."""
    existing = store.get_tournament(config.name)
    notes: list[str] = []
    if resume:
        if existing is None:
            raise TournamentError(
                f"no tournament {config.name!r} in {store.path}: start it with `arena tournament run`"
            )
        if existing.status == "finished":
            raise TournamentError(f"tournament {config.name!r} is already finished")
        stored = json.loads(existing.config_json)
        config = config.with_seed(stored["tournament"]["seed"])
        config, notes = config.without_unavailable()
        if not same_settings(existing.config_json, config.to_json()):
            raise TournamentError(
                f"{config.source} changed since tournament {config.name!r} started; "
                "resume with the original file, or start a tournament with another name"
            )
        claim(config.output / config.name, existing, str(store.path))
        return config, existing.id, notes
    if existing is not None:
        hint = (
            "it is finished: give the new one another name"
            if existing.status == "finished"
            else "finish it with `arena tournament resume`"
        )
        raise TournamentError(f"tournament {config.name!r} already exists in {store.path}: {hint}")
    config, notes = config.without_unavailable()
    try:  # fail before anything is stored if the records cannot be written
        (config.output / config.name).mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise TournamentError(
            f"{config.source}: tournament.output: cannot write to {config.output}: {error.strerror}"
        ) from None
    records = config.output / config.name
    check_free(records, str(store.path))  # another tournament's records are never replaced
    pool = store.standing_pool(game_type_of(config.game))
    schedule = build_schedule(config, standing_pool=pool)
    for entry in config.bots:
        store.upsert_bot(entry.name, f"{entry.kind}: {entry.target}")
    tournament_id = store.create_tournament(config.name, config.to_json(), _schedule_rows(schedule))
    created = store.get_tournament(config.name)
    assert created is not None  # just stored, under the database lock
    claim(records, created, str(store.path))
    return config, tournament_id, notes


async def run_tournament(
    config: TournamentConfig,
    store: Store,
    *,
    resume: bool = False,
    on_progress: Callable[[Progress], None] | None = None,
    open_driver: DriverOpener | None = None,
    on_match_started: MatchStarted | None = None,
    on_hand: HandFinished | None = None,
    on_match_finished: MatchFinished | None = None,
) -> Progress:
    """Play every match of ``config`` that has no committed result; finish the tournament.

    ``open_driver`` opens each bot once for the whole run (default: arena's own kinds,
    :func:`~arena.tournament._drivers.open_builtin_bot`); the ``on_*`` callbacks see
    each match start, each hand and each committed match.

    The whole run holds the database's and the records folder's locks
    (:mod:`arena.tournament._lock`): a second process is refused, never let in.
    """
    with hold_tournament(config.name, str(store.path), config.output / config.name):
        observers = Observers(
            on_match_started=on_match_started,
            on_hand=on_hand,
            on_match_finished=on_match_finished,
        )
        return await _run_locked(config, store, resume, observers, on_progress, open_driver)


async def _run_locked(
    config: TournamentConfig,
    store: Store,
    resume: bool,
    observers: Observers,
    on_progress: Callable[[Progress], None] | None,
    open_driver: DriverOpener | None,
) -> Progress:
    try:
        config, tournament_id, notes = prepare(config, store, resume=resume)
    except TournamentConfigError as error:
        raise TournamentError(str(error)) from None
    retry = {match.key for match in store.not_started_matches(tournament_id)}
    waiting = retry | {match.key for match in store.pending_matches(tournament_id)}
    schedule = store.schedule(tournament_id)
    pending = [match for match in schedule if match.key in waiting]  # schedule order
    total = len(schedule)
    progress = Progress(tournament_id, total, total - len(pending), notes=notes)
    if on_progress is not None:
        on_progress(progress)
    game_type = game_type_of(config.game)
    async with contextlib.AsyncExitStack() as stack:
        drivers, failed = await _open_bots(config, rotations_needed(pending), stack, open_driver)
        progress.notes.extend(visibility_notes(drivers, config) + stream_notes(pending, drivers))
        if failed:  # record their matches as forfeits, play the rest
            pending = await _forfeit_unstarted(
                store, tournament_id, config, pending, failed, retry, progress, game_type
            )
            if on_progress is not None:
                on_progress(progress)
        await _play_all(
            config, store, pending, drivers, observers, progress, on_progress, game_type
        )
    if not progress.not_started:  # forfeits left: the tournament is not finished yet
        store.finish_tournament(tournament_id)
    return progress


async def _play_all(
    config: TournamentConfig,
    store: Store,
    pending: Sequence[Any],
    drivers: Instances,
    observers: Observers,
    progress: Progress,
    on_progress: Callable[[Progress], None] | None,
    game_type: str,
) -> None:
    """Play ``pending`` on ``concurrency`` tables at once, each bot at no more than
    ``max_tables_per_bot``; each match is recorded (and live Elo moved) as it ends, one
    at a time, so the ratings before a match are the ones stored."""
    elo = EloSystem(k=config.ratings.k, start=config.ratings.start)
    record_lock = trio.Lock()

    def waiting(names: list[str]) -> None:
        progress.waiting_for = names
        if on_progress is not None:
            on_progress(progress)

    dispatcher = Dispatcher(  # each match is taken exactly once, when its bots can play
        pending, drivers, max_tables_per_bot=config.max_tables_per_bot, on_waiting=waiting
    )

    async def play(match: Any, tables: list[list[BotDriver]]) -> None:
        played = await _play_one(config, match, tables, observers)
        async with record_lock:
            await trio.to_thread.run_sync(
                _record, store, progress.tournament_id, config, match, played, game_type, elo
            )
            progress.done += 1
            progress.last_match = match.key
            if observers.on_match_finished is not None:
                observers.on_match_finished(f"{config.name}/{match.key}", played.result)
            if on_progress is not None:
                on_progress(progress)

    async def worker() -> None:
        while (taken := await dispatcher.take()) is not None:
            try:
                await play(taken.match, taken.tables)
            finally:
                await dispatcher.release(taken)

    try:
        async with trio.open_nursery() as nursery:  # `concurrency` tables at once
            for _ in range(min(config.concurrency, len(pending))):
                nursery.start_soon(worker)
    except BaseExceptionGroup as group:  # one worker's error stops them all: say that one
        cause = expected_error(group, (TournamentError, StoreError))
        if cause is None:
            raise
        raise cause from None


async def _forfeit_unstarted(
    store: Store,
    tournament_id: int,
    config: TournamentConfig,
    pending: list[Any],
    failed: dict[str, str],
    already: set[str],
    progress: Progress,
    game_type: str,
) -> list[Any]:
    """Record each match with a bot that did not start as a forfeit; return the playable rest."""
    playable, counts = [], dict.fromkeys(failed, 0)
    for match in pending:
        missing = {name: failed[name] for name in match.seats if name in failed}
        if not missing:
            playable.append(match)
            continue
        for name in missing:
            counts[name] += 1
        progress.not_started += 1
        if match.key not in already:  # a forfeit recorded by an earlier run stands as it is
            await trio.to_thread.run_sync(
                functools.partial(
                    record_not_started,
                    store,
                    tournament_id,
                    config,
                    match,
                    missing,
                    game_type=game_type,
                )
            )
        progress.done += 1
    for name, tail in failed.items():
        progress.notes.append(start_note(name, tail, counts[name], config.source))
    return playable


async def _play_one(
    config: TournamentConfig,
    match: ScheduledMatch,
    tables: list[list[BotDriver]],
    observers: Observers,
) -> _Played:
    """Play one match into its folder (``tables[k][i]``: seat ``i`` at table ``k``, one
    table unless duplicate); a folder that cannot be written is a TournamentError."""
    settings = config.match_settings(match)
    folder = config.output / config.name / match.key
    try:
        recorder = MatchRecorder(folder, settings)
        try:
            return await _play_recorded(config, match, settings, tables, observers, recorder)
        finally:
            recorder.close()
    except BaseException as error:  # disk full, a folder made read-only: name it, keep the rest
        cause = expected_error(error, OSError)
        if not isinstance(cause, OSError):
            raise
        where = cause.filename or folder
        raise TournamentError(
            f"{where}: cannot write the records of match {match.key}: {cause.strerror or cause}; "
            f"nothing of it was recorded. Fix that, then `arena tournament resume {config.source}` "
            "plays it and the rest"
        ) from None


async def _play_recorded(
    config: TournamentConfig,
    match: Any,
    settings: MatchSettings,
    tables: list[list[BotDriver]],
    observers: Observers,
    recorder: MatchRecorder,
) -> _Played:
    seats = list(match.seats)
    block = len(seats) if match.duplicate else 1
    recorder.match_started(seats, settings.seed, sandbox=[sandbox_of(d) for d in tables[0]])
    if observers.on_match_started is not None:
        observers.on_match_started(settings.match_id, seats, settings)
    observe = observers.on_hand

    def on_hand(number: int, hand: Hand, table_seats: Sequence[int], names: Sequence[str]) -> None:
        recorder.on_hand(number, hand, table_seats, names)
        if observe is not None:
            observe(settings.match_id, number, hand, table_seats, names)

    stop_when = _early_stop(config, block) if config.early_stop and len(seats) == 2 else None
    if match.duplicate:  # table k: every bot's k-th instance (or k-th leased stream)
        result = await run_duplicate_match(
            tables, settings, on_hand=on_hand, on_fault=recorder.on_fault, stop_when=stop_when
        )
    else:
        result = await run_match(
            tables[0],
            settings,
            on_hand=on_hand,
            on_fault=recorder.on_fault,
            stop_when=stop_when,
        )
    result.names = seats  # results are keyed by the names in the tournament file
    summary = recorder.match_finished(result, duplicate_block=block)
    return _Played(result, block, recorder.seats, summary)


def _early_stop(config: TournamentConfig, block: int) -> Callable[[MatchResult], bool]:
    """SPRT on seat 0's chips per duplicate block: H0 no edge, H1 an edge of 200 mbb/hand."""
    test = ChipSprt(0.0, 200.0, big_blind=config.game.big_blind, hands_per_unit=block)  # type: ignore[arg-type]  # GameConfig always fills big_blind
    seen = [0]

    def stop(result: MatchResult) -> bool:
        rows = result.payoffs[seen[0] :]
        seen[0] = len(result.payoffs)
        test.add(sum(row[0] for row in rows))
        return test.status != "continue"

    return stop


def _record(
    store: Store,
    tournament_id: int,
    config: TournamentConfig,
    match: Any,
    played: _Played,
    game_type: str,
    elo: EloSystem,
) -> None:
    """Compute the Elo updates from the stored ratings and commit the match in one transaction.

    The per-seat rows and the summary are the recorder's, not computed a second time.
    """
    result, block = played.result, played.block
    seats = seat_results(result, duplicate_block=block, seats=played.seats)
    stored = store.current_ratings("elo", game_type)  # already bounded, as is what is stored
    before = {name: bounded_rating(stored.get(name, elo.start), elo.start) for name in result.names}
    chips = {name: result.chips_won[i] for i, name in enumerate(result.names)}
    absent = set()
    if result.reason != "completed":
        absent = {
            name for i, name in enumerate(result.names) if result.sat_out[i] or result.forfeited[i]
        }
    after = elo.update(before, match_results(chips, absent))
    updates = [RatingUpdate(name, "elo", game_type, before[name], after[name]) for name in chips]
    # AlreadyRecorded: a retry after a crash between play and commit; the first result stands
    with contextlib.suppress(AlreadyRecorded):
        store.record_match(
            tournament_id,
            match.key,
            game_type=game_type,
            big_blind=config.game.big_blind,  # type: ignore[arg-type]  # GameConfig always fills big_blind
            duplicate_block=block,
            result_summary=played.summary,
            seats=seats,
            records_dir=str(config.output / config.name / match.key),
            rating_updates=updates,
            faults=result.faults,
        )

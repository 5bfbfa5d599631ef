"""Run a tournament: the coordinator, which owns the schedule and the store (issue 12).

The schedule is stored before the first match, so a tournament killed at any point is
finished by :func:`run_tournament` with ``resume=True``: it plays exactly the matches
that have no committed result, none twice (the store refuses a second result for a key).

Where the matches run is an :class:`~arena.tournament._executor.Executor`'s business:
the in-process one (:mod:`arena.tournament._inprocess`, the default) or a pool of worker
processes (:mod:`arena.executors`). Each hands back one outcome per match; this module
alone writes results, once per match id: each as it arrives, its Elo update in
schedule order (a match that ends early is rated once those scheduled before it are,
see :mod:`arena.tournament._commit`), so live Elo is the same however many tables or
workers played. Matches with a bot that dials in are committed as they end: when
they play depends on when their bots are connected.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from arena.dealer import MatchResult, SeatSummary
from arena.store._lock import hold_tournament
from arena.store._owner import check_free, claim, same_settings
from arena.store._store import Store
from arena.tournament._bots import REMOTE
from arena.tournament._commit import Committer
from arena.tournament._config import TournamentConfig, TournamentConfigError
from arena.tournament._errors import TournamentError
from arena.tournament._executor import DriverOpener, Executor, Job, MatchOutcome, match_spec
from arena.tournament._formats import build_schedule
from arena.tournament._inprocess import InProcessExecutor
from arena.tournament._play import HandFinished, MatchStarted
from arena.tournament._scheduled import ScheduledMatch
from arena.tournament._standings import game_type_of

MatchFinished = Callable[[str, MatchResult], None]
"""``on_match_finished(match_id, result)``: the match is over and committed."""

MatchRecorded = Callable[[str], None]
"""``on_match_recorded(match_id)``: a played match's rows are in the store (its turn to be
rated may come later); its records folder is complete."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Observers:
    """The runner's plain callbacks (the CLI adapts the plugin hooks to them)."""

    on_match_started: MatchStarted | None = None
    on_hand: HandFinished | None = None
    on_match_finished: MatchFinished | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class RecordedMatch:
    """A match just recorded, for a line per match (issue 21 item 1): ``number`` is the
    count of recorded matches with it; ``seats`` is empty when a bot did not start;
    ``seconds`` from its start to its record (None if its start was not seen)."""

    number: int
    names: tuple[str, ...]
    seats: tuple[SeatSummary, ...] = ()
    not_started: tuple[str, ...] = ()
    seconds: float | None = None


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
    did_not_start: dict[str, str] = dataclasses.field(default_factory=dict)
    """Each bot that did not start in this run, with the end of its error (printable)."""
    waiting_for: list[str] = dataclasses.field(default_factory=list)
    """Bots that dial in whose streams the next matches wait for, while none can be played
    (sorted; empty when something plays). Reported once per change."""
    recorded: RecordedMatch | None = None
    """The match recorded last in this run (None before the first)."""
    running: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    """The matches started and not yet recorded: match id to its bots' names."""
    match_seconds: list[float] = dataclasses.field(default_factory=list)
    """How long each match played in this run took (seconds, in order of recording)."""
    bot_seconds: dict[str, list[float]] = dataclasses.field(default_factory=dict)
    """Per bot, the seconds of each of its matches played in this run."""


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


def _dials_in(config: TournamentConfig) -> bool:
    """Whether a bot of ``config`` dials in (it is resumed through ``arena serve``)."""
    return any(entry.kind == REMOTE for entry in config.bots)


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
        config = config.with_deal_key(store.deal_key(existing.id, config.deal_key))
        return config, existing.id, notes
    if existing is not None:
        hint = (
            "it is finished: give the new one another name"
            if existing.status == "finished"
            else "finish it with `arena tournament resume`"
            + (
                " (`arena serve FILE --resume --listen ...`: its bots dial in)"
                if _dials_in(config)
                else ""
            )
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
    config = config.with_deal_key(store.deal_key(tournament_id, config.deal_key))
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
    executor: Executor | None = None,
    on_match_recorded: MatchRecorded | None = None,
) -> Progress:
    """Play every match of ``config`` that has no committed result; finish the tournament.

    ``executor`` says where the matches run (default: this process,
    :class:`~arena.tournament._inprocess.InProcessExecutor`); ``open_driver`` opens
    each bot there once for the whole run (default: arena's own kinds,
    :func:`~arena.tournament._drivers.open_builtin_bot`); the ``on_*`` callbacks see
    each match start, each hand and each committed match; ``on_match_recorded`` each
    played match as soon as it is stored.

    The whole run holds the database's and the records folder's locks
    (:mod:`arena.store._lock`): a second process is refused, never let in.
    """
    with hold_tournament(config.name, str(store.path), config.output / config.name):
        observers = Observers(
            on_match_started=on_match_started,
            on_hand=on_hand,
            on_match_finished=on_match_finished,
        )
        return await _run_locked(
            config,
            store,
            resume,
            observers,
            (on_progress, on_match_recorded),
            open_driver,
            executor,
        )


async def _run_locked(
    config: TournamentConfig,
    store: Store,
    resume: bool,
    observers: Observers,
    told: tuple[Callable[[Progress], None] | None, MatchRecorded | None],
    open_driver: DriverOpener | None,
    executor: Executor | None,
) -> Progress:
    """``told``: ``on_progress`` and ``on_match_recorded``."""
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
    reporter = _Reporter(progress, told[0], observers, config.name, told[1])
    reporter.report()
    observers = dataclasses.replace(observers, on_match_started=reporter.started)
    specs = [match_spec(config, match) for match in pending]
    committer = Committer(
        store,
        tournament_id,
        config,
        pending,
        specs,
        game_type=game_type_of(config.game),
        already=retry,
        on_committed=reporter.committed,
        on_recorded=reporter.recorded,
    )
    job = Job(
        config=config,
        specs=specs,
        matches=pending,
        deliver=committer.deliver,
        note=reporter.note,
        waiting=reporter.waiting_for,
        opener=open_driver,
        observers=observers,
    )
    await (executor or InProcessExecutor()).run(job)
    if not progress.not_started:  # forfeits left: the tournament is not finished yet
        store.finish_tournament(tournament_id)
    return progress


@dataclasses.dataclass(frozen=True, slots=True)
class _Reporter:
    """Keeps :class:`Progress` up to date and tells ``on_progress`` of each change."""

    progress: Progress
    on_progress: Callable[[Progress], None] | None
    observers: Observers
    name: str
    on_recorded: MatchRecorded | None = None
    started_at: dict[str, float] = dataclasses.field(default_factory=dict)

    def report(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.progress)

    def started(self, match_id: str, names: Sequence[str], settings: Any) -> None:
        """A match deals its first hand: it is running (then the observers' hook)."""
        self.started_at[match_id] = time.monotonic()
        self.progress.running[match_id] = list(names)
        given = self.observers.on_match_started
        if given is not None:
            given(match_id, names, settings)
        self.report()

    def _timed(self, match: Any, outcome: MatchOutcome) -> RecordedMatch:
        """``match``'s :class:`RecordedMatch`; its seconds counted for it and its bots."""
        match_id = f"{self.name}/{match.key}"
        start = self.started_at.pop(match_id, None)
        names = self.progress.running.pop(match_id, None) or list(match.seats)
        seconds = None if start is None else time.monotonic() - start
        if seconds is not None and outcome.result is not None:
            self.progress.match_seconds.append(seconds)
            for name in dict.fromkeys(names):
                self.progress.bot_seconds.setdefault(name, []).append(seconds)
        return RecordedMatch(
            self.progress.done,
            tuple(names),
            tuple(outcome.seats) if outcome.result is not None else (),
            tuple(sorted(outcome.not_started)),
            seconds,
        )

    def recorded(self, match: Any, outcome: MatchOutcome) -> None:
        """A match's rows are in the store: count it (before its turn to be rated)."""
        self.progress.done += 1
        self.progress.recorded = self._timed(match, outcome)
        if outcome.result is None:
            self.progress.not_started += 1
            self.progress.did_not_start.update(outcome.not_started)
        elif self.on_recorded is not None:
            self.on_recorded(f"{self.name}/{match.key}")
        self.report()

    def committed(self, match: Any, outcome: MatchOutcome) -> None:
        """A match is rated in its turn: show it to ``on_match_finished``."""
        if outcome.result is not None:
            self.progress.last_match = match.key
            if self.observers.on_match_finished is not None:
                self.observers.on_match_finished(f"{self.name}/{match.key}", outcome.result)
        self.report()

    def note(self, text: str) -> None:
        self.progress.notes.append(text)
        self.report()

    def waiting_for(self, names: list[str]) -> None:
        self.progress.waiting_for = names
        self.report()

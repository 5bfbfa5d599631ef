"""The coordinator's side of the executor seam: outcomes in, results recorded at once,
Elo in schedule order.

Each match's rows (result, seats, faults) are committed as soon as its outcome arrives,
so a finished match is in the store, never held in memory behind a slow early one (a
coordinator that dies loses nothing played; resume does not play it again). Live Elo
moves in the order ratings are written, so only the rating updates wait: a match is
recorded ``rated = 0`` and gets its ratings (:meth:`Store.rate_match`) once every match
scheduled before it has its own, the same Elo whatever order the matches end in.
``on_committed`` follows that order too. A resumed tournament first rates, in schedule
order, the matches an earlier run recorded and did not rate. Matches with a bot that
dials in are recorded and rated as they end (when they can play depends on when their
bot is connected, and a league must not stall behind a bot that is away).

The ratings are computed inside the write transaction, from the ratings read in it
(the store's callback), so two coordinators of one shared database never write an Elo
update from a stale read. Each match id is taken once: a second outcome (an executor
that played a match again after its worker died) is ignored, and the store refuses a
second result anyway (``AlreadyRecorded``). An outcome that does not fit its match
(other names, a seat missing, chips that do not sum to zero) is refused in one line:
what an executor sends may come from another machine.
"""

from __future__ import annotations

import collections
import contextlib
import functools
from collections.abc import Callable, Sequence
from typing import Any

import trio

from arena.ratings import EloSystem, bounded_rating
from arena.store import AlreadyRecorded, RatingUpdate, Store
from arena.store._schema import RatingReader
from arena.text import escape_untrusted
from arena.tournament._config import TournamentConfig
from arena.tournament._errors import TournamentError
from arena.tournament._executor import MatchOutcome, MatchSpec
from arena.tournament._not_started import record_not_started
from arena.tournament._seat_results import seat_results
from arena.tournament._standings import match_results

_Done = tuple[Any, MatchOutcome | None]
"""A match recorded and waiting for its turn to be rated: (match, its outcome), or
(None, None) for one an earlier run recorded (nothing to tell ``on_committed``)."""


class Committer:
    """Takes each match's outcome (``deliver``), records it, rates it in its turn.

    ``already`` holds the keys whose forfeit an earlier run recorded (it stands until a
    played result replaces it). ``on_committed(match, outcome)`` runs after each match
    is rated (schedule order; a forfeit, which moves no Elo, in its turn as well);
    ``on_recorded(match, outcome)`` as soon as its rows are committed, in the order the
    matches end (what a progress count shows: the store's count, issue 21 item 3).
    """

    def __init__(
        self,
        store: Store,
        tournament_id: int,
        config: TournamentConfig,
        matches: Sequence[Any],
        specs: Sequence[MatchSpec],
        *,
        game_type: str,
        already: set[str],
        on_committed: Callable[[Any, MatchOutcome], None],
        on_recorded: Callable[[Any, MatchOutcome], None] | None = None,
    ) -> None:
        self._store = store
        self._id = tournament_id
        self._config = config
        self._game_type = game_type
        self._already = already
        self._on_committed = on_committed
        self._on_recorded = on_recorded
        self._matches = {spec.match_id: match for spec, match in zip(specs, matches, strict=True)}
        self._taken: set[str] = set()
        self._lock = trio.Lock()
        self._elo = EloSystem(k=config.ratings.k, start=config.ratings.start)
        order = [match.key for spec, match in zip(specs, matches, strict=True) if not spec.remote]
        self._done: dict[str, _Done] = {}
        unrated = store.unrated_matches(tournament_id)  # an earlier run's, to rate first
        if unrated:
            position = {row.key: row.position for row in store.schedule(tournament_id)}
            order = sorted({*order, *(key for _, key in unrated)}, key=position.__getitem__)
            self._done.update({key: (None, None) for _, key in unrated})
        self._order = collections.deque(order)
        while (turn := self._next_turn()) is not None:  # before play continues
            self._rate(*turn)

    @property
    def held(self) -> int:
        """Matches recorded and waiting for one scheduled before them to be rated."""
        return len(self._done)

    async def deliver(self, spec: MatchSpec, outcome: MatchOutcome) -> None:
        """Take ``spec``'s outcome (once per id), record it, rate whatever is now in turn.

        Raises :class:`TournamentError` (nothing recorded) for an outcome that does not
        fit the match."""
        if spec.match_id in self._taken or spec.match_id not in self._matches:
            return
        refuse_misfit(spec, outcome)
        self._taken.add(spec.match_id)
        match = self._matches[spec.match_id]
        async with self._lock:
            await trio.to_thread.run_sync(self._record, match, outcome, spec.remote)
            if self._on_recorded is not None:
                self._on_recorded(match, outcome)
            if spec.remote:
                self._on_committed(match, outcome)
            else:
                self._done[match.key] = (match, outcome)
            while (turn := self._next_turn()) is not None:
                await trio.to_thread.run_sync(self._rate, *turn)
                _, rated, played = turn
                if rated is not None and played is not None:  # in Trio's thread, not a worker's
                    self._on_committed(rated, played)

    def _next_turn(self) -> tuple[str, Any, MatchOutcome | None] | None:
        """The next match in schedule order, if it is recorded (taken off the queue)."""
        if not self._order or self._order[0] not in self._done:
            return None
        key = self._order.popleft()
        return (key, *self._done.pop(key))

    def _record(self, match: Any, outcome: MatchOutcome, rate: bool) -> None:
        """Commit the match's rows at once; its ratings too if ``rate`` (else later)."""
        if outcome.result is None:  # a bot did not start: a forfeit, live Elo untouched
            if match.key not in self._already:  # an earlier run's forfeit stands as it is
                record_not_started(
                    self._store,
                    self._id,
                    self._config,
                    match,
                    outcome.not_started,
                    game_type=self._game_type,
                )
            return
        result, block, config = outcome.result, outcome.block, self._config
        seats = seat_results(result, duplicate_block=block, seats=outcome.seats)
        reason = result.reason
        # AlreadyRecorded: a retry after a crash between play and commit; the first stands
        with contextlib.suppress(AlreadyRecorded):
            self._store.record_match(
                self._id,
                match.key,
                game_type=self._game_type,
                big_blind=config.game.big_blind,  # type: ignore[arg-type]  # GameConfig always fills big_blind
                duplicate_block=block,
                result_summary=outcome.summary,
                seats=seats,
                records_dir=str(config.output / config.name / match.key),
                rating_updates=(
                    functools.partial(self._updates, seats=seats, reason=reason) if rate else ()
                ),
                faults=result.faults,
                rated=rate,
            )

    def _rate(self, key: str, match: Any, outcome: MatchOutcome | None) -> None:
        """Write the ratings of a recorded match (in its turn; run in a worker thread).

        A match played in this run is rated from its outcome (as played), one an earlier
        run recorded from its stored rows; a forfeit has no ratings to write."""
        if outcome is None:
            self._store.rate_match(
                self._id, key, lambda current, seats, reason: self._updates(current, seats, reason)
            )
            return
        result = outcome.result
        if result is not None:
            seats = seat_results(result, duplicate_block=outcome.block, seats=outcome.seats)
            self._store.rate_match(
                self._id, key, lambda current, _s, _r: self._updates(current, seats, result.reason)
            )

    def _updates(
        self, current: RatingReader, seats: Sequence[Any], reason: str | None
    ) -> list[RatingUpdate]:
        """The Elo updates of a match (seats in seat order) from the current ratings."""
        elo = self._elo
        stored = current("elo", self._game_type)  # bounded, as is what is stored
        before = {s.bot: bounded_rating(stored.get(s.bot, elo.start), elo.start) for s in seats}
        chips = {seat.bot: seat.chips for seat in seats}
        absent = set()
        if reason != "completed":
            absent = {seat.bot for seat in seats if seat.sat_out or seat.forfeited}
        after = elo.update(before, match_results(chips, absent))
        return [
            RatingUpdate(name, "elo", self._game_type, before[name], after[name]) for name in chips
        ]


def refuse_misfit(spec: MatchSpec, outcome: MatchOutcome) -> None:
    """Raise :class:`TournamentError` if a played outcome is not one of ``spec``'s match:
    its names are not the seats, a seat is missing or extra, or the chips do not sum to 0.

    An executor's outcome may come from a worker on another machine, a Ray node, or a
    bug: chips out of thin air, or bots never seated (rows and an Elo), are not recorded.
    """
    result = outcome.result
    if result is None:
        return
    seats = tuple(spec.seats)
    why = ""
    if tuple(result.names) != seats:
        why = f"its seats are {_shown(result.names)}, the match's {_shown(seats)}"
    elif any(
        len(values) != len(seats)
        for values in (result.chips_won, result.sat_out, result.forfeited, outcome.seats)
    ):
        why = f"it has a result for {len(result.chips_won)} seat(s), the match has {len(seats)}"
    elif [(s.seat, s.name) for s in outcome.seats] != list(enumerate(seats)):
        why = f"its seat summaries are for {_shown([s.name for s in outcome.seats])}"
    elif [s.chips_won for s in outcome.seats] != list(result.chips_won):
        why = "its seat summaries' chips are not its result's"
    elif sum(result.chips_won) != 0:
        why = f"its chips sum to {sum(result.chips_won):+d}, not 0"
    if why:
        raise TournamentError(
            f"match {spec.key}: refused the outcome its executor (worker) sent: {why}; "
            "nothing of it is recorded"
        )


def _shown(names: Sequence[Any]) -> str:
    """Names a worker sent, printable on one line (they may be anything)."""
    text = escape_untrusted(", ".join(str(name) for name in names), one_line=True)
    return f"[{text[:200]}]"

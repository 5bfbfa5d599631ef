"""The coordinator's side of the executor seam: outcomes in, results committed in order.

Live Elo moves in the order results are recorded, so :class:`Committer` commits them in
schedule order whatever order the matches end in: an outcome that comes early is held
until every match scheduled before it is committed. Matches with a bot that dials in are
committed as they end (when they can play depends on when their bot is connected, and a
league must not stall behind a bot that is away). Each match id is taken once: a second
outcome (an executor that played a match again after its worker died) is ignored, and
the store refuses a second result anyway (``AlreadyRecorded``).
"""

from __future__ import annotations

import collections
import contextlib
import functools
from collections.abc import Callable, Sequence
from typing import Any

import trio

from arena.ratings import EloSystem, bounded_rating
from arena.tournament._config import TournamentConfig
from arena.tournament._executor import MatchOutcome, MatchSpec
from arena.tournament._not_started import record_not_started
from arena.tournament._standings import match_results
from arena.tournament._store import AlreadyRecorded, RatingUpdate, Store, seat_results


class Committer:
    """Takes each match's outcome (``deliver``) and commits it in its turn.

    ``already`` holds the keys whose forfeit an earlier run recorded (it stands until a
    played result replaces it). ``on_committed(match, outcome)`` runs after each commit.
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
    ) -> None:
        self._store = store
        self._id = tournament_id
        self._config = config
        self._game_type = game_type
        self._already = already
        self._on_committed = on_committed
        self._matches = {spec.match_id: match for spec, match in zip(specs, matches, strict=True)}
        self._order = collections.deque(spec.match_id for spec in specs if not spec.remote)
        self._ready: dict[str, MatchOutcome] = {}
        self._taken: set[str] = set()
        self._lock = trio.Lock()
        self._elo = EloSystem(k=config.ratings.k, start=config.ratings.start)

    @property
    def held(self) -> int:
        """Outcomes waiting for a match scheduled before them."""
        return len(self._ready)

    async def deliver(self, spec: MatchSpec, outcome: MatchOutcome) -> None:
        """Take ``spec``'s outcome (once per id) and commit whatever is now in turn."""
        if spec.match_id in self._taken or spec.match_id not in self._matches:
            return
        self._taken.add(spec.match_id)
        async with self._lock:
            if spec.remote:
                await self._commit(spec.match_id, outcome)
            else:
                self._ready[spec.match_id] = outcome
            while self._order and self._order[0] in self._ready:
                match_id = self._order.popleft()
                await self._commit(match_id, self._ready.pop(match_id))

    async def _commit(self, match_id: str, outcome: MatchOutcome) -> None:
        match = self._matches[match_id]
        if outcome.result is None:  # a bot did not start: a forfeit, live Elo untouched
            if match.key not in self._already:  # an earlier run's forfeit stands as it is
                await trio.to_thread.run_sync(
                    functools.partial(
                        record_not_started,
                        self._store,
                        self._id,
                        self._config,
                        match,
                        outcome.not_started,
                        game_type=self._game_type,
                    )
                )
        else:
            await trio.to_thread.run_sync(self._record, match, outcome)
        self._on_committed(match, outcome)

    def _record(self, match: Any, played: MatchOutcome) -> None:
        """Compute the Elo updates from the stored ratings and commit the match in one
        transaction. The per-seat rows and the summary are the runner's, not recomputed."""
        result, block, store, elo = played.result, played.block, self._store, self._elo
        assert result is not None
        seats = seat_results(result, duplicate_block=block, seats=played.seats)
        stored = store.current_ratings("elo", self._game_type)  # bounded, as is what is stored
        before = {n: bounded_rating(stored.get(n, elo.start), elo.start) for n in result.names}
        chips = {name: result.chips_won[i] for i, name in enumerate(result.names)}
        absent = set()
        if result.reason != "completed":
            absent = {
                name
                for i, name in enumerate(result.names)
                if result.sat_out[i] or result.forfeited[i]
            }
        after = elo.update(before, match_results(chips, absent))
        updates = [
            RatingUpdate(name, "elo", self._game_type, before[name], after[name]) for name in chips
        ]
        config = self._config
        # AlreadyRecorded: a retry after a crash between play and commit; the first stands
        with contextlib.suppress(AlreadyRecorded):
            store.record_match(
                self._id,
                match.key,
                game_type=self._game_type,
                big_blind=config.game.big_blind,  # type: ignore[arg-type]  # GameConfig always fills big_blind
                duplicate_block=block,
                result_summary=played.summary,
                seats=seats,
                records_dir=str(config.output / config.name / match.key),
                rating_updates=updates,
                faults=result.faults,
            )

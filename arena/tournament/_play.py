"""The match runner behind every executor: one :class:`MatchSpec` played on given drivers.

:func:`play_match` writes the match's records into its folder and returns the
:class:`MatchOutcome` the coordinator commits. The in-process executor calls it with the
tournament's own drivers, a worker process with the drivers it opened itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from arena.dealer import (
    BotDriver,
    MatchRecorder,
    MatchResult,
    MatchSettings,
    run_duplicate_match,
    run_match,
    sandbox_of,
)
from arena.engine import Hand
from arena.ratings import ChipSprt
from arena.tournament._errors import TournamentError, expected_error
from arena.tournament._executor import MatchOutcome, MatchSpec

MatchStarted = Callable[[str, Sequence[str], MatchSettings], None]
"""``on_match_started(match_id, names, settings)``: a match is about to deal its first hand."""

HandFinished = Callable[[str, int, Hand, Sequence[int], Sequence[str]], None]
"""``on_hand(match_id, hand_number, hand, seats, names)``: called between hands; be quick."""


async def play_match(
    spec: MatchSpec,
    tables: list[list[BotDriver]],
    *,
    on_match_started: MatchStarted | None = None,
    on_hand: HandFinished | None = None,
) -> MatchOutcome:
    """Play one match into its folder (``tables[k][i]``: seat ``i`` at table ``k``, one
    table unless duplicate); a folder that cannot be written is a TournamentError."""
    settings = spec.match_settings()
    try:
        recorder = MatchRecorder(Path(spec.folder), settings)
        try:
            return await _play_recorded(spec, settings, tables, recorder, on_match_started, on_hand)
        finally:
            recorder.close()
    except BaseException as error:  # disk full, a folder made read-only: name it, keep the rest
        cause = expected_error(error, OSError)
        if not isinstance(cause, OSError):
            raise
        where = cause.filename or spec.folder
        raise TournamentError(
            f"{where}: cannot write the records of match {spec.key}: {cause.strerror or cause}; "
            f"nothing of it was recorded. Fix that, then `arena tournament resume {spec.source}` "
            "plays it and the rest"
        ) from None


async def _play_recorded(
    spec: MatchSpec,
    settings: MatchSettings,
    tables: list[list[BotDriver]],
    recorder: MatchRecorder,
    on_match_started: MatchStarted | None,
    observe: HandFinished | None,
) -> MatchOutcome:
    seats = list(spec.seats)
    block = len(seats) if spec.duplicate else 1
    recorder.match_started(seats, settings.seed, sandbox=[sandbox_of(d) for d in tables[0]])
    if on_match_started is not None:
        on_match_started(settings.match_id, seats, settings)

    def on_hand(number: int, hand: Hand, table_seats: Sequence[int], names: Sequence[str]) -> None:
        recorder.on_hand(number, hand, table_seats, names)
        if observe is not None:
            observe(settings.match_id, number, hand, table_seats, names)

    stop_when = _early_stop(settings, block) if spec.early_stop else None
    if spec.duplicate:  # table k: every bot's k-th instance (or k-th leased stream)
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
    summary: dict[str, Any] = recorder.match_finished(result, duplicate_block=block)
    return MatchOutcome(result, block, list(recorder.seats), summary)


def _early_stop(settings: MatchSettings, block: int) -> Callable[[MatchResult], bool]:
    """SPRT on seat 0's chips per duplicate block: H0 no edge, H1 an edge of 200 mbb/hand."""
    test = ChipSprt(0.0, 200.0, big_blind=settings.config.big_blind, hands_per_unit=block)  # type: ignore[arg-type]  # GameConfig always fills big_blind
    seen = [0]

    def stop(result: MatchResult) -> bool:
        rows = result.payoffs[seen[0] :]
        seen[0] = len(result.payoffs)
        test.add(sum(row[0] for row in rows))
        return test.status != "continue"

    return stop

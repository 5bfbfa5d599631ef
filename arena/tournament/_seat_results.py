"""A dealer's match result as the store's seat rows: the one place the two meet, so the
store never imports the dealer."""

from __future__ import annotations

from collections.abc import Sequence

from arena.dealer import MatchResult, SeatSummary, seat_summaries
from arena.store import SeatResult


def seat_results(
    result: MatchResult,
    *,
    duplicate_block: int = 1,
    seats: Sequence[SeatSummary] | None = None,
) -> list[SeatResult]:
    """The seats of a dealer :class:`~arena.dealer.MatchResult` as :class:`SeatResult` s.

    ``seats``: the :func:`arena.dealer.seat_summaries` already computed for this result
    (:attr:`arena.dealer.MatchRecorder.seats`), so a match's figures are computed once;
    without them they are computed here, units cut into blocks of ``duplicate_block``
    hands exactly as ``result.json`` cuts them.
    """
    if seats is None:
        # the big blind only scales mbb/hand, which a SeatResult does not keep
        seats = seat_summaries(result, 1, duplicate_block=duplicate_block)
    return [
        SeatResult(
            bot=summary.name,
            seat=summary.seat,
            chips=summary.chips_won,
            hands=summary.hands,
            faults=summary.faults,
            sat_out=summary.sat_out,
            forfeited=summary.forfeited,
            unit_chips=summary.units,
        )
        for summary in seats
    ]

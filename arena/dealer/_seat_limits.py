"""A seat's limits over a match: the fault limit and the wall budget (R25, issue 21 item 1).

A part of the match runner (:class:`~arena.dealer._match._MatchRunner` mixes it in),
apart so that the runner stays one idea per module: this is where a seat passes a limit
and sits out for the rest of the match, at every rotation of a duplicate match.
"""

from __future__ import annotations

from arena.dealer._seat_record import SeatRecord as _Seat
from arena.dealer._settings import FaultRecord, MatchSettings
from arena.protocol import pb


class SeatLimits:
    """The runner's limit checks; the runner supplies the seats and the two callbacks."""

    settings: MatchSettings
    seats: list[_Seat]
    wall_spent: set[int] | None

    def _fault(
        self,
        seat: _Seat,
        hand_number: int,
        reason: int,
        detail: str,
        applied: str,
        *,
        decision_id: str = "",
        code: str = "",
        event_index: int | None = None,
    ) -> FaultRecord:
        raise NotImplementedError  # the runner's

    def _sit_out(self, seat: _Seat) -> None:
        raise NotImplementedError  # the runner's

    def _count_fault(self, seat: _Seat, hand_number: int) -> None:
        """One more fault against ``seat``; past the fault limit it is out for the match (R25)."""
        s = self.settings
        seat.faults += 1
        if seat.wall_spent and not seat.past_limit:
            self._spent(seat, hand_number, f"wall budget spent ({s.wall_budget:.1f} s per match)")
        if s.fault_limit and seat.faults >= s.fault_limit and not seat.past_limit:
            seat.past_limit = True  # out for the rest of the match, even if it reconnects
            detail = f"{seat.faults} faults"
            self._fault(seat, hand_number, pb.FAULT_REASON_SAT_OUT, detail, str(s.on_fault_limit))
            self._sit_out(seat)

    def _spent(self, seat: _Seat, hand_number: int, detail: str) -> None:
        """Sit ``seat`` out for the match on its wall budget, at every rotation."""
        seat.past_limit = True
        s = self.settings
        self._fault(seat, hand_number, pb.FAULT_REASON_SAT_OUT, detail, str(s.on_fault_limit))
        self._sit_out(seat)
        if self.wall_spent is not None:
            self.wall_spent.add(seat.index)
        hurry = getattr(seat.driver, "stop_without_grace", None)  # a launched bot
        if hurry is not None:
            hurry()

    def _spent_elsewhere(self, hand_number: int) -> None:
        """Seats whose wall budget ran out at another rotation: out before this deal."""
        assert self.wall_spent is not None
        for index in self.wall_spent:
            seat = self.seats[index]
            if not seat.past_limit:
                budget = self.settings.wall_budget
                detail = f"wall budget spent at another rotation ({budget:.1f} s per match)"
                self._spent(seat, hand_number, detail)

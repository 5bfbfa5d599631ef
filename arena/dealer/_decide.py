"""Waiting for one decision: the request, the seat's clock, the answer (R23, R24).

A part of the match runner (:class:`~arena.dealer._match._MatchRunner` mixes it in),
apart so that the runner stays one idea per module: this is where a decision's request
is built and sent and its answer awaited on the seat's clock.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena import protocol
from arena.dealer._answers import StaleFlood, receive_action
from arena.dealer._clock import DecisionClock
from arena.dealer._seat import SeatBrokenError
from arena.dealer._seat_record import SeatRecord as _Seat
from arena.dealer._settings import MatchResult, MatchSettings
from arena.engine import Hand
from arena.protocol import MessageFault, PublicHistory, pb


class DecisionWaits:
    """The runner's decision waits; the runner supplies the state and the two callbacks."""

    settings: MatchSettings
    result: MatchResult
    _history: PublicHistory
    _names: list[str]

    async def _break(
        self,
        seat: _Seat,
        hand_number: int,
        detail: str,
        *,
        record: bool = True,
        reason: int = pb.FAULT_REASON_DISCONNECTED,
    ) -> None:
        raise NotImplementedError  # the runner's

    def _count_stale(self, seat: _Seat) -> None:
        raise NotImplementedError  # the runner's

    async def _wait_for_answer(
        self,
        seat: _Seat,
        hand: Hand,
        players: Sequence[int],
        hand_number: int,
        hand_id: str,
        decision_id: str,
    ) -> tuple[pb.Action | None, pb.FaultReason, str]:
        """Send the DecisionRequest and wait for the answer within the clock (R23).

        Returns the bot's Action, or None with the FaultReason and detail of why there
        is none. The decision runs on the seat's clock (:class:`DecisionClock`: CPU of the
        bot's process tree when the driver measures it, else wall time); what it costs
        past the action timeout comes off the seat's time bank, on that clock, and (on the
        CPU clock) what it took past it in wall time, less twice its CPU, off the seat's wall
        budget (issue 21 item 1).
        """
        s = self.settings
        connection = seat.connection
        assert connection is not None
        request = self._request(seat, hand, players, hand_number, hand_id, decision_id)
        clock = DecisionClock(
            seat.driver, s.action_timeout + seat.bank, free=s.action_timeout, budget=seat.wall_left
        )
        self.result.clocks[seat.index] = clock.kind
        reason: pb.FaultReason = pb.FAULT_REASON_TIMEOUT
        detail = ""
        reply: pb.Action | None = None

        async def wait() -> None:
            nonlocal reply, reason, detail
            try:
                await connection.send(request)
                reply = await receive_action(
                    connection,
                    decision_id=decision_id,
                    issued=seat.issued,
                    on_dropped=lambda: self._count_stale(seat),
                )
            except SeatBrokenError as error:  # a cut (MALFORMED, RATE_LIMITED) or a break
                await self._break(seat, hand_number, "", record=False)
                reason = error.fault_reason  # type: ignore[assignment]  # a FaultReason value
                verb = "broke" if reason == pb.FAULT_REASON_DISCONNECTED else "cut"
                detail = f"stream {verb}: {error}"
            except StaleFlood as flood:
                await self._break(seat, hand_number, "", record=False)
                reason, detail = pb.FAULT_REASON_WRONG_DECISION_ID, str(flood)
            except MessageFault as fault:
                reason, detail = fault.reason, fault.detail

        if await clock.run(wait):
            detail = self._timed_out(seat, clock)
        seat.wall_left = max(0.0, seat.wall_left - clock.overrun())
        charged = clock.charged(s.action_timeout)
        if charged > s.action_timeout:
            seat.bank = max(0.0, seat.bank - (charged - s.action_timeout))
        return reply, reason, detail

    def _timed_out(self, seat: _Seat, clock: DecisionClock) -> str:
        """The TIMEOUT's detail; one on the wall budget puts the seat out for the match
        (``wall_spent``: :meth:`_MatchRunner._count_fault` sits it out; issue 21 item 1)."""
        detail = clock.timeout_detail()
        if not clock.budget_ran_out:
            return detail
        seat.wall_spent = True
        s = self.settings
        return (
            f"wall budget: {s.wall_budget:.1f} s per match past the {s.action_timeout:g} s "
            f"action clock (less twice the CPU used) is spent; {detail}"
        )

    def _request(
        self,
        seat: _Seat,
        hand: Hand,
        players: Sequence[int],
        hand_number: int,
        hand_id: str,
        decision_id: str,
    ) -> pb.DealerMessage:
        """The DecisionRequest for the seat to act, its clock and bank as they stand."""
        history = self._history
        # only the events since the last request: the record holds the earlier ones
        view = hand.view(hand.actor, events_from=history.done)  # type: ignore[arg-type]  # asked only while a seat is to act
        history.extend(view.events)
        return protocol.decision(
            view,
            decision_id=decision_id,
            hand_id=hand_id,
            hand_number=hand_number,
            names=self._names,
            seat_map=players,
            time_left_ms=int(self.settings.action_timeout * 1000),
            time_bank_ms=int(seat.bank * 1000),
            history_wire=history.request_wire(),
        )

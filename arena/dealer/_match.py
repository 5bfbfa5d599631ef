"""Run one match at one table: the dealer's loop over hands, deadlines and faults.

The engine referees; this module owns time and failure (h11's driver pattern). Every
decision is bounded by the action clock plus what is left of the seat's time bank
(R23). Whatever a bot sends, the outcome is an engine action: its own if legal, the
default otherwise (R24), with a recorded :class:`FaultRecord`. A bot that breaks,
or passes the fault limit, sits out or forfeits (R25); the match goes on and the
chips add up after every hand (R26).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence

import trio

from arena import protocol
from arena.dealer._answers import describe_action
from arena.dealer._chips import ChipLedger
from arena.dealer._clock import CPU, WALL, breach_fault, read_breach, read_cpu
from arena.dealer._deal import deck_for
from arena.dealer._decide import DecisionWaits
from arena.dealer._handshake import hello_record, match_start_for, open_stream
from arena.dealer._seat import BotDriver, SeatBrokenError
from arena.dealer._seat_limits import SeatLimits
from arena.dealer._seat_record import HandObserver
from arena.dealer._seat_record import SeatRecord as _Seat
from arena.dealer._settings import (
    FaultRecord,
    MatchResult,
    MatchSettings,
    OnFaultLimit,
    with_seed,
)
from arena.engine import Action, Hand, IllegalActionError, SeatState, Table, TableError
from arena.protocol import (
    MessageFault,
    PublicHistory,
    action_from_message,
    action_to_message,
    pb,
    short_name,
)

_WAITED = 0.001
"""Seconds a send took past which it waited (for gRPC to take the bot's earlier messages)."""


class _MatchRunner(DecisionWaits, SeatLimits):
    """One table: ``settings.hands`` hands, deck ``i - 1`` for hand ``i`` (or
    ``deck_order[i - 1]``: a duplicate rotation's secret order), the first button on
    ``first_button``. A duplicate match runs one per rotation
    (:mod:`arena.dealer._duplicate`); either way it is stepped with :meth:`open_seats`,
    :meth:`play_next` and :meth:`finish`."""

    def __init__(
        self,
        drivers: Sequence[BotDriver],
        settings: MatchSettings,
        on_hand: HandObserver | None,
        on_fault: Callable[[FaultRecord], None] | None,
        *,
        first_button: int = 0,
        deck_order: Sequence[int] | None = None,
        wall_spent: set[int] | None = None,
    ) -> None:
        if not 2 <= len(drivers) <= 7:
            raise ValueError(f"a table seats 2 to 7 bots (R1), got {len(drivers)}")
        self.settings = settings = with_seed(settings)
        self.deck_order = deck_order
        self.wall_spent = wall_spent
        """A duplicate match's seats whose wall budget ran out at some rotation (shared by
        its tables): sat out of every rotation from its next hand (issue 21 item 1)."""
        self.seats = [_Seat(i, driver) for i, driver in enumerate(drivers)]
        seed = settings.seed
        assert seed is not None
        n = len(drivers)
        self.result = MatchResult(
            match_id=settings.match_id,
            names=[seat.name for seat in self.seats],
            seed=seed,
            chips_won=[0] * n,
            sat_out=[False] * n,
            hellos=[None] * n,
            forfeited=[False] * n,
            stale_actions=[0] * n,
            clocks=[WALL] * n,
        )
        self.on_hand = on_hand
        self.on_fault = on_fault
        self._decisions = 0
        self.table = Table(settings.config, seats=n, first_button=first_button)
        for seat in self.seats:
            self.table.join(seat.index, f"seat-{seat.index}", settings.starting_stack)
        self._chips = ChipLedger(n)
        self._history = PublicHistory()
        self._names: list[str] = []  # the players' names, in hand order, for this hand
        self._hand: Hand | None = None  # the hand being played, for where a fault happened

    # --- seat state, read from the table ---------------------------------------

    def _is_out(self, index: int) -> bool:
        """Whether the seat is out of the next deal: sat out or gone (R25)."""
        info = self.table.seat_info(index)
        return info.state in (SeatState.SITTING_OUT, SeatState.EMPTY) or info.leaving

    def _has_left(self, index: int) -> bool:
        """Whether the seat forfeited: it left the table for the rest of the match (R25)."""
        info = self.table.seat_info(index)
        return info.state is SeatState.EMPTY or info.leaving

    def _sit_out(self, seat: _Seat) -> None:
        """R25: out for now (a broken seat may reconnect), or gone for good on forfeit.

        Under ``forfeit`` a crash or disconnect forfeits too (R25 treats them alike). A
        seat in the running deal plays it out on defaults and is out from the next one.
        """
        if self._has_left(seat.index):
            return
        if self.settings.on_fault_limit is OnFaultLimit.FORFEIT:
            self.table.leave(seat.index)
        else:
            self.table.sit_out(seat.index)

    def _sit_in(self, index: int) -> None:
        """Deal the seat in again with a fresh stack; a returning bot pays what it missed (R22)."""
        if self.table.seat_info(index).stack != self.settings.starting_stack:
            self.table.reset_stack(index, self.settings.starting_stack)
        self.table.sit_in(index, post_missed=True)

    # --- connections -----------------------------------------------------------

    async def _open(self, seat: _Seat, hand_number: int) -> bool:
        """Connect, send MatchStart, wait for Hello; on failure record a fault and sit out.

        A missing, wrong or unreadable Hello, or one for another protocol, is a fault
        counted against the bot (R25); a bot that cannot be reached is recorded, not counted.
        """
        s = self.settings
        start = match_start_for(s, seat.index, [x.name for x in self.seats], self.result.seed)
        opened = await open_stream(seat.driver, start, s.hello_timeout)
        if opened.connection is None or opened.hello is None:
            reason, detail = opened.reason, opened.detail
            breach = read_breach(seat.driver)
            if breach is not None:
                reason, detail = breach_fault(breach, detail)
            self._fault(seat, hand_number, reason, detail, "sit out")
            self._sit_out(seat)
            if reason != pb.FAULT_REASON_DISCONNECTED:
                self._count_fault(seat, hand_number)
            return False
        seat.connection = opened.connection
        hello = opened.hello
        seat.wants_hand_start = hello.wants_hand_start
        self.result.hellos[seat.index] = hello_record(hello)  # the seat keeps the user's name
        if read_cpu(seat.driver) is not None:
            self.result.clocks[seat.index] = CPU
        return True

    async def _send(self, seat: _Seat, message: pb.DealerMessage, hand_number: int) -> None:
        """Best-effort send; a broken stream sits the seat out with a recorded fault."""
        await self._send_each([(seat, message)], hand_number)

    async def _send_each(
        self, sends: Sequence[tuple[_Seat, pb.DealerMessage]], hand_number: int
    ) -> None:
        """:meth:`_send` for each (seat, message) in turn, each send with its own deadline.

        A send only waits when the bot stopped reading, so the sends share one cancel
        scope (one per hand end instead of one per seat: issue 12 item 6) whose deadline
        moves on after a send that waited; a seat too slow breaks, and the seats after
        it go on under a new scope.
        """
        slack = max(1.0, self.settings.action_timeout)
        index = 0
        while index < len(sends):
            failed: SeatBrokenError | None = None
            started = trio.current_time()
            with trio.CancelScope(deadline=started + slack) as scope:
                while index < len(sends):
                    seat, message = sends[index]
                    if seat.connection is not None:
                        try:
                            await seat.connection.send(message)
                        except SeatBrokenError as error:
                            failed = error
                            break
                        now = trio.current_time()
                        if now - started > _WAITED:  # the next seat gets its whole deadline
                            started, scope.deadline = now, now + slack
                    index += 1
            if failed is not None:
                detail = f"send failed: {failed}"
                await self._break(sends[index][0], hand_number, detail, reason=failed.fault_reason)
            elif scope.cancelled_caught and index < len(sends):
                await self._break(sends[index][0], hand_number, "send failed: too slow")
            index += 1

    async def _break(
        self,
        seat: _Seat,
        hand_number: int,
        detail: str,
        *,
        record: bool = True,
        reason: int = pb.FAULT_REASON_DISCONNECTED,
    ) -> None:
        """The seat's stream is gone (or cut): close it and sit the seat out (R25).

        A cut for a rule the bot broke (``reason`` not DISCONNECTED) counts as a fault."""
        connection, seat.connection = seat.connection, None
        if connection is not None:
            await connection.aclose()
        if record:
            breach = read_breach(seat.driver)
            if breach is not None:
                reason, detail = breach_fault(breach, detail)
            self._fault(seat, hand_number, reason, detail, "sit out")
            if reason != pb.FAULT_REASON_DISCONNECTED:
                self._count_fault(seat, hand_number)
        self._sit_out(seat)

    def _count_stale(self, seat: _Seat) -> None:
        """One more answer to an earlier decision dropped (not a fault; in ``stale_actions``)."""
        self.result.stale_actions[seat.index] += 1

    async def _maybe_reconnect(self, hand_number: int) -> None:
        if not self.settings.reconnect:
            return
        for seat in self.seats:
            if seat.connection is not None or hand_number < seat.next_reconnect:
                continue  # first: cheap, and true of every seat in a match without breaks
            if not self._is_out(seat.index) or self._has_left(seat.index):
                continue
            if seat.past_limit:
                continue  # past the fault limit: out for the rest of the match (R25)
            if await self._open(seat, hand_number):
                self._sit_in(seat.index)  # faults are kept: reconnecting does not reset them
                seat.failed_reconnects = 0
            else:  # back off: try again after 1, 2, 4, ... 64 hands
                seat.failed_reconnects += 1
                seat.next_reconnect = hand_number + min(64, 2 ** (seat.failed_reconnects - 1))

    # --- faults ----------------------------------------------------------------

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
        if event_index is None:
            event_index = -1 if self._hand is None else len(self._hand.events)
        record = FaultRecord(
            hand_number=hand_number,
            seat=seat.index,
            reason=short_name(pb.FaultReason, reason),
            detail=detail[:500],
            applied=applied,
            decision_id=decision_id,
            code=code,
            event_index=event_index,
        )
        self.result.faults.append(record)
        if self.on_fault is not None:
            self.on_fault(record)
        return record

    # --- decisions ---------------------------------------------------------------

    async def _ask(
        self, seat: _Seat, hand: Hand, players: Sequence[int], hand_number: int, hand_id: str
    ) -> None:
        """Get one action from ``seat`` for ``hand`` and apply it, or apply the default.

        Whatever the bot sends, one engine action is applied: its own if well formed
        and legal, else the R23/R24 default with a recorded fault and a Fault message.
        """
        if seat.connection is None or seat.past_limit:
            # broken earlier in this hand, or sat out in it (R25: it plays the deal out on
            # defaults, not asked again: a spent wall budget costs no more waits); the
            # fault is on record already
            hand.apply(hand.default_action())
            return
        self._decisions += 1
        decision_id = f"{hand_number}.{self._decisions}"
        seat.issued.add(decision_id)
        reply, reason, detail = await self._wait_for_answer(
            seat, hand, players, hand_number, hand_id, decision_id
        )
        breach = read_breach(seat.driver)  # a breach is recorded as itself (issue 9, L2)
        code = ""
        at = len(hand.events)  # where the action played for this decision goes
        if reply is not None:
            try:
                action = action_from_message(reply, decision_id)
                hand.apply(action)
            except MessageFault as fault:
                reason, detail = fault.reason, fault.detail
            except IllegalActionError as error:
                reason, detail = pb.FAULT_REASON_ILLEGAL_ACTION, f"{error.reason}: {error}"
                code = str(error.reason)
            else:  # its own action stands; a breach that did not stop it is still a fault
                if breach is not None:
                    reason, detail = breach_fault(breach, "the bot's own action was played")
                    await self._report_fault(
                        seat, hand_number, decision_id, action, reason, detail, "", at
                    )
                return
        if breach is not None:
            reason, detail = breach_fault(breach, detail)
        default = hand.default_action()
        hand.apply(default)
        await self._report_fault(seat, hand_number, decision_id, default, reason, detail, code, at)

    async def _report_fault(
        self,
        seat: _Seat,
        hand_number: int,
        decision_id: str,
        default: Action,
        reason: pb.FaultReason,
        detail: str,
        code: str,
        event: int,
    ) -> None:
        """Record the fault (``event``: where the action played for it is in the hand's
        events), tell the bot what was played instead, count it (R24, R25)."""
        applied = action_to_message(default, decision_id)
        self._fault(
            seat,
            hand_number,
            reason,
            detail,
            describe_action(applied),
            decision_id=decision_id,
            code=code,
            event_index=event,
        )
        message = protocol.fault(
            decision_id=decision_id,
            reason=reason,
            detail=detail,
            applied=applied,
            faults_so_far=seat.faults + 1,
            fault_limit=self.settings.fault_limit,
            code=code,
        )
        await self._send(seat, message, hand_number)
        self._count_fault(seat, hand_number)

    # --- hands -------------------------------------------------------------------

    def _prepare_table(self) -> None:
        """Every seat still in plays the next deal with the starting stack (stacks reset)."""
        stack = self.settings.starting_stack
        for seat in self.seats:
            info = self.table.seat_info(seat.index)  # once: each call builds a SeatInfo
            out = info.state in (SeatState.SITTING_OUT, SeatState.EMPTY) or info.leaving
            if not out and info.stack != stack:
                self.table.reset_stack(seat.index, stack)

    def _settle(self, hand: Hand, players: Sequence[int], hand_number: int) -> list[int]:
        """Finish the deal at the table; the payoffs by seat, checked (R26).

        A seat that went bust is dealt in again with a fresh stack (stacks reset every
        hand), unless the dealer sat it out during the deal.
        """
        sat_out = {seat for seat in players if self._is_out(seat)}
        settlement = self.table.finish_hand(hand)
        for seat in settlement.busted:
            if seat not in sat_out:
                self._sit_in(seat)
        return self._chips.payoffs(settlement, dead=hand.dead, hand_number=hand_number)

    async def _play_hand(self, hand_number: int) -> bool:
        s = self.settings
        n = len(self.seats)
        if self.wall_spent:  # a duplicate match's seat out of time at another rotation
            self._spent_elsewhere(hand_number)
        self._prepare_table()
        index = hand_number - 1 if self.deck_order is None else self.deck_order[hand_number - 1]
        assert s.deal_key is not None  # with_seed drew one
        stacks = self.deck_order is not None  # a duplicate rotation: each place its own draws
        deck = deck_for(
            self.result.seed, index, s.config.uses_joker, s.deal_key, seat_stacks=stacks
        )
        carried = self.table.carried_pot
        try:  # not can_start() first: it plans the deal as start_hand does, twice the work
            hand = self.table.start_hand(deck)
        except TableError:  # too few seats to deal (nothing changed at the table)
            self.result.reason = "too few seats left"
            return False
        self._hand = hand
        self._chips.deal_starts(carried)
        positions = self.table.positions
        assert positions is not None
        players = list(positions.dealt)
        self._history = PublicHistory(players)
        self._names = [self.seats[p].name for p in players]
        hand_id = f"{s.match_id}/{s.table_id}/{hand_number}"
        for index, table_seat in enumerate(players):
            if self.seats[table_seat].wants_hand_start:
                message = protocol.hand_start(
                    hand.view(index, history=False),
                    hand_id=hand_id,
                    hand_number=hand_number,
                    button=positions.button,
                    starting_stacks=hand.starting_stacks,
                    seat_map=players,
                    seats=n,
                )
                await self._send(self.seats[table_seat], message, hand_number)
        while hand.actor is not None:
            await self._ask(self.seats[players[hand.actor]], hand, players, hand_number, hand_id)
        payoffs = self._settle(hand, players, hand_number)
        self.result.payoffs.append(payoffs)
        for table_seat in range(n):
            self.result.chips_won[table_seat] += payoffs[table_seat]
        self.result.hands_played += 1
        view = hand.view(0)  # the hand is over: any seat's view holds the public record
        message = protocol.hand_end(
            view,
            hand_id=hand_id,
            payoffs=payoffs,
            seat_map=players,
            seats=n,
            history_wire=self._history.hand_end_wire(view.events),
        )
        await self._send_each([(self.seats[p], message) for p in players], hand_number)
        if self.on_hand is not None:
            self.on_hand(hand_number, hand, players, [self.seats[p].name for p in players])
        return True

    async def open_seats(self) -> None:
        """Open every seat's stream at once (MatchStart, Hello), each seat's clock set."""
        for seat in self.seats:
            seat.bank = self.settings.time_bank
            seat.wall_left = self.settings.wall_budget
        async with trio.open_nursery() as nursery:
            for seat in self.seats:
                nursery.start_soon(self._open, seat, 0)

    async def play_next(self) -> bool:
        """Play the next hand (reconnecting whom it may first); False when it cannot."""
        hand_number = self.result.hands_played + 1
        self._hand = None  # a fault before the deal (a failed reconnect) is in no hand's events
        if hand_number > 1:
            await self._maybe_reconnect(hand_number)
        return await self._play_hand(hand_number)

    async def finish(self) -> None:
        """Settle the totals and end every open stream (shielded: runs even when cancelled)."""
        with trio.CancelScope(shield=True):
            await self._finish()

    async def _finish(self) -> None:
        r = self.result
        self._chips.refund(r)
        for seat in self.seats:
            r.sat_out[seat.index] = self._is_out(seat.index)
            r.forfeited[seat.index] = self._has_left(seat.index)
        message = protocol.match_end(
            match_id=r.match_id,
            hands_played=r.hands_played,
            chips_won=r.chips_won,
            reason=r.reason,
        )
        for seat in self.seats:
            if seat.connection is not None:
                with trio.move_on_after(1.0), contextlib.suppress(SeatBrokenError):
                    await seat.connection.send(message)
                # a seat out of the match on its limits gets no grace to end its stream (a
                # sleeper out of wall time would hold the match up by close_timeout)
                with trio.move_on_after(0.05 if seat.past_limit else math.inf):
                    await seat.connection.aclose()
                seat.connection = None

"""Betting rounds (R10-R14): who acts, what a bet may be, when a round ends.

Part of :class:`~arena.engine.Hand`; the state lives on the hand (see ``Hand.__slots__``).
"""

from __future__ import annotations

from arena.engine._config import Opening
from arena.engine._config import Structure as _Structure
from arena.engine._errors import IllegalActionError, Reason
from arena.engine._eval import qualifies_jacks_or_better
from arena.engine._phase import Phase
from arena.engine._records import (
    BetOrRaised,
    Called,
    Checked,
    Event,
    Folded,
    UncalledReturned,
)

_FIXED = _Structure.FIXED_LIMIT
_POT = _Structure.POT_LIMIT
_DRAW = Phase.DRAW


class _BettingRounds:
    """The two betting rounds of a hand."""

    __slots__ = ()

    def fold(self) -> list[Event]:
        seat = self._require_actor()
        self._require_betting()
        if self._current_bet <= self.bets[seat]:
            raise IllegalActionError(
                Reason.CANNOT_FOLD, "nothing to call: check instead of folding"
            )
        self.folded[seat] = True
        self._live -= 1
        if self._jacks and seat == self.opener:
            self._set_aside.extend(self.holes[seat])  # R29: shown at the end, never redealt
        else:
            self._muck += [(seat, card) for card in self.holes[seat]]
        mark = len(self.events)
        self.events.append(Folded(seat))
        self._faced[seat] = self._current_bet
        self._advance(seat)
        return self.events[mark:]

    def check(self) -> list[Event]:
        seat = self._require_actor()
        self._require_betting()
        if self.bets[seat] < self._current_bet:
            raise IllegalActionError(
                Reason.CANNOT_CHECK,
                f"cannot check facing a bet of {self._current_bet - self.bets[seat]} to call",
            )
        return self._check(seat)

    def check_or_call(self) -> list[Event]:
        """Call the current bet, or check when there is nothing to call (PHH ``cc``)."""
        seat = self.actor
        if seat is None or self.phase is _DRAW:
            self._require_actor()
            self._require_betting()
        to_call = self._current_bet - self.bets[seat]
        if to_call <= 0:
            return self._check(seat)
        stack = self.stacks[seat]
        amount = to_call if to_call < stack else stack
        self.stacks[seat] = stack - amount
        self.bets[seat] += amount
        self.committed[seat] += amount
        self._faced[seat] = self._current_bet
        mark = len(self.events)
        self.events.append(Called(seat, amount, self.bets[seat], amount == stack))
        self._advance(seat)
        return self.events[mark:]

    def bet_or_raise(self, amount: int) -> list[Event]:
        """Bet or raise *to* ``amount`` (the seat's whole bet this round)."""
        seat = self._require_actor()
        self._require_betting()
        self._verify_raise(seat, amount)
        current = self._current_bet
        added = amount - self.bets[seat]
        stack = self.stacks[seat]
        increment = amount - current
        full = increment >= self._full_raise()
        if full:
            self._min_increment = increment
            self._bets_made += 1
        self._current_bet = amount
        self.stacks[seat] = stack - added
        self.bets[seat] = amount
        self.committed[seat] += added
        self._faced[seat] = amount
        self._aggressor = seat
        if self.opener is None:
            self.opener = seat
            self._opener_hand = tuple(self.holes[seat])
        mark = len(self.events)
        self.events.append(BetOrRaised(seat, amount, added, added == stack, full))
        self._advance(seat)
        return self.events[mark:]

    def _raise_bounds(self, seat: int) -> tuple[int, int]:
        """(min, max) raise-to for ``seat``, or (0, 0) when it may not bet or raise."""
        stack = self.stacks[seat]
        bet = self.bets[seat]
        current = self._current_bet
        all_in_to = bet + stack
        if all_in_to <= current:
            return 0, 0
        faced = self._faced[seat]
        if faced is not None and current - faced < self._full_raise():
            return 0, 0  # R14: a short all-in bet or raise does not reopen the betting
        if not self._other_has_chips(seat):
            return 0, 0
        config = self.config
        if current == 0 and config.opening is Opening.JACKS_OR_BETTER and self.opener is None:
            if not qualifies_jacks_or_better(self.holes[seat], self._joker):
                return 0, 0
        if self._fixed:
            if self._bets_made >= config.max_bets_per_round and not (
                config.uncapped_heads_up and self._live == 2
            ):
                return 0, 0
            # a raise goes one full bet above the current bet, also after a short all-in
            target = current + (config.small_bet if self._street == 1 else config.big_bet)  # type: ignore[operator]
            target = target if target < all_in_to else all_in_to
            return target, target
        low = current + max(self._min_increment, config.big_blind)  # type: ignore[type-var]
        if config.structure is _POT:
            high = current + self.pot_total + (current - bet)
        else:
            high = all_in_to
        if high > all_in_to:
            high = all_in_to
        if low > high:
            low = high
        return low, high

    def _full_raise(self) -> int:
        """The smallest bet or raise that reopens the betting (R12, R14).

        Fixed limit: the street's bet. Pot and no limit: the largest full bet or raise
        of the round, at least the big blind, so an all-in bet below the minimum bet is
        short too (TDA rule 47); short all-ins that add up to it reopen (TDA).
        """
        if self._fixed:
            return self.config.small_bet if self._street == 1 else self.config.big_bet  # type: ignore[return-value]
        increment = self._min_increment
        big_blind = self.config.big_blind
        return increment if increment > big_blind else big_blind  # type: ignore[return-value]

    def _verify_raise(self, seat: int, amount: int) -> None:
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise IllegalActionError(
                Reason.UNKNOWN_ACTION, f"amount must be a whole number, got {amount!r}"
            )
        low, high = self._raise_bounds(seat)
        if high == 0:
            if self._current_bet - (self.bets[seat] + self.stacks[seat]) >= 0:
                why = "not enough chips to raise: call (all-in) or fold"
                reason = Reason.CANNOT_RAISE
            elif (
                self.config.structure is _FIXED
                and self._bets_made >= self.config.max_bets_per_round
            ):
                why = f"the betting is capped at {self.config.max_bets_per_round} bets (R12)"
                reason = Reason.RAISE_CAPPED
            elif self._current_bet == 0 and self.config.opening is Opening.JACKS_OR_BETTER:
                why = "only a hand of jacks or better may open (R28)"
                reason = Reason.NOT_QUALIFIED_TO_OPEN
            elif not self._other_has_chips(seat):
                why = "everyone else is all-in: nobody could call a raise"
                reason = Reason.CANNOT_RAISE
            else:
                why = "raising is closed to this seat (R14: an all-in short raise does not reopen)"
                reason = Reason.CANNOT_RAISE
            raise IllegalActionError(reason, why)
        if amount < low:
            raise IllegalActionError(
                Reason.AMOUNT_TOO_SMALL, f"raise to {amount} is below the minimum of {low}"
            )
        if amount > high:
            raise IllegalActionError(
                Reason.AMOUNT_TOO_LARGE, f"raise to {amount} is above the maximum of {high}"
            )

    def _other_has_chips(self, seat: int) -> bool:
        """Whether another live seat still has chips (an early-exit loop: this is hot)."""
        stacks = self.stacks
        folded = self.folded
        for i in range(self.n):  # noqa: SIM110 - any() over a generator is slower here
            if i != seat and stacks[i] > 0 and not folded[i]:
                return True
        return False

    def _check(self, seat: int) -> list[Event]:
        self._faced[seat] = self._current_bet
        events = self.events
        mark = len(events)
        events.append(Checked(seat))
        self._advance(seat)
        return events[mark:]

    def _start_round(self, first: int) -> None:
        self._faced = [None] * self.n
        self._aggressor = None
        nxt = self._next_to_act(first)
        if nxt is None:
            self._end_round()
        else:
            self.actor = nxt

    def _next_to_act(self, start: int) -> int | None:
        """First seat from ``start`` clockwise that still owes an action (R11)."""
        n = self.n
        folded = self.folded
        stacks = self.stacks
        bets = self.bets
        faced = self._faced
        current = self._current_bet
        for k in range(n):
            seat = (start + k) % n
            if folded[seat] or stacks[seat] == 0:
                continue
            if bets[seat] < current:
                return seat
            if faced[seat] is None and self._other_has_chips(seat):
                return seat
        return None

    def _advance(self, seat: int) -> None:
        if self._live == 1:
            self._finish_uncontested()
            return
        nxt = self._next_to_act((seat + 1) % self.n)
        if nxt is None:
            self._end_round()
        else:
            self.actor = nxt

    def _return_uncalled(self) -> None:
        bets = self.bets
        highest = max(bets)
        if highest == 0:
            return
        top = bets.index(highest)
        second = max(bets[:top] + bets[top + 1 :])
        excess = highest - second
        if excess > 0:
            bets[top] -= excess
            self.committed[top] -= excess
            self.stacks[top] += excess
            self.events.append(UncalledReturned(top, excess))

    def _end_round(self) -> None:
        self._return_uncalled()
        self.bets = [0] * self.n
        self._current_bet = 0
        self._min_increment = 0
        self._bets_made = 0
        if self._street == 1:
            self._aggressor_round1 = self._aggressor
            if self._jacks and self.opener is None:
                self._finish_dead()
                return
            self._start_draw()
        else:
            self._showdown()

"""Betting rounds (R10-R14): who acts, what a bet may be, when a round ends.

:class:`BettingRounds` is the state of the two betting rounds of one hand: the current
bet, the raise size, who faced what, the aggressor and the opener. The :class:`Hand`
creates it and hands it the seats' chip and card lists (shared, changed in place);
every field it writes is declared in its ``__slots__`` below. Each legality rule is
one ``verify_*`` method, used by ``Hand.verify`` and before each change. Ending a round
returns control to the hand, which enters the next phase from ``PHASE_ORDER``.
"""

from __future__ import annotations

from arena.engine._cards import Card
from arena.engine._config import GameConfig, Opening
from arena.engine._config import Structure as _Structure
from arena.engine._errors import IllegalActionError, Reason
from arena.engine._eval import qualifies_jacks_or_better
from arena.engine._phase import LegalActions, Phase
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


class BettingRounds:
    """The betting state of one hand; methods take the seat to act and change chips in place.

    An action method (:meth:`fold`, :meth:`check`, :meth:`call`, :meth:`raise_to`)
    applies a legal action and returns the next seat to act, or None when the round
    has nobody left to act (the hand then closes it, see :attr:`live`).
    """

    __slots__ = (
        "aggressor",
        "aggressor_round1",
        "bets",
        "bets_made",
        "carried",
        "committed",
        "config",
        "current_bet",
        "events",
        "faced",
        "fixed",
        "folded",
        "holes",
        "jacks",
        "joker",
        "live",
        "min_increment",
        "muck",
        "n",
        "opener",
        "opener_hand",
        "set_aside",
        "stacks",
        "street",
    )

    def __init__(
        self,
        config: GameConfig,
        stacks: list[int],
        bets: list[int],
        committed: list[int],
        folded: list[bool],
        holes: list[list[Card]],
        events: list[Event],
        muck: list[tuple[int, Card]],
        set_aside: list[Card],
        carried: int,
        joker: str | None,
        opening_bet: int,
    ) -> None:
        n = len(stacks)
        self.config = config
        self.n = n
        self.stacks = stacks
        self.bets = bets
        self.committed = committed
        self.folded = folded
        self.holes = holes
        self.events = events
        self.muck = muck  # folded cards, for the R17 reshuffle
        self.set_aside = set_aside  # the opener's folded cards (R29)
        self.carried = carried  # dead money in the middle: fixed while anyone bets
        self.joker = joker
        self.fixed = config.structure is _FIXED
        self.jacks = config.opening is Opening.JACKS_OR_BETTER
        self.live = n
        self.current_bet = opening_bet  # the big blind (R6), or 0 in an ante game
        self.min_increment = opening_bet
        self.bets_made = 1 if opening_bet else 0
        self.aggressor_round1: int | None = None
        # street, faced and aggressor are set by start(), which begins each round
        self.street: int
        self.faced: list[int | None]
        self.aggressor: int | None
        self.opener: int | None = None
        self.opener_hand: tuple[Card, ...] = ()

    # --- starting and ending a round -----------------------------------------------

    def start(self, street: int, first: int) -> int | None:
        """Start the round of ``street`` (1 or 2): the first seat to act from ``first``, or None."""
        self.street = street
        self.faced = [None] * self.n
        self.aggressor = None
        return self._next_to_act(first)

    def end_round(self) -> None:
        """Return an uncalled bet and clear the bets for the next round (R13)."""
        self.return_uncalled()
        self.bets[:] = [0] * self.n
        self.current_bet = 0
        self.min_increment = 0
        self.bets_made = 0
        if self.street == 1:
            self.aggressor_round1 = self.aggressor

    def return_uncalled(self) -> None:
        """The part of the highest bet nobody matched goes back to its seat (R13)."""
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

    # --- what a seat may do --------------------------------------------------------

    def legal(self, seat: int, phase: Phase) -> LegalActions:
        """The exact choices of ``seat`` in this round."""
        to_call = self.current_bet - self.bets[seat]
        stack = self.stacks[seat]
        call_amount = to_call if to_call < stack else stack
        lo, hi = self.raise_bounds(seat)
        return LegalActions(seat, phase, to_call > 0, to_call <= 0, call_amount, lo, hi)

    def may_check(self, seat: int) -> bool:
        """Whether ``seat`` has nothing to call (R23's default: check if free, else fold)."""
        return self.bets[seat] >= self.current_bet

    def verify_fold(self, seat: int) -> None:
        """A fold needs a bet to face: with nothing to call, check (R11)."""
        if self.bets[seat] >= self.current_bet:
            raise IllegalActionError(
                Reason.CANNOT_FOLD, "nothing to call: check instead of folding"
            )

    def verify_check(self, seat: int) -> None:
        """A check needs nothing to call."""
        to_call = self.current_bet - self.bets[seat]
        if to_call > 0:
            raise IllegalActionError(
                Reason.CANNOT_CHECK, f"cannot check facing a bet of {to_call} to call"
            )

    def verify_raise(self, seat: int, amount: int) -> None:
        """A bet or raise *to* ``amount`` must be a whole number within :meth:`raise_bounds`."""
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise IllegalActionError(
                Reason.UNKNOWN_ACTION, f"amount must be a whole number, got {amount!r}"
            )
        low, high = self.raise_bounds(seat)
        if high == 0:
            reason, why = self._why_no_raise(seat)
            raise IllegalActionError(reason, why)
        if amount < low:
            raise IllegalActionError(
                Reason.AMOUNT_TOO_SMALL, f"raise to {amount} is below the minimum of {low}"
            )
        if amount > high:
            raise IllegalActionError(
                Reason.AMOUNT_TOO_LARGE, f"raise to {amount} is above the maximum of {high}"
            )

    def raise_bounds(self, seat: int) -> tuple[int, int]:
        """(min, max) raise-to for ``seat``, or (0, 0) when it may not bet or raise."""
        stack = self.stacks[seat]
        bet = self.bets[seat]
        current = self.current_bet
        all_in_to = bet + stack
        if all_in_to <= current:
            return 0, 0
        faced = self.faced[seat]
        if faced is not None and current - faced < self._full_raise():
            return 0, 0  # R14: a short all-in bet or raise does not reopen the betting
        if not self._other_has_chips(seat):
            return 0, 0
        config = self.config
        if current == 0 and self.jacks and self.opener is None:
            if not qualifies_jacks_or_better(self.holes[seat], self.joker):
                return 0, 0
        if self.fixed:
            if self.bets_made >= config.max_bets_per_round and not (
                config.uncapped_heads_up and self.live == 2
            ):
                return 0, 0
            # a raise goes one full bet above the current bet, also after a short all-in
            target = current + (config.small_bet if self.street == 1 else config.big_bet)  # type: ignore[operator]  # GameConfig fills both bets
            target = target if target < all_in_to else all_in_to
            return target, target
        low = current + max(self.min_increment, config.big_blind)  # type: ignore[operator, type-var]  # GameConfig fills big_blind
        if config.structure is _POT:
            high = current + sum(self.committed) + self.carried + (current - bet)
        else:
            high = all_in_to
        if high > all_in_to:
            high = all_in_to
        if low > high:
            low = high
        return low, high

    # --- applying a legal action ---------------------------------------------------

    def fold(self, seat: int) -> int | None:
        self.folded[seat] = True
        self.live -= 1
        hole = self.holes[seat]
        if self.jacks and seat == self.opener:
            self.set_aside.extend(hole)  # R29: shown at the end, never redealt
        else:
            self.muck.extend([(seat, card) for card in hole])
        self.events.append(Folded(seat))
        self.faced[seat] = self.current_bet
        return self._after(seat)

    def check(self, seat: int) -> int | None:
        self.faced[seat] = self.current_bet
        self.events.append(Checked(seat))
        return self._after(seat)

    def call(self, seat: int) -> int | None:
        """Call the current bet, all-in for less when short (R14); a check when nothing is owed."""
        current = self.current_bet
        bets = self.bets
        to_call = current - bets[seat]
        if to_call <= 0:  # a check; inlined from check(): this is the hottest path
            self.faced[seat] = current
            self.events.append(Checked(seat))
            return self._next_to_act((seat + 1) % self.n)  # live > 1: see _after
        stack = self.stacks[seat]
        amount = to_call if to_call < stack else stack
        self.stacks[seat] = stack - amount
        bets[seat] += amount
        self.committed[seat] += amount
        self.faced[seat] = current
        self.events.append(Called(seat, amount, bets[seat], amount == stack))
        return self._next_to_act((seat + 1) % self.n)  # live > 1: see _after

    def raise_to(self, seat: int, amount: int) -> int | None:
        """Bet or raise *to* ``amount``; :meth:`verify_raise` has accepted it."""
        added = amount - self.bets[seat]
        stack = self.stacks[seat]
        increment = amount - self.current_bet
        full = increment >= self._full_raise()
        if full:
            self.min_increment = increment
            self.bets_made += 1
        self.current_bet = amount
        self.stacks[seat] = stack - added
        self.bets[seat] = amount
        self.committed[seat] += added
        self.faced[seat] = amount
        self.aggressor = seat
        if self.opener is None:
            self.opener = seat
            self.opener_hand = tuple(self.holes[seat])
        self.events.append(BetOrRaised(seat, amount, added, added == stack, full))
        return self._after(seat)

    # --- the machinery -------------------------------------------------------------

    def _after(self, seat: int) -> int | None:
        """The next seat to act after ``seat``; None when the round is over or won (R18).

        Only a fold can leave one live seat, and the hand ends at once when it does, so
        a check or a call never finds ``live == 1`` and goes straight to the next seat.
        """
        if self.live == 1:
            return None
        return self._next_to_act((seat + 1) % self.n)

    def _next_to_act(self, start: int) -> int | None:
        """First seat from ``start`` clockwise that still owes an action (R11)."""
        n = self.n
        folded = self.folded
        stacks = self.stacks
        bets = self.bets
        faced = self.faced
        current = self.current_bet
        for k in range(n):
            seat = (start + k) % n
            if folded[seat] or stacks[seat] == 0:
                continue
            if bets[seat] < current:
                return seat
            if faced[seat] is None and self._other_has_chips(seat):
                return seat
        return None

    def _full_raise(self) -> int:
        """The smallest bet or raise that reopens the betting (R12, R14).

        Fixed limit: the street's bet. Pot and no limit: the largest full bet or raise
        of the round, at least the big blind, so an all-in bet below the minimum bet is
        short too (TDA rule 47); short all-ins that add up to it reopen (TDA).
        """
        if self.fixed:
            return self.config.small_bet if self.street == 1 else self.config.big_bet  # type: ignore[return-value]  # GameConfig fills both bets
        increment = self.min_increment
        big_blind = self.config.big_blind
        return increment if increment > big_blind else big_blind  # type: ignore[operator, return-value]  # GameConfig fills big_blind

    def _why_no_raise(self, seat: int) -> tuple[Reason, str]:
        """Why :meth:`raise_bounds` closed raising to ``seat``: the reason code and a sentence."""
        config = self.config
        if self.current_bet - (self.bets[seat] + self.stacks[seat]) >= 0:
            return Reason.CANNOT_RAISE, "not enough chips to raise: call (all-in) or fold"
        if config.structure is _FIXED and self.bets_made >= config.max_bets_per_round:
            return (
                Reason.RAISE_CAPPED,
                f"the betting is capped at {config.max_bets_per_round} bets (R12)",
            )
        if self.current_bet == 0 and self.jacks:
            return Reason.NOT_QUALIFIED_TO_OPEN, "only a hand of jacks or better may open (R28)"
        if not self._other_has_chips(seat):
            return Reason.CANNOT_RAISE, "everyone else is all-in: nobody could call a raise"
        return (
            Reason.CANNOT_RAISE,
            "raising is closed to this seat (R14: an all-in short raise does not reopen)",
        )

    def _other_has_chips(self, seat: int) -> bool:
        """Whether another live seat still has chips (an early-exit loop: this is hot)."""
        stacks = self.stacks
        folded = self.folded
        for i in range(self.n):  # noqa: SIM110 - any() over a generator is slower here
            if i != seat and stacks[i] > 0 and not folded[i]:
                return True
        return False

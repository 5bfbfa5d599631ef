"""One hand of Five Card Draw as a sans-I/O state machine (R6-R19, R23-R29).

Actions in, events out: :meth:`Hand.apply` takes an action for the seat to act,
refuses it with :class:`IllegalActionError` (nothing changes) or applies it and
returns the events it caused. Forced bets, the deal, bet collection, the draw's
replacement cards, the showdown and chip pushing run by themselves. The hand never
reads a clock, a socket or a global random source: the dealer owns time and passes
the deck in.

Seats here are the players dealt in, numbered 0..n-1 clockwise; the table layer
maps them to its chairs (and handles empty seats and the dead button, R20).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import NamedTuple

from arena.engine._cards import Card, format_cards
from arena.engine._config import ForcedBets, GameConfig, JokerMode, Opening, ShowdownReveal
from arena.engine._config import Structure as _Structure
from arena.engine._deck import Deck
from arena.engine._errors import EngineInvariantError, IllegalActionError, Reason
from arena.engine._eval import evaluate, qualifies_jacks_or_better
from arena.engine._pots import Pot, build_pots, split_pot
from arena.engine._records import (
    CHECK,
    FOLD,
    STAND_PAT,
    Action,
    AntePosted,
    BetOrRaised,
    BetRaise,
    BlindKind,
    BlindPosted,
    Call,
    Called,
    CardsDrawn,
    Check,
    Checked,
    Discard,
    Event,
    Fold,
    Folded,
    HandDead,
    HandMucked,
    HandShown,
    HoleCardsDealt,
    PotAwarded,
    RoundStarted,
    StubReshuffled,
    UncalledReturned,
)

_FIXED = _Structure.FIXED_LIMIT
_POT = _Structure.POT_LIMIT


class Phase(IntEnum):
    """Where the hand is; the order is the order of play."""

    PREDRAW_BETTING = 1
    DRAW = 2
    POSTDRAW_BETTING = 3
    OVER = 4


_DRAW = Phase.DRAW


class ForcedPost(NamedTuple):
    """A post the table demands of a seat (R21, R22): ``live`` counts as its bet, ``dead`` does not."""

    seat: int
    live: int = 0
    dead: int = 0


class BlindPlan(NamedTuple):
    """Who posts which blind, when the table overrides the plain R6/R7 positions.

    ``small_blind_seat`` is None when the small blind is dead (R20: its seat emptied).
    Betting before the draw starts left of ``big_blind_seat`` (R10).
    """

    big_blind_seat: int
    small_blind_seat: int | None = None
    extra_posts: tuple[ForcedPost, ...] = ()


class LegalActions(NamedTuple):
    """What the seat to act may do, with exact amounts.

    Betting: ``call_amount`` is the chips a call adds (0 means checking is free;
    a short stack calls all-in for less, R14). A bet or raise *to* any amount in
    ``min_raise_to..max_raise_to`` is legal when ``can_raise``. Draw: discard
    0..``max_discard`` cards held.
    """

    seat: int
    phase: Phase
    can_fold: bool = False
    can_check: bool = False
    call_amount: int = 0
    min_raise_to: int = 0
    max_raise_to: int = 0
    max_discard: int = 0

    @property
    def can_call(self) -> bool:
        return self.call_amount > 0

    @property
    def can_raise(self) -> bool:
        return self.max_raise_to > 0


class Hand:
    """One deal: create it, then feed it actions until :attr:`is_over`.

    ``stacks`` are the dealt-in players' chips, clockwise; ``button`` is the index of
    the player on the button, or, for a dead button (R20), of the last player before
    it, which gives the same order for everything that starts "left of the button".
    """

    __slots__ = (
        "_aggressor",
        "_aggressor_round1",
        "_bets_made",
        "_clockwise",
        "_current_bet",
        "_draw_order",
        "_draw_pos",
        "_faced",
        "_fixed",
        "_jacks",
        "_joker",
        "_live",
        "_min_increment",
        "_muck",
        "_opener_hand",
        "_reveal_all",
        "_set_aside",
        "_street",
        "actor",
        "bets",
        "button",
        "carried_pot",
        "committed",
        "config",
        "dead",
        "deck",
        "draw_counts",
        "events",
        "folded",
        "holes",
        "n",
        "opener",
        "payoffs",
        "phase",
        "pots",
        "shown",
        "stacks",
        "starting_stacks",
    )

    def __init__(
        self,
        config: GameConfig,
        stacks: Sequence[int],
        button: int,
        deck: Deck,
        *,
        blinds: BlindPlan | None = None,
        carried_pot: int = 0,
    ) -> None:
        n = len(stacks)
        if not 2 <= n <= 7:
            raise ValueError(f"a hand needs 2 to 7 players (R1), got {n}")
        if min(stacks) <= 0:
            raise ValueError(f"every dealt-in player needs chips, got stacks {list(stacks)}")
        if not 0 <= button < n:
            raise ValueError(f"button {button} is not a seat of {n}")
        self.config = config
        self._joker = None if config.joker is JokerMode.OFF else config.joker.value
        self._jacks = config.opening is Opening.JACKS_OR_BETTER
        self._reveal_all = config.showdown_reveal is ShowdownReveal.ALL
        self.n = n
        self.button = button
        self._clockwise = [(button + 1 + k) % n for k in range(n)]  # from the button's left
        self.starting_stacks: tuple[int, ...] = tuple(stacks)
        self.stacks: list[int] = list(stacks)
        self.bets: list[int] = [0] * n
        self.committed: list[int] = [0] * n
        self.folded: list[bool] = [False] * n
        self.holes: list[list[Card]] = []
        self.draw_counts: list[int | None] = [None] * n
        self.events: list[Event] = []
        self.deck = deck
        self.carried_pot = carried_pot
        self.phase = Phase.PREDRAW_BETTING
        self.actor: int | None = None
        self.payoffs: list[int] | None = None
        self.pots: list[Pot] = []
        self.shown: dict[int, tuple[Card, ...]] = {}
        self.dead = False
        self.opener: int | None = None
        self._opener_hand: tuple[Card, ...] = ()
        self._muck: list[tuple[int, Card]] = []
        self._set_aside: list[Card] = []
        self._live = n
        self._faced: list[int | None] = [None] * n
        self._fixed = config.structure is _FIXED
        self._current_bet = 0
        self._min_increment = 0
        self._bets_made = 0
        self._street = 1
        self._aggressor: int | None = None
        self._aggressor_round1: int | None = None
        self._draw_order: list[int] = []
        self._draw_pos = 0
        self._start(blinds)

    # --- public queries -------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def pot_total(self) -> int:
        """Every chip in the middle: collected, current bets and dead money."""
        return sum(self.committed) + self.carried_pot

    @property
    def current_bet(self) -> int:
        return self._current_bet

    @property
    def street(self) -> int:
        """1 before the draw, 2 after it."""
        return self._street

    def legal_actions(self) -> LegalActions:
        """The exact choices of the seat to act; raises if the hand is over."""
        seat = self.actor
        if seat is None:
            raise IllegalActionError(Reason.HAND_OVER, "the hand is over; nobody is to act")
        if self.phase is Phase.DRAW:
            return LegalActions(seat, Phase.DRAW, max_discard=self.config.max_draw)
        to_call = self._current_bet - self.bets[seat]
        stack = self.stacks[seat]
        call_amount = to_call if to_call < stack else stack
        lo, hi = self._raise_bounds(seat)
        return LegalActions(seat, self.phase, to_call > 0, to_call <= 0, call_amount, lo, hi)

    # --- applying actions -------------------------------------------------------

    def apply(self, action: Action) -> list[Event]:
        """Apply ``action`` for the seat to act; returns the events it caused."""
        kind = type(action)
        if kind is Call:
            return self.check_or_call()
        if kind is Check:
            return self.check()
        if kind is Fold:
            return self.fold()
        if kind is BetRaise:
            return self.bet_or_raise(action.amount)  # type: ignore[union-attr]
        if kind is Discard:
            return self.discard(action.cards)  # type: ignore[union-attr]
        raise IllegalActionError(Reason.UNKNOWN_ACTION, f"not an action: {action!r}")

    def default_action(self) -> Action:
        """What a timeout or an illegal action becomes (R23, R24): check if free, else fold; stand pat."""
        if self.actor is None:
            raise IllegalActionError(Reason.HAND_OVER, "the hand is over; nobody is to act")
        if self.phase is Phase.DRAW:
            return STAND_PAT
        return CHECK if self.bets[self.actor] >= self._current_bet else FOLD

    def apply_default(self) -> list[Event]:
        """Apply :meth:`default_action` for the seat to act."""
        return self.apply(self.default_action())

    def can_apply(self, action: Action) -> bool:
        """Whether ``action`` would be accepted now (no side effects)."""
        try:
            self.verify(action)
        except IllegalActionError:
            return False
        return True

    def verify(self, action: Action) -> None:
        """Raise :class:`IllegalActionError` saying why ``action`` is not legal now."""
        seat = self._require_actor()
        kind = type(action)
        if kind is Discard:
            self._verify_discard(seat, action.cards)  # type: ignore[union-attr]
            return
        self._require_betting()
        to_call = self._current_bet - self.bets[seat]
        if kind is Fold:
            if to_call <= 0:
                raise IllegalActionError(
                    Reason.CANNOT_FOLD, "nothing to call: check instead of folding"
                )
        elif kind is Check:
            if to_call > 0:
                raise IllegalActionError(
                    Reason.CANNOT_CHECK, f"cannot check facing a bet of {to_call} to call"
                )
        elif kind is BetRaise:
            self._verify_raise(seat, action.amount)  # type: ignore[union-attr]
        elif kind is not Call:
            raise IllegalActionError(Reason.UNKNOWN_ACTION, f"not an action: {action!r}")

    def fold(self) -> list[Event]:
        seat = self._require_actor()
        self._require_betting()
        if self._current_bet <= self.bets[seat]:
            raise IllegalActionError(
                Reason.CANNOT_FOLD, "nothing to call: check instead of folding"
            )
        self.folded[seat] = True
        self._live -= 1
        muck = self._muck
        for card in self.holes[seat]:
            muck.append((seat, card))
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
        full = increment >= self._min_increment
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

    def discard(self, cards: Sequence[Card] = ()) -> list[Event]:
        """Discard ``cards`` (none: stand pat) and draw as many (R15, R17)."""
        seat = self._require_actor()
        discarded = tuple(cards)
        self._verify_discard(seat, discarded)
        events = self.events
        mark = len(events)
        count = len(discarded)
        if count:
            hole = self.holes[seat]
            kept = [card for card in hole if card not in discarded]
            deck = self.deck
            drawn = deck.deal(count) if len(deck) > count else self._deal_replacements(seat, count)
            kept += drawn
            self.holes[seat] = kept
            if self._jacks and seat == self.opener:
                self._set_aside.extend(discarded)  # R29: kept to prove openers
            else:
                self._muck += [(seat, card) for card in discarded]
            events.append(CardsDrawn(seat, discarded, tuple(drawn)))
        else:
            events.append(CardsDrawn(seat, (), ()))
        self.draw_counts[seat] = count
        self._draw_pos += 1
        if self._draw_pos < len(self._draw_order):
            self.actor = self._draw_order[self._draw_pos]
        else:
            self._start_postdraw()
        return self.events[mark:]

    # --- views ------------------------------------------------------------------

    def view(self, seat: int, *, history: bool = True):
        """What ``seat`` may know: its own cards and everything public (see :class:`SeatView`).

        ``history=False`` skips the event list, for callers that keep their own record.
        """
        from arena.engine._view import view_of

        return view_of(self, seat, history=history)

    def all_cards(self) -> list[Card]:
        """Every card the hand holds anywhere (hands, stub, muck, set aside): for invariant checks."""
        cards = [
            card for seat, hole in enumerate(self.holes) if not self.folded[seat] for card in hole
        ]
        cards.extend(self.deck.remaining)
        cards.extend(card for _, card in self._muck)
        cards.extend(self._set_aside)
        return cards

    def __repr__(self) -> str:
        holes = " ".join(format_cards(h) for h in self.holes)
        return (
            f"<Hand {self.phase.name} actor={self.actor} stacks={self.stacks} "
            f"bets={self.bets} pot={self.pot_total} holes={holes}>"
        )

    # --- the machinery ----------------------------------------------------------

    def _require_actor(self) -> int:
        seat = self.actor
        if seat is None:
            raise IllegalActionError(Reason.HAND_OVER, "the hand is over; nobody is to act")
        return seat

    def _require_betting(self) -> None:
        if self.phase is _DRAW:
            raise IllegalActionError(
                Reason.WRONG_PHASE, "it is the draw: discard cards or stand pat"
            )

    def _raise_bounds(self, seat: int) -> tuple[int, int]:
        """(min, max) raise-to for ``seat``, or (0, 0) when it may not bet or raise."""
        stack = self.stacks[seat]
        bet = self.bets[seat]
        current = self._current_bet
        all_in_to = bet + stack
        if all_in_to <= current:
            return 0, 0
        faced = self._faced[seat]
        if faced is not None and current - faced < self._min_increment:
            return 0, 0  # R14: a short all-in raise does not reopen the betting
        if not self._other_has_chips(seat):
            return 0, 0
        config = self.config
        if current == 0 and config.opening is Opening.JACKS_OR_BETTER and self.opener is None:
            if not qualifies_jacks_or_better(self.holes[seat], self._joker):
                return 0, 0
        structure = config.structure
        if structure is _FIXED:
            if self._bets_made >= config.max_bets_per_round and not (
                config.uncapped_heads_up and self._live == 2
            ):
                return 0, 0
            # a raise goes one full bet above the current bet, also after a short all-in
            target = current + (config.small_bet if self._street == 1 else config.big_bet)  # type: ignore[operator]
            target = target if target < all_in_to else all_in_to
            return target, target
        low = current + max(self._min_increment, config.big_blind)  # type: ignore[type-var]
        if structure is _POT:
            high = current + self.pot_total + (current - bet)
        else:
            high = all_in_to
        if high > all_in_to:
            high = all_in_to
        if low > high:
            low = high
        return low, high

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

    def _verify_discard(self, seat: int, discarded: Sequence[Card]) -> None:
        if self.phase is not _DRAW:
            raise IllegalActionError(Reason.WRONG_PHASE, "discards are only made at the draw")
        if len(discarded) > self.config.max_draw:
            raise IllegalActionError(
                Reason.TOO_MANY_DISCARDS,
                f"{len(discarded)} discards; at most {self.config.max_draw} may be drawn (R15)",
            )
        hole = self.holes[seat]
        for card in discarded:
            if card not in hole:
                raise IllegalActionError(Reason.CARD_NOT_HELD, f"{card!s} is not in this hand")
        if len(discarded) > 1 and len(set(discarded)) != len(discarded):
            raise IllegalActionError(Reason.DUPLICATE_CARD, "the same card is discarded twice")

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

    def _post(self, seat: int, amount: int, live: bool) -> int:
        """Move up to ``amount`` from the stack; all-in for less when short (R14)."""
        stack = self.stacks[seat]
        paid = amount if amount < stack else stack
        self.stacks[seat] = stack - paid
        self.committed[seat] += paid
        if live:
            self.bets[seat] += paid
        return paid

    def _start(self, blinds: BlindPlan | None) -> None:
        config = self.config
        n = self.n
        events = self.events
        left = (self.button + 1) % n
        if config.ante:
            for k in range(n):
                seat = (left + k) % n
                events.append(AntePosted(seat, self._post(seat, config.ante, live=False)))
        first_actor = left
        if config.forced_bets is ForcedBets.BLINDS:
            if blinds is None:
                if n == 2:  # R7: the button posts the small blind
                    blinds = BlindPlan(left, self.button)
                else:
                    blinds = BlindPlan((left + 1) % n, left)
            if blinds.small_blind_seat is not None:
                seat = blinds.small_blind_seat
                events.append(
                    BlindPosted(seat, self._post(seat, config.small_blind, True), BlindKind.SMALL)
                )  # type: ignore[arg-type]
            seat = blinds.big_blind_seat
            events.append(
                BlindPosted(seat, self._post(seat, config.big_blind, True), BlindKind.BIG)
            )  # type: ignore[arg-type]
            for post in blinds.extra_posts:
                if post.live:
                    events.append(
                        BlindPosted(
                            post.seat, self._post(post.seat, post.live, True), BlindKind.BIG
                        )
                    )
                if post.dead:
                    paid = self._post(post.seat, post.dead, live=False)
                    events.append(BlindPosted(post.seat, paid, BlindKind.DEAD_SMALL, dead=True))
            self._current_bet = config.big_blind  # type: ignore[assignment]
            self._min_increment = config.big_blind  # type: ignore[assignment]
            self._bets_made = 1
            first_actor = (blinds.big_blind_seat + 1) % n
        self._deal(left)
        self.events.append(RoundStarted("predraw"))
        self._start_round(first_actor)

    def _deal(self, left: int) -> None:
        """Five cards each, one at a time, clockwise from the button's left (R9)."""
        n = self.n
        cards = self.deck.deal(5 * n)
        holes: list[list[Card]] = [[] for _ in range(n)]
        for k in range(n):
            seat = (left + k) % n
            holes[seat] = cards[k::n]
        self.holes = holes
        events = self.events
        for k in range(n):
            seat = (left + k) % n
            events.append(HoleCardsDealt(seat, tuple(holes[seat])))

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

    def _start_draw(self) -> None:
        self.phase = _DRAW
        folded = self.folded
        self._draw_order = [seat for seat in self._clockwise if not folded[seat]]
        self._draw_pos = 0
        self.events.append(RoundStarted("draw"))
        self.actor = self._draw_order[0]

    def _deal_replacements(self, seat: int, count: int) -> list[Card]:
        """R17: deal from the stub; if it runs short, deal it down to its last card, then
        shuffle that card with every discard and folded hand except this seat's own."""
        deck = self.deck
        if len(deck) - 1 >= count:
            return deck.deal(count)
        first = deck.deal(len(deck) - 1) if len(deck) > 1 else []
        pool = list(deck.remaining)
        pool.extend(card for owner, card in self._muck if owner != seat)
        self._muck = [(owner, card) for owner, card in self._muck if owner == seat]
        deck.replace_stub(pool)
        self.events.append(StubReshuffled(seat, len(first), len(pool)))
        rest = count - len(first)
        if len(deck) - 1 < rest:
            raise EngineInvariantError(f"R17 reshuffle left {len(deck)} cards for {rest} needed")
        return first + deck.deal(rest)

    def _start_postdraw(self) -> None:
        self.phase = Phase.POSTDRAW_BETTING
        self._street = 2
        self.events.append(RoundStarted("postdraw"))
        n = self.n
        first = (self.button + 1) % n
        if self.config.forced_bets is ForcedBets.ANTES and self._aggressor_round1 is not None:
            first = self._aggressor_round1  # R27: the last raiser, else the opener
        self.actor = None
        self._start_round(first)

    def _finish_uncontested(self) -> None:
        """R18: the last player wins every pot and shows nothing."""
        self._return_uncalled()
        winner = self.folded.index(False)
        self.pots = build_pots(self.committed, self.folded, self.carried_pot)
        total = sum(pot.amount for pot in self.pots)
        self.events.append(PotAwarded(winner, total, 0))
        self._prove_openers()
        self._settle({winner: total})

    def _finish_dead(self) -> None:
        """R28: nobody opened; the antes stay in the pot for the next deal."""
        self.dead = True
        self.events.append(HandDead(self.pot_total))
        self._settle({})

    def _showdown_order(self) -> list[int]:
        """R19: the last aggressor of the second round first, else the button's left; clockwise."""
        n = self.n
        folded = self.folded
        start = self._aggressor if self._aggressor is not None else self._clockwise[0]
        return [(start + k) % n for k in range(n) if not folded[(start + k) % n]]

    def _showdown(self) -> None:
        """R19: show in order, cards speak, split ties, odd chips clockwise from the button's left."""
        mode = self._joker
        holes = self.holes
        folded = self.folded
        live = [seat for seat in self._clockwise if not folded[seat]]
        if mode is None:
            ranks = {seat: evaluate(holes[seat]) for seat in live}
        else:
            ranks = {seat: evaluate(holes[seat], mode) for seat in live}
        committed = self.committed
        level = committed[live[0]]
        if max(committed) == level and all(committed[seat] == level for seat in live):
            pots = [Pot(self.pot_total, tuple(live))]  # no side pots: the common case
        else:
            pots = build_pots(committed, folded, self.carried_pot)
        self.pots = pots
        pot_winners: list[list[int]] = []
        for pot in pots:
            eligible = pot.eligible
            best = max(ranks[seat] for seat in eligible)
            # eligible seats come in table order; winners must be in clockwise order
            pot_winners.append([seat for seat in live if seat in eligible and ranks[seat] == best])
        events = self.events
        shown = self.shown
        if self._reveal_all:
            for seat in self._showdown_order():
                cards = tuple(holes[seat])
                shown[seat] = cards
                events.append(HandShown(seat, cards, ranks[seat]))
        else:
            must_show = {seat for winners in pot_winners for seat in winners}
            best_shown = -1
            for k, seat in enumerate(self._showdown_order()):
                rank = ranks[seat]
                if k == 0 or rank >= best_shown or seat in must_show:
                    cards = tuple(holes[seat])
                    shown[seat] = cards
                    events.append(HandShown(seat, cards, rank))
                    if rank > best_shown:
                        best_shown = rank
                else:
                    events.append(HandMucked(seat))
        awards: dict[int, int] = {}
        for index, pot in enumerate(pots):
            winners = pot_winners[index]
            if len(winners) == 1:
                shares = [(winners[0], pot.amount)]
            else:
                shares = split_pot(pot.amount, winners)
            for seat, amount in shares:
                if amount:
                    events.append(PotAwarded(seat, amount, index))
                    awards[seat] = awards.get(seat, 0) + amount
        self._prove_openers()
        self._settle(awards)

    def _prove_openers(self) -> None:
        """R29: the opener's original hand is shown at the end, even after a fold."""
        if self._jacks and self.opener is not None:
            mode = self._joker
            cards = self._opener_hand
            rank = evaluate(cards, mode) if mode else evaluate(cards)
            self.events.append(HandShown(self.opener, cards, rank, openers=True))

    def _settle(self, awards: dict[int, int]) -> None:
        stacks = self.stacks
        total_awarded = sum(awards.values())
        expected = self.pot_total if not self.dead else 0
        if total_awarded != expected:
            raise EngineInvariantError(f"awarded {total_awarded} of a pot of {expected} (R26)")
        for seat, amount in awards.items():
            stacks[seat] += amount
        self.payoffs = [
            after - before for after, before in zip(stacks, self.starting_stacks, strict=True)
        ]
        if not self.dead:
            self.committed = [0] * self.n
            self.carried_pot = 0
        self.bets = [0] * self.n
        self.actor = None
        self.phase = Phase.OVER

    @property
    def carried_out(self) -> int:
        """Chips a dead hand leaves in the middle for the next deal (R28); else 0."""
        return self.pot_total if self.dead else 0

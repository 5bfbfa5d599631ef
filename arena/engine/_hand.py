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
from typing import NamedTuple

from arena.engine._betting import _BettingRounds
from arena.engine._cards import Card, format_cards
from arena.engine._config import ForcedBets, GameConfig, JokerMode, Opening, ShowdownReveal
from arena.engine._config import Structure as _Structure
from arena.engine._deck import Deck
from arena.engine._drawing import _Draw
from arena.engine._errors import IllegalActionError, Reason
from arena.engine._phase import Phase
from arena.engine._pots import Pot
from arena.engine._records import (
    CHECK,
    FOLD,
    PREDRAW_STARTED,
    STAND_PAT,
    Action,
    AntePosted,
    BetRaise,
    BlindKind,
    BlindPosted,
    Call,
    Check,
    Discard,
    Event,
    Fold,
    HoleCardsDealt,
)
from arena.engine._showdown import _Showdown

_FIXED = _Structure.FIXED_LIMIT


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


class Hand(_BettingRounds, _Draw, _Showdown):
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
        "_dead_posted",
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
        self._dead_posted: list[int] | None = None  # R22 dead posts by seat; None: none
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

    def contributions(self) -> tuple[list[int], int]:
        """(each seat's matched chips, dead money): what the pots are built from (R14, R22).

        ``committed`` counts every chip a seat put in; a dead small blind (R22) and a
        carried Jackpots pot (R28) are nobody's contribution: they join the main pot.
        """
        dead = self._dead_posted
        if dead is None:
            return self.committed, self.carried_pot
        live = [chips - own for chips, own in zip(self.committed, dead, strict=True)]
        return live, self.carried_pot + sum(dead)

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
                    if self._dead_posted is None:
                        self._dead_posted = [0] * n
                    self._dead_posted[post.seat] += paid  # R22: the pot's, not the seat's
            self._current_bet = config.big_blind  # type: ignore[assignment]
            self._min_increment = config.big_blind  # type: ignore[assignment]
            self._bets_made = 1
            first_actor = (blinds.big_blind_seat + 1) % n
        self._deal()
        self.events.append(PREDRAW_STARTED)
        self._start_round(first_actor)

    def _deal(self) -> None:
        """Five cards each, one at a time, clockwise from the button's left (R9)."""
        n = self.n
        cards = self.deck.deal(5 * n)
        holes: list[list[Card]] = [[] for _ in range(n)]
        events = self.events
        for k, seat in enumerate(self._clockwise):
            hole = holes[seat] = cards[k::n]
            events.append(HoleCardsDealt(seat, tuple(hole)))
        self.holes = holes

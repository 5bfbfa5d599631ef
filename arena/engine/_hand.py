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
from operator import sub

from arena.engine._betting import BettingRounds
from arena.engine._cards import Card, format_cards
from arena.engine._config import ForcedBets, GameConfig, JokerMode, Opening, ShowdownReveal
from arena.engine._deck import Deck
from arena.engine._drawing import Draw
from arena.engine._errors import EngineInvariantError, IllegalActionError, Reason
from arena.engine._phase import NEXT_PHASE, PHASE_ORDER, LegalActions, Phase
from arena.engine._pots import Pot
from arena.engine._records import (
    CHECK,
    FOLD,
    STAND_PAT,
    Action,
    BetRaise,
    Call,
    Check,
    Discard,
    Event,
    Fold,
    HandDead,
)
from arena.engine._showdown import award_uncontested, prove_openers, showdown
from arena.engine._start import BlindPlan, deal, post_antes, post_blinds
from arena.engine._view import SeatView, view_of

_DRAW = Phase.DRAW
_OVER = Phase.OVER
_ROW = {phase: (event, street) for phase, event, street in PHASE_ORDER}
_STREET = {phase: street for phase, _, street in PHASE_ORDER}


class Hand:
    """One deal: create it, then feed it actions until :attr:`is_over`.

    ``stacks`` are the dealt-in players' chips, clockwise; ``button`` is the index of
    the player on the button, or, for a dead button (R20), of the last player before
    it, which gives the same order for everything that starts "left of the button".

    The hand is a facade over one object per phase: :class:`BettingRounds` (R10-R14)
    and :class:`Draw` (R15-R17) own their state and are handed the chip and card lists
    they change in place; the start (forced bets and the deal, ``_start.py``) and the
    showdown (R18, R19) are plain functions. The hand alone moves from phase to phase,
    in the order of ``PHASE_ORDER``.
    """

    __slots__ = (
        "_betting",
        "_clockwise",
        "_dead_posted",
        "_draw",
        "_jacks",
        "_joker",
        "_muck",
        "_set_aside",
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
        self._joker = joker = None if config.joker is JokerMode.OFF else config.joker.value
        self._jacks = config.opening is Opening.JACKS_OR_BETTER
        self.n = n
        self.button = button
        # everything "from the button's left": posting, the deal, the draw, odd chips
        self._clockwise = clockwise = [*range(button + 1, n), *range(button + 1)]
        self.starting_stacks: tuple[int, ...] = tuple(stacks)
        self.stacks = chips = list(stacks)
        self.bets = bets = [0] * n
        self.committed = committed = [0] * n
        self.folded: list[bool] = [False] * n
        self.draw_counts: list[int | None] = [None] * n
        events: list[Event] = []
        self.events = events
        self.deck = deck
        self.carried_pot = carried_pot
        self.phase = PHASE_ORDER[0][0]
        self.actor: int | None = None
        self.payoffs: list[int] | None = None
        self.pots: list[Pot] = []
        self.shown: dict[int, tuple[Card, ...]] = {}
        self.dead = False
        self._dead_posted: list[int] | None = None  # R22 dead posts by seat; None: none
        self._muck: list[tuple[int, Card]] = []  # folded and discarded cards, for R17
        self._set_aside: list[Card] = []  # the Jackpots opener's, to prove openers (R29)
        # the start (see _start.py): forced bets, then the deal
        if config.ante:
            post_antes(config.ante, clockwise, chips, committed, events)
        first_actor = clockwise[0]
        opening_bet = 0
        if config.forced_bets is ForcedBets.BLINDS:
            first_actor, self._dead_posted = post_blinds(
                config, blinds, button, chips, bets, committed, events
            )
            opening_bet = config.big_blind  # type: ignore[assignment]  # GameConfig always fills big_blind
        self.holes = holes = deal(deck, clockwise, events)
        self._betting = BettingRounds(
            config, chips, bets, committed, self.folded, holes, events, self._muck,
            self._set_aside, carried_pot, joker, opening_bet,
        )  # fmt: skip
        self._next_phase(PHASE_ORDER[0][0], first_actor)

    # --- public queries -------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase is _OVER

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
        return self._betting.current_bet

    @property
    def street(self) -> int:
        """1 before the draw, 2 after it."""
        return self._betting.street

    @property
    def opener(self) -> int | None:
        """The seat that made the first bet of the hand (R28, R29), if anyone has."""
        return self._betting.opener

    @property
    def carried_out(self) -> int:
        """Chips a dead hand leaves in the middle for the next deal (R28); else 0."""
        return self.pot_total if self.dead else 0

    def legal_actions(self) -> LegalActions:
        """The exact choices of the seat to act; raises if the hand is over."""
        seat = self.actor
        if seat is None:
            raise IllegalActionError(Reason.HAND_OVER, "the hand is over; nobody is to act")
        if self.phase is _DRAW:
            return LegalActions(seat, _DRAW, max_discard=self.config.max_draw)
        return self._betting.legal(seat, self.phase)

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
            return self.bet_or_raise(action.amount)  # type: ignore[union-attr]  # `kind is X` above; the checker narrows only on type(action) itself
        if kind is Discard:
            return self.discard(action.cards)  # type: ignore[union-attr]  # `kind is X` above; the checker narrows only on type(action) itself
        raise IllegalActionError(Reason.UNKNOWN_ACTION, f"not an action: {action!r}")

    def verify(self, action: Action) -> None:
        """Raise :class:`IllegalActionError` saying why ``action`` is not legal now.

        Each rule is written once, in the phase that owns it; the action methods
        below check the same rules before they change anything.
        """
        seat = self._require_actor()
        kind = type(action)
        if kind is Discard:
            self._require_draw()
            self._draw.verify_discard(seat, tuple(action.cards))  # type: ignore[union-attr]  # `kind is X` above; the checker narrows only on type(action) itself
            return
        self._require_betting()
        betting = self._betting
        if kind is Fold:
            betting.verify_fold(seat)
        elif kind is Check:
            betting.verify_check(seat)
        elif kind is BetRaise:
            betting.verify_raise(seat, action.amount)  # type: ignore[union-attr]  # `kind is X` above; the checker narrows only on type(action) itself
        elif kind is not Call:
            raise IllegalActionError(Reason.UNKNOWN_ACTION, f"not an action: {action!r}")

    def can_apply(self, action: Action) -> bool:
        """Whether ``action`` would be accepted now (no side effects)."""
        try:
            self.verify(action)
        except IllegalActionError:
            return False
        return True

    def default_action(self) -> Action:
        """What a timeout or an illegal action becomes (R23, R24): check if free, else fold; stand pat."""
        seat = self._require_actor()
        if self.phase is _DRAW:
            return STAND_PAT
        return CHECK if self._betting.may_check(seat) else FOLD

    def apply_default(self) -> list[Event]:
        """Apply :meth:`default_action` for the seat to act."""
        return self.apply(self.default_action())

    def fold(self) -> list[Event]:
        seat = self._require_actor()
        self._require_betting()
        betting = self._betting
        betting.verify_fold(seat)
        mark = len(self.events)
        nxt = betting.fold(seat)
        if nxt is None:
            self._next_phase()
        else:
            self.actor = nxt
        return self.events[mark:]

    def check(self) -> list[Event]:
        seat = self._require_actor()
        self._require_betting()
        betting = self._betting
        betting.verify_check(seat)
        mark = len(self.events)
        nxt = betting.check(seat)
        if nxt is None:
            self._next_phase()
        else:
            self.actor = nxt
        return self.events[mark:]

    def check_or_call(self) -> list[Event]:
        """Call the current bet, or check when there is nothing to call (PHH ``cc``)."""
        seat = self.actor
        if seat is None or self.phase is _DRAW:
            self._require_actor()
            self._require_betting()
        events = self.events
        mark = len(events)
        nxt = self._betting.call(seat)  # type: ignore[arg-type]  # a None seat raised in _require_actor
        if nxt is None:
            self._next_phase()
        else:
            self.actor = nxt
        return events[mark:]

    def bet_or_raise(self, amount: int) -> list[Event]:
        """Bet or raise *to* ``amount`` (the seat's whole bet this round)."""
        seat = self._require_actor()
        self._require_betting()
        betting = self._betting
        betting.verify_raise(seat, amount)
        mark = len(self.events)
        nxt = betting.raise_to(seat, amount)
        if nxt is None:
            self._next_phase()
        else:
            self.actor = nxt
        return self.events[mark:]

    def discard(self, cards: Sequence[Card] = ()) -> list[Event]:
        """Discard ``cards`` (none: stand pat) and draw as many (R15, R17)."""
        seat = self.actor
        if seat is None or self.phase is not _DRAW:
            self._require_actor()
            self._require_draw()
        discarded = tuple(cards)
        draw = self._draw
        draw.verify_discard(seat, discarded)  # type: ignore[arg-type]  # a None seat raised in _require_actor
        events = self.events
        mark = len(events)
        nxt = draw.discard(seat, discarded)  # type: ignore[arg-type]  # a None seat raised in _require_actor
        if nxt is None:
            self._next_phase()
        else:
            self.actor = nxt
        return events[mark:]

    # --- views ------------------------------------------------------------------

    def view(self, seat: int, *, history: bool = True, events_from: int = 0) -> SeatView:
        """What ``seat`` may know: its own cards and everything public (see :class:`SeatView`).

        ``history=False`` skips the event list, for callers that keep their own record;
        ``events_from`` keeps only the events from that index on (for a caller that keeps
        the earlier ones).
        """
        return view_of(self, seat, history=history, events_from=events_from)

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

    # --- moving through the phases (the order is PHASE_ORDER) ---------------------

    def _next_phase(self, enter: Phase | None = None, first: int = 0) -> None:
        """Move through ``PHASE_ORDER`` until a seat must act or the hand is over.

        Called when nobody is left to act in the phase in play: close it, enter the
        next one (``NEXT_PHASE``), and so on while a phase has nobody to act (everyone
        all-in). ``enter`` starts the hand instead: enter that phase first, its first
        betting round looking for an actor from ``first`` (left of the big blind or
        the button, R10). Entering a phase appends the event that opens it.
        """
        betting = self._betting
        phase = enter
        while True:
            if phase is None:  # close the phase in play, then find the next one
                phase = self.phase
                if _STREET[phase]:  # a betting round closes
                    if betting.live == 1:
                        self._end_uncontested()
                        return
                    betting.end_round()
                    if self._jacks and betting.opener is None:
                        self._end_dead()  # R28: nobody opened (the first round closed)
                        return
                phase = NEXT_PHASE[phase]
                if phase is _OVER:
                    self._end_showdown()
                    return
            self.phase = phase
            event, street = _ROW[phase]
            self.events.append(event)  # type: ignore[arg-type]  # PHASE_ORDER's events are RoundStarted records
            if not street:
                actor: int | None = self._start_draw(betting.opener if self._jacks else None)
            else:
                if street == 2:
                    first = self._clockwise[0]  # the button's left
                    if (
                        self.config.forced_bets is ForcedBets.ANTES
                        and betting.aggressor_round1 is not None
                    ):
                        first = betting.aggressor_round1  # R27: the last raiser, else the opener
                actor = betting.start(street, first)
            if actor is not None:
                self.actor = actor
                return
            phase = None  # nobody can act in it (everyone all-in): close it too

    def _start_draw(self, keeper: int | None) -> int:
        """The draw's state is made when the draw begins (many hands end before it); the
        first seat to draw."""
        folded = self.folded
        order = [seat for seat in self._clockwise if not folded[seat]]
        self._draw = Draw(
            self.config.max_draw,
            self.holes,
            self.deck,
            self._muck,
            self._set_aside,
            self.draw_counts,
            self.events,
            order,
            keeper,
        )
        return order[0]

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

    def _require_draw(self) -> None:
        if self.phase is not _DRAW:
            raise IllegalActionError(Reason.WRONG_PHASE, "discards are only made at the draw")

    # --- the end: pots, shown cards, settlement ---------------------------------------

    def _end_uncontested(self) -> None:
        """R18: the last player wins every pot and shows nothing."""
        betting = self._betting
        betting.return_uncalled()
        self.pots, awards = award_uncontested(self.folded, self.contributions(), self.events)
        self._prove_openers()
        self._settle(awards)

    def _end_dead(self) -> None:
        """R28: nobody opened; the antes stay in the pot for the next deal."""
        self.dead = True
        self.events.append(HandDead(self.pot_total))
        self._settle({})

    def _end_showdown(self) -> None:
        """R19: the live hands are shown in order and the pots awarded."""
        self.pots, self.shown, awards = showdown(
            self.holes,
            self.folded,
            self._clockwise,
            self._joker,
            self.config.showdown_reveal is ShowdownReveal.ALL,
            self.contributions(),
            self._betting.aggressor,
            self.events,
        )
        self._prove_openers()
        self._settle(awards)

    def _prove_openers(self) -> None:
        if self._jacks:
            betting = self._betting
            prove_openers(betting.opener, betting.opener_hand, self._joker, self.events)

    def _settle(self, awards: dict[int, int]) -> None:
        """Push the awarded chips (R26: exactly the pot, or nothing for a dead hand)."""
        stacks = self.stacks
        total_awarded = sum(awards.values())
        expected = self.pot_total if not self.dead else 0
        if total_awarded != expected:
            raise EngineInvariantError(f"awarded {total_awarded} of a pot of {expected} (R26)")
        for seat, amount in awards.items():
            stacks[seat] += amount
        self.payoffs = list(map(sub, stacks, self.starting_stacks))
        if not self.dead:
            self.committed = [0] * self.n
            self.carried_pot = 0
            self._dead_posted = None
        self.bets = [0] * self.n
        self.actor = None
        self.phase = _OVER

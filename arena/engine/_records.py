"""Actions in, events out: the immutable records of a hand.

Actions are what a player asks for. Events are what happened; the hand's history is
a list of them, and PHH export, the protocol and the seat views all read that one
list. Events that carry hidden cards (:class:`HoleCardsDealt`, :class:`CardsDrawn`)
have a ``public()`` twin with the cards removed: :meth:`Hand.view` shows a seat only
its own hidden cards, so no caller can leak one by accident.

They are ``NamedTuple`` rather than frozen dataclasses because the engine makes
many of them per hand and a tuple is the cheapest immutable record Python has.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from arena.engine._cards import Card

# --- actions -------------------------------------------------------------------


class Fold(NamedTuple):
    """Give up the hand (only when facing a bet)."""


class Check(NamedTuple):
    """Pass when there is nothing to call."""


class Call(NamedTuple):
    """Match the current bet (all-in for less when short, R14); a call of 0 is a check."""


class BetRaise(NamedTuple):
    """Bet or raise *to* ``amount`` chips in this round (the player's total bet, blinds included)."""

    amount: int


class Discard(NamedTuple):
    """Discard these cards and draw as many (R15); an empty tuple stands pat."""

    cards: tuple[Card, ...] = ()


Action = Fold | Check | Call | BetRaise | Discard

FOLD = Fold()
CHECK = Check()
CALL = Call()
STAND_PAT = Discard(())


# --- events --------------------------------------------------------------------


class BlindKind(StrEnum):
    SMALL = "small_blind"
    BIG = "big_blind"
    DEAD_SMALL = "dead_small_blind"


class AntePosted(NamedTuple):
    seat: int
    amount: int


class BlindPosted(NamedTuple):
    """A forced bet; ``dead`` chips go straight into the pot and are not the player's bet (R22)."""

    seat: int
    amount: int
    kind: BlindKind
    dead: bool = False


class HoleCardsDealt(NamedTuple):
    """Private: the seat's five cards (R9)."""

    seat: int
    cards: tuple[Card, ...]

    def public(self) -> CardsDealtCount:
        return CardsDealtCount(self.seat, len(self.cards))


class CardsDealtCount(NamedTuple):
    """Public twin of :class:`HoleCardsDealt`."""

    seat: int
    count: int  # type: ignore[assignment]  # the field shadows tuple.count, which no caller uses


class Folded(NamedTuple):
    seat: int


class Checked(NamedTuple):
    seat: int


class Called(NamedTuple):
    """``amount`` chips added; ``to`` is the seat's bet after the call."""

    seat: int
    amount: int
    to: int
    all_in: bool = False


class BetOrRaised(NamedTuple):
    """Bet or raise to ``to`` (the seat's total bet this round), adding ``amount`` chips."""

    seat: int
    to: int
    amount: int
    all_in: bool = False
    full: bool = True


class CardsDrawn(NamedTuple):
    """Private: what the seat discarded and what it got (R15)."""

    seat: int
    discarded: tuple[Card, ...]
    drawn: tuple[Card, ...]

    def public(self) -> DrawCount:
        return DrawCount(self.seat, len(self.discarded))


class DrawCount(NamedTuple):
    """Public twin of :class:`CardsDrawn`: the draw count everyone sees (R16)."""

    seat: int
    count: int  # type: ignore[assignment]  # the field shadows tuple.count, which no caller uses


class StubReshuffled(NamedTuple):
    """The stub ran short (R17): ``dealt_before`` cards came off the old stub, then
    ``size`` cards were shuffled into a new one, excluding ``excluded_seat``'s discards."""

    excluded_seat: int
    dealt_before: int
    size: int


class UncalledReturned(NamedTuple):
    seat: int
    amount: int


class HandShown(NamedTuple):
    """Public: cards shown at showdown (R19) or openers proven (R29).

    For openers, ``cards`` are only those that prove jacks or better and ``rank`` is the
    weakest hand they make (``describe(rank)``: "One pair, Jacks"); the rest stays hidden.
    """

    seat: int
    cards: tuple[Card, ...]
    rank: int
    openers: bool = False


class HandMucked(NamedTuple):
    """The seat reached showdown and did not have to show (R19 ``muck``)."""

    seat: int


class PotAwarded(NamedTuple):
    """``amount`` chips of pot ``pot`` (0 = main) go to ``seat``."""

    seat: int
    amount: int
    pot: int


class HandDead(NamedTuple):
    """Nobody opened (R28): the ``pot`` carries to the next deal."""

    pot: int


class RoundStarted(NamedTuple):
    """A betting round or the draw begins: ``"predraw"``, ``"draw"`` or ``"postdraw"``."""

    street: str


PREDRAW_STARTED = RoundStarted("predraw")
DRAW_STARTED = RoundStarted("draw")
POSTDRAW_STARTED = RoundStarted("postdraw")


Event = (
    AntePosted
    | BlindPosted
    | HoleCardsDealt
    | CardsDealtCount
    | Folded
    | Checked
    | Called
    | BetOrRaised
    | CardsDrawn
    | DrawCount
    | StubReshuffled
    | UncalledReturned
    | HandShown
    | HandMucked
    | PotAwarded
    | HandDead
    | RoundStarted
)
PRIVATE_EVENTS = (HoleCardsDealt, CardsDrawn)

__all__ = [
    "CALL",
    "CHECK",
    "DRAW_STARTED",
    "FOLD",
    "POSTDRAW_STARTED",
    "PREDRAW_STARTED",
    "PRIVATE_EVENTS",
    "STAND_PAT",
    "Action",
    "AntePosted",
    "BetOrRaised",
    "BetRaise",
    "BlindKind",
    "BlindPosted",
    "Call",
    "Called",
    "CardsDealtCount",
    "CardsDrawn",
    "Check",
    "Checked",
    "Discard",
    "DrawCount",
    "Event",
    "Fold",
    "Folded",
    "HandDead",
    "HandMucked",
    "HandShown",
    "HoleCardsDealt",
    "PotAwarded",
    "RoundStarted",
    "StubReshuffled",
    "UncalledReturned",
]

"""The start of a hand (R6, R7, R9, R21, R22, R27): forced bets and the deal.

Plain functions with no state of their own, like the showdown: the :class:`Hand` hands
them the chip lists they change in place (stacks, bets, committed) and the event list
they append to, and keeps what they return. Posting runs once per hand, before anyone
acts, so nothing here outlives the hand's constructor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from arena.engine._cards import Card
from arena.engine._config import GameConfig
from arena.engine._deck import Deck
from arena.engine._records import AntePosted, BlindKind, BlindPosted, Event, HoleCardsDealt


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


def post_antes(
    ante: int, clockwise: Sequence[int], stacks: list[int], committed: list[int],
    events: list[Event],
) -> None:  # fmt: skip
    """Everyone antes, clockwise from the button's left (R27); an ante is never a bet."""
    for seat in clockwise:
        stack = stacks[seat]
        paid = ante if ante < stack else stack  # all-in for less when short (R14)
        stacks[seat] = stack - paid
        committed[seat] += paid
        events.append(AntePosted(seat, paid))


def post_blinds(
    config: GameConfig, blinds: BlindPlan | None, button: int, stacks: list[int],
    bets: list[int], committed: list[int], events: list[Event],
) -> tuple[int, list[int] | None]:  # fmt: skip
    """Small and big blind (R6, R7) and the table's extra posts (R21, R22).

    Returns the seat the first betting round starts from (left of the big blind, R10)
    and the dead chips posted by each seat (R22: the pot's, not the seat's), or None
    when nobody posted dead.
    """
    n = len(stacks)
    if blinds is None:
        left = (button + 1) % n
        if n == 2:  # R7: the button posts the small blind
            blinds = BlindPlan(left, button)
        else:
            blinds = BlindPlan((left + 1) % n, left)
    if blinds.small_blind_seat is not None:
        seat = blinds.small_blind_seat
        paid = _post(seat, config.small_blind, stacks, committed, bets)  # type: ignore[arg-type]  # GameConfig fills both blinds
        events.append(BlindPosted(seat, paid, BlindKind.SMALL))
    seat = blinds.big_blind_seat
    paid = _post(seat, config.big_blind, stacks, committed, bets)  # type: ignore[arg-type]  # GameConfig fills both blinds
    events.append(BlindPosted(seat, paid, BlindKind.BIG))
    dead_posted: list[int] | None = None
    for post in blinds.extra_posts:
        if post.live:
            paid = _post(post.seat, post.live, stacks, committed, bets)
            events.append(BlindPosted(post.seat, paid, BlindKind.BIG))
        if post.dead:
            paid = _post(post.seat, post.dead, stacks, committed, None)
            events.append(BlindPosted(post.seat, paid, BlindKind.DEAD_SMALL, dead=True))
            if dead_posted is None:
                dead_posted = [0] * n
            dead_posted[post.seat] += paid
    return (blinds.big_blind_seat + 1) % n, dead_posted


def deal(deck: Deck, clockwise: Sequence[int], events: list[Event]) -> list[list[Card]]:
    """Five cards each, one at a time, clockwise from the button's left (R9); the hands by seat."""
    n = len(clockwise)
    cards = deck.deal(5 * n)
    holes: list[list[Card]] = [cards] * n  # placeholders: every seat's is replaced below
    for k, seat in enumerate(clockwise):
        hole = holes[seat] = cards[k::n]
        events.append(HoleCardsDealt(seat, tuple(hole)))
    deck.split_stacks(clockwise)  # a seat_stacks deck only (duplicate dealing)
    return holes


def _post(
    seat: int, amount: int, stacks: list[int], committed: list[int], bets: list[int] | None
) -> int:
    """Move up to ``amount`` from the stack, all-in for less when short (R14); a live post
    (``bets`` given) counts as the seat's bet."""
    stack = stacks[seat]
    paid = amount if amount < stack else stack
    stacks[seat] = stack - paid
    committed[seat] += paid
    if bets is not None:
        bets[seat] += paid
    return paid

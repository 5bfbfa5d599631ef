"""What one seat may know about a hand, and nothing more.

The boundary between public and private lives here, in the engine, so the dealer and
the protocol cannot leak a hidden card by accident: they build messages from a
:class:`SeatView`, never from the :class:`Hand` itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from arena.engine._cards import Card
from arena.engine._phase import LegalActions, Phase
from arena.engine._records import PRIVATE_EVENTS, Event


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's knowledge: its own cards, public actions and draw counts, shown cards."""

    seat: int
    phase: Phase
    button: int
    hole_cards: tuple[Card, ...]
    stacks: tuple[int, ...]
    bets: tuple[int, ...]
    committed: tuple[int, ...]
    folded: tuple[bool, ...]
    pot: int
    current_bet: int
    draw_counts: tuple[int | None, ...]
    shown: dict[int, tuple[Card, ...]]
    events: tuple[Event, ...]
    to_act: int | None
    legal: LegalActions | None
    payoffs: tuple[int, ...] | None


def redact(event: Event, seat: int) -> Event:
    """The event as ``seat`` may see it: others' hidden cards become counts."""
    if isinstance(event, PRIVATE_EVENTS) and event.seat != seat:
        return event.public()
    return event


class _Viewed(Protocol):
    """What a view reads of a hand (the :class:`~arena.engine.Hand`), so this module
    needs nothing above it; read-only, so a hand's lists satisfy the sequences."""

    @property
    def n(self) -> int: ...

    @property
    def phase(self) -> Phase: ...

    @property
    def button(self) -> int: ...

    @property
    def holes(self) -> Sequence[Sequence[Card]]: ...

    @property
    def stacks(self) -> Sequence[int]: ...

    @property
    def bets(self) -> Sequence[int]: ...

    @property
    def committed(self) -> Sequence[int]: ...

    @property
    def folded(self) -> Sequence[bool]: ...

    @property
    def draw_counts(self) -> Sequence[int | None]: ...

    @property
    def shown(self) -> dict[int, tuple[Card, ...]]: ...

    @property
    def events(self) -> Sequence[Event]: ...

    @property
    def actor(self) -> int | None: ...

    @property
    def payoffs(self) -> Sequence[int] | None: ...

    @property
    def pot_total(self) -> int: ...

    @property
    def current_bet(self) -> int: ...

    def legal_actions(self) -> LegalActions: ...


def view_of(hand: _Viewed, seat: int, *, history: bool = True, events_from: int = 0) -> SeatView:
    """Build ``seat``'s view of ``hand``; ``history=False`` leaves ``events`` empty (cheaper).

    ``events_from`` keeps only the events from that index on (redacted like the rest), for a
    caller that already holds the earlier ones: redacting the whole history at every
    decision made the dealer's cost per decision grow with the hand (issue 12 item 6).
    """
    if not 0 <= seat < hand.n:
        raise ValueError(f"seat {seat} is not in this hand of {hand.n}")
    return SeatView(
        seat=seat,
        phase=hand.phase,
        button=hand.button,
        hole_cards=tuple(hand.holes[seat]),
        stacks=tuple(hand.stacks),
        bets=tuple(hand.bets),
        committed=tuple(hand.committed),
        folded=tuple(hand.folded),
        pot=hand.pot_total,
        current_bet=hand.current_bet,
        draw_counts=tuple(hand.draw_counts),
        shown=dict(hand.shown),
        events=(
            tuple(redact(event, seat) for event in hand.events[events_from:]) if history else ()
        ),
        to_act=hand.actor,
        legal=hand.legal_actions() if hand.actor == seat else None,
        payoffs=tuple(hand.payoffs) if hand.payoffs is not None else None,
    )

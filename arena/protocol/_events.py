"""A hand's public history on the wire: engine events <-> ``PublicEvent`` messages.

The history is built from a :class:`~arena.engine.SeatView`'s events, which the engine
has already redacted for that seat (others' hidden cards are counts there). The wire
form of a deal or a draw is a count for every seat, the viewer's included (its cards
travel in ``hole_cards``), so the one history is the same for every seat and the dealer
converts each event once per hand (:class:`PublicHistory`).

:func:`event_from_message` is the inverse, for bots and policies that read a
``DecisionRequest`` as an engine view (:func:`arena.protocol.read_decision`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from arena.engine import (
    AntePosted,
    BetOrRaised,
    BlindKind,
    BlindPosted,
    Called,
    CardsDealtCount,
    CardsDrawn,
    Checked,
    DrawCount,
    Event,
    Folded,
    HandDead,
    HandMucked,
    HandShown,
    HoleCardsDealt,
    PotAwarded,
    RoundStarted,
    StubReshuffled,
    UncalledReturned,
    parse_card,
)
from arena.protocol._generated import arena_pb2 as pb

_BLIND = {
    BlindKind.SMALL: pb.EVENT_KIND_POST_SMALL_BLIND,
    BlindKind.BIG: pb.EVENT_KIND_POST_BIG_BLIND,
    BlindKind.DEAD_SMALL: pb.EVENT_KIND_POST_DEAD_BLIND,
}
STREET_COUNT = {"predraw": 1, "draw": 0, "postdraw": 2}
"""``PublicEvent.count`` of an ``EVENT_KIND_STREET`` event, by the engine's street name."""

_Seat = Callable[[int], int]
_ToMessage = Callable[[Any, _Seat], pb.PublicEvent]


def cards_text(cards: Iterable[int]) -> list[str]:
    """Cards as the wire spells them (``"As"``, ``"Jk"``)."""
    return [str(card) for card in cards]


def _count(kind: pb.EventKind, count: Callable[[Any], int]) -> _ToMessage:
    return lambda e, seat: pb.PublicEvent(kind=kind, seat=seat(e.seat), count=count(e))


def _seat_only(kind: pb.EventKind) -> _ToMessage:
    return lambda e, seat: pb.PublicEvent(kind=kind, seat=seat(e.seat))


def _chips(kind: pb.EventKind) -> _ToMessage:
    return lambda e, seat: pb.PublicEvent(kind=kind, seat=seat(e.seat), amount=e.amount)


def _bet(kind: pb.EventKind) -> _ToMessage:
    return lambda e, seat: pb.PublicEvent(
        kind=kind, seat=seat(e.seat), amount=e.amount, to=e.to, all_in=e.all_in
    )


_TO_MESSAGE: dict[type, _ToMessage] = {
    # a deal or a draw is a count on the wire, whoever's cards they were
    HoleCardsDealt: _count(pb.EVENT_KIND_DEAL, lambda e: len(e.cards)),
    CardsDealtCount: _count(pb.EVENT_KIND_DEAL, lambda e: e.count),
    CardsDrawn: _count(pb.EVENT_KIND_DREW, lambda e: len(e.discarded)),
    DrawCount: _count(pb.EVENT_KIND_DREW, lambda e: e.count),
    AntePosted: _chips(pb.EVENT_KIND_POST_ANTE),
    BlindPosted: lambda e, seat: pb.PublicEvent(
        kind=_BLIND[e.kind], seat=seat(e.seat), amount=e.amount
    ),
    Folded: _seat_only(pb.EVENT_KIND_FOLDED),
    Checked: _seat_only(pb.EVENT_KIND_CHECKED),
    Called: _bet(pb.EVENT_KIND_CALLED),
    BetOrRaised: _bet(pb.EVENT_KIND_BET_RAISED),
    StubReshuffled: lambda e, seat: pb.PublicEvent(
        kind=pb.EVENT_KIND_RESHUFFLED, seat=-1, count=e.size
    ),
    UncalledReturned: _chips(pb.EVENT_KIND_UNCALLED_RETURNED),
    HandShown: lambda e, seat: pb.PublicEvent(
        kind=pb.EVENT_KIND_SHOWN, seat=seat(e.seat), cards=cards_text(e.cards)
    ),
    HandMucked: _seat_only(pb.EVENT_KIND_MUCKED),
    PotAwarded: _chips(pb.EVENT_KIND_WON),
    HandDead: lambda e, seat: pb.PublicEvent(kind=pb.EVENT_KIND_DEAD_HAND, seat=-1, amount=e.pot),
    RoundStarted: lambda e, seat: pb.PublicEvent(
        kind=pb.EVENT_KIND_STREET, seat=-1, count=STREET_COUNT[e.street]
    ),
}


def public_event(event: object, seat_map: Sequence[int] | None = None) -> pb.PublicEvent | None:
    """One event of a :class:`~arena.engine.SeatView` as the wire's public record.

    ``seat_map`` maps the hand's player indices to table seats (identity by default).
    None for an event with no public form.
    """
    convert = _TO_MESSAGE.get(type(event))
    if convert is None:
        return None
    return convert(event, (lambda i: i) if seat_map is None else seat_map.__getitem__)


def public_history(
    events: Iterable[object], seat_map: Sequence[int] | None = None
) -> list[pb.PublicEvent]:
    """:func:`public_event` of each of ``events`` (a :class:`~arena.engine.SeatView`'s)."""
    return [msg for msg in (public_event(e, seat_map) for e in events) if msg is not None]


def _tag(message: type[pb.DecisionRequest] | type[pb.HandEnd], field: str) -> bytes:
    """The key of a length-delimited field on the wire (one byte for field numbers < 16)."""
    key = message.DESCRIPTOR.fields_by_name[field].number << 3 | 2
    assert key < 0x80, "a field number past 15 needs a longer key"
    return bytes([key])


_REQUEST_HISTORY = _tag(pb.DecisionRequest, "history")
_HAND_END_HISTORY = _tag(pb.HandEnd, "history")


def _length(size: int) -> bytes:
    """``size`` as a protobuf varint."""
    out = bytearray()
    while size >= 0x80:
        out.append(size & 0x7F | 0x80)
        size >>= 7
    out.append(size)
    return bytes(out)


class PublicHistory:
    """A hand's public record, converted once per event as the hand grows.

    The record is the same for every seat, so the dealer keeps one per hand and feeds
    it the events of whichever seat's view it has at hand (the events of every seat's
    view line up one to one with the hand's), instead of converting the whole history
    for every decision.
    """

    __slots__ = ("_done", "_messages", "_pieces", "_seat_map", "_wire", "_wired")

    def __init__(self, seat_map: Sequence[int] | None = None) -> None:
        self._seat_map = seat_map
        self._done = 0
        self._messages: list[pb.PublicEvent] = []
        self._pieces: list[bytes] = []  # each message serialised, with its length in front
        self._wire = b""  # the messages as a DecisionRequest's history field, on the wire
        self._wired = 0  # how many messages _pieces and _wire hold

    def _serialise(self) -> None:
        if self._wired == len(self._messages):
            return
        pieces = []
        for message in self._messages[self._wired :]:
            body = message.SerializeToString()
            pieces.append(_length(len(body)) + body)
        self._pieces.extend(pieces)
        self._wire += b"".join(_REQUEST_HISTORY + piece for piece in pieces)
        self._wired = len(self._messages)

    def request_wire(self) -> bytes:
        """The record as the serialised ``history`` of a ``DecisionRequest``, kept up to date
        one event at a time: merging these bytes into a request costs one parse, where
        copying the messages in costs one copy each, at every decision (issue 12 item 6).
        Each event is serialised once, for this and :meth:`hand_end_wire`."""
        self._serialise()
        return self._wire

    def hand_end_wire(self, events: Sequence[object]) -> bytes:
        """The record of ``events`` (as :meth:`update`) as the serialised ``history`` of a
        ``HandEnd``, from the events serialised for the requests (issue 12 item 6)."""
        self.update(events)
        self._serialise()
        return b"".join(_HAND_END_HISTORY + piece for piece in self._pieces)

    def update(self, events: Sequence[object]) -> list[pb.PublicEvent]:
        """The record of ``events``: a :class:`~arena.engine.SeatView`'s whole event list."""
        for event in events[self._done :]:
            message = public_event(event, self._seat_map)
            if message is not None:
                self._messages.append(message)
        self._done = len(events)
        return self._messages

    @property
    def done(self) -> int:
        """How many of the hand's events the record holds (the next one's index)."""
        return self._done

    def extend(self, new_events: Sequence[object]) -> list[pb.PublicEvent]:
        """The record after ``new_events``: the events from index :attr:`done` on (a view
        taken with ``events_from=done``), so earlier ones are not gone through again."""
        for event in new_events:
            message = public_event(event, self._seat_map)
            if message is not None:
                self._messages.append(message)
        self._done += len(new_events)
        return self._messages


# --- the wire back to engine events -------------------------------------------------

_STREET_NAME = {count: name for name, count in STREET_COUNT.items()}
_BLIND_KIND = {kind: blind for blind, kind in _BLIND.items()}


def event_from_message(message: pb.PublicEvent) -> Event | None:
    """The engine event a ``PublicEvent`` stands for; None for an unknown kind.

    What the wire does not carry takes its default: a shown hand's ``rank`` is 0, a
    won pot is pot 0, a raise is ``full``, a reshuffle names no excluded seat (-1).
    Raises ``CardParseError`` on card text that is not a card.
    """
    kind, seat = message.kind, message.seat
    if kind == pb.EVENT_KIND_DEAL:
        return CardsDealtCount(seat, message.count)
    if kind == pb.EVENT_KIND_DREW:
        return DrawCount(seat, message.count)
    if kind == pb.EVENT_KIND_POST_ANTE:
        return AntePosted(seat, message.amount)
    if kind in _BLIND_KIND:
        blind = _BLIND_KIND[kind]
        return BlindPosted(seat, message.amount, blind, dead=blind is BlindKind.DEAD_SMALL)
    if kind == pb.EVENT_KIND_FOLDED:
        return Folded(seat)
    if kind == pb.EVENT_KIND_CHECKED:
        return Checked(seat)
    if kind == pb.EVENT_KIND_CALLED:
        return Called(seat, message.amount, message.to, message.all_in)
    if kind == pb.EVENT_KIND_BET_RAISED:
        return BetOrRaised(seat, message.to, message.amount, message.all_in)
    if kind == pb.EVENT_KIND_RESHUFFLED:
        return StubReshuffled(-1, 0, message.count)
    if kind == pb.EVENT_KIND_UNCALLED_RETURNED:
        return UncalledReturned(seat, message.amount)
    if kind == pb.EVENT_KIND_SHOWN:
        return HandShown(seat, tuple(parse_card(text) for text in message.cards), 0)
    if kind == pb.EVENT_KIND_MUCKED:
        return HandMucked(seat)
    if kind == pb.EVENT_KIND_WON:
        return PotAwarded(seat, message.amount, 0)
    if kind == pb.EVENT_KIND_DEAD_HAND:
        return HandDead(message.amount)
    if kind == pb.EVENT_KIND_STREET and message.count in _STREET_NAME:
        return RoundStarted(_STREET_NAME[message.count])
    return None

"""Engine objects <-> protocol messages, in one place (layer 2).

Wire messages become engine actions only through :func:`action_from_message`, which
turns anything a bot can send into either a well-formed engine action or a
:class:`MessageFault` with a reason code; it never raises anything else. Messages
for a seat are built only from that seat's :class:`~arena.engine.SeatView`, so a
hidden card cannot reach the wire by accident.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from arena.engine import (
    CALL,
    CHECK,
    FOLD,
    Action,
    AntePosted,
    BetOrRaised,
    BetRaise,
    BlindKind,
    BlindPosted,
    Called,
    CardParseError,
    CardsDealtCount,
    CardsDrawn,
    Checked,
    Discard,
    DrawCount,
    Fold,
    Folded,
    ForcedBets,
    GameConfig,
    HandDead,
    HandMucked,
    HandShown,
    HoleCardsDealt,
    JokerMode,
    LegalActions,
    Opening,
    Phase,
    PotAwarded,
    RoundStarted,
    SeatView,
    ShowdownReveal,
    Structure,
    StubReshuffled,
    UncalledReturned,
    parse_card,
)
from arena.engine import Call as CallAction
from arena.engine import Check as CheckAction
from arena.protocol._generated import arena_pb2 as pb

PROTOCOL_VERSION = 1

_STRUCTURE = {
    Structure.FIXED_LIMIT: pb.STRUCTURE_FIXED_LIMIT,
    Structure.POT_LIMIT: pb.STRUCTURE_POT_LIMIT,
    Structure.NO_LIMIT: pb.STRUCTURE_NO_LIMIT,
}
_FORCED = {ForcedBets.BLINDS: pb.FORCED_BETS_BLINDS, ForcedBets.ANTES: pb.FORCED_BETS_ANTES}
_OPENING = {Opening.ANY: pb.OPENING_ANY, Opening.JACKS_OR_BETTER: pb.OPENING_JACKS_OR_BETTER}
_JOKER = {
    JokerMode.OFF: pb.JOKER_MODE_OFF,
    JokerMode.BUG: pb.JOKER_MODE_BUG,
    JokerMode.WILD: pb.JOKER_MODE_WILD,
}
_REVEAL = {ShowdownReveal.ALL: pb.SHOWDOWN_REVEAL_ALL, ShowdownReveal.MUCK: pb.SHOWDOWN_REVEAL_MUCK}
_PHASE = {
    Phase.PREDRAW_BETTING: pb.PHASE_PREDRAW_BETTING,
    Phase.DRAW: pb.PHASE_DRAW,
    Phase.POSTDRAW_BETTING: pb.PHASE_POSTDRAW_BETTING,
}


def short_name(enum: Any, value: int) -> str:
    """``value``'s name without its enum's prefix: ``TIMEOUT`` for ``FAULT_REASON_TIMEOUT``.

    The prefixes keep C++ and other flat namespaces apart (buf's STANDARD lint); records,
    logs and messages for humans keep the short names they had before the prefixes.
    """
    name = enum.Name(value)
    words = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.DESCRIPTOR.name).upper() + "_"
    return name.removeprefix(words)


def _invert(mapping: dict) -> dict:
    return {value: key for key, value in mapping.items()}


class MessageFault(Exception):
    """A bot message that cannot become an engine action; ``reason`` is a FaultReason value."""

    def __init__(self, reason: int, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


# --- configuration -----------------------------------------------------------------


def config_to_message(config: GameConfig) -> pb.GameConfig:
    return pb.GameConfig(
        structure=_STRUCTURE[config.structure],
        small_blind=config.small_blind,
        big_blind=config.big_blind,
        small_bet=config.small_bet,
        big_bet=config.big_bet,
        ante=config.ante,
        max_draw=config.max_draw,
        forced_bets=_FORCED[config.forced_bets],
        opening=_OPENING[config.opening],
        joker=_JOKER[config.joker],
        showdown_reveal=_REVEAL[config.showdown_reveal],
        uncapped_heads_up=config.uncapped_heads_up,
        max_bets_per_round=config.max_bets_per_round,
    )


def config_from_message(message: pb.GameConfig) -> GameConfig:
    """The inverse of :func:`config_to_message` (raises ``ConfigError`` on nonsense)."""
    return GameConfig(
        structure=_invert(_STRUCTURE).get(message.structure, Structure.FIXED_LIMIT),
        small_blind=message.small_blind or None,
        big_blind=message.big_blind or None,
        small_bet=message.small_bet or None,
        big_bet=message.big_bet or None,
        ante=message.ante,
        max_draw=message.max_draw or 5,
        forced_bets=_invert(_FORCED).get(message.forced_bets, ForcedBets.BLINDS),
        opening=_invert(_OPENING).get(message.opening, Opening.ANY),
        joker=_invert(_JOKER).get(message.joker, JokerMode.OFF),
        showdown_reveal=_invert(_REVEAL).get(message.showdown_reveal, ShowdownReveal.ALL),
        uncapped_heads_up=message.uncapped_heads_up,
        max_bets_per_round=message.max_bets_per_round or 4,
    )


# --- events ------------------------------------------------------------------------


def cards_text(cards: Iterable[int]) -> list[str]:
    return [str(card) for card in cards]


def public_event(event: object, seat_map: Sequence[int] | None = None) -> pb.PublicEvent | None:
    """One engine event as the public record; None for events with no public form.

    Private events must already be redacted (they are, in a :class:`SeatView`), except
    the viewer's own, which are reported as counts too: the viewer's cards travel in
    ``hole_cards``, never in the history.
    """

    def seat_of(index: int) -> int:
        return seat_map[index] if seat_map is not None else index

    kind = type(event)
    if kind is HoleCardsDealt:
        event = event.public()  # type: ignore[attr-defined]
        kind = CardsDealtCount
    elif kind is CardsDrawn:
        event = event.public()  # type: ignore[attr-defined]
        kind = DrawCount
    if kind is CardsDealtCount:
        return pb.PublicEvent(kind=pb.EVENT_KIND_DEAL, seat=seat_of(event.seat), count=event.count)  # type: ignore[attr-defined]
    if kind is DrawCount:
        return pb.PublicEvent(kind=pb.EVENT_KIND_DREW, seat=seat_of(event.seat), count=event.count)  # type: ignore[attr-defined]
    if kind is AntePosted:
        return pb.PublicEvent(
            kind=pb.EVENT_KIND_POST_ANTE, seat=seat_of(event.seat), amount=event.amount
        )  # type: ignore[attr-defined]
    if kind is BlindPosted:
        blind = {
            BlindKind.SMALL: pb.EVENT_KIND_POST_SMALL_BLIND,
            BlindKind.BIG: pb.EVENT_KIND_POST_BIG_BLIND,
            BlindKind.DEAD_SMALL: pb.EVENT_KIND_POST_DEAD_BLIND,
        }[event.kind]  # type: ignore[attr-defined]
        return pb.PublicEvent(kind=blind, seat=seat_of(event.seat), amount=event.amount)  # type: ignore[attr-defined]
    if kind is Folded:
        return pb.PublicEvent(kind=pb.EVENT_KIND_FOLDED, seat=seat_of(event.seat))  # type: ignore[attr-defined]
    if kind is Checked:
        return pb.PublicEvent(kind=pb.EVENT_KIND_CHECKED, seat=seat_of(event.seat))  # type: ignore[attr-defined]
    if kind is Called or kind is BetOrRaised:
        return pb.PublicEvent(
            kind=pb.EVENT_KIND_CALLED if kind is Called else pb.EVENT_KIND_BET_RAISED,
            seat=seat_of(event.seat),  # type: ignore[attr-defined]
            amount=event.amount,  # type: ignore[attr-defined]
            to=event.to,  # type: ignore[attr-defined]
            all_in=event.all_in,  # type: ignore[attr-defined]
        )
    if kind is StubReshuffled:
        return pb.PublicEvent(kind=pb.EVENT_KIND_RESHUFFLED, seat=-1, count=event.size)  # type: ignore[attr-defined]
    if kind is UncalledReturned:
        return pb.PublicEvent(
            kind=pb.EVENT_KIND_UNCALLED_RETURNED, seat=seat_of(event.seat), amount=event.amount
        )  # type: ignore[attr-defined]
    if kind is HandShown:
        return pb.PublicEvent(
            kind=pb.EVENT_KIND_SHOWN, seat=seat_of(event.seat), cards=cards_text(event.cards)
        )  # type: ignore[attr-defined]
    if kind is HandMucked:
        return pb.PublicEvent(kind=pb.EVENT_KIND_MUCKED, seat=seat_of(event.seat))  # type: ignore[attr-defined]
    if kind is PotAwarded:
        return pb.PublicEvent(kind=pb.EVENT_KIND_WON, seat=seat_of(event.seat), amount=event.amount)  # type: ignore[attr-defined]
    if kind is HandDead:
        return pb.PublicEvent(kind=pb.EVENT_KIND_DEAD_HAND, seat=-1, amount=event.pot)  # type: ignore[attr-defined]
    if kind is RoundStarted:
        street = {"predraw": 1, "draw": 0, "postdraw": 2}[event.street]  # type: ignore[attr-defined]
        return pb.PublicEvent(kind=pb.EVENT_KIND_STREET, seat=-1, count=street)
    return None


def public_history(
    events: Iterable[object], seat_map: Sequence[int] | None = None
) -> list[pb.PublicEvent]:
    return [msg for msg in (public_event(e, seat_map) for e in events) if msg is not None]


class PublicHistory:
    """A hand's public record, converted once per event as the hand grows.

    The public record is the same for every seat (hidden cards become counts for
    everyone, the viewer's own included), so the dealer keeps one per hand instead of
    converting the whole history for every decision.
    """

    __slots__ = ("_done", "_messages", "_seat_map")

    def __init__(self, seat_map: Sequence[int] | None = None) -> None:
        self._seat_map = seat_map
        self._done = 0
        self._messages: list[pb.PublicEvent] = []

    def update(self, events: Sequence[object]) -> list[pb.PublicEvent]:
        """The record of ``events`` (the hand's whole event list so far)."""
        for event in events[self._done :]:
            message = public_event(event, self._seat_map)
            if message is not None:
                self._messages.append(message)
        self._done = len(events)
        return self._messages


# --- decisions -----------------------------------------------------------------------


def legal_to_message(legal: LegalActions) -> pb.LegalActions:
    return pb.LegalActions(
        can_fold=legal.can_fold,
        can_check=legal.can_check,
        call_amount=legal.call_amount,
        can_raise=legal.can_raise,
        min_raise_to=legal.min_raise_to,
        max_raise_to=legal.max_raise_to,
        max_discard=legal.max_discard,
    )


def decision_request(
    view: SeatView,
    *,
    decision_id: str,
    hand_id: str,
    hand_number: int,
    names: Sequence[str],
    seat_map: Sequence[int] | None = None,
    time_left_ms: int,
    time_bank_ms: int,
    history: Sequence[pb.PublicEvent] | None = None,
) -> pb.DecisionRequest:
    """The request for the seat whose view this is; built from the view alone.

    ``seat_map`` maps the hand's player indices to table seats (identity by default).
    ``history``: the hand's public record when the caller keeps one
    (:class:`PublicHistory`); by default it is converted from the view's events.
    """
    if view.legal is None:
        raise ValueError(f"seat {view.seat} is not to act")
    table_seat = seat_map[view.seat] if seat_map is not None else view.seat
    seats = [
        pb.SeatState(
            seat=seat_map[i] if seat_map is not None else i,
            name=names[i],
            stack=view.stacks[i],
            bet=view.bets[i],
            committed=view.committed[i],
            folded=view.folded[i],
            all_in=view.stacks[i] == 0 and not view.folded[i],
            draw_count=-1 if view.draw_counts[i] is None else view.draw_counts[i],  # type: ignore[arg-type]
            in_hand=True,
        )
        for i in range(len(view.stacks))
    ]
    return pb.DecisionRequest(
        decision_id=decision_id,
        hand_id=hand_id,
        hand_number=hand_number,
        seat=table_seat,
        button=seat_map[view.button] if seat_map is not None else view.button,
        phase=_PHASE[view.phase],
        hole_cards=cards_text(view.hole_cards),
        seats=seats,
        pot=view.pot,
        current_bet=view.current_bet,
        history=public_history(view.events, seat_map) if history is None else history,
        legal=legal_to_message(view.legal),
        time_left_ms=time_left_ms,
        time_bank_ms=time_bank_ms,
    )


def action_from_message(message: pb.Action, expected_decision_id: str) -> Action:
    """Turn a bot's Action into an engine action, or raise :class:`MessageFault`.

    Checks only the form (id, kind, card text); legality is the engine's to judge.
    """
    if message.decision_id != expected_decision_id:
        raise MessageFault(
            pb.FAULT_REASON_WRONG_DECISION_ID,
            f"decision_id {message.decision_id[:64]!r} does not answer {expected_decision_id!r}",
        )
    kind = message.kind
    if kind == pb.ACTION_KIND_FOLD:
        return FOLD
    if kind == pb.ACTION_KIND_CHECK:
        return CHECK
    if kind == pb.ACTION_KIND_CALL:
        return CALL
    if kind == pb.ACTION_KIND_BET_RAISE:
        return BetRaise(int(message.amount))
    if kind == pb.ACTION_KIND_DISCARD:
        if len(message.cards) > 5:
            raise MessageFault(
                pb.FAULT_REASON_MALFORMED, f"{len(message.cards)} cards in a discard"
            )
        try:
            return Discard(tuple(parse_card(text) for text in message.cards))
        except CardParseError as error:
            raise MessageFault(pb.FAULT_REASON_MALFORMED, str(error)[:200]) from None
    raise MessageFault(pb.FAULT_REASON_MALFORMED, f"action kind {kind} is not a valid ActionKind")


def action_to_message(action: Action, decision_id: str) -> pb.Action:
    """An engine action as a bot would send it (for faults' ``applied`` and for SDKs)."""
    kind = type(action)
    if kind is Fold:
        return pb.Action(decision_id=decision_id, kind=pb.ACTION_KIND_FOLD)
    if kind is CheckAction:
        return pb.Action(decision_id=decision_id, kind=pb.ACTION_KIND_CHECK)
    if kind is CallAction:
        return pb.Action(decision_id=decision_id, kind=pb.ACTION_KIND_CALL)
    if kind is BetRaise:
        return pb.Action(
            decision_id=decision_id, kind=pb.ACTION_KIND_BET_RAISE, amount=action.amount
        )  # type: ignore[union-attr]
    if kind is Discard:
        return pb.Action(
            decision_id=decision_id, kind=pb.ACTION_KIND_DISCARD, cards=cards_text(action.cards)
        )  # type: ignore[union-attr]
    raise TypeError(f"not an engine action: {action!r}")

"""A decision on the wire, both ways: a seat's view -> ``DecisionRequest`` -> a view again.

The dealer builds the request from the acting seat's :class:`~arena.engine.SeatView`
alone (:func:`decision_request`), so a hidden card cannot reach it. Bots and policies
read it back through :func:`read_decision`, the one place that turns the wire's enum
numbers into engine values: the SDK's ``Decision`` and every policy see the same
:class:`~arena.engine.SeatView` in process and over gRPC.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine import HandShown, LegalActions, Phase, SeatView, parse_card
from arena.protocol._events import cards_text, event_from_message, public_history
from arena.protocol._generated import arena_pb2 as pb

PHASE = {
    Phase.PREDRAW_BETTING: pb.PHASE_PREDRAW_BETTING,
    Phase.DRAW: pb.PHASE_DRAW,
    Phase.POSTDRAW_BETTING: pb.PHASE_POSTDRAW_BETTING,
}
"""Engine phase -> ``Phase`` enum value."""
_PHASE_OF = {value: phase for phase, value in PHASE.items()}


def legal_to_message(legal: LegalActions) -> pb.LegalActions:
    """The legal actions with their exact amounts, as the request carries them."""
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
    (:class:`~arena.protocol.PublicHistory`); by default it is converted from the view's events.
    """
    request = pb.DecisionRequest()
    fill_decision_request(
        request,
        view,
        decision_id=decision_id,
        hand_id=hand_id,
        hand_number=hand_number,
        names=names,
        seat_map=seat_map,
        time_left_ms=time_left_ms,
        time_bank_ms=time_bank_ms,
        history=history,
    )
    return request


def fill_decision_request(
    request: pb.DecisionRequest,
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
    history_wire: bytes | None = None,
) -> None:
    """:func:`decision_request` written into ``request`` (an empty one) in place.

    In place because the dealer builds one per decision inside its ``DealerMessage``:
    building the parts apart and passing them in copies each of them again (issue 12
    item 6). ``history_wire``, when given, is the history already serialised
    (:meth:`~arena.protocol.PublicHistory.request_wire`) and ``history`` is not read.
    """
    legal = view.legal
    if legal is None:
        raise ValueError(f"seat {view.seat} is not to act")
    request.decision_id = decision_id
    request.hand_id = hand_id
    request.hand_number = hand_number
    request.seat = view.seat if seat_map is None else seat_map[view.seat]
    request.button = view.button if seat_map is None else seat_map[view.button]
    request.phase = PHASE[view.phase]
    request.hole_cards.extend(cards_text(view.hole_cards))
    add_seat = request.seats.add
    stacks, bets, committed, folded = view.stacks, view.bets, view.committed, view.folded
    for i, drew in enumerate(view.draw_counts):
        add_seat(
            seat=i if seat_map is None else seat_map[i],
            name=names[i],
            stack=stacks[i],
            bet=bets[i],
            committed=committed[i],
            folded=folded[i],
            all_in=stacks[i] == 0 and not folded[i],
            draw_count=-1 if drew is None else drew,
            in_hand=True,
        )
    request.pot = view.pot
    request.current_bet = view.current_bet
    if history_wire is not None:
        request.MergeFromString(history_wire)
    else:
        request.history.extend(
            public_history(view.events, seat_map) if history is None else history
        )
    _fill_legal(request.legal, legal)
    request.time_left_ms = time_left_ms
    request.time_bank_ms = time_bank_ms


def _fill_legal(out: pb.LegalActions, legal: LegalActions) -> None:
    """:func:`legal_to_message` written into the request's own ``legal`` (no copy)."""
    out.can_fold = legal.can_fold
    out.can_check = legal.can_check
    out.call_amount = legal.call_amount
    out.can_raise = legal.can_raise
    out.min_raise_to = legal.min_raise_to
    out.max_raise_to = legal.max_raise_to
    out.max_discard = legal.max_discard


def read_decision(request: pb.DecisionRequest) -> SeatView:
    """The request as the engine's view of the seat to act, in TABLE seats.

    Index ``i`` of every per-seat tuple is table seat ``i`` (as in the request's
    ``seat`` fields and history); a seat not dealt into the hand appears folded, with no
    chips and no draw. ``events`` is the public history as engine events
    (:func:`~arena.protocol.event_from_message`); ``shown`` holds the cards shown so
    far. Raises ``CardParseError`` on card text that is not a card.
    """
    size = 1 + max([request.seat, request.button, *(s.seat for s in request.seats)])
    stacks, bets, committed = [0] * size, [0] * size, [0] * size
    folded = [True] * size
    draws: list[int | None] = [None] * size
    for state in request.seats:
        i = state.seat
        stacks[i], bets[i], committed[i] = state.stack, state.bet, state.committed
        folded[i] = state.folded or not state.in_hand
        draws[i] = None if state.draw_count < 0 else state.draw_count
    events = tuple(e for e in map(event_from_message, request.history) if e is not None)
    phase = _PHASE_OF.get(request.phase, Phase.PREDRAW_BETTING)
    msg = request.legal
    legal = LegalActions(
        seat=request.seat,
        phase=phase,
        can_fold=msg.can_fold,
        can_check=msg.can_check,
        call_amount=msg.call_amount,
        min_raise_to=msg.min_raise_to if msg.can_raise else 0,
        max_raise_to=msg.max_raise_to if msg.can_raise else 0,
        max_discard=msg.max_discard,
    )
    return SeatView(
        seat=request.seat,
        phase=phase,
        button=request.button,
        hole_cards=tuple(parse_card(text) for text in request.hole_cards),
        stacks=tuple(stacks),
        bets=tuple(bets),
        committed=tuple(committed),
        folded=tuple(folded),
        pot=request.pot,
        current_bet=request.current_bet,
        draw_counts=tuple(draws),
        shown={e.seat: e.cards for e in events if isinstance(e, HandShown)},
        events=events,
        to_act=request.seat,
        legal=legal,
        payoffs=None,
    )

"""Every ``DealerMessage`` the dealer sends, built here and nowhere else.

One function per kind, in the order a stream sees them: :func:`match_start`,
:func:`hand_start`, :func:`decision`, :func:`fault`, :func:`hand_end`,
:func:`match_end`; and the bot's two, :func:`hello` and :func:`answer`, for the SDK and
the in-process seats. Those that carry cards take a :class:`~arena.engine.SeatView`, never
a hand, so what reaches a seat is what the engine lets that seat see.
``tests/protocol/test_wire_owner.py`` fails if code outside ``arena/protocol`` builds a
``DealerMessage`` or any of its parts itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine import Action, GameConfig, HandShown, SeatView, describe
from arena.protocol._convert import PROTOCOL_VERSION, action_to_message, config_to_message
from arena.protocol._decision import fill_decision_request
from arena.protocol._events import cards_text
from arena.protocol._generated import arena_pb2 as pb


def _by_table_seat(values: Sequence[int], seat_map: Sequence[int], seats: int) -> list[int]:
    """Per-player ``values`` spread over a table of ``seats`` (0 for a seat not dealt in)."""
    out = [0] * seats
    for index, table_seat in enumerate(seat_map):
        out[table_seat] = values[index]
    return out


def match_start(
    *,
    match_id: str,
    table_id: str,
    seat: int,
    names: Sequence[str],
    config: GameConfig,
    action_timeout: float,
    time_bank: float,
    hands: int,
    starting_stack: int,
    seat_seed: int = 0,
) -> pb.DealerMessage:
    """The MatchStart for ``seat`` at a table whose seats are named ``names`` (clocks in seconds)."""
    return pb.DealerMessage(
        match_start=pb.MatchStart(
            match_id=match_id,
            table_id=table_id,
            seat=seat,
            players=[pb.Player(seat=index, name=name) for index, name in enumerate(names)],
            config=config_to_message(config),
            clock=pb.ClockSettings(
                action_timeout_ms=int(action_timeout * 1000),
                time_bank_ms=int(time_bank * 1000),
            ),
            hands=hands,
            starting_stack=starting_stack,
            protocol_version=PROTOCOL_VERSION,
            seat_seed=seat_seed,
        )
    )


def hand_start(
    view: SeatView,
    *,
    hand_id: str,
    hand_number: int,
    button: int,
    starting_stacks: Sequence[int],
    seat_map: Sequence[int],
    seats: int,
) -> pb.DealerMessage:
    """The HandStart for the seat whose view this is.

    ``button`` is the table seat on the button (it may be a seat not dealt in, R20);
    ``starting_stacks`` are the players' stacks before forced bets, by hand index.
    """
    return pb.DealerMessage(
        hand_start=pb.HandStart(
            hand_id=hand_id,
            hand_number=hand_number,
            button=button,
            hole_cards=cards_text(view.hole_cards),
            stacks=_by_table_seat(starting_stacks, seat_map, seats),
        )
    )


def decision(
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
) -> pb.DealerMessage:
    """The DecisionRequest for the seat to act (arguments as for :func:`decision_request`;
    ``history_wire``: the history serialised, see :func:`fill_decision_request`)."""
    message = pb.DealerMessage()
    fill_decision_request(
        message.decision,
        view,
        decision_id=decision_id,
        hand_id=hand_id,
        hand_number=hand_number,
        names=names,
        seat_map=seat_map,
        time_left_ms=time_left_ms,
        time_bank_ms=time_bank_ms,
        history=history,
        history_wire=history_wire,
    )
    return message


def fault(
    *,
    decision_id: str,
    reason: pb.FaultReason,
    detail: str,
    applied: pb.Action,
    faults_so_far: int,
    fault_limit: int,
    code: str = "",
) -> pb.DealerMessage:
    """A Fault: why the seat's answer was not played, and what was played instead.

    ``code`` is the engine's refusal reason (``amount_too_large``) for an illegal
    action, else empty; ``detail`` is cut to 500 characters.
    """
    return pb.DealerMessage(
        fault=pb.Fault(
            decision_id=decision_id,
            reason=reason,
            detail=detail[:500],
            applied=applied,
            faults_so_far=faults_so_far,
            fault_limit=fault_limit,
            code=code,
        )
    )


def hand_end(
    view: SeatView,
    *,
    hand_id: str,
    payoffs: Sequence[int],
    seat_map: Sequence[int],
    seats: int,
    history: Sequence[pb.PublicEvent] = (),
    history_wire: bytes | None = None,
) -> pb.DealerMessage:
    """The HandEnd every seat gets, from any seat's view of the finished hand.

    ``payoffs`` are by table seat; stacks come from the view, shown hands from its
    public :class:`~arena.engine.HandShown` events. The history is ``history``, or
    ``history_wire`` when given: the same serialised
    (:meth:`~arena.protocol.PublicHistory.hand_end_wire`), merged in with one parse
    instead of a copy of each event (issue 12 item 6).
    """
    shown = [
        pb.ShownHand(seat=seat_map[e.seat], cards=cards_text(e.cards), description=describe(e.rank))
        for e in view.events
        if isinstance(e, HandShown)
    ]
    message = pb.DealerMessage()
    end = message.hand_end  # filled in place: DealerMessage(hand_end=...) copies it whole
    end.SetInParent()
    end.hand_id = hand_id
    end.shown.extend(shown)
    end.payoffs.extend(payoffs)
    end.stacks.extend(_by_table_seat(view.stacks, seat_map, seats))
    if history_wire is None:
        end.history.extend(history)
    else:
        end.MergeFromString(history_wire)
    return message


def match_end(
    *, match_id: str, hands_played: int, chips_won: Sequence[int], reason: str
) -> pb.DealerMessage:
    """The MatchEnd: hands played, chips won by seat, and why the match ended."""
    return pb.DealerMessage(
        match_end=pb.MatchEnd(
            match_id=match_id,
            hands_played=hands_played,
            chips_won=list(chips_won),
            reason=reason,
        )
    )


# --- bot -> dealer ----------------------------------------------------------------


def hello(*, name: str, version: str, wants_hand_start: bool = False) -> pb.BotMessage:
    """A bot's Hello for this protocol version (the SDK's and the in-process seats')."""
    return pb.BotMessage(
        hello=pb.Hello(
            name=name,
            version=version,
            protocol_version=PROTOCOL_VERSION,
            wants_hand_start=wants_hand_start,
        )
    )


def answer(action: Action | pb.Action, decision_id: str) -> pb.BotMessage:
    """A bot's answer to ``decision_id``: an engine action, or an Action message (its
    ``decision_id`` filled in when left empty)."""
    if not isinstance(action, pb.Action):
        action = action_to_message(action, decision_id)
    elif not action.decision_id:
        action.decision_id = decision_id
    return pb.BotMessage(action=action)

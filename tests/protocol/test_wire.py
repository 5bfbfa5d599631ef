"""The wire both ways: seat views -> messages (history, decisions) -> seat views again."""

from __future__ import annotations

import random

import pytest

from arena import protocol
from arena.engine import (
    BetRaise,
    Deck,
    GameConfig,
    Hand,
    HoleCardsDealt,
    JokerMode,
    Phase,
    Structure,
)
from arena.protocol import pb, public_history, read_decision


def _request(view, seat_map=None) -> pb.DecisionRequest:
    names = [f"p{i}" for i in range(len(view.stacks))]
    return protocol.decision_request(
        view,
        decision_id="1.1",
        hand_id="h",
        hand_number=1,
        names=names,
        seat_map=seat_map,
        time_left_ms=1000,
        time_bank_ms=0,
    )


def _play(hand: Hand, rng: random.Random) -> None:
    legal = hand.legal_actions()
    if legal.phase is Phase.DRAW:
        holes = hand.view(hand.actor).hole_cards  # type: ignore[arg-type]
        hand.discard(rng.sample(holes, rng.randint(0, legal.max_discard)))
    elif legal.can_raise and rng.random() < 0.3:
        hand.apply(BetRaise(rng.randint(legal.min_raise_to, legal.max_raise_to)))
    else:
        hand.check_or_call()


def _decisions(hands: int, players: int, config: GameConfig):
    rng = random.Random(17)
    for number in range(hands):
        hand = Hand(config, [200] * players, number % players, Deck.shuffled(rng))
        while hand.actor is not None:
            yield hand
            _play(hand, rng)


@pytest.mark.parametrize(
    "config",
    [GameConfig(), GameConfig(structure=Structure.NO_LIMIT, joker=JokerMode.WILD, ante=1)],
)
def test_read_decision_gives_back_the_view_the_request_was_built_from(config) -> None:
    """read_decision(decision_request(view)) is the seat's view: cards, chips, draws, legal."""
    for hand in _decisions(20, 3, config):
        view = hand.view(hand.actor)  # type: ignore[arg-type]
        back = read_decision(pb.DecisionRequest.FromString(_request(view).SerializeToString()))
        for field in ("seat", "phase", "button", "hole_cards", "stacks", "bets", "committed"):
            assert getattr(view, field) == getattr(back, field), field
        for field in ("folded", "pot", "current_bet", "draw_counts", "legal", "to_act"):
            assert getattr(view, field) == getattr(back, field), field
        # the events read back are the public record the request carried
        assert public_history(view.events) == public_history(back.events)


def test_read_decision_is_in_table_seats() -> None:
    """With a seat map, per-seat facts sit at the table seat; seats not dealt in look folded."""
    hand = Hand(GameConfig(), [100, 150, 200], 0, Deck.shuffled(random.Random(3)))
    seat_map = [0, 2, 5]
    view = hand.view(hand.actor)  # type: ignore[arg-type]
    back = read_decision(_request(view, seat_map))
    assert seat_map[view.seat] == back.seat == back.legal.seat  # type: ignore[union-attr]
    assert 6 == len(back.stacks)
    assert all(back.folded[s] for s in (1, 3, 4))
    assert [view.stacks[i] for i in range(3)] == [back.stacks[s] for s in seat_map]
    assert {e.seat for e in back.events if hasattr(e, "seat")} <= {-1, *seat_map}


def test_history_is_the_same_for_every_seat_and_holds_no_dealt_or_drawn_card() -> None:
    """Built from any seat's view, the public history is one record with counts for cards."""
    for hand in _decisions(10, 4, GameConfig()):
        records = [public_history(hand.view(seat).events) for seat in range(4)]
        assert all(record == records[0] for record in records)
        assert all(not e.cards for e in records[0] if e.kind != pb.EVENT_KIND_SHOWN)
        dealt = [e for e in hand.events if isinstance(e, HoleCardsDealt)]
        assert len(dealt) == sum(1 for e in records[0] if e.kind == pb.EVENT_KIND_DEAL)


def test_every_public_event_round_trips_through_the_wire() -> None:
    """event_from_message(public_event(e)) converts back to the same message."""
    for hand in _decisions(10, 3, GameConfig(structure=Structure.POT_LIMIT)):
        for message in public_history(hand.view(0).events):
            event = protocol.event_from_message(message)
            assert event is not None
            assert message == protocol.public_event(event)


def test_fault_message_carries_the_engine_reason_code() -> None:
    """Fault.code holds the engine's refusal reason; detail is cut to 500 characters."""
    applied = pb.Action(decision_id="3.4", kind=pb.ACTION_KIND_FOLD)
    message = protocol.fault(
        decision_id="3.4",
        reason=pb.FAULT_REASON_ILLEGAL_ACTION,
        detail="x" * 900,
        applied=applied,
        faults_so_far=1,
        fault_limit=5,
        code="amount_too_large",
    )
    wire = pb.DealerMessage.FromString(message.SerializeToString())
    assert "amount_too_large" == wire.fault.code
    assert 500 == len(wire.fault.detail)
    assert applied == wire.fault.applied

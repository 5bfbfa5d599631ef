"""The dealer's fast way to build a DecisionRequest sends the same bytes (issue 12 item 6).

The dealer builds each request in place, from a view holding only the events since the
last request (``Hand.view(events_from=...)``) and the history kept serialised
(``PublicHistory.request_wire``). Whatever the hand, the bytes must be those of the
request built the plain way, from the seat's whole view.
"""

from __future__ import annotations

import random

import pytest

from arena import protocol
from arena.engine import Deck, GameConfig, Hand, Structure
from arena.policies import make_policy
from arena.protocol import PublicHistory, pb, public_history


@pytest.mark.parametrize("structure", list(Structure))
def test_fast_request_bytes_are_the_plain_ones(structure: Structure) -> None:
    """Random hands, 2 to 7 players, seats spread over a table of 7: equal bytes each decision."""
    checked = 0
    for seed in range(60):
        rng = random.Random(seed)
        players = rng.randint(2, 7)
        stacks = [rng.randint(1, 300) for _ in range(players)]
        deck = Deck.shuffled(rng, joker=False)
        hand = Hand(GameConfig(structure=structure), stacks, rng.randrange(players), deck)
        seat_map = sorted(rng.sample(range(7), players))
        policy = make_policy("random", seed)
        history = PublicHistory(seat_map)
        number = 0
        while hand.actor is not None:
            number += 1
            whole = hand.view(hand.actor)
            part = hand.view(hand.actor, events_from=history.done)
            history.extend(part.events)
            options = dict(
                decision_id=f"{seed}.{number}",
                hand_id=f"m/t/{seed}",
                hand_number=seed + 1,
                names=[f"bot-{i}" for i in range(players)],
                seat_map=seat_map,
                time_left_ms=1500,
                time_bank_ms=rng.randint(0, 9000),
            )
            plain = pb.DealerMessage(decision=protocol.decision_request(whole, **options))
            fast = protocol.decision(part, history_wire=history.request_wire(), **options)
            assert plain.SerializeToString() == fast.SerializeToString()
            assert public_history(whole.events, seat_map) == history.update(whole.events)
            checked += 1
            hand.apply(policy.decide(whole) if rng.random() < 0.7 else hand.default_action())
    assert checked > 100


@pytest.mark.parametrize("structure", list(Structure))
def test_fast_hand_end_bytes_are_the_plain_ones(structure: Structure) -> None:
    """The HandEnd built with the history kept serialised (``hand_end_wire``, issue 12
    item 6) has the bytes of the one built from the history's messages, whatever the hand."""
    for seed in range(60):
        rng = random.Random(seed)
        players = rng.randint(2, 7)
        stacks = [rng.randint(1, 300) for _ in range(players)]
        deck = Deck.shuffled(rng, joker=False)
        hand = Hand(GameConfig(structure=structure), stacks, rng.randrange(players), deck)
        seat_map = sorted(rng.sample(range(7), players))
        policy = make_policy("random", seed)
        history = PublicHistory(seat_map)
        while hand.actor is not None:
            history.extend(hand.view(hand.actor, events_from=history.done).events)
            if rng.random() < 0.5:
                history.request_wire()  # some events serialised before the hand ends
            whole = hand.view(hand.actor)
            hand.apply(policy.decide(whole) if rng.random() < 0.7 else hand.default_action())
        view = hand.view(0)
        options = dict(
            hand_id=f"m/t/{seed}",
            payoffs=[rng.randint(-50, 50) for _ in range(7)],
            seat_map=seat_map,
            seats=7,
        )
        plain = protocol.hand_end(view, history=public_history(view.events, seat_map), **options)
        fast = protocol.hand_end(view, history_wire=history.hand_end_wire(view.events), **options)
        assert plain.SerializeToString() == fast.SerializeToString()
        assert len(fast.hand_end.history) == len(public_history(view.events, seat_map))

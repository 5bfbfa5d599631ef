"""Helpers shared by the rule tests: stacked decks and scripted play."""

from __future__ import annotations

import random

from arena.engine import FULL_DECK, STAND_PAT, STANDARD_DECK, Deck, Phase, parse_cards


def stacked_deck(hands, button, stub="", *, joker=False, seed=0):
    """A deck that deals ``hands[seat]`` to each seat (R9), then ``stub``, then the rest."""
    n = len(hands)
    holes = [parse_cards(hand) for hand in hands]
    head = [holes[(button + 1 + k) % n][j] for j in range(5) for k in range(n)]
    head.extend(parse_cards(stub))
    assert len(set(head)) == len(head), "a card is stacked twice"
    rest = [card for card in (FULL_DECK if joker else STANDARD_DECK) if card not in set(head)]
    return Deck.stacked([*head, *rest], rng=random.Random(seed))


def play(hand, *actions):
    """Apply ``actions`` in turn; ``None`` stands for a whole draw of standing pat."""
    for action in actions:
        if action is None:
            while hand.phase is Phase.DRAW:
                hand.apply(STAND_PAT)
        else:
            hand.apply(action)

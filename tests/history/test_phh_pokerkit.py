"""PHH interchange with PokerKit 0.7: its hands replay in the arena, and ours in PokerKit.

PokerKit is told about the local codes F5D/P5D/N5D through a ``HandHistory``
subclass (see ``pokerkit_five_card_draw.py``). The hands keep to where the two
rule sets agree (see ``tests/engine/test_pokerkit_crosscheck.py``): deep stacks
and raises every live player can cover (no short all-in raises), at most four bets a
round counting the blind, no fold when checking is free, no deck exhaustion.
"""

from __future__ import annotations

import random
import warnings

import pytest

pytest.importorskip("pokerkit", reason="PokerKit 0.7 (the dev extra) is not installed")

from pokerkit_five_card_draw import (
    AUTOMATIONS,
    ArenaHandHistory,
    FixedLimitFiveCardDraw,
    NoLimitFiveCardDraw,
    PotLimitFiveCardDraw,
)

from arena.engine import STANDARD_DECK, Deck, GameConfig, Hand, Phase, Structure
from arena.history import dumps_phh, hand_to_phh, load_phh, replay

HANDS = 120


def _pokerkit_game(structure: Structure, ante: int):
    if structure is Structure.FIXED_LIMIT:
        return FixedLimitFiveCardDraw(AUTOMATIONS, True, ante, (1, 2), 2, 4)
    game = PotLimitFiveCardDraw if structure is Structure.POT_LIMIT else NoLimitFiveCardDraw
    return game(AUTOMATIONS, True, ante, (1, 2), 2)


def _play_pokerkit(structure: Structure, rng: random.Random):
    """A random PokerKit hand of Five Card Draw, dealt from a shuffled deck we hold."""
    n = rng.randint(2, 7)
    game = _pokerkit_game(structure, rng.choice((0, 1)))
    state = game([rng.randint(150, 600) for _ in range(n)], n)
    deck = [str(card) for card in STANDARD_DECK]
    rng.shuffle(deck)
    discards: dict[int, int] = {}
    raises_this_street = 0
    street = state.street_index
    while state.status:
        if state.street_index != street:
            street, raises_this_street = state.street_index, 0
        if state.can_deal_hole():
            who = state.hole_dealee_index
            count = discards.pop(who, 5)
            state.deal_hole("".join(deck.pop() for _ in range(count)))
        elif state.stand_patter_or_discarder_index is not None:
            who = state.stand_patter_or_discarder_index
            spare = len(deck) - 2 - sum(discards.values())
            count = min(rng.randint(0, 5), max(spare, 0))
            cards = rng.sample(list(state.hole_cards[who]), count)
            discards[who] = count
            state.stand_pat_or_discard(cards)
        elif state.actor_index is not None:
            who = state.actor_index
            cap = 3 if street == 0 else 4  # R12: the big blind is the first bet
            live = [i for i in range(n) if state.statuses[i]]
            coverable = min(state.stacks[i] + state.bets[i] for i in live)
            roll = rng.random()
            low = state.min_completion_betting_or_raising_to_amount
            if state.checking_or_calling_amount and roll < 0.2:
                state.fold()
            elif (
                roll < 0.5
                and raises_this_street < cap
                and state.can_complete_bet_or_raise_to()
                and low < coverable
            ):
                high = min(state.max_completion_betting_or_raising_to_amount, coverable - 1)
                state.complete_bet_or_raise_to(rng.randint(low, max(low, min(high, 3 * low))))
                raises_this_street += 1
            else:
                state.check_or_call()
        elif state.showdown_index is not None:
            state.show_or_muck_hole_cards(True if rng.random() < 0.5 else None)
        else:
            break
    return game, state


@pytest.mark.parametrize("structure", list(Structure), ids=lambda s: s.value)
def test_pokerkit_written_hands_replay_in_the_arena(structure: Structure) -> None:
    """A hand PokerKit writes with our code replays through the engine to PokerKit's stacks."""
    rng = random.Random(f"pokerkit-{structure.value}")
    for _ in range(HANDS):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            game, state = _play_pokerkit(structure, rng)
            text = ArenaHandHistory.from_game_state(game, state).dumps()
        [record] = load_phh(text, source="pokerkit.phh")
        assert replay(record).stacks == list(state.stacks), text


def _play_arena(structure: Structure, rng: random.Random) -> Hand:
    n = rng.randint(2, 7)
    config = GameConfig(structure=structure, big_blind=2, ante=rng.choice((0, 1)))
    hand = Hand(
        config, [rng.randint(150, 600) for _ in range(n)], rng.randrange(n), Deck.shuffled(rng)
    )
    while not hand.is_over:
        legal = hand.legal_actions()
        if legal.phase is Phase.DRAW:
            spare = len(hand.deck) - 2
            hole = hand.holes[legal.seat]
            hand.discard(rng.sample(hole, min(rng.randint(0, 5), spare)))
            continue
        live = [s for s in range(n) if not hand.folded[s]]
        coverable = min(hand.stacks[s] + hand.bets[s] for s in live)
        roll = rng.random()
        if legal.can_fold and roll < 0.2:
            hand.fold()
        elif legal.can_raise and roll < 0.5 and legal.min_raise_to < coverable:
            high = min(legal.max_raise_to, coverable - 1, 3 * legal.min_raise_to)
            hand.bet_or_raise(rng.randint(legal.min_raise_to, max(legal.min_raise_to, high)))
        else:
            hand.check_or_call()
    return hand


@pytest.mark.parametrize("structure", list(Structure), ids=lambda s: s.value)
def test_arena_written_hands_replay_in_pokerkit(structure: Structure) -> None:
    """A hand the arena writes replays in PokerKit (told our codes) to the same stacks."""
    rng = random.Random(f"arena-{structure.value}")
    for _ in range(HANDS):
        hand = _play_arena(structure, rng)
        text = dumps_phh(hand_to_phh(hand))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            history = ArenaHandHistory.loads(text)
            *_, state = history
        assert list(state.stacks) == history.finishing_stacks, text

"""PHH interchange with PokerKit 0.7: its hands replay in the arena, and ours in PokerKit.

PokerKit is told about the local codes F5D/P5D/N5D through a ``HandHistory``
subclass, shipped as :mod:`arena.history.pokerkit`. The hands keep to where the two
rule sets agree (see ``tests/engine/test_pokerkit_crosscheck.py``): deep stacks
and raises every live player can cover (no short all-in raises), at most four bets a
round counting the blind, no fold when checking is free, no deck exhaustion.
"""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
import warnings

import pytest

pytest.importorskip("pokerkit", reason="PokerKit 0.7 (the dev extra) is not installed")

from arena.engine import STANDARD_DECK, Deck, GameConfig, Hand, Phase, Structure
from arena.history import dumps_phh, dumps_phhs, hand_to_phh, load_phh, player_order, replay
from arena.history.pokerkit import (
    AUTOMATIONS,
    ArenaHandHistory,
    FixedLimitFiveCardDraw,
    NoLimitFiveCardDraw,
    PotLimitFiveCardDraw,
)
from arena.history.pokerkit import loads as pokerkit_loads

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


# --- the shipped registration: arena.history.pokerkit ----------------------------------


def test_pokerkit_is_imported_only_by_the_pokerkit_module() -> None:
    """``import arena.history`` (and the CLI) never loads PokerKit: it is not a runtime dependency."""
    code = "import sys, arena.history, arena.cli; print('pokerkit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_pokerkit_missing_is_one_clear_import_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without PokerKit, importing the module says what to install."""
    monkeypatch.setitem(sys.modules, "pokerkit", None)
    monkeypatch.delitem(sys.modules, "arena.history.pokerkit", raising=False)
    with pytest.raises(ImportError, match=r"pip install 'pokerkit>=0\.7,<0\.8'"):
        importlib.import_module("arena.history.pokerkit")


def test_pokerkit_loads_reads_one_hand_and_a_session() -> None:
    """``loads`` takes a ``.phh`` hand or a ``.phhs`` file, as ``load_phh`` does."""
    rng = random.Random(5)
    hands = [_play_arena(structure, rng) for structure in Structure]
    [one] = pokerkit_loads(dumps_phh(hand_to_phh(hands[0])))
    session = pokerkit_loads(dumps_phhs(hand_to_phh(hand) for hand in hands))
    assert [h.variant for h in session] == ["F5D", "P5D", "N5D"]
    for history, hand in zip([one, *session], [hands[0], *hands], strict=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            *_, state = history
        assert list(state.stacks) == [
            hand.stacks[seat] for seat in player_order(hand.n, hand.button)
        ]


def test_r12_pokerkit_fixed_limit_caps_at_four_bets_counting_the_blind() -> None:
    """Before the draw the big blind is the first of four bets (R12): PokerKit allows three raises."""
    state = FixedLimitFiveCardDraw(AUTOMATIONS, True, 0, (1, 2), 2, 4)([100] * 3, 3)
    deck = [str(card) for card in STANDARD_DECK]
    while state.can_deal_hole():
        state.deal_hole("".join(deck.pop() for _ in range(5)))
    for _ in range(3):
        state.complete_bet_or_raise_to()
    assert max(state.bets) == 8  # the blind 2, then raises to 4, 6 and 8: four bets
    assert not state.can_complete_bet_or_raise_to()
    hand = Hand(GameConfig(), [100] * 3, 2, Deck.stacked(STANDARD_DECK))
    for _ in range(3):
        hand.bet_or_raise(hand.legal_actions().min_raise_to)
    assert not hand.legal_actions().can_raise


def test_r2_pokerkit_cannot_read_a_hand_in_which_the_joker_is_dealt() -> None:
    """PokerKit has no joker: every wild-joker hand that deals ``Jk`` fails to load, the rest agree.

    Prints the figure for ``docs/phh.md`` (200 seeded heads-up hands, random legal play).
    """
    rng = random.Random("joker")
    dealt = failed = 0
    for _ in range(200):
        config = GameConfig(structure=rng.choice(list(Structure)), joker="wild")
        hand = Hand(
            config,
            [rng.randint(20, 600) for _ in range(2)],
            rng.randrange(2),
            Deck.shuffled(rng, joker=True),
        )
        while not hand.is_over:
            legal = hand.legal_actions()
            if legal.phase is Phase.DRAW:
                hand.discard(rng.sample(hand.holes[legal.seat], rng.randint(0, 3)))
            elif legal.can_raise and rng.random() < 0.3:
                hand.bet_or_raise(rng.randint(legal.min_raise_to, legal.max_raise_to))
            elif legal.can_fold and rng.random() < 0.2:
                hand.fold()
            else:
                hand.check_or_call()
        text = dumps_phh(hand_to_phh(hand))
        has_joker = "Jk" in text
        dealt += has_joker
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                history = ArenaHandHistory.loads(text)
                *_, state = history
        except ValueError:
            failed += 1
            assert has_joker, text
            continue
        assert not has_joker, text
        assert list(state.stacks) == history.finishing_stacks, text
    print(f"PokerKit fails on {failed} of 200 wild-joker heads-up hands: those dealing the joker")
    assert failed == dealt > 0

"""arena.rl without gym (issue 13 item 1): the observation, the mask and the action map.

These need no extra: the session (:class:`DrawGame`) and the spaces are plain NumPy over
the engine, which judges every action.
"""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

from arena.engine import (
    BetRaise,
    Deck,
    Discard,
    GameConfig,
    Hand,
    IllegalActionError,
    Phase,
    parse_cards,
)
from arena.history import load_phh, player_order, replay
from arena.rl import (
    DISCARD_BASE,
    N_ACTIONS,
    OBS_SIZE,
    DrawGame,
    discard_action,
    sorted_cards,
    to_engine,
)
from arena.rl._game import session_name
from arena.rl._spaces import History, encode


def play_random(game: DrawGame, rng: random.Random) -> list[int]:
    """Play the current hand out with random legal actions (from the mask); the actions."""
    actions = []
    while not game.hand.is_over:
        seat = game.actor_seat()
        legal = np.flatnonzero(game.mask(seat))
        action = int(rng.choice(list(legal)))
        game.step(action)
        actions.append(action)
    return actions


def test_importing_arena_imports_no_gym():
    """`import arena`, `arena.engine` and even `arena.rl` leave gymnasium and pettingzoo unloaded."""
    code = (
        "import sys, arena, arena.engine, arena.rl\n"
        "bad = [m for m in ('gymnasium', 'pettingzoo', 'rlcard') if m in sys.modules]\n"
        "print(bad)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_missing_extra_is_one_clear_error(monkeypatch):
    """Without gymnasium or pettingzoo the environments say which extra to install."""
    import arena.rl

    monkeypatch.setitem(sys.modules, "pettingzoo", None)
    monkeypatch.delitem(sys.modules, "arena.rl._aec", raising=False)
    monkeypatch.delitem(sys.modules, "arena.rl._gym", raising=False)
    monkeypatch.delattr(arena.rl, "_aec", raising=False)
    monkeypatch.delattr(arena.rl, "_gym", raising=False)
    with pytest.raises(arena.rl.MissingExtraError, match=r"arena\[rl\]"):
        arena.rl.env()


@pytest.mark.parametrize("players", range(2, 8))
def test_r1_every_table_size_plays_random_legal_hands(players):
    """2 to 7 players: every masked action is accepted by the engine and every hand ends (R1)."""
    rng = random.Random(players)
    game = DrawGame(players, structure="no_limit")
    game.reset(seed=players)
    for _ in range(30):
        play_random(game, rng)
        assert sum(game.hand.payoffs or ()) == 0  # R26
        game.reset()


def test_r12_fixed_limit_has_one_raise_size():
    """In fixed limit only the first raise action is ever open, at the fixed amount (R12)."""
    game = DrawGame(2)
    game.reset(seed=3)
    seat = game.actor_seat()
    mask = game.mask(seat)
    assert list(mask[:6]) == [1, 1, 1, 0, 0, 0]
    action = to_engine(2, game.view(seat))
    legal = game.hand.legal_actions()
    assert action == BetRaise(legal.min_raise_to) == BetRaise(legal.max_raise_to)


def test_r12_no_limit_raise_sizes_are_legal_and_distinct():
    """Min, half pot, pot, all-in: each open size maps to a distinct amount the engine accepts."""
    rng = random.Random(5)
    for seed in range(40):
        game = DrawGame(3, structure="no_limit")
        game.reset(seed=seed)
        while not game.hand.is_over:
            seat = game.actor_seat()
            mask = game.mask(seat)
            view = game.view(seat)
            amounts = [to_engine(k, view).amount for k in range(2, 6) if mask[k]]
            assert len(set(amounts)) == len(amounts)
            for amount in amounts:
                assert game.hand.can_apply(BetRaise(amount))
            game.step(int(rng.choice(list(np.flatnonzero(mask)))))


def test_r15_discard_actions_follow_max_draw():
    """The draw's mask opens exactly the discards of at most ``max_draw`` cards (R15)."""
    game = DrawGame(2, max_draw=3)
    game.reset(seed=1)
    while game.hand.phase is not Phase.DRAW:
        game.step(1)
    seat = game.actor_seat()
    mask = game.mask(seat)
    assert not mask[:DISCARD_BASE].any()
    expected = [int(m.bit_count() <= 3) for m in range(32)]
    assert list(mask[DISCARD_BASE:]) == expected
    with pytest.raises(ValueError, match="at most 3"):
        to_engine(DISCARD_BASE + 0b1111, game.view(seat))
    cards = game.view(seat).hole_cards
    throw = sorted_cards(cards)[:2]
    assert to_engine(discard_action(cards, throw), game.view(seat)) == Discard(tuple(throw))


def test_masked_actions_are_refused_before_the_engine():
    """A masked index is a ValueError and changes nothing; an index out of range too."""
    game = DrawGame(2)
    game.reset(seed=2)
    before = list(game.hand.events)
    for index in (DISCARD_BASE, 4, N_ACTIONS, -1):
        with pytest.raises(ValueError):
            game.step(index)
    assert game.hand.events == before


def test_r16_observation_holds_own_cards_and_public_facts_only():
    """Changing another seat's hidden cards leaves this seat's observation unchanged (R16)."""
    config = GameConfig()
    mine = parse_cards("AsKsQsJs9h")
    deals = []
    for theirs in ("2c3d4h5s7c", "AhAdAcKdKh"):
        # heads-up with the button on seat 0, seat 1 is dealt first, one card at a time (R9)
        pairs = zip(mine, parse_cards(theirs), strict=True)
        deck = [card for pair in pairs for card in pair]
        rest = [c for c in Deck.shuffled(random.Random(1)).deal(52) if c not in deck]
        hand = Hand(config, [100, 100], 0, Deck.stacked([*deck, *rest]))
        deals.append(hand)
        assert sorted(hand.holes[1]) == sorted(mine)
    first, second = (encode(hand, 1, History(2), 200, None) for hand in deals)
    assert first.shape == (OBS_SIZE,) and first.dtype == np.float32
    assert np.array_equal(first, second)
    assert 0.0 <= first.min() and first.max() <= 1.0


def test_r4_a_seed_replays_the_same_session():
    """Same seed, same deals and observations; hand k has its own id (R4)."""
    runs = []
    for _ in range(2):
        game = DrawGame(3, structure="pot_limit", joker="wild")
        game.reset(seed=99)
        rng = random.Random(0)
        record = []
        for _ in range(5):
            record.append((game.info()["hand_id"], game.observe(game.actor_seat()).tobytes()))
            play_random(game, rng)
            record.append(tuple(game.hand.payoffs or ()))
            game.reset()
        runs.append(record)
    assert runs[0] == runs[1]
    name = session_name(99)  # a digest of the seed, never the seed (issue 13 audit)
    assert runs[0][0][0] == f"{name}/1" and runs[0][2][0] == f"{name}/2"


def test_r9_a_finished_hand_replays_from_its_phh():
    """`phh()` names the hand as `info` does and replays through the engine to its stacks."""
    game = DrawGame(4, structure="no_limit")
    game.reset(seed=7)
    play_random(game, random.Random(7))
    phh = load_phh(game.phh())[0]
    assert phh.fields["hand"] == game.info()["hand"]
    assert phh.fields["table"] == game.info()["table"]
    replayed = replay(phh)  # checks the file's finishing_stacks too
    order = player_order(game.hand.n, game.hand.button)
    assert list(replayed.stacks) == [game.hand.stacks[seat] for seat in order]


def test_r28_a_dead_jackpots_pot_carries_to_the_next_hand():
    """Nobody opens: the antes stay in for the next deal, which the observation shows (R28)."""
    game = DrawGame(2, forced_bets="antes", ante=1, opening="jacks_or_better")
    game.reset(seed=0)
    for _ in range(200):
        while not game.hand.is_over:
            game.step(1)  # check or call: nobody ever opens
        if game.hand.dead:
            break
        game.reset()
    assert game.hand.dead
    carried = game.hand.carried_out
    game.reset()
    assert game.hand.carried_pot == carried > 0
    assert game.observe(game.actor_seat())[-2 * 7 * 3 - 1] > 0  # the carried share


def test_r24_default_action_is_the_engines():
    """`apply_default` plays R23/R24's fallback; an illegal engine action is refused."""
    game = DrawGame(2)
    game.reset(seed=4)
    with pytest.raises(IllegalActionError):
        game.apply(BetRaise(10**6))
    game.apply_default()
    assert game.hand.is_over or game.hand.actor is not None

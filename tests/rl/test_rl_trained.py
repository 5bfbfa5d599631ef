"""From a trained agent to a bot (issue 13 item 3): train briefly, save, load, answer through the SDK.

The strength claim (beating the calling station with a 95% interval above zero) is shown
by ``scripts/play_trained.py``, not asserted here: this test trains for a few hundred hands.
"""

from __future__ import annotations

import importlib
import random
import sys
from pathlib import Path

import numpy as np
import pytest

try:
    import gymnasium  # noqa: F401
except ModuleNotFoundError as error:
    pytest.skip(
        f"the rl extra is not installed ({error.name}): pip install -e '.[rl]'",
        allow_module_level=True,
    )

from arena import protocol
from arena.engine import Deck, GameConfig, Hand, Structure
from arena.protocol import pb

TRAINED = Path(__file__).resolve().parents[2] / "examples_bots" / "trained"


@pytest.fixture(scope="module")
def trained():
    """The example's modules (policy, train, bot), imported from their folder."""
    sys.path.insert(0, str(TRAINED))
    try:
        yield tuple(importlib.import_module(name) for name in ("policy", "train", "bot"))
    finally:
        sys.path.remove(str(TRAINED))
        for name in ("policy", "train", "bot"):
            sys.modules.pop(name, None)


def ask(bot, hand: Hand, number: int) -> pb.BotMessage | None:
    """Send the bot the dealer's DecisionRequest for the seat to act."""
    seat = hand.actor
    assert seat is not None
    message = protocol.decision(
        hand.view(seat),
        decision_id=f"d{number}",
        hand_id="h",
        hand_number=1,
        names=[f"p{i}" for i in range(hand.n)],
        time_left_ms=1000,
        time_bank_ms=0,
    )
    return bot.handle(message)


@pytest.mark.parametrize("structure", list(Structure))
def test_r24_trained_bot_saved_and_loaded_answers_legally(trained, tmp_path, structure):
    """A few hundred hands of training, saved and loaded: every SDK answer is legal (R24)."""
    _, train, bot = trained
    table = train.train(300, seed=3, settings={"structure": structure})
    path = tmp_path / "table.npz"
    table.save(path)
    player = bot.TrainedBot.load(path)
    assert (player.policy.values == table.values).all()
    assert player.handle(protocol.match_start(
        match_id="m", table_id="t", seat=0, names=["a", "b", "c"],
        config=GameConfig(structure=structure), action_timeout=1.0, time_bank=0.0,
        hands=1, starting_stack=200,
    )).WhichOneof("kind") == "hello"  # fmt: skip
    rng = random.Random(4)
    asked = 0
    for deal in range(20):
        hand = Hand(GameConfig(structure=structure), [200] * 3, deal % 3, Deck.shuffled(rng))
        while not hand.is_over:
            reply = ask(player, hand, asked)
            asked += 1
            assert reply is not None and reply.WhichOneof("kind") == "action"
            action = protocol.action_from_message(reply.action, f"d{asked - 1}")
            hand.apply(action)  # IllegalActionError would fail the test
    assert asked > 40


def test_a_table_of_another_layout_is_refused(trained, tmp_path):
    """Loading a file that is not this policy's table is one ValueError naming the file."""
    policy, _, _ = trained
    path = tmp_path / "other.npz"
    np.savez(path, values=np.zeros((3, 3)), counts=np.zeros((3, 3)), format=policy.FORMAT)
    with pytest.raises(ValueError, match=r"other\.npz"):
        policy.TablePolicy.load(path)

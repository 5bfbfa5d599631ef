"""The PettingZoo and Gymnasium environments pass their libraries' own checks (issue 13 item 1).

Skipped, saying why, without the ``rl`` extra (``pip install -e '.[rl]'``).
"""

from __future__ import annotations

import importlib.util
import random
import warnings
from pathlib import Path

import numpy as np
import pytest

try:
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # pettingzoo.test's own imports
        from pettingzoo.test import api_test
except ModuleNotFoundError as error:
    pytest.skip(
        f"the rl extra is not installed ({error.name}): pip install -e '.[rl]'",
        allow_module_level=True,
    )

import arena.rl
from arena.engine import BetRaise, Phase
from arena.policies import PolicyBot, RuleBased
from arena.rl import DISCARD_BASE
from arena.rl._game import session_name
from arena.sdk import Bot

EXAMPLES = Path(__file__).resolve().parents[2] / "examples_bots"

VARIANTS = [
    {},
    {"structure": "pot_limit"},
    {"structure": "no_limit"},
    {"structure": "no_limit", "joker": "wild", "max_draw": 3},
    {"joker": "bug", "showdown_reveal": "muck"},
    {"forced_bets": "antes", "ante": 1, "opening": "jacks_or_better"},
    {"forced_bets": "antes", "ante": 2, "structure": "pot_limit"},
    {"uncapped_heads_up": True, "small_blind": 1, "big_blind": 4},
]


def calling_station_bot() -> Bot:
    spec = importlib.util.spec_from_file_location("cs_example", EXAMPLES / "calling_station.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CallingStation()


@pytest.mark.parametrize("players", range(2, 8))
def test_r1_pettingzoo_api_test_passes_for_every_table_size(players):
    """pettingzoo.test.api_test on 2..7 players (R1), fixed limit and no limit."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice to use a Box rather than a Dict space
        api_test(arena.rl.env(players=players), num_cycles=300)
        api_test(arena.rl.raw_env(players=players, structure="no_limit"), num_cycles=300)


@pytest.mark.parametrize(
    "settings", VARIANTS, ids=lambda s: ",".join(map(str, s.values())) or "default"
)
def test_r12_r28_pettingzoo_api_test_passes_in_every_structure_and_variant(settings):
    """Every structure (R12), the joker (R2), antes (R27), Jackpots (R28), max_draw (R15)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(arena.rl.env(players=3, **settings), num_cycles=300)


@pytest.mark.parametrize(
    "opponents",
    [
        ["calling-station"],
        ["random", "rule-based"],
        [RuleBased(), "monte-carlo"],
        [PolicyBot("seated", RuleBased())],
        "sdk-bot",
    ],
    ids=["builtin", "two-builtins", "policy-object", "policy-bot", "sdk-bot"],
)
def test_gymnasium_check_env_passes(opponents):
    """gymnasium's check_env with built-in names, policy objects, a PolicyBot and an SDK Bot."""
    if opponents == "sdk-bot":
        opponents = [calling_station_bot(), "random"]
    env = arena.rl.gym_env(opponents, structure="no_limit")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no spec: it cannot test other render modes
        check_env(env, skip_render_check=True)


def play_gym(env, seed: int, hands: int) -> list[tuple[str, float]]:
    """Random legal play; (hand id, reward) per hand."""
    rng = random.Random(seed)
    obs, info = env.reset(seed=seed)
    out = []
    for _ in range(hands):
        done = False
        while not done:
            action = int(rng.choice(list(np.flatnonzero(obs["action_mask"]))))
            obs, reward, done, truncated, info = env.step(action)
            assert not truncated
        out.append((info["hand_id"], reward))
        obs, info = env.reset()
    return out


def test_r4_gym_env_is_reproducible_from_a_seed():
    """Same seed, same hands, same opponents' play, same rewards (R4); hands named for replay."""
    first = play_gym(arena.rl.gym_env(["random", "rule-based"]), 11, 30)
    second = play_gym(arena.rl.gym_env(["random", "rule-based"]), 11, 30)
    assert first == second
    assert first[0][0].startswith(f"{session_name(11)}/")  # named by a digest, not the seed


def test_r26_gym_rewards_are_the_engines_payoffs():
    """The reward is the learner's payoff in big blinds; payoffs sum to zero (R26)."""
    env = arena.rl.gym_env(["calling-station"], structure="no_limit", big_blind=4)
    obs, info = env.reset(seed=3)
    rng = random.Random(3)
    for _ in range(20):
        done = False
        while not done:
            action = int(rng.choice(list(np.flatnonzero(obs["action_mask"]))))
            obs, reward, done, _, info = env.step(action)
        assert sum(info["payoffs"]) == 0
        assert reward == info["payoffs"][0] / 4
        obs, info = env.reset()


class Cheater(Bot):
    """Answers every decision with a raise far beyond any stack."""

    name = "cheater"

    def decide(self, decision):
        return BetRaise(10**9) if not decision.is_draw else decision.discard(["As"] * 5)


def test_r24_an_sdk_bot_answer_that_is_illegal_gets_the_default():
    """An opponent bot's illegal answer is played as the dealer plays it: check or fold (R24)."""
    env = arena.rl.gym_env([Cheater()])
    env.reset(seed=5)
    for _ in range(20):
        done = False
        while not done:
            _, _, done, _, _ = env.step(1)  # check or call
        assert not any(
            type(event).__name__ == "BetOrRaised" and event.seat == 1
            for event in env.game.hand.events
        )
        env.reset()


def test_gym_masked_action_is_played_as_the_default_and_flagged():
    """A masked action in the gym env plays R24's default and says so in `info`."""
    env = arena.rl.gym_env(["calling-station"])
    obs, _ = env.reset(seed=1)
    assert not obs["action_mask"][DISCARD_BASE]
    _, _, _, _, info = env.step(DISCARD_BASE)
    assert info["illegal_action"] is True


def test_aec_masked_action_ends_the_hand_or_raises():
    """env(): a masked action ends the hand with -1 for that agent; raw_env(): ValueError."""
    env = arena.rl.env()
    env.reset(seed=2)
    agent = env.agent_selection
    env.step(DISCARD_BASE)
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1
    raw = arena.rl.raw_env()
    raw.reset(seed=2)
    with pytest.raises(ValueError):
        raw.step(DISCARD_BASE)
    with pytest.raises(RuntimeError, match="reset"):
        arena.rl.env().step(1)


def test_views_and_info_name_the_hand():
    """`view()` is the engine's own seat view; `infos` and `phh()` name the same hand."""
    env = arena.rl.env(players=3)
    env.reset(seed=8)
    agent = env.agent_selection
    view = env.view(agent)
    assert view.legal is not None and view.phase is Phase.PREDRAW_BETTING
    info = env.infos[agent]
    assert info["hand_id"] == f"{session_name(8)}/{info['hand']}"
    assert f'table = "{info["table"]}"' in env.phh()


def test_r2_builtin_monte_carlo_is_told_the_joker_and_max_draw():
    """A built-in named in gym_env learns the table's joker (R2) and draw limit (R15)."""
    env = arena.rl.gym_env(["monte-carlo"], joker="wild", max_draw=3)
    policy = env.opponents[1].policy
    assert (str(policy.joker), policy.max_draw) == ("wild", 3)
    play_gym(env, seed=2, hands=3)

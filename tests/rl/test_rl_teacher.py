"""issue 21 item 7: the ``arena.rl`` defects a teacher hit.

- ``ACTION_NAMES`` labels the draws ``discard 10000`` (card 0 of ``sorted_cards`` first),
  not the reversed string ``10000 dracsid``.
- An unknown keyword names the public function and the keywords it takes, never an
  internal class; ``max_cycles`` (PettingZoo's usual keyword) truncates a hand in ``env``.
- ``render_mode="human"`` shows what is public, plus the learner's own cards in
  ``gym_env``: never another seat's hidden cards.
- ``gymnasium.make("arena/FiveCardDraw-v0")`` works once ``arena.rl`` is imported, in
  either import order, with its keywords passed through.

Skipped, saying why, without the ``rl`` extra (``pip install -e '.[rl]'``).
"""

from __future__ import annotations

import random
import subprocess
import sys
import warnings

import numpy as np
import pytest

try:
    import gymnasium
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
from arena.rl import ACTION_NAMES, DISCARD_BASE, N_ACTIONS, discard_action, sorted_cards

GYM_ID = "arena/FiveCardDraw-v0"


class TestActionNames:
    """issue 21 item 7: the labels of the 38 actions read as words."""

    def test_the_whole_table(self):
        """Every label, the 32 draws as ``discard`` and one digit per card, card 0 first."""
        draws = ["stand pat"] + [
            "discard " + "".join("1" if m >> i & 1 else "0" for i in range(5)) for m in range(1, 32)
        ]
        expected = [
            "fold",
            "check/call",
            "raise min",
            "raise half pot",
            "raise pot",
            "raise max",
            *draws,
        ]
        assert list(ACTION_NAMES) == expected
        assert len(ACTION_NAMES) == N_ACTIONS == len(set(ACTION_NAMES))
        assert ACTION_NAMES[DISCARD_BASE + 1] == "discard 10000"  # the first card alone
        assert ACTION_NAMES[DISCARD_BASE + 0b10110] == "discard 01101"

    def test_a_label_marks_the_cards_discard_action_throws(self):
        """The i-th digit of a label is card i of ``sorted_cards``: as ``discard_action`` reads it."""
        game = arena.rl.DrawGame(2)
        game.reset(5)
        cards = sorted_cards(game.hand.holes[0])
        rng = random.Random(5)
        for _ in range(20):
            thrown = rng.sample(cards, rng.randint(1, 5))
            digits = ACTION_NAMES[discard_action(cards, thrown)].removeprefix("discard ")
            assert [card for card, d in zip(cards, digits, strict=True) if d == "1"] == [
                c for c in cards if c in thrown
            ]


class TestKeywords:
    """issue 21 item 7: a keyword no environment takes is named with the ones they take."""

    @pytest.mark.parametrize("make", ["env", "raw_env", "gym_env"])
    def test_an_unknown_keyword_names_the_function_and_the_keywords(self, make):
        """``TypeError`` naming ``arena.rl.<make>()``, the keyword and the accepted ones."""
        with pytest.raises(TypeError) as raised:
            getattr(arena.rl, make)(colour="red")
        text = str(raised.value)
        assert f"arena.rl.{make}()" in text
        assert "'colour'" in text
        for key in ("render_mode", "stack", "structure", "big_blind", "joker", "max_draw"):
            assert key in text
        assert "GameConfig.__init__" not in text

    def test_a_misspelt_keyword_gets_a_suggestion(self):
        """``big_blinds`` is answered with "did you mean 'big_blind'"."""
        with pytest.raises(TypeError, match=r"did you mean 'big_blind'"):
            arena.rl.env(big_blinds=4)

    def test_gym_env_refuses_max_cycles_pointing_at_gymnasiums_time_limit(self):
        """``max_cycles`` is PettingZoo's; a Gymnasium episode is bounded by ``max_episode_steps``."""
        with pytest.raises(TypeError, match=r"arena\.rl\.gym_env\(\).*max_episode_steps"):
            arena.rl.gym_env(max_cycles=10)

    @pytest.mark.parametrize("bad", [0, -1, True, 2.5, "10"])
    def test_a_bad_max_cycles_is_refused(self, bad):
        """``max_cycles`` is a whole number of steps from 1, or ``None``."""
        with pytest.raises((TypeError, ValueError), match="max_cycles"):
            arena.rl.env(max_cycles=bad)


class TestMaxCycles:
    """issue 21 item 7: ``env(max_cycles=N)`` truncates a hand after N agents' steps."""

    def test_a_hand_is_truncated_after_n_steps(self):
        """Two steps (the small blind calls, the big blind checks): every agent truncated, reward 0."""
        env = arena.rl.env(max_cycles=2)
        env.reset(seed=3)
        env.step(1)
        assert not any(env.truncations.values())
        env.step(1)
        assert not env.game.hand.is_over
        assert all(env.truncations.values())
        assert not any(env.terminations.values())
        seen = []
        for agent in env.agent_iter():
            _, reward, terminated, truncated, _ = env.last()
            assert truncated and not terminated and reward == 0.0
            seen.append(agent)
            env.step(None)
        assert sorted(seen) == env.possible_agents
        env.reset()  # the next hand is dealt, with its own count
        env.step(1)
        assert not any(env.truncations.values())

    def test_api_test_passes_with_max_cycles(self):
        """pettingzoo.test.api_test with a bound that cuts most hands short."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            api_test(arena.rl.env(players=3, max_cycles=3), num_cycles=300)

    def test_a_hand_that_ends_first_is_terminated_not_truncated(self):
        """A fold on the first step ends the hand: terminated, paid, not truncated."""
        env = arena.rl.env(max_cycles=1)
        env.reset(seed=3)
        env.step(0)
        assert all(env.terminations.values()) and not any(env.truncations.values())


def leaked(text: str, env, *, own: int | None = None) -> set[str]:
    """The hole cards of seats other than ``own`` that have not shown them, found in
    ``text`` (the hand's id, a hex digest that may hold ``4c``, taken out first)."""
    text = text.replace(env.game.info()["hand_id"], "")
    hand = env.game.hand
    return {
        str(card)
        for seat, cards in enumerate(hand.holes)
        if seat != own and seat not in hand.shown
        for card in cards
        if str(card) in text
    }


class TestHumanRender:
    """issue 21 item 7: a human render shows no seat's hidden cards."""

    def test_aec_human_render_prints_only_public_state(self, capsys):
        """Every step of random play prints the table with no hole card in it."""
        env = arena.rl.env(players=3, render_mode="human")
        env.reset(seed=9)
        rng = random.Random(9)
        everything = ""
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            legal = np.flatnonzero(obs["action_mask"])
            env.step(None if terminated or truncated else int(rng.choice(list(legal))))
            printed = capsys.readouterr().out
            assert leaked(printed, env) == set(), agent
            everything += printed
        assert env.game.info()["hand_id"] in everything
        assert "pot" in everything and "player_2" in everything

    def test_ansi_render_is_the_same_public_text(self):
        """``render_mode="ansi"`` returns the text ``human`` prints: no hidden cards."""
        env = arena.rl.env(players=2, render_mode="ansi")
        env.reset(seed=9)
        text = env.render()
        assert leaked(text, env) == set()

    def test_gym_human_render_shows_the_learners_cards_only(self, capsys):
        """The learner's five cards are printed; the opponents' are not."""
        env = arena.rl.gym_env(["calling-station", "random"], seat=1, render_mode="human")
        obs, _ = env.reset(seed=4)
        printed = capsys.readouterr().out
        assert all(str(c) in printed.split() for c in env.game.hand.holes[1])
        assert leaked(printed, env, own=1) == set()
        done = False
        while not done:
            action = int(np.flatnonzero(obs["action_mask"])[-1])
            obs, _, done, _, _ = env.step(action)
            assert leaked(capsys.readouterr().out, env, own=1) == set()
        assert env.render() is None


class TestGymnasiumId:
    """issue 21 item 7: ``gymnasium.make("arena/FiveCardDraw-v0")``."""

    def test_make_passes_keywords_through_and_passes_check_env(self):
        """The id makes a ``gym_env`` with the given opponents and settings."""
        env = gymnasium.make(GYM_ID, opponents=["random", "rule-based"], structure="no_limit")
        game = env.unwrapped.game
        assert game.players == 3 and game.config.structure.value == "no_limit"
        assert env.spec is not None and env.spec.id == GYM_ID
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check_env(env.unwrapped, skip_render_check=True)
        obs, info = env.reset(seed=2)
        assert env.observation_space.contains(obs) and "hand_id" in info

    def test_make_refuses_an_unknown_keyword_clearly(self):
        """The creator's ``TypeError`` names ``arena.rl.gym_env()`` and the keywords."""
        with pytest.raises(TypeError, match=r"arena\.rl\.gym_env\(\).*'colour'"):
            gymnasium.make(GYM_ID, colour="red")

    @pytest.mark.parametrize(
        "imports",
        ["import arena.rl, gymnasium", "import gymnasium, arena.rl", "import gymnasium, arena"],
    )
    def test_registered_in_either_import_order(self, imports):
        """Registered when ``arena.rl`` is imported, before or after gymnasium; a bare
        ``import arena`` registers nothing (and ``arena.rl`` still loads no gymnasium)."""
        code = (
            f"{imports}\n"
            f"print({GYM_ID!r} in gymnasium.registry)\n"
            "if 'arena.rl' in __import__('sys').modules:\n"
            f"    env = gymnasium.make({GYM_ID!r}, opponents=['random'])\n"
            "    env.reset(seed=1)\n"
        )
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
        )
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == str("arena.rl" in imports)

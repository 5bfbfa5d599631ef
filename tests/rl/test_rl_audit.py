"""issue 13 audit (item 1, the environments): what is an action, and what ``info`` tells an agent.

- A value that is not an action index (not an integer, or not in 0..37) is refused at once
  with a ``TypeError`` or ``ValueError`` naming it and the range, before anything is played,
  in every environment; the environment stays usable. A whole float (2.0) is refused too:
  ``Discrete(38)`` holds integers only, and 2.9 was silently played as 2.
- ``info`` never holds the session seed (it fixes every future deck): the hand is named by
  a digest of the seed, and the seed is the trainer's, on ``env.game.seed``.

Skipped, saying why, without the ``rl`` extra (``pip install -e '.[rl]'``).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

try:
    import gymnasium  # noqa: F401  # only to skip without the extra
    import pettingzoo  # noqa: F401
except ModuleNotFoundError as error:
    pytest.skip(
        f"the rl extra is not installed ({error.name}): pip install -e '.[rl]'",
        allow_module_level=True,
    )

import arena.rl
from arena.rl import N_ACTIONS, DrawGame, to_engine
from arena.sdk import Bot

SEED = 918_273_645_546_372_819  # long enough that its digits appear nowhere by chance

NOT_INTEGERS: list[Any] = [
    float("inf"),
    float("-inf"),
    float("nan"),
    None,
    "1",
    "fold",
    b"\x01",
    2.9,
    np.float32(2.9),
    np.float64(1.0),
    1.0,
    True,
    np.bool_(True),
    np.array([1]),
    np.array([[1, 2]]),
    np.array(1.0),
    [1],
    object(),
    1 + 0j,
]
OUT_OF_RANGE: list[Any] = [-1, N_ACTIONS, np.int64(N_ACTIONS), np.int8(-1), 2**70, np.array(99)]
INTEGERS: list[Any] = [1, np.int64(1), np.uint8(1), np.int32(1), np.array(1)]


def ids(values: list[Any]) -> list[str]:
    return [f"{type(v).__name__}:{str(v)[:12]}" for v in values]


def aec_state(env) -> tuple:
    """What an agent can see of an AEC environment, to compare before and after a refusal."""
    agent = env.agent_selection
    obs = env.observe(agent)
    return (
        agent,
        obs["observation"].tobytes(),
        obs["action_mask"].tobytes(),
        dict(env.terminations),
        dict(env.rewards),
        len(env.game.hand.events),
    )


def gym_state(env, obs) -> tuple:
    return (obs["observation"].tobytes(), env.action_masks().tobytes(), len(env.game.hand.events))


def expected_error(action: Any) -> type[Exception]:
    return ValueError if any(action is v for v in OUT_OF_RANGE) else TypeError


def assert_names_action_and_range(error: pytest.ExceptionInfo, action: Any) -> None:
    text = str(error.value)
    assert f"0..{N_ACTIONS - 1}" in text
    assert type(action).__name__ in text or repr(action)[:8] in text
    assert "unchanged" in text


@pytest.mark.parametrize("make", [arena.rl.env, arena.rl.raw_env], ids=["env", "raw_env"])
@pytest.mark.parametrize(
    "action", NOT_INTEGERS + OUT_OF_RANGE, ids=ids(NOT_INTEGERS + OUT_OF_RANGE)
)
def test_aec_refuses_a_non_index_at_once_and_stays_usable(make, action):
    """issue 13 audit: env() and raw_env() raise TypeError/ValueError naming the action and
    0..37 (as PettingZoo's AssertOutOfBoundsWrapper refuses it), play nothing, end nothing."""
    env = make()
    env.reset(seed=4)
    before = aec_state(env)
    with pytest.raises(expected_error(action)) as error:
        env.step(action)
    assert_names_action_and_range(error, action)
    assert aec_state(env) == before
    env.step(1)  # still usable: check or call
    assert len(env.game.hand.events) > before[-1]


@pytest.mark.parametrize(
    "action", NOT_INTEGERS + OUT_OF_RANGE, ids=ids(NOT_INTEGERS + OUT_OF_RANGE)
)
def test_gym_refuses_a_non_index_at_once_and_stays_usable(action):
    """issue 13 audit: the gym env raises the same errors; it does not play the default for them."""
    env = arena.rl.gym_env(["calling-station"])
    obs, _ = env.reset(seed=4)
    before = gym_state(env, obs)
    with pytest.raises(expected_error(action)) as error:
        env.step(action)
    assert_names_action_and_range(error, action)
    assert gym_state(env, obs) == before
    _, _, _, _, info = env.step(1)
    assert info["illegal_action"] is False


@pytest.mark.parametrize(
    "action", NOT_INTEGERS + OUT_OF_RANGE, ids=ids(NOT_INTEGERS + OUT_OF_RANGE)
)
def test_game_and_to_engine_refuse_a_non_index(action):
    """issue 13 audit: DrawGame.step and arena.rl.to_engine refuse the same values the same way."""
    game = DrawGame(2)
    game.reset(4)
    events = len(game.hand.events)
    with pytest.raises(expected_error(action)) as error:
        game.step(action)
    assert_names_action_and_range(error, action)
    assert len(game.hand.events) == events
    with pytest.raises(expected_error(action)) as error:
        to_engine(action, game.view(game.actor_seat()))
    assert_names_action_and_range(error, action)


def test_a_fractional_float_is_never_played_as_another_action():
    """issue 13 audit: np.float32(2.9) was truncated to 2 (raise min) and played."""
    for make in (arena.rl.env, arena.rl.raw_env):
        env = make()
        env.reset(seed=4)
        events = len(env.game.hand.events)
        with pytest.raises(TypeError, match=r"2\.9"):
            env.step(np.float32(2.9))
        assert len(env.game.hand.events) == events
    gym = arena.rl.gym_env(["calling-station"])
    gym.reset(seed=4)
    with pytest.raises(TypeError, match=r"2\.9"):
        gym.step(2.9)


@pytest.mark.parametrize("action", INTEGERS, ids=ids(INTEGERS))
def test_integer_kinds_are_the_same_action(action):
    """issue 13 audit: a Python int, a NumPy integer and a 0-d integer array are one action,
    as in gymnasium's Discrete.contains."""
    plain, other = arena.rl.raw_env(), arena.rl.raw_env()
    plain.reset(seed=6)
    other.reset(seed=6)
    plain.step(1)
    other.step(action)
    assert aec_state(plain) == aec_state(other)
    gym = arena.rl.gym_env(["calling-station"])
    gym.reset(seed=6)
    gym.step(action)
    assert gym.action_space.contains(action)


def test_masked_index_keeps_each_envs_illegal_handling():
    """issue 13 audit: an index in range that the mask rules out is still the env's illegal
    action: env() ends the hand (-1), raw_env() raises ValueError, gym_env plays R24's default."""
    env = arena.rl.env()
    env.reset(seed=2)
    agent = env.agent_selection
    env.step(N_ACTIONS - 1)  # a discard during the betting
    assert all(env.terminations.values()) and env.rewards[agent] == -1
    raw = arena.rl.raw_env()
    raw.reset(seed=2)
    with pytest.raises(ValueError, match="betting round"):
        raw.step(N_ACTIONS - 1)
    gym = arena.rl.gym_env(["calling-station"])
    gym.reset(seed=2)
    assert gym.step(N_ACTIONS - 1)[4]["illegal_action"] is True


def strings_in(value: Any) -> list[str]:
    """Every str/int reachable in an info dict, as text."""
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (str(k), *strings_in(v))]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in strings_in(v)]
    return [str(value)]


def assert_no_seed(info: dict[str, Any], seed: int) -> None:
    leaked = [s for s in strings_in(info) if str(seed) in s or s == str(seed)]
    assert not leaked, f"the session seed is in info: {leaked}"
    assert "seed" not in info


def test_aec_info_never_holds_the_session_seed():
    """issue 13 audit: every info an AEC agent reads (reset, last() each step, the end) is free
    of the session seed; the trainer still has it, and the hand id is the same for the same seed."""
    env = arena.rl.env(players=3)
    env.reset(seed=SEED)
    rng = random.Random(1)
    seen = []
    for _ in range(3):
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            assert_no_seed(info, SEED)
            seen.append(info["hand_id"])
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            env.step(None if terminated or truncated else rng.choice(legal))
        for info in env.infos.values():
            assert_no_seed(info, SEED)
        assert str(SEED) not in env.phh()
        env.reset()
    assert env.game.seed == SEED
    again = arena.rl.env(players=3)
    again.reset(seed=SEED)
    assert again.infos["player_0"]["hand_id"] == seen[0]
    other = arena.rl.env(players=3)
    other.reset(seed=SEED + 1)
    assert other.infos["player_0"]["table"] != again.infos["player_0"]["table"]


class Recorder(Bot):
    """An opponent that keeps every message the environment sends it."""

    name = "recorder"

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def handle(self, message):
        self.messages.append(str(message))
        return super().handle(message)

    def on_hand_start(self, message):
        """Overridden, so the Hello asks for HandStart messages too."""

    def decide(self, decision):
        return decision.check_or_call() if not decision.is_draw else decision.stand_pat()


def test_gym_info_and_opponent_messages_never_hold_the_session_seed():
    """issue 13 audit: the learner's info (reset and every step) and an opponent bot's messages
    (MatchStart, HandStart, decisions, HandEnd) never carry the session seed."""
    recorder = Recorder()
    env = arena.rl.gym_env([recorder, "random"])
    obs, info = env.reset(seed=SEED)
    assert_no_seed(info, SEED)
    rng = random.Random(2)
    for _ in range(5):
        done = False
        while not done:
            action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
            obs, _, done, _, info = env.step(action)
            assert_no_seed(info, SEED)
        obs, info = env.reset()
        assert_no_seed(info, SEED)
    assert recorder.messages
    assert not [m for m in recorder.messages if str(SEED) in m]
    assert env.game.seed == SEED


def test_same_seed_same_hand_ids_and_phh_names_the_hand():
    """issue 13 audit: the digest names the session reproducibly; PHH's table is info's."""
    first, second = DrawGame(2), DrawGame(2)
    first.reset(SEED)
    second.reset(SEED)
    assert first.info() == second.info()
    assert first.info()["hand_id"] == f"{first.info()['table']}/1"
    assert f'table = "{first.info()["table"]}"' in first.phh()
    unseeded = DrawGame(2)
    assert str(unseeded.seed) not in str(unseeded.info())


@pytest.mark.parametrize("seed", [2.5, 7.0, True, "7"], ids=str)
def test_a_seed_that_is_no_integer_is_refused_not_truncated(seed):
    """issue 13 audit: reset(seed=2.5) played session 2; a seed is an integer or refused."""
    env = arena.rl.raw_env()
    with pytest.raises(TypeError):
        env.reset(seed=seed)
    with pytest.raises(TypeError):
        DrawGame(2).reset(seed)

"""The PettingZoo AEC environment: every seat an agent, one hand per episode.

Imported only when :func:`arena.rl.env` or :func:`arena.rl.raw_env` is called (it needs
the ``rl`` extra). Agents are ``player_0`` .. ``player_{n-1}``, the engine's seats; the
button moves one seat each hand, so an agent plays every position. ``infos`` are
:meth:`DrawGame.info` per agent (the hand's id, number and table, never the seed), plus
``payoffs`` at the end of the hand and, when :func:`env` ends it for an illegal action,
``illegal_action`` (the offender).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces  # type: ignore[import-not-found, unused-ignore]  # the rl extra may be absent
from pettingzoo import AECEnv  # type: ignore[import-untyped, import-not-found, unused-ignore]  # untyped; the rl extra may be absent

from arena.engine import SeatView
from arena.rl._game import DrawGame, check_keywords
from arena.rl._render import table_text
from arena.rl._spaces import N_ACTIONS, OBS_SIZE, action_index


def observation_space() -> spaces.Dict:
    """The observation every agent gets: the vector and the action mask."""
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, shape=(OBS_SIZE,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(N_ACTIONS,), dtype=np.int8),
        }
    )


class DrawPokerEnv(AECEnv):  # type: ignore[misc, unused-ignore]  # AECEnv is Any without the extra
    """Five Card Draw for 2-7 agents over the rules engine (see :mod:`arena.rl`)."""

    metadata: dict[str, Any] = {  # noqa: RUF012  # pettingzoo reads it as a class attribute
        "name": "arena_five_card_draw_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 2,
        render_mode: str | None = None,
        *,
        illegal: str = "raise",
        max_cycles: int | None = None,
        **settings: Any,
    ) -> None:
        super().__init__()
        if illegal not in ("raise", "terminate"):
            raise ValueError(f"illegal must be 'raise' or 'terminate', got {illegal!r}")
        function = "arena.rl.env" if illegal == "terminate" else "arena.rl.raw_env"
        check_keywords(function, settings, ("players", "render_mode", "max_cycles"))
        self.max_cycles = _max_cycles(max_cycles)
        self._steps = 0  # the actions played in this hand, for max_cycles
        self._terminate_illegal = illegal == "terminate"
        self._ready = False
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.game = DrawGame(players, **settings)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat = {name: i for i, name in enumerate(self.possible_agents)}
        self.observation_spaces = {name: observation_space() for name in self.possible_agents}
        self.action_spaces = {name: spaces.Discrete(N_ACTIONS) for name in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal the next hand (a seed starts the session again: same seed, same hands)."""
        game = self.game
        game.reset(seed)
        agents = self.possible_agents
        self.agents = agents[:]
        self.rewards = dict.fromkeys(agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(agents, 0.0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        info = game.info()
        self.infos = {name: dict(info) for name in agents}
        self.agent_selection = agents[game.actor_seat()]
        self._steps = 0
        self._ready = True

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._ready:
            raise RuntimeError("call reset() before observe()")
        seat = self._seat[agent]
        game = self.game
        return {"observation": game.observe(seat), "action_mask": game.mask(seat)}

    def step(self, action: int | None) -> None:
        """Play ``action`` for the agent to act: an index the mask allows (a masked one:
        ``ValueError``, or with ``illegal="terminate"`` the hand ends and that agent gets -1).

        A value that is no index 0..37 (``None`` for a live agent, a float, a string, -1,
        38, ...) raises ``TypeError`` / ``ValueError`` before anything changes, in either
        mode (:func:`arena.rl._spaces.action_index`).
        """
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        index = action_index(action)
        game = self.game
        try:
            game.step(index)
        except ValueError:
            if not self._terminate_illegal:
                raise
            self._end_illegal(agent)
            return
        self._cumulative_rewards[agent] = 0.0
        self._steps += 1
        hand = game.hand
        if not hand.is_over and self.max_cycles is not None and self._steps >= self.max_cycles:
            self._truncate()
        elif hand.is_over:
            self.rewards = dict(zip(self.possible_agents, game.rewards(), strict=True))
            self.terminations = dict.fromkeys(self.agents, True)
            payoffs = list(hand.payoffs or ())
            for info in self.infos.values():
                info["payoffs"] = payoffs
            self._accumulate_rewards()
            self._deads_step_first()
        else:
            self.agent_selection = self.possible_agents[hand.actor]  # type: ignore[index]  # a hand not over has an actor
        if self.render_mode == "human":
            self.render()

    def _truncate(self) -> None:
        """``max_cycles`` steps played and the hand not over: every agent is truncated with
        reward 0 (the hand is abandoned, nobody is paid); ``reset()`` deals the next one."""
        self.truncations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self._deads_step_first()

    def _end_illegal(self, agent: str) -> None:
        """As PettingZoo's ``TerminateIllegalWrapper``: the hand stops, the offender gets -1."""
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {name: -1.0 if name == agent else 0.0 for name in self.agents}
        self.terminations = dict.fromkeys(self.agents, True)
        for info in self.infos.values():
            info["illegal_action"] = agent
        self._accumulate_rewards()
        self._deads_step_first()

    def view(self, agent: str, *, history: bool = True) -> SeatView:
        """The engine's own view of ``agent``'s seat (``hand.view()``), for agents that want it."""
        return self.game.view(self._seat[agent], history=history)

    def phh(self) -> str:
        """The hand as PHH text, named ``table`` and ``hand`` as in ``infos`` (for replay)."""
        return self.game.phh()

    def render(self) -> str | None:
        """The public table (``human``: printed; ``ansi``: returned): pot, stacks, bets,
        folds, draw counts and cards shown at the showdown, never a hole card (every
        agent's screen). The whole hand, for debugging, is ``phh()``."""
        text = table_text(self.game, self.possible_agents)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def _max_cycles(value: object) -> int | None:
    """``max_cycles`` checked: ``None`` (no bound) or a whole number of steps from 1."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"max_cycles must be a whole number of steps or None, got {value!r}")
    if value < 1:
        raise ValueError(f"max_cycles must be at least 1 step, got {value!r}")
    return value


def raw_env(players: int = 2, render_mode: str | None = None, **settings: Any) -> DrawPokerEnv:
    return DrawPokerEnv(players, render_mode, **settings)


def env(players: int = 2, render_mode: str | None = None, **settings: Any) -> DrawPokerEnv:
    """The environment with the checks of PettingZoo's classic-game wrappers built in: a
    masked action ends the hand with -1 for that agent (as ``TerminateIllegalWrapper``), a
    value that is no action index 0..37 raises at once and changes nothing (as
    ``AssertOutOfBoundsWrapper``, with ``TypeError`` / ``ValueError`` naming it), and
    stepping before ``reset`` fails (as ``OrderEnforcingWrapper``). Built in rather than wrapped: three wrapper layers cost
    more per step than the engine (``scripts/bench_rl.py``)."""
    return DrawPokerEnv(players, render_mode, illegal="terminate", **settings)

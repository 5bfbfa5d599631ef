"""The single-agent Gymnasium environment: one learner, the other seats played for it.

Imported only when :func:`arena.rl.gym_env` is called (the ``rl`` extra). An episode is
one hand in which the learner has a decision; hands in which it has none (everyone
folded to its big blind) are played and skipped, and ``info["skipped"]`` counts them.
``info`` is :meth:`DrawGame.info` (the hand's id, number and table, never the seed), plus
``skipped``, ``illegal_action`` after a step and ``payoffs`` at the end of the hand.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium  # type: ignore[import-not-found, unused-ignore]  # the rl extra may be absent
import numpy as np
from gymnasium import spaces  # type: ignore[import-not-found, unused-ignore]  # the rl extra may be absent

from arena.engine import IllegalActionError, SeatView
from arena.rl._aec import observation_space
from arena.rl._game import DrawGame, check_keywords
from arena.rl._render import table_text
from arena.rl._seats import Seat, seat_for
from arena.rl._spaces import N_ACTIONS, action_index


class DrawPokerGym(gymnasium.Env):  # type: ignore[misc, unused-ignore]  # Env is Any without the extra
    """The learner in seat ``seat`` against ``opponents`` (one per other seat)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012  # a class attribute in gymnasium

    def __init__(
        self,
        opponents: Sequence[Any] | str = ("calling-station",),
        *,
        seat: int = 0,
        render_mode: str | None = None,
        **settings: Any,
    ) -> None:
        if isinstance(opponents, str) or not isinstance(opponents, Sequence):
            opponents = [opponents]
        hint = ""
        if "max_cycles" in settings:
            hint = (
                " (PettingZoo's bound, for arena.rl.env(); a Gymnasium episode is bounded by "
                "gymnasium.make(..., max_episode_steps=N) or gymnasium.wrappers.TimeLimit)"
            )
        check_keywords("arena.rl.gym_env", settings, ("opponents", "seat", "render_mode"), hint)
        players = len(opponents) + 1
        if not 0 <= seat < players:
            raise ValueError(f"seat must be 0 to {players - 1}, got {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.game = DrawGame(players, **settings)
        self.seat = seat
        others = [s for s in range(players) if s != seat]
        self.opponents: dict[int, Seat] = {
            s: seat_for(opponent, self.game.config)
            for s, opponent in zip(others, opponents, strict=True)
        }
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(N_ACTIONS)
        self._started = False
        self._skipped = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        game = self.game
        if seed is not None or not self._started:
            session = seed if seed is not None else int(self.np_random.integers(1 << 62))
            game.reset(session)
            for s, opponent in self.opponents.items():
                opponent.start(game, s, random.Random(f"{session}:seat:{s}").getrandbits(63))
            self._started = True
        else:
            game.reset()
        self._skipped = 0
        while True:
            for s, opponent in self.opponents.items():
                opponent.hand_started(game, s)
            self._play_others()
            if not game.hand.is_over:
                if self.render_mode == "human":
                    self.render()
                return self._observe(), self._info()
            self._skipped += 1
            self._hand_over()
            game.reset()

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Play ``action``; one the mask rules out is played as the dealer would (R23/R24)
        and ``info["illegal_action"]`` says so. A value that is no index 0..37 (a float, a
        string, ``None``, -1, 38, ...) is no poker decision but a bug: ``TypeError`` /
        ``ValueError`` naming it, before anything is played."""
        game = self.game
        if game.hand.is_over or game.hand.actor != self.seat:
            raise RuntimeError("the hand is over: call reset()")
        index = action_index(action)
        illegal = False
        try:
            game.step(index)
        except (ValueError, IllegalActionError):
            illegal = True
            game.apply_default()
        self._play_others()
        info = self._info()
        info["illegal_action"] = illegal
        if self.render_mode == "human":
            self.render()
        if not game.hand.is_over:
            return self._observe(), 0.0, False, False, info
        self._hand_over()
        info["payoffs"] = list(game.hand.payoffs or ())
        return self._observe(), game.rewards()[self.seat], True, False, info

    def _play_others(self) -> None:
        game = self.game
        hand = game.hand
        while (seat := hand.actor) is not None and seat != self.seat:
            action = self.opponents[seat].decide(game, seat)
            if action is None or not hand.can_apply(action):
                game.apply_default()
            else:
                game.apply(action)

    def _hand_over(self) -> None:
        for s, opponent in self.opponents.items():
            opponent.hand_over(self.game, s)

    def _observe(self) -> dict[str, np.ndarray]:
        return {"observation": self.game.observe(self.seat), "action_mask": self.action_masks()}

    def _info(self) -> dict[str, Any]:
        info = self.game.info()
        info["skipped"] = self._skipped
        return info

    def action_masks(self) -> np.ndarray:
        """The action mask (the name sb3-contrib's MaskablePPO asks for)."""
        return self.game.mask(self.seat)

    def view(self, *, history: bool = True) -> SeatView:
        """The engine's own view of the learner's seat (``hand.view()``)."""
        return self.game.view(self.seat, history=history)

    def phh(self) -> str:
        """The hand as PHH text, named ``table`` and ``hand`` as in ``info`` (for replay)."""
        return self.game.phh()

    def render(self) -> str | None:
        """The table as the learner sees it: the public state and its own cards, never an
        opponent's hidden ones (``ansi``: returned; ``human``: printed, as ``reset`` and
        ``step`` do by themselves). The whole hand, for debugging, is ``phh()``."""
        names = [
            f"seat {s}" + (" (you)" if s == self.seat else "") for s in range(self.game.players)
        ]
        text = table_text(self.game, names, own=self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text


def gym_env(
    opponents: Sequence[Any] | str = ("calling-station",),
    *,
    seat: int = 0,
    render_mode: str | None = None,
    **settings: Any,
) -> DrawPokerGym:
    return DrawPokerGym(opponents, seat=seat, render_mode=render_mode, **settings)

"""The environments' front doors: Gymnasium and PettingZoo are imported here, when called."""

from __future__ import annotations

from typing import Any

EXTRA_HINT = "arena.rl needs the rl extra: pip install 'arena[rl]' (gymnasium, pettingzoo)"


class MissingExtraError(ImportError):
    """Gymnasium or PettingZoo is not installed; the message says how to install them."""


def _needs_extra(error: ModuleNotFoundError) -> MissingExtraError:
    return MissingExtraError(f"{EXTRA_HINT}; missing: {error.name}")


def env(players: int = 2, render_mode: str | None = None, **settings: Any) -> Any:
    """The PettingZoo AEC environment; a masked action ends the hand with -1 for that agent
    (a value that is no action index 0..37 raises ``TypeError`` / ``ValueError``)."""
    try:
        from arena.rl import _aec
    except ModuleNotFoundError as error:
        raise _needs_extra(error) from None
    return _aec.env(players, render_mode, **settings)


def raw_env(players: int = 2, render_mode: str | None = None, **settings: Any) -> Any:
    """The AEC environment without wrappers (a masked action raises ``ValueError``, a value
    that is no action index 0..37 ``TypeError`` / ``ValueError``)."""
    try:
        from arena.rl import _aec
    except ModuleNotFoundError as error:
        raise _needs_extra(error) from None
    return _aec.raw_env(players, render_mode, **settings)


def gym_env(opponents: Any = ("calling-station",), *, seat: int = 0, **settings: Any) -> Any:
    """The single-agent Gymnasium environment: the learner in ``seat``, one opponent per other seat."""
    try:
        from arena.rl import _gym
    except ModuleNotFoundError as error:
        raise _needs_extra(error) from None
    return _gym.gym_env(opponents, seat=seat, **settings)

"""Learning environments over the rules engine (layer 4, beside the dealer; no network).

- :func:`env` / :func:`raw_env`: a PettingZoo AEC environment for 2-7 players in every
  structure and variant (``arena.rl.env(players=3, structure="no_limit", joker="wild")``:
  the keys of :class:`~arena.engine.GameConfig`, plus ``stack``).
- :func:`gym_env`: a single-agent Gymnasium environment whose other seats are played by
  built-in policies (by name), policy objects or any SDK ``Bot``.

Both share :class:`DrawGame` (the session of hands), the observation of
:data:`OBS_SIZE` floats and the :data:`N_ACTIONS` discrete actions (see
:mod:`arena.rl._spaces`). Gymnasium and PettingZoo (the ``rl`` extra) are imported only
when an environment is made, so ``import arena.rl`` works without them.
"""

from arena.rl._game import DrawGame as DrawGame
from arena.rl._make import EXTRA_HINT as EXTRA_HINT
from arena.rl._make import MissingExtraError as MissingExtraError
from arena.rl._make import env as env
from arena.rl._make import gym_env as gym_env
from arena.rl._make import raw_env as raw_env
from arena.rl._spaces import ACTION_NAMES as ACTION_NAMES
from arena.rl._spaces import DISCARD_BASE as DISCARD_BASE
from arena.rl._spaces import N_ACTIONS as N_ACTIONS
from arena.rl._spaces import OBS_SIZE as OBS_SIZE
from arena.rl._spaces import discard_action as discard_action
from arena.rl._spaces import sorted_cards as sorted_cards
from arena.rl._spaces import to_engine as to_engine

__all__ = [
    "ACTION_NAMES",
    "DISCARD_BASE",
    "EXTRA_HINT",
    "N_ACTIONS",
    "OBS_SIZE",
    "DrawGame",
    "MissingExtraError",
    "discard_action",
    "env",
    "gym_env",
    "raw_env",
    "sorted_cards",
    "to_engine",
]

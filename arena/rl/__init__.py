"""Learning environments over the rules engine (beside the dealer; no network).

- :func:`env` / :func:`raw_env`: a PettingZoo AEC environment for 2-7 players in every
  structure and variant (``arena.rl.env(players=3, structure="no_limit", joker="wild")``:
  the keys of :class:`~arena.engine.GameConfig`, plus ``stack``).
- :func:`gym_env`: a single-agent Gymnasium environment whose other seats are played by
  built-in policies (by name), policy objects or any SDK ``Bot``.

Both share :class:`DrawGame` (the session of hands), the observation of
:data:`OBS_SIZE` floats and the :data:`N_ACTIONS` discrete actions (see
:mod:`arena.rl._spaces`). Gymnasium and PettingZoo (the ``rl`` extra) are imported only
when an environment is made, so ``import arena.rl`` works without them.

Actions. ``step`` takes a member of ``Discrete(38)``: an integer 0..37 (``int``, a NumPy
integer, a 0-d integer array). Anything else is a bug in the agent's code, not a poker
decision, and every environment refuses it the same way, at once and before anything
changes (the environment stays usable): ``TypeError`` for a value that is no integer
(``None`` for an agent to act, a string, ``True``, any float, even ``2.0``, ``inf``,
``nan``, an array of another shape), ``ValueError`` for an integer out of range (-1, 38),
each naming the value and 0..37. PettingZoo's classic games refuse it likewise (their
``AssertOutOfBoundsWrapper``); floats are refused, not rounded, since ``int(2.9)`` is
another action. An index in range that the mask rules out is the environment's illegal
action: :func:`env` ends the hand with -1 for that agent (as ``TerminateIllegalWrapper``),
:func:`raw_env` raises ``ValueError``, :func:`gym_env` plays R24's default and sets
``info["illegal_action"]``.

``info``, what every agent reads: ``hand_id`` (``TABLE/NUMBER``), ``hand`` (its number in
the session) and ``table`` (``rl-`` and a digest of the session seed), as in the hand's
PHH; at the end of the hand ``payoffs`` (chips per seat); :func:`env` adds
``illegal_action`` (the offender) and :func:`gym_env` ``illegal_action`` (bool) and
``skipped`` (hands it had no decision in). Never the session seed: it fixes every future
deck. The trainer has it on ``env.game.seed`` (set by ``reset(seed=...)``, else drawn from
the CSPRNG) and replays a finished hand from ``env.phh()`` (every card, for ``arena
replay``) or by playing the session again from the seed (same seed, same hands). A small chosen seed (``seed=7``) can be guessed
from the cards an agent is dealt by one that knows how decks are drawn: leave it unset
or draw a large one when the agent must not predict the cards.

Gymnasium id. ``import arena.rl`` registers ``arena/FiveCardDraw-v0`` (at once if
gymnasium is loaded, else as gymnasium's import finishes; :mod:`arena.rl._register`):
``gymnasium.make("arena/FiveCardDraw-v0", opponents=["random"], structure="no_limit")``
passes its keywords to :func:`gym_env`, ``max_episode_steps=N`` adds Gymnasium's
``TimeLimit``. :func:`env` takes PettingZoo's ``max_cycles=N``: a hand not over after N
agents' steps is truncated (every agent, reward 0). An unknown keyword is a ``TypeError``
naming the function and every keyword it takes.

Rendering. ``render_mode="human"`` prints (``"ansi"`` returns) the public table: pot,
stacks, bets, folds, draw counts, cards shown at the showdown; :func:`gym_env` adds the
learner's own cards (in :func:`sorted_cards` order). Never another seat's hidden cards.

It may import ``engine``, ``history``, ``policies``, ``protocol``; never the dealer.
"""

from arena.rl import _register
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

_register.install()  # gymnasium.make("arena/FiveCardDraw-v0"), gymnasium not imported here

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

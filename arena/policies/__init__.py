"""Ready-made in-process policies (demo players, benchmark drivers, example bot brains).

A policy decides from an engine :class:`~arena.engine.SeatView` alone; over the wire
that view comes from :func:`arena.protocol.read_decision`. :class:`PolicyBot` seats a
policy in process (the ``builtin:`` bots). Imports the protocol and the engine only.

It may import ``engine``, ``protocol``; never the dealer.
"""

from arena.policies._basic import CallingStation as CallingStation
from arena.policies._basic import Policy as Policy
from arena.policies._basic import RandomPolicy as RandomPolicy
from arena.policies._basic import RuleBased as RuleBased
from arena.policies._basic import sensible_discards as sensible_discards
from arena.policies._montecarlo import MonteCarloPolicy as MonteCarloPolicy
from arena.policies._seat import BUILT_IN as BUILT_IN
from arena.policies._seat import PolicyBot as PolicyBot
from arena.policies._seat import make_policy as make_policy

__all__ = [
    "BUILT_IN",
    "CallingStation",
    "MonteCarloPolicy",
    "Policy",
    "PolicyBot",
    "RandomPolicy",
    "RuleBased",
    "make_policy",
    "sensible_discards",
]

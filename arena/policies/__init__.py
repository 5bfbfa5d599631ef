"""Ready-made in-process policies (demo players, benchmark drivers, example bot brains)."""

from arena.policies._basic import CallingStation as CallingStation
from arena.policies._basic import Policy as Policy
from arena.policies._basic import RandomPolicy as RandomPolicy
from arena.policies._basic import RuleBased as RuleBased
from arena.policies._basic import sensible_discards as sensible_discards
from arena.policies._montecarlo import MonteCarloPolicy as MonteCarloPolicy

BUILT_IN = {
    "random": RandomPolicy,
    "calling-station": CallingStation,
    "rule-based": RuleBased,
    "monte-carlo": MonteCarloPolicy,
}
"""Policy name -> class, as the CLI spells them."""

__all__ = [
    "BUILT_IN",
    "CallingStation",
    "MonteCarloPolicy",
    "Policy",
    "RandomPolicy",
    "RuleBased",
    "sensible_discards",
]

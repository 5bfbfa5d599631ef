"""Ready-made in-process policies (demo players, benchmark drivers, example bot brains)."""

from arena.policies._basic import CallingStation as CallingStation
from arena.policies._basic import Policy as Policy
from arena.policies._basic import RandomPolicy as RandomPolicy
from arena.policies._basic import RuleBased as RuleBased
from arena.policies._basic import sensible_discards as sensible_discards

BUILT_IN = {"random": RandomPolicy, "calling-station": CallingStation, "rule-based": RuleBased}
"""Policy name -> class, as the CLI spells them."""

__all__ = ["BUILT_IN", "CallingStation", "Policy", "RandomPolicy", "RuleBased", "sensible_discards"]

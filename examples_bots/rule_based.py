"""A rule-based opponent: bets made hands, calls with a pair, folds junk to a bet.

Before the draw it raises with Jacks or better and two pair or better, calls with any
pair or four to a flush, and folds the rest facing a bet unless the pot lays 4 to 1.
At the draw it keeps pairs, trips and four-flushes and stands pat with a straight or
better (``arena.policies.sensible_discards``).

    python examples_bots/rule_based.py --address 127.0.0.1:50051
"""

from arena.policies import RuleBased
from arena.sdk import Bot, Decision, run


class RuleBasedBot(Bot):
    name = "rule-based"
    version = "1.0"

    def __init__(self) -> None:
        self.policy = RuleBased()

    def decide(self, decision: Decision):
        return self.policy.decide(decision)


if __name__ == "__main__":
    run(RuleBasedBot())

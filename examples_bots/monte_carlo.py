"""The strongest example: Monte Carlo equity against pot odds.

For every decision it deals the unseen cards out a few hundred times (each live
opponent gets five cards and draws as its public draw count says, we draw, the
engine's evaluator picks the winner), then:

* facing a bet, it calls when its share of the pot beats the pot odds, else folds;
* it bets or raises when it is well ahead (60 % heads-up);
* at the draw it weighs a handful of discards (the sensible one, standing pat, keeping
  a four-flush or four to a straight, keeping one or two high cards) and keeps the best.

The logic is ``arena.policies.MonteCarloPolicy``; this file only serves it. A decision
takes a few milliseconds, far inside the default 1 s clock.

    python examples_bots/monte_carlo.py --address 127.0.0.1:50051
    python examples_bots/monte_carlo.py --samples 500 --seed 7
"""

import argparse
import random
import sys

from arena.policies import MonteCarloPolicy
from arena.protocol import config_from_message, pb
from arena.sdk import Bot, Decision, run


class MonteCarloBot(Bot):
    name = "monte-carlo"
    version = "1.0"

    def __init__(self, samples: int = 200, seed: int | None = None) -> None:
        # seed None: each table's MatchStart.seat_seed seeds it (a replayed match plays alike)
        self.seed = seed
        self.policy = MonteCarloPolicy(samples=samples, rng=random.Random(seed))
        # the default table's sampling tables (~0.4 s of CPU) before the bot is healthy,
        # not at its first MatchStart, where they would eat into the Hello's 2 s
        self.policy.prepare()

    def on_match_start(self, message: pb.MatchStart) -> None:
        # sample the table's deck: with a joker (R2) or not, draws of up to max_draw (R15)
        config = config_from_message(message.config)
        if self.seed is None and message.seat_seed:
            self.policy.rng = random.Random(message.seat_seed)
        self.policy.joker = config.joker
        self.policy.max_draw = config.max_draw
        self.policy.prepare()

    def decide(self, decision: Decision):
        return self.policy.decide(decision.view)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--samples", type=int, default=200, help="deals per decision")
    parser.add_argument("--seed", type=int, default=None, help="seed for reproducible play")
    own, rest = parser.parse_known_args(argv)
    run(MonteCarloBot(own.samples, own.seed), rest)


if __name__ == "__main__":
    main(sys.argv[1:])

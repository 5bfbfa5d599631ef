"""The weakest opponent: a random legal action, a random amount, random discards.

python examples_bots/random_bot.py --address 127.0.0.1:50051
ARENA_BOT_ADDRESS=127.0.0.1:50051 python examples_bots/random_bot.py
"""

import random

from arena.policies import RandomPolicy
from arena.protocol import pb
from arena.sdk import Bot, Decision, run


class RandomBot(Bot):
    name = "random"
    version = "1.0"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.policy = RandomPolicy(rng or random.SystemRandom())

    def on_match_start(self, message: pb.MatchStart) -> None:
        # the dealer's per-seat seed: the same match plays the same on a rerun
        if message.seat_seed:
            self.policy.rng = random.Random(message.seat_seed)

    def decide(self, decision: Decision):
        # a Decision has hole_cards, legal and pot, like the engine's SeatView,
        # so an in-process policy plays over gRPC unchanged
        return self.policy.decide(decision)


if __name__ == "__main__":
    run(RandomBot())

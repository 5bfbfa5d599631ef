"""In-process policies as seats: ``builtin:`` bots, tests and fast self-play."""

from __future__ import annotations

import random

from arena.dealer._seat import LocalBot
from arena.policies import BUILT_IN
from arena.protocol import pb
from arena.sdk import Bot


class PolicyBot(Bot):
    """An :mod:`arena.policies` policy behind the SDK's message handling."""

    def __init__(self, name: str, policy: object) -> None:
        self.name = name
        self.policy = policy

    def decide(self, decision):
        return self.policy.decide(decision)  # type: ignore[attr-defined]

    def handle(self, message: pb.DealerMessage) -> pb.BotMessage | None:
        return super().handle(message)


def policy_driver(name: str, policy_name: str, seed: int | None = None) -> LocalBot:
    """A seat played in-process by the built-in policy ``policy_name`` (``KeyError`` if unknown)."""
    cls = BUILT_IN[policy_name]
    policy = cls(random.Random(seed)) if policy_name == "random" else cls()
    return LocalBot(PolicyBot(name, policy), name=name)

"""A policy as an in-process seat: answers the dealer's messages with no SDK and no gRPC.

The dealer's :class:`~arena.dealer.LocalBot` hosts any object with a ``handle`` method;
:class:`PolicyBot` is that object for a policy. It reads each decision through
:func:`arena.protocol.read_decision` (the same view the SDK's ``Decision`` holds) and
answers through :mod:`arena.protocol`, so it needs neither the SDK nor a network, and
the dealer can seat it without importing the bot SDK.
"""

from __future__ import annotations

import random
from typing import Any

from arena import protocol
from arena.policies._basic import CallingStation, Policy, RandomPolicy, RuleBased
from arena.policies._montecarlo import MonteCarloPolicy
from arena.protocol import pb

BUILT_IN: dict[str, Any] = {
    "random": RandomPolicy,
    "calling-station": CallingStation,
    "rule-based": RuleBased,
    "monte-carlo": MonteCarloPolicy,
}
"""Policy name -> class, as ``builtin:NAME`` spells them: the one list of built-in policies."""


def make_policy(policy_name: str, seed: int | None = None) -> Policy:
    """A fresh built-in policy by name (``KeyError`` if unknown); ``seed`` seeds ``random``."""
    cls = BUILT_IN[policy_name]
    return cls(random.Random(seed)) if policy_name == "random" else cls()


class PolicyBot:
    """A policy behind the dealer's messages: Hello on MatchStart, an Action per decision.

    ``wants_hand_start`` asks the dealer for HandStart messages (ignored here, but a
    test may want them on the wire). A policy that draws from ``rng`` is reseeded from
    each MatchStart's ``seat_seed``, so a match plays the same wherever it is played
    (``workers = 2`` gives what ``workers = 1`` gives for the same seed).
    """

    version = "0.1"

    def __init__(self, name: str, policy: Policy, *, wants_hand_start: bool = False) -> None:
        self.name = name
        self.policy = policy
        self.wants_hand_start = wants_hand_start

    def handle(self, message: pb.DealerMessage) -> pb.BotMessage | None:
        """The reply due to ``message``, if any."""
        kind = message.WhichOneof("kind")
        if kind == "decision":
            request = message.decision
            action = self.policy.decide(protocol.read_decision(request))
            return protocol.answer(action, request.decision_id)
        if kind == "match_start":
            seat_seed = message.match_start.seat_seed
            if seat_seed and hasattr(self.policy, "rng"):
                self.policy.rng = random.Random(seat_seed)
            return protocol.hello(
                name=self.name, version=self.version, wants_hand_start=self.wants_hand_start
            )
        return None

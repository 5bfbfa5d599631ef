"""Shared bits of the test bots: a bot that checks or calls and stands pat."""

from __future__ import annotations

from arena.sdk import Bot, Decision


class Calling(Bot):
    """Checks or calls every bet, stands pat at the draw; counts its decisions."""

    name = "calling"

    def __init__(self) -> None:
        self.decisions = 0

    def decide(self, decision: Decision):
        self.decisions += 1
        if decision.is_draw:
            return decision.stand_pat()
        return decision.check_or_call()

"""Always bets an amount outside the legal range (or raises when it cannot)."""

from _common import Calling

from arena.protocol import pb
from arena.sdk import run


class Illegal(Calling):
    name = "illegal"

    def decide(self, decision):
        super().decide(decision)
        if decision.is_draw:
            return decision.stand_pat()
        return pb.Action(kind=pb.ACTION_KIND_BET_RAISE, amount=10**9 if self.decisions % 2 else 1)


if __name__ == "__main__":
    run(Illegal())

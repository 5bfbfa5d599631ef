"""Answers odd decisions with an invalid ActionKind, even ones with unknown card text."""

from _common import Calling

from arena.protocol import pb
from arena.sdk import run


class Garbage(Calling):
    name = "garbage"

    def decide(self, decision):
        super().decide(decision)
        if self.decisions % 2:
            return pb.Action(kind=99)
        return pb.Action(kind=pb.ACTION_KIND_DISCARD, cards=["Zz", "1x"])


if __name__ == "__main__":
    run(Garbage())

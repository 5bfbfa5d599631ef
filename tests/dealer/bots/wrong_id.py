"""Answers every decision with a decision_id that does not match."""

from _common import Calling

from arena.protocol import pb
from arena.sdk import run


class WrongId(Calling):
    name = "wrong-id"

    def decide(self, decision):
        super().decide(decision)
        return pb.Action(decision_id=f"bogus-{self.decisions}", kind=pb.ACTION_KIND_CALL)


if __name__ == "__main__":
    run(WrongId())

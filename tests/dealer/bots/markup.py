"""Answers with a decision_id full of terminal escapes and rich markup; says so on stderr."""

import sys

from _common import Calling

from arena.protocol import pb
from arena.sdk import run

NASTY = "[/red][bold]\x1b[2J\x1b]0;pwned\x07"


class Markup(Calling):
    name = "markup"

    def decide(self, decision):
        super().decide(decision)
        print(f"markup bot: {NASTY}", file=sys.stderr, flush=True)
        return pb.Action(decision_id=NASTY, kind=pb.ACTION_KIND_CALL)


if __name__ == "__main__":
    run(Markup())

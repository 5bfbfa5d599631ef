"""Cannot start (exits 3 after writing an error with terminal escapes to stderr) until the
file $FIXED exists; then plays like a calling station."""

import os
import sys

from arena.sdk import Bot, run


class Fixed(Bot):
    name = "fixed"

    def decide(self, decision):
        if decision.is_draw:
            return decision.discard([])
        return decision.check_or_call()


if __name__ == "__main__":
    if not os.path.exists(os.environ.get("FIXED", "/nonexistent")):
        sys.stderr.write("ImportError: no module named numpy\x1b[31m red \x07bell\n")
        sys.stderr.flush()
        sys.exit(3)
    run(Fixed())

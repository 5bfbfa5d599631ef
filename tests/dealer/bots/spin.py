"""Burns CPU forever at its first decision (to be stopped by a CPU limit)."""

from _common import Calling

from arena.sdk import run


class Spin(Calling):
    name = "spin"

    def decide(self, decision):
        while True:
            pass


if __name__ == "__main__":
    run(Spin())

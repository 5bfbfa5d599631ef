"""Listens and is healthy, but never says Hello: its streams stay silent."""

from _common import Calling

from arena.sdk import run


class Mute(Calling):
    name = "mute"

    def handle(self, message):
        return None


if __name__ == "__main__":
    run(Mute())

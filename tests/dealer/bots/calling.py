"""A well-behaved bot: check or call, stand pat."""

from _common import Calling

from arena.sdk import run

if __name__ == "__main__":
    run(Calling())

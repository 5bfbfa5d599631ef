"""Writes 200 kB to stdout and a few lines to stderr at start-up, then plays normally."""

import sys

from _common import Calling

from arena.sdk import run

if __name__ == "__main__":
    for index in range(2000):
        print(f"chatty line {index:05d} " + "." * 80)
    sys.stdout.flush()
    print("chatty: ready", file=sys.stderr, flush=True)
    run(Calling())

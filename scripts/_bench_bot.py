"""One launched bot for the benchmarks of issue 19 (``bench_output_flood.py``,
``bench_dealer_vs_hogs.py``): it plays like a calling station, and

- ``quiet``: nothing else;
- ``flood``: a thread writes 64 KB to stdout without end while it plays (as
  ``tests/hostile/bots/outflood.py``);
- ``hog SECONDS``: every decision first spins the CPU for SECONDS (just under its time
  limit), then answers.

Usage: ``_bench_bot.py MODE [SECONDS] [--root TREE]``. ``--root`` puts TREE first on
``sys.path`` (an older worktree's sandbox binds only its own ``arena`` package, so the
bot must import the SDK from there, not from the venv's editable install).
"""

import os
import sys
import threading
import time

args = sys.argv[1:]
if "--root" in args:
    at = args.index("--root")
    sys.path.insert(0, args[at + 1])
    del args[at : at + 2]
mode = args[0] if args else "quiet"
spin = float(args[1]) if mode == "hog" and len(args) > 1 else 0.9

from arena.sdk import Bot, run  # noqa: E402


class Calling(Bot):
    name = f"bench-{mode}"

    def decide(self, decision):  # type: ignore[no-untyped-def]
        if mode == "hog":
            until = time.perf_counter() + spin
            while time.perf_counter() < until:
                pass
        if decision.is_draw:
            return decision.stand_pat()
        return decision.check_or_call()


def _flood() -> None:
    chunk = b"x" * 65536
    while True:
        os.write(1, chunk)


if mode == "flood":
    threading.Thread(target=_flood, daemon=True).start()
run(Calling(), argv=[])

"""A calling station that keeps count of its kind (issue 12 item 5's budget tests).

``counted.py PIDS NAME [fail]``: first thing at start, before its imports, it writes
``PIDS/<pid>.start`` (holding NAME) and counts the processes alive right now whose
command line names the same PIDS folder (itself included) into ``PIDS/<pid>.count``.
Live processes only grow at a start, so the largest count over all starts is the most
that ever ran at once. Each table it is seated at is appended to ``PIDS/<pid>.tables``.
With ``fail`` it exits with status 3 after writing its start file (a bot that cannot
start). The rest of the command line goes to the SDK (``--address``).
"""

import os
import sys
from pathlib import Path

FOLDER = Path(sys.argv[1])
NAME = sys.argv[2]
FAIL = sys.argv[3:4] == ["fail"]
REST = sys.argv[4:] if FAIL else sys.argv[3:]
ME = os.getpid()
MARK = str(FOLDER).encode()


def _ours(entry: Path) -> bool:
    try:
        return MARK in (entry / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return False


def _count() -> int:
    return sum(1 for entry in Path("/proc").iterdir() if entry.name.isdigit() and _ours(entry))


(FOLDER / f"{ME}.start").write_text(NAME)
if FAIL:
    sys.stderr.write("cannot start: told to fail\n")
    sys.exit(3)
(FOLDER / f"{ME}.count").write_text(str(_count()))

from arena.sdk import Bot, run  # noqa: E402  (counted before the slow import)


class Counted(Bot):
    name = "counted"

    def on_match_start(self, message):
        with (FOLDER / f"{ME}.tables").open("a") as tables:
            tables.write(f"{message.table_id}\n")

    def decide(self, decision):
        if decision.is_draw:
            return decision.discard([])
        return decision.check_or_call()


if __name__ == "__main__":
    run(Counted(), REST)

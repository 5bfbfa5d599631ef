"""Leaves notes in its home and plants symlinks (to ``argv[2]``, a folder it must not
empty) in its socket folder and current folder, then ignores SIGTERM: what a killed
arena's leftovers may hold (issue 12, the audit of killed dealers and workers)."""

import os
import signal
import sys

from _base import mark, report, serve

mark(sys.argv[1])
signal.signal(signal.SIGTERM, signal.SIG_IGN)
victim = sys.argv[2]
home = os.environ.get("HOME", ".")
with open(os.path.join(home, "notes.txt"), "w") as file:
    file.write("what I learnt about my opponents\n")
socket_dir = os.path.dirname(os.environ["ARENA_BOT_ADDRESS"].removeprefix("unix:"))
for folder in {socket_dir, os.getcwd(), home}:
    try:
        os.symlink(victim, os.path.join(folder, "victim"))
        report(f"planted {folder}")
    except OSError as error:
        report(f"cannot plant in {folder}: {error}")
serve()

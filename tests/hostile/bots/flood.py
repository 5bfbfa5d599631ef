"""Floods stderr with control characters (ESC, BEL, U+202E) and exits before it serves.

350 KB, past the test's 100 KB log cap: beyond the cap the arena reads 64 KB a second
(issue 19 item 6), so the 3.5 MB this wrote before could not end within the start-up
timeout; its last line, written last, must still end the error's tail."""

import sys

line = "\x1b[2J\x1b]0;owned\x07\u202eevil\x1b[31m red\n"
for _ in range(10_000):
    sys.stderr.write(line)
sys.stderr.write("the last line\n")
sys.stderr.flush()
sys.exit(3)

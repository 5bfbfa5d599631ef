"""Floods stderr with control characters (ESC, BEL, U+202E) and exits before it serves."""

import sys

line = "\x1b[2J\x1b]0;owned\x07\u202eevil\x1b[31m red\n"
for _ in range(100_000):
    sys.stderr.write(line)
sys.stderr.flush()
sys.exit(3)

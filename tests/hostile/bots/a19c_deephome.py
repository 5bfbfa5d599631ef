"""Audit 19c: a calling bot that, before it serves, nests DEPTH folders (one letter each)
in its current folder (its private seat folder at L0, ``$HOME``), by descriptors, so no
path is ever long. ``shutil.rmtree`` (Python 3.11, recursive) then raises RecursionError
on it. Usage: ``a19c_deephome.py TOKEN [DEPTH]``."""

import os
import sys

from _base import mark, serve

mark(sys.argv[1])
depth = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
for _ in range(depth):
    os.mkdir("d", dir_fd=fd)
    child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd)
    fd = child
os.close(fd)
serve()

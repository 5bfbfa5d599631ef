"""Reports the inode of each file named (issue 19 item 1: a duplicate instance's own copy)
and whether it can write beside it, then serves. argv: TOKEN PATH..."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _base import mark, report, serve

mark(sys.argv[1])
for path in sys.argv[2:]:
    try:
        info = os.stat(path)
        with open(path, "rb") as file:
            head = file.read(16).hex()
        report(f"inode {path} {info.st_ino} {head}")
    except OSError as error:
        report(f"inode {path} error {error.strerror}")
    try:
        with open(os.path.join(os.path.dirname(path), "planted"), "w") as file:
            file.write("x")
        report("write allowed")
    except OSError as error:
        report(f"write denied {error.strerror}")
serve()

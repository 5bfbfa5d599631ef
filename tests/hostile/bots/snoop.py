"""Tries to read every path it is given (another seat's folder, records, a database)."""

import sys

from _base import mark, report, serve

mark(sys.argv[1])
for path in sys.argv[2:]:
    try:
        with open(path, "rb") as file:
            report(f"read {path} {len(file.read())}")
    except OSError as error:
        report(f"denied {path} {type(error).__name__}")
serve()

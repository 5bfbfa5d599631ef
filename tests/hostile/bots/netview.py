"""Reports the network interfaces it can see (reads /proc/net/dev; sends nothing anywhere)."""

import sys

from _base import mark, report, serve

mark(sys.argv[1])
with open("/proc/net/dev") as file:
    names = sorted(line.split(":")[0].strip() for line in file.readlines()[2:])
report("interfaces " + ",".join(names))
serve()

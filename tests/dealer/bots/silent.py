"""Never listens: prints a line on stderr and sleeps."""

import sys
import time

print("silent bot: not listening anywhere", file=sys.stderr, flush=True)
time.sleep(60)

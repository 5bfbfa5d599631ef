"""Runs crash.py (first run only; calling.py after) as its child and outlives it by 1 s.

The launched process is this wrapper: when the child crashes its socket closes at once,
but the process the arena started exits (status 3) only a second later, as a bot holding
a lot of memory does. ``argv[1]`` is a marker file that says the crash already happened.
"""

import subprocess
import sys
import time
from pathlib import Path

marker = Path(sys.argv[1])
child = "calling.py" if marker.exists() else "crash.py"
marker.touch()
subprocess.call([sys.executable, str(Path(__file__).with_name(child))])
time.sleep(1.0)
sys.exit(3)

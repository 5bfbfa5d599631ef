"""Starts a sleeping grandchild (its pid written to ``argv[1]``), then dies on its 3rd decision."""

import subprocess
import sys

from crash import Crash

from arena.sdk import run

if __name__ == "__main__":
    pid_file = sys.argv.pop(1)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(pid_file, "w") as file:
        file.write(str(child.pid))
    run(Crash())

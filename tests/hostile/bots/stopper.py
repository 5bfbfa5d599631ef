"""Once serving, stops itself with SIGSTOP."""

import os
import signal
import sys
import threading
import time

from _base import mark, serve

mark(sys.argv[1])


def stop() -> None:
    time.sleep(0.3)
    os.kill(os.getpid(), signal.SIGSTOP)


threading.Thread(target=stop, daemon=True).start()
serve()

"""Ignores SIGTERM (only SIGKILL stops it); plays normally."""

import signal
import types

from _common import Calling

import arena.sdk._server as server
from arena.sdk import run

if __name__ == "__main__":
    # the SDK stops on SIGTERM/SIGINT: point it at SIGINT only, and ignore SIGTERM
    server.signal = types.SimpleNamespace(SIGTERM=signal.SIGINT, SIGINT=signal.SIGINT)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    run(Calling())

"""Shared bits of the hostile bots: name a process with the test's marker, report, serve."""

from __future__ import annotations

import ctypes
import sys

from arena.sdk import Bot, Decision, run

PR_SET_NAME = 15


def mark(token: str) -> None:
    """Name the calling thread ``token`` (``/proc/PID/comm``), so the test can find it."""
    ctypes.CDLL(None).prctl(PR_SET_NAME, token.encode()[:15], 0, 0, 0)


def report(text: str) -> None:
    """One verdict line on stderr (the test reads the bot's stderr log)."""
    sys.stderr.write(f"VERDICT {text}\n")
    sys.stderr.flush()


class Calling(Bot):
    name = "hostile"

    def decide(self, decision: Decision):
        if decision.is_draw:
            return decision.stand_pat()
        return decision.check_or_call()


def serve() -> None:
    run(Calling(), argv=[])

"""One decision's clock, and what a seat's accounting says about its limits.

On a shared machine wall time per decision varies several-fold with the neighbours
while CPU time hardly moves (issue 9 item 5), so a driver that can measure its bot's
process tree (``cpu_seconds()``) puts the seat on the CPU clock: a decision is charged
the CPU the tree used from the DecisionRequest to the answer, with a loose wall-clock
backstop for a bot that sleeps or is stopped. Any other driver (an address, an
in-process policy) keeps the wall clock. Both probes are optional and called through
``getattr``, so every :class:`~arena.dealer.BotDriver` works.

A driver may also say that the seat's cgroup recorded a breach (``limit_breach()``:
``"MEMORY_LIMIT"`` or ``"PROCESS_LIMIT"``); :func:`breach_fault` turns one into the
fault recorded instead of the disconnect or timeout it caused.
"""

from __future__ import annotations

import math
import os
from collections.abc import Awaitable, Callable

import trio

from arena.dealer._settings import CPU_BACKSTOP_FACTOR, CPU_BACKSTOP_FLOOR
from arena.protocol import pb

CPU = "cpu"
WALL = "wall"

POLL_FLOOR = 0.002
"""Seconds at least between two CPU readings while a decision waits."""

POLL_CAP = 0.25
"""Seconds at most between two CPU readings while a decision waits."""

_LIMITS = {
    "MEMORY_LIMIT": (pb.FAULT_REASON_MEMORY_LIMIT, "memory limit: the seat's memory cap was hit"),
    "PROCESS_LIMIT": (
        pb.FAULT_REASON_PROCESS_LIMIT,
        "process limit: the seat's cap on processes and threads was hit",
    ),
}


def read_cpu(driver: object) -> float | None:
    """CPU seconds of the driver's process tree so far, or None when it cannot say."""
    probe = getattr(driver, "cpu_seconds", None)
    if not callable(probe):
        return None
    try:
        value = probe()
    except Exception:  # a probe that fails leaves the seat on the clock it can keep
        return None
    if not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def read_breach(driver: object) -> str | None:
    """The limit the driver's seat breached since the last call, or None."""
    probe = getattr(driver, "limit_breach", None)
    if not callable(probe):
        return None
    try:
        value = probe()
    except Exception:
        return None
    return value if value in _LIMITS else None


def breach_fault(breach: str, detail: str) -> tuple[pb.FaultReason, str]:
    """The fault a breach is recorded as: its own reason, the detail naming the limit."""
    reason, text = _LIMITS[breach]
    return reason, f"{text} ({detail})" if detail else text


def backstop(allowed: float) -> float:
    """Wall seconds a CPU-clocked decision may take at most (see CPU_BACKSTOP_FACTOR)."""
    return max(CPU_BACKSTOP_FACTOR * allowed, allowed + CPU_BACKSTOP_FLOOR)


class DecisionClock:
    """Times one decision on the clock in force for ``driver``, ``allowed`` seconds.

    Built when the DecisionRequest is sent; :meth:`run` runs the wait for the answer
    and cancels it when the clock runs out. :meth:`charged` is what the decision cost
    on that clock (for the time bank), :meth:`timeout_detail` says which clock ran out.
    """

    def __init__(self, driver: object, allowed: float) -> None:
        self._driver = driver
        self.allowed = allowed
        self._cpu_start = read_cpu(driver)
        self.kind = WALL if self._cpu_start is None else CPU
        self.limit = allowed if self.kind == WALL else backstop(allowed)
        self._wall_start = trio.current_time()
        self._elapsed = 0.0
        self._cpu_used = 0.0
        self.cpu_ran_out = False

    def cpu_used(self) -> float:
        """CPU seconds the tree used since the request (the last good reading)."""
        now = read_cpu(self._driver)
        if now is not None and self._cpu_start is not None:
            self._cpu_used = max(self._cpu_used, now - self._cpu_start)
        return self._cpu_used

    async def run(self, body: Callable[[], Awaitable[None]]) -> bool:
        """Run ``body`` (the wait for the answer); True when the clock ran out first."""
        if self.kind == WALL:
            with trio.move_on_after(self.limit) as scope:
                await body()
        else:
            with trio.move_on_after(self.limit) as scope:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._watch, scope)
                    await body()
                    nursery.cancel_scope.cancel()
        self._elapsed = trio.current_time() - self._wall_start
        return scope.cancelled_caught

    async def _watch(self, scope: trio.CancelScope) -> None:
        """Read the CPU no later than when the budget could run out with every core busy."""
        cores = os.cpu_count() or 1
        remaining = self.allowed  # just read when the request went out
        while True:
            await trio.sleep(min(max(remaining / cores, POLL_FLOOR), POLL_CAP))
            remaining = self.allowed - self.cpu_used()
            if remaining <= 0:
                self.cpu_ran_out = True
                scope.cancel()
                return

    def charged(self, free: float) -> float:
        """Seconds this decision cost on the clock in force (at most what was allowed),
        exact only above ``free`` (the action timeout): a decision that cannot have used
        more than that, even on every core, costs no CPU reading (each walks ``/proc``
        at L0)."""
        if self.kind == WALL:
            return min(self._elapsed, self.allowed)
        if self._elapsed * (os.cpu_count() or 1) > free:
            self.cpu_used()
        return min(self._cpu_used, self.allowed)

    def timeout_detail(self) -> str:
        """Which clock ran out, for Fault.detail."""
        if self.kind == WALL:
            return f"wall clock: no action within {self.allowed * 1000:.0f} ms"
        if self.cpu_ran_out:
            return f"cpu clock: {self._cpu_used:.2f} s of CPU used, {self.allowed:.2f} s allowed"
        return (
            f"wall-clock backstop: no action within {self.limit:.1f} s "
            f"(CPU used {self._cpu_used:.2f} s)"
        )

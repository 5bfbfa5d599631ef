"""One decision's clock, and what a seat's accounting says about its limits.

On a shared machine wall time per decision varies several-fold with the neighbours
while CPU time hardly moves (issue 9 item 5), so a driver that can measure its bot's
process tree (``cpu_seconds()``) puts the seat on the CPU clock: a decision is charged
the CPU the tree used from the DecisionRequest to the answer, with a loose wall-clock
backstop for a bot that sleeps or is stopped. Any other driver (an address, an
in-process policy) keeps the wall clock. Both probes are optional and called through
``getattr``, so every :class:`~arena.dealer.BotDriver` works.

A CPU-clocked driver may be told when each decision starts and ends (``on_clock(bool)``:
a launched bot's seat weighs double while it decides, :mod:`arena.sandbox._cgroups`).

A driver may also say that the seat's cgroup recorded a breach (``limit_breach()``:
``"MEMORY_LIMIT"`` or ``"PROCESS_LIMIT"``); :func:`breach_fault` turns one into the
fault recorded instead of the disconnect or timeout it caused.

A CPU-clocked decision needs its CPU read while it waits. One watchdog per Trio run (a
system task, :class:`_Watchdog`) reads every waiting decision's CPU when it is due, so a
decision costs a heap entry instead of a task of its own (issue 12 item 6: spawning and
cancelling a watcher task per decision cost more than the rest of the decision).
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
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

_CORES = os.cpu_count() or 1
"""Cores the bot's tree could run on at once: read once (``os.cpu_count`` reads a file
in /sys at each call, and the CPU clock asked it twice per decision: issue 12 item 6)."""

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


def tell_on_clock(driver: object, deciding: bool) -> None:
    """Tell the driver one of its CPU-clocked decisions started or ended (``on_clock``: a
    launched bot's seat weighs more while it decides, issue 19 item 6); optional."""
    probe = getattr(driver, "on_clock", None)
    if callable(probe):
        with contextlib.suppress(Exception):  # a probe that fails changes nothing
            probe(deciding)


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


class _Watchdog:
    """Reads the CPU of every waiting CPU-clocked decision of one Trio run when it is due.

    A decision registers when its wait starts (:meth:`add`) and, once it ends, its entry
    is dropped (:meth:`prune`: ended entries at the top of the heap go at once, so the
    watchdog does not wake for decisions that were answered). The watchdog sleeps until
    the earliest entry.
    """

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, DecisionClock]] = []
        self._order = itertools.count()
        self._sleep: trio.CancelScope | None = None

    def add(self, clock: DecisionClock, due: float) -> None:
        heapq.heappush(self._heap, (due, next(self._order), clock))
        if self._sleep is not None and due < self._sleep.deadline:
            self._sleep.deadline = due

    def prune(self) -> None:
        """Drop the ended decisions at the top of the heap; sleep until the next live one."""
        heap = self._heap
        while heap and heap[0][2]._scope is None:
            heapq.heappop(heap)
        if self._sleep is not None:
            self._sleep.deadline = heap[0][0] if heap else math.inf

    async def run(self) -> None:
        heap = self._heap
        while True:
            now = trio.current_time()
            while heap and heap[0][0] <= now:
                _, _, clock = heapq.heappop(heap)
                due = clock.poll(now)
                if due is not None:
                    heapq.heappush(heap, (due, next(self._order), clock))
            self.prune()
            with trio.CancelScope(deadline=heap[0][0] if heap else math.inf) as sleep:
                self._sleep = sleep
                await trio.sleep_forever()
            self._sleep = None


_WATCHDOG: trio.lowlevel.RunVar[_Watchdog] = trio.lowlevel.RunVar("arena_cpu_watchdog")


def _watchdog() -> _Watchdog:
    """This Trio run's watchdog, started on first use."""
    try:
        return _WATCHDOG.get()
    except LookupError:
        watchdog = _Watchdog()
        _WATCHDOG.set(watchdog)
        trio.lowlevel.spawn_system_task(watchdog.run, name="arena cpu watchdog")
        return watchdog


class DecisionClock:
    """Times one decision on the clock in force for ``driver``, ``allowed`` seconds.

    Built when the DecisionRequest is sent; :meth:`run` runs the wait for the answer
    and cancels it when the clock runs out. :meth:`charged` is what the decision cost
    on that clock (for the time bank), :meth:`timeout_detail` says which clock ran out.

    On the CPU clock the wait also ends when it would overspend ``budget``, what is left
    of the seat's wall budget (issue 21 item 1): wall seconds past ``free`` (the action
    timeout), less twice the CPU used so far (read at each of the watchdog's polls, so
    the deadline moves out as the bot computes). :meth:`overrun` is what it spent of it.
    """

    def __init__(
        self, driver: object, allowed: float, *, free: float = 0.0, budget: float = math.inf
    ) -> None:
        self._driver = driver
        self.allowed = allowed
        self._cpu_start = read_cpu(driver)
        self.kind = WALL if self._cpu_start is None else CPU
        self.limit = allowed if self.kind == WALL else backstop(allowed)
        self._free = free
        self._budget = budget if self.kind == CPU else math.inf
        self._wall_start = trio.current_time()
        self._elapsed = 0.0
        self._cpu_used = 0.0
        self.cpu_ran_out = False
        self._scope: trio.CancelScope | None = None  # set while a CPU-clocked wait runs

    def cpu_used(self) -> float:
        """CPU seconds the tree used since the request (the last good reading)."""
        now = read_cpu(self._driver)
        if now is not None and self._cpu_start is not None:
            self._cpu_used = max(self._cpu_used, now - self._cpu_start)
        return self._cpu_used

    async def run(self, body: Callable[[], Awaitable[None]]) -> bool:
        """Run ``body`` (the wait for the answer); True when the clock ran out first."""
        with trio.CancelScope(deadline=self._deadline()) as scope:
            if self.kind == WALL:
                await body()
            else:
                watchdog = _watchdog()
                self._scope = scope
                watchdog.add(self, self._wall_start + self._poll_interval(self.allowed))
                tell_on_clock(self._driver, True)
                try:
                    await body()
                finally:
                    tell_on_clock(self._driver, False)
                    self._scope = None
                    watchdog.prune()
        self._elapsed = trio.current_time() - self._wall_start
        return scope.cancelled_caught

    def _deadline(self) -> float:
        """When the wait ends at the latest: the backstop, or the wall budget's end."""
        return self._wall_start + min(self.limit, self._spendable())

    def _spendable(self) -> float:
        """Wall seconds the wall budget allows this decision: the action timeout, what is
        left of the budget, and twice the CPU used so far (the backstop's busy machine)."""
        return self._free + self._budget + CPU_BACKSTOP_FACTOR * self._cpu_used

    @property
    def budget_ran_out(self) -> bool:
        """Whether the wall budget, not the backstop or the CPU clock, ended the wait."""
        if self.kind == WALL or self.cpu_ran_out:
            return False
        return self._spendable() < self.limit

    def overrun(self) -> float:
        """Wall seconds this decision spent of the wall budget: its wall time past the
        action timeout, less twice the CPU the bot used (a machine busy enough to give it
        half a core excuses its wait); 0 on the wall clock."""
        if self.kind == WALL or self._elapsed <= self._free:
            return 0.0
        return max(0.0, self._elapsed - self._free - CPU_BACKSTOP_FACTOR * self.cpu_used())

    @staticmethod
    def _poll_interval(remaining: float) -> float:
        """Read the CPU no later than when the budget could run out with every core busy."""
        return min(max(remaining / _CORES, POLL_FLOOR), POLL_CAP)

    def poll(self, now: float) -> float | None:
        """The watchdog's reading: when to read again, or None (the wait is over, or the
        CPU ran out and the wait is cancelled)."""
        scope = self._scope
        if scope is None:
            return None
        try:
            remaining = self.allowed - self.cpu_used()
        except Exception:  # never let a reading break the watchdog: read again later
            return now + POLL_CAP
        if remaining <= 0:
            self.cpu_ran_out = True
            scope.cancel()
            return None
        if self._budget < math.inf:  # the CPU used so far moves the budget's end out
            scope.deadline = max(scope.deadline, self._deadline())
        return now + self._poll_interval(remaining)

    def charged(self, free: float) -> float:
        """Seconds this decision cost on the clock in force (at most what was allowed),
        exact only above ``free`` (the action timeout): a decision that cannot have used
        more than that, even on every core, costs no CPU reading (each walks ``/proc``
        at L0)."""
        if self.kind == WALL:
            return min(self._elapsed, self.allowed)
        if self._elapsed * _CORES > free:
            self.cpu_used()
        return min(self._cpu_used, self.allowed)

    def timeout_detail(self) -> str:
        """Which clock ran out, for Fault.detail."""
        if self.kind == WALL:
            return f"wall clock: no action within {self.allowed * 1000:.0f} ms"
        if self.cpu_ran_out:
            return f"cpu clock: {self._cpu_used:.2f} s of CPU used, {self.allowed:.2f} s allowed"
        if self.budget_ran_out:
            return f"no action within {self._elapsed:.1f} s (CPU used {self._cpu_used:.2f} s)"
        return (
            f"wall-clock backstop: no action within {self.limit:.1f} s "
            f"(CPU used {self._cpu_used:.2f} s)"
        )

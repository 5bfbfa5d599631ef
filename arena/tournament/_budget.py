"""Bots on a budget (issue 12 item 5): which match to play next so live bot processes stay few.

A league of 200 launched bots cannot start them all before the first match (41 MB and
0.3 s each). So each process playing matches (the coordinator with ``workers = 1``, or
each worker process) starts a bot when a match it takes needs it and stops it when the
bot has no match left, and keeps at most ``max_live_bots`` launched bot processes alive
(:data:`DEFAULT_MAX_LIVE_BOTS` when the file gives none). Built-in bots are objects in
the dealer's process and address bots run elsewhere: neither counts (:func:`counts`).

When the bound binds (the bots' processes outnumber it), the next match is chosen to
reuse live bots (:class:`Preference`): first one whose counted bots are all live, then
one with a live bot, then the first one left; and only among the first
:data:`LOOKAHEAD` matches left, because results are committed in schedule order (a
match played early is held until those before it are committed, and a Ctrl-C drops
what is held). A bot is stopped to make room only while it is at no table: the one
whose next match comes last (Belady's rule). Which match plays when never changes a
result: each match's decks and seats come from its own seed.

:class:`Untaken` is the matches not yet taken, indexed by bot; it is shared by the
in-process executor and the worker pool, which each keep one :class:`Preference` per
process playing matches.
"""

from __future__ import annotations

import contextlib
import heapq
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.tournament._bots import REMOTE
from arena.tournament._dispatch import tables_of

DEFAULT_MAX_LIVE_BOTS = 64
"""The bound when ``tournament.max_live_bots`` is not given: about 2.6 GB of Python bots
(41 MB each), fewer than a 2-core laptop can start in 20 s, and more than any tournament
of up to 32 duplicate heads-up bots needs, so small tournaments never meet it. A fixed
number, not one read from this machine's memory, so a league behaves the same on every
machine."""

LOOKAHEAD = 1000
"""How far past the first match left the next match may be taken from, while the bound
binds: at most this many results wait in memory for those scheduled before them."""

UNCOUNTED_KINDS = frozenset({"builtin", "address", REMOTE})
"""Kinds of bot that are not processes this one starts: built-in policies (objects here),
bots at an address and bots that dial in. Plugin kinds count: a plugin may launch one."""


def counts(kind: str) -> bool:
    """Whether a bot of ``kind`` is a process we start (it counts towards the bound)."""
    return kind not in UNCOUNTED_KINDS


def processes_of(match: Any, counted: Callable[[str], bool]) -> int:
    """Counted bot processes ``match`` needs at once."""
    return sum(tables_of(match) for name in set(match.seats) if counted(name))


def bound_for(
    max_live_bots: int | None, matches: Sequence[Any], counted: Callable[[str], bool]
) -> tuple[int, str | None]:
    """The bound in force for ``matches`` and a note when it had to be raised.

    ``None`` is :data:`DEFAULT_MAX_LIVE_BOTS`. A bound below what one match needs would
    never let that match start: it is raised to that, with a note (the file's check
    refuses such a bound already; a direct caller may still pass one).
    """
    bound = DEFAULT_MAX_LIVE_BOTS if max_live_bots is None else max_live_bots
    largest = max((processes_of(match, counted) for match in matches), default=0)
    if bound >= largest:
        return bound, None
    note = (
        f"max_live_bots = {bound} is fewer than the {largest} bot processes one match needs "
        f"(its launched bots, one per rotation under duplicate): using {largest}"
    )
    return largest, note


@dataclass
class BudgetStats:
    """What a budget did: its bound, the most counted bot processes live at once, how
    many were started (``restarts``: starts of a bot that had run before), stopped to
    make room (``evictions``) and stopped for having no match left (``finished``)."""

    bound: int
    peak: int = 0
    starts: int = 0
    restarts: int = 0
    evictions: int = 0
    finished: int = 0

    def add(self, other: BudgetStats) -> None:
        """Fold another process's figures in (peaks add up: the processes run side by side)."""
        self.peak += other.peak
        self.starts += other.starts
        self.restarts += other.restarts
        self.evictions += other.evictions
        self.finished += other.finished


class Untaken:
    """The matches not yet taken, in schedule order, indexed by bot."""

    def __init__(self, matches: Sequence[Any]) -> None:
        self.matches = list(matches)
        self._taken = bytearray(len(self.matches))
        self._head = 0
        self._by_bot: dict[str, list[int]] = {}
        self._next: dict[str, int] = {}  # index into _by_bot[name] of its first untaken
        self.left: dict[str, int] = {}
        for position, match in enumerate(self.matches):
            for name in dict.fromkeys(match.seats):
                self._by_bot.setdefault(name, []).append(position)
                self.left[name] = self.left.get(name, 0) + 1
        self._next = dict.fromkeys(self._by_bot, 0)
        self.remaining = len(self.matches)

    def names(self) -> list[str]:
        return list(self._by_bot)

    def is_untaken(self, position: int) -> bool:
        return not self._taken[position]

    def take(self, position: int) -> Any:
        """Mark the match at ``position`` taken; returns it."""
        assert not self._taken[position], position
        self._taken[position] = 1
        self.remaining -= 1
        match = self.matches[position]
        for name in dict.fromkeys(match.seats):
            self.left[name] -= 1
        return match

    def head(self) -> int:
        """The first untaken position (``len(matches)`` when none is left)."""
        while self._head < len(self._taken) and self._taken[self._head]:
            self._head += 1
        return self._head

    def next_of(self, name: str) -> int | None:
        """The position of ``name``'s first untaken match, ``None`` if it has none."""
        positions = self._by_bot.get(name, ())
        i = self._next.get(name, 0)
        while i < len(positions) and self._taken[positions[i]]:
            i += 1
        if name in self._next:
            self._next[name] = i
        return positions[i] if i < len(positions) else None

    def of_bot(self, name: str) -> Iterator[int]:
        """``name``'s untaken positions, in order."""
        first = self.next_of(name)
        if first is None:
            return
        positions = self._by_bot[name]
        for position in positions[self._next[name] :]:
            if not self._taken[position]:
                yield position

    def from_head(self, limit: int | None = None) -> Iterator[int]:
        """Untaken positions from the first, below ``limit`` (all when ``None``)."""
        end = len(self._taken) if limit is None else min(limit, len(self._taken))
        for position in range(self.head(), end):
            if not self._taken[position]:
                yield position

    def withdraw(self, name: str) -> list[Any]:
        """Take every untaken match of ``name`` (a bot that could not start); returns them."""
        return [self.take(position) for position in list(self.of_bot(name))]


class Preference:
    """The next match for one process playing matches, from the bots live there.

    ``live[name]`` is how many instances of a counted bot that process has running (set
    by whoever owns the bots). ``binding`` False (the bound is never reached): schedule
    order, the first match ``attempt`` accepts. Otherwise (see the module docstring)
    among the first ``lookahead`` untaken matches: a ready one (its counted bots all
    live), then the first match of each live bot, then the first ones left.
    """

    def __init__(
        self,
        untaken: Untaken,
        counted: Callable[[str], bool],
        *,
        binding: bool,
        lookahead: int = LOOKAHEAD,
    ) -> None:
        self.untaken = untaken
        self.counted = counted
        self.binding = binding
        self.lookahead = lookahead
        self.live: dict[str, int] = {}
        self._ready: list[int] = []  # a heap of positions that were ready when pushed

    def went_live(self, name: str) -> None:
        """``name``'s instances are running here now: its ready matches may be preferred."""
        if not self.binding:
            return
        for position in self.untaken.of_bot(name):
            if self.is_ready(position):
                heapq.heappush(self._ready, position)

    def is_ready(self, position: int) -> bool:
        """Untaken, and every counted bot of it has the instances it needs running here."""
        if not self.untaken.is_untaken(position):
            return False
        match = self.untaken.matches[position]
        need = tables_of(match)
        return all(self.live.get(name, 0) >= need for name in match.seats if self.counted(name))

    def pick(self, attempt: Callable[[Any], bool]) -> Any | None:
        """The first candidate ``attempt`` accepts (it reserves what it needs), now taken."""
        candidates = self._candidates()
        try:
            for position in candidates:
                if self.untaken.is_untaken(position) and attempt(self.untaken.matches[position]):
                    return self.untaken.take(position)
        finally:
            candidates.close()  # puts back the ready positions it looked at
        return None

    def _candidates(self) -> Generator[int, None, None]:
        if not self.binding:
            yield from self.untaken.from_head()
            return
        limit = self.untaken.head() + self.lookahead
        yield from self._ready_below(limit)
        firsts = (self.untaken.next_of(name) for name in list(self.live))
        yield from sorted({p for p in firsts if p is not None and p < limit})
        yield from self.untaken.from_head(limit)

    def _ready_below(self, limit: int) -> Iterator[int]:
        """Ready positions below ``limit`` in order; stale heap entries are dropped."""
        kept: list[int] = []
        try:
            while self._ready and self._ready[0] < limit:
                position = heapq.heappop(self._ready)
                if (kept and kept[-1] == position) or not self.is_ready(position):
                    continue  # pushed twice (its bot went live twice), or stale
                kept.append(position)
                yield position
        finally:  # those not taken stay candidates
            for position in kept:
                if self.untaken.is_untaken(position):
                    heapq.heappush(self._ready, position)

    def victims(
        self, room: int, idle: Iterable[str], weight: Callable[[str], int]
    ) -> list[str] | None:
        """Idle live bots to stop so that ``room`` more processes fit: the ones whose next
        match comes last first (none left: first of all); ``None`` if they do not free enough."""
        if room <= 0:
            return []
        order = sorted(idle, key=self._belady, reverse=True)
        chosen: list[str] = []
        for name in order:
            if room <= 0:
                break
            chosen.append(name)
            room -= weight(name)
        return chosen if room <= 0 else None

    def _belady(self, name: str) -> tuple[int, int]:
        position = self.untaken.next_of(name)
        return (1, 0) if position is None else (0, position)


def keep_logs(driver: object, run: int) -> None:
    """Rename a stopped launched bot's logs ``NAME.stderr.run-N.log`` before it starts
    again, so the next run's logs (``NAME.stderr.log``) do not replace them."""
    for attribute in ("stdout_log", "stderr_log"):
        log = getattr(driver, attribute, None)
        if isinstance(log, Path) and log.exists():
            with contextlib.suppress(OSError):  # a log we cannot keep is not worth a tournament
                log.rename(log.with_suffix(f".run-{run}.log"))


class PoolPlan:
    """The worker pool's view of the bots its workers run (issue 12 item 5).

    The coordinator keeps the matches left (:class:`Untaken`, shared by the workers) and
    one :class:`WorkerView` per worker: the bots it reports running after each match.
    ``bound`` is each worker's; ``failed`` the bots that could not start in some worker
    (their matches left are forfeits, :meth:`withdraw`).
    """

    def __init__(
        self,
        specs: Sequence[Any],
        counted: Callable[[str], bool],
        bound: int,
        *,
        lookahead: int = LOOKAHEAD,
    ) -> None:
        self.untaken = Untaken(specs)
        self.counted = counted
        self.bound = bound
        self.lookahead = lookahead
        needed: dict[str, int] = {}
        for spec in specs:
            for name in spec.seats:
                needed[name] = max(needed.get(name, 1), tables_of(spec))
        self.binding = sum(n for name, n in needed.items() if counted(name)) > bound
        self.failed: dict[str, str] = {}

    def worker(self) -> WorkerView:
        return WorkerView(self)

    def withdraw(self, name: str, tail: str) -> list[Any]:
        """``name`` could not start: take its matches left (returned: its forfeits)."""
        self.failed.setdefault(name, tail)
        return self.untaken.withdraw(name)


class WorkerView:
    """One worker's bots as it last reported them, and what its budget did."""

    def __init__(self, plan: PoolPlan) -> None:
        self._plan = plan
        self.preference = Preference(
            plan.untaken, plan.counted, binding=plan.binding, lookahead=plan.lookahead
        )
        self.stats = BudgetStats(plan.bound)
        self._seen: set[tuple[str, int]] = set()

    def next(self) -> Any | None:
        """The next match for this worker (see :class:`Preference`), taken; ``None``: none left."""
        return self.preference.pick(lambda _: True)

    def release_for(self, spec: Any) -> list[str]:
        """The bots the worker should stop before ``spec``: those with no match left, then
        as many idle ones as the bound needs, the one needed last first (Belady)."""
        live = self.preference.live
        seats = set(spec.seats)
        left = self._plan.untaken.left
        done = [name for name in live if not left.get(name, 0) and name not in seats]
        need = sum(
            max(tables_of(spec) - live.get(name, 0), 0)
            for name in seats
            if self._plan.counted(name)
        )
        over = sum(live.values()) - sum(live[name] for name in done) + need - self._plan.bound
        idle = [name for name in live if name not in seats and name not in done]
        victims = self.preference.victims(over, idle, live.__getitem__) or []
        self.stats.finished += len(done)
        self.stats.evictions += len(victims)
        return done + victims

    def played(self, released: Sequence[str], live: dict[str, int]) -> None:
        """The worker played a match after stopping ``released``; ``live`` is what it runs now."""
        kept = {n: c for n, c in self.preference.live.items() if n not in released}
        for name, count in live.items():
            for k in range(kept.get(name, 0), count):
                self.stats.starts += 1
                self.stats.restarts += (name, k) in self._seen
                self._seen.add((name, k))
        self.stats.peak = max(self.stats.peak, sum(live.values()))
        self.preference.live = dict(live)
        for name, count in live.items():
            if count > kept.get(name, 0):
                self.preference.went_live(name)

    def lost(self) -> None:
        """The worker died (its bots with it): a new one starts with none."""
        self.preference.live = {}

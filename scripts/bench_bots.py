"""Benchmark: a 200-bot round robin of launched bots on a budget (issue 12 item 5), one run.

Three parts, on temporary SQLite stores, launched bots being
``examples_bots/calling_station.py`` processes (sandbox off, one process per bot:
``duplicate = false``):

1. **Scheduling.** For 20, 100 and 200 bots: the round robin scheduled and stored
   (:func:`arena.tournament._runner.prepare`: 190, 4,950 and 19,900 pairings), read back
   and indexed for the budget, then every match's spec built, as the runner does before
   the first match: time per match of each, as a ratio to 20 bots (1.0: not quadratic).
2. **Playing, 200 bots.** The tournament is played with ``--bound`` live bot processes
   (the in-process executor, ``--concurrency`` tables) until ``--phase`` matches are
   played twice over: the first phase (the first bots it meets) against the second
   (later bots). Per played match: wall time (bot starts included), the summed RSS of the
   live bot processes (from ``/proc``, sampled at each match's end), restarts; the peak
   of live bot processes (counted in ``/proc``) against the bound; the time to the first
   match (all 200 bots used to be started before it: about a minute).
3. **The peer: 20 bots**, the same bound, in the same run: its first ``--phase`` matches.
4. **The whole 200-bot league, planned**: the budget's own choices (:class:`Preference`,
   Belady's victims) replayed over all 19,900 matches without processes, one table:
   bot starts per match with the default lookahead, with a lookahead of 1 (schedule
   order) and with none (unbounded), and the most results held for commit order.

The machine is shared and noisy: compare the ratios, not the absolute figures.

    .venv/bin/python scripts/bench_bots.py                    # about 2-3 minutes
    .venv/bin/python scripts/bench_bots.py --bound 32 --phase 100 --hands 4
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import trio

from arena.tournament import InProcessExecutor, Job, Store, load_tournament, run_tournament
from arena.tournament._budget import LOOKAHEAD, Preference, Untaken
from arena.tournament._executor import match_spec
from arena.tournament._formats import build_schedule
from arena.tournament._runner import prepare

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "examples_bots" / "calling_station.py"


def league(folder: Path, bots: int, hands: int, concurrency: int) -> Path:
    entries = "".join(
        f'[[bots]]\nname = "bot-{i:03d}"\ncommand = "{{python}} {BOT}"\n\n' for i in range(bots)
    )
    path = folder / f"league-{bots}.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [tournament]
            name = "league-{bots}"
            hands_per_match = {hands}
            duplicate = false
            concurrency = {concurrency}
            seed = 1
            output = "runs"
            database = "league-{bots}.db"
            sandbox = "off"

            [game]
            structure = "fixed_limit"
            big_blind = 2

            [timeouts]
            action = 10.0
            startup = 60.0
            hello = 10.0
            """
        )
        + entries
    )
    return path


def schedule_seconds(bots: int) -> tuple[int, float, float]:
    """(matches, seconds to schedule, store, read back and index a fresh ``bots``-bot round
    robin, seconds to build its match specs)."""
    with tempfile.TemporaryDirectory(prefix="bench-bots-") as tmp:
        config = load_tournament(league(Path(tmp), bots, 2, 1))
        start = time.perf_counter()
        with Store.open(config.database) as store:
            config, tournament_id, _ = prepare(config, store, resume=False)
            pending = store.pending_matches(tournament_id)
            Untaken(pending)
            stored = time.perf_counter()
            specs = [match_spec(config, match) for match in pending]
        return len(specs), stored - start, time.perf_counter() - stored


def planned(bots: int, bound: int, lookahead: int) -> tuple[float, int]:
    """(bot starts per match, most results held) over a whole ``bots``-bot round robin,
    one table, as the in-process executor chooses matches and victims."""
    with tempfile.TemporaryDirectory(prefix="bench-bots-") as tmp:
        schedule = build_schedule(load_tournament(league(Path(tmp), bots, 2, 1)))
    untaken = Untaken(schedule)
    ordered = lookahead > 1  # 1: schedule order (what an unbinding bound does), Belady still
    preference = Preference(untaken, lambda _: True, binding=ordered, lookahead=lookahead)
    live, starts, held, position = preference.live, 0, 0, {m.key: i for i, m in enumerate(schedule)}
    while untaken.remaining:
        first = untaken.head()
        match = preference.pick(lambda _: True)
        held = max(held, position[match.key] - first)
        missing = [name for name in match.seats if name not in live]
        idle = [name for name in live if name not in match.seats]
        for name in preference.victims(len(live) + len(missing) - bound, idle, live.get) or []:
            del live[name]
        for name in missing:
            live[name] = 1
            starts += 1
            preference.went_live(name)
        for name in [n for n in live if not untaken.left[n]]:
            del live[name]
    return starts / len(schedule), held


def bot_processes(parent: int) -> dict[int, int]:
    """The live children of ``parent`` (the launched bots at sandbox off): pid -> RSS bytes."""
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            if int(fields[1]) != parent or fields[0] == b"Z":
                continue
            with open(f"/proc/{entry.name}/statm", "rb") as statm:
                found[int(entry.name)] = int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    return found


@dataclasses.dataclass
class Phase:
    matches: int = 0
    seconds: float = 0.0
    rss: list[int] = dataclasses.field(default_factory=list)
    live: list[int] = dataclasses.field(default_factory=list)
    restarts: int = 0
    evictions: int = 0
    bots: int = 0  # distinct bots started by the phase's end

    def row(self, name: str, bound: int, peak: int) -> str:
        per = self.seconds / max(self.matches, 1)
        mean = sum(self.rss) / max(len(self.rss), 1) / 2**20
        most = max(self.rss, default=0) / 2**20
        each = sum(self.rss) / max(sum(self.live), 1) / 2**20
        return (
            f"| {name} | {self.matches} | {self.bots} | {per * 1000:,.0f} ms | {mean:,.0f} MB "
            f"| {most:,.0f} MB | {each:,.0f} MB | {peak} / {bound} "
            f"| {self.restarts / max(self.matches, 1):.2f} "
            f"| {self.evictions / max(self.matches, 1):.2f} |"
        )


class Measured(InProcessExecutor):
    """The in-process executor, stopped after ``phases`` x ``phase`` played matches, timing
    each phase and sampling the live bots' RSS at every match's end."""

    def __init__(self, bound: int, phase: int, phases: int) -> None:
        super().__init__(max_live_bots=bound)
        self.phase = phase
        self.phases = [Phase() for _ in range(phases)]
        self.played = 0
        self.peak = 0
        self.first_match = 0.0
        self._mark = 0.0
        self._restarts = 0
        self._evictions = 0

    async def run(self, job: Job) -> None:
        start = self._mark = time.perf_counter()
        me = os.getpid()
        with trio.CancelScope() as scope:

            async def deliver(spec, outcome) -> None:
                await job.deliver(spec, outcome)
                if self.played >= self.phase * len(self.phases):
                    return  # a table that ended as the run was being stopped
                now = time.perf_counter()
                if not self.played:
                    self.first_match = now - start
                current = self.phases[self.played // self.phase]
                current.matches += 1
                current.seconds += now - self._mark
                self._mark = now
                live = bot_processes(me)
                self.peak = max(self.peak, len(live))
                current.rss.append(sum(live.values()))
                current.live.append(len(live))
                if self.stats is not None:
                    current.restarts += self.stats.restarts - self._restarts
                    current.evictions += self.stats.evictions - self._evictions
                    self._restarts, self._evictions = self.stats.restarts, self.stats.evictions
                    current.bots = self.stats.starts - self.stats.restarts
                self.played += 1
                if self.played == self.phase * len(self.phases):
                    scope.cancel()

            await super().run(dataclasses.replace(job, deliver=deliver))


def play(bots: int, args: argparse.Namespace, phases: int) -> Measured:
    with tempfile.TemporaryDirectory(prefix="bench-bots-") as tmp:
        config = load_tournament(league(Path(tmp), bots, args.hands, args.concurrency))
        executor = Measured(args.bound, args.phase, phases)

        async def main() -> None:
            with Store.open(config.database) as store:
                await run_tournament(config, store, executor=executor)

        trio.run(main)
        return executor


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bound", type=int, default=16, help="max_live_bots")
    parser.add_argument("--phase", type=int, default=60, help="played matches per phase")
    parser.add_argument("--hands", type=int, default=2, help="hands per match")
    parser.add_argument("--concurrency", type=int, default=2, help="tables at once")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print("1. scheduling and storing a round robin, and building its specs (SQLite)\n")
    print(
        "| bots | matches | scheduled and stored, ms per match | ratio to 20 bots "
        "| specs built, ms per match | ratio to 20 bots |"
    )
    print("|---|---|---|---|---|---|")
    bases: tuple[float, float] | None = None
    for bots in (20, 100, 200):
        matches, stored, built = schedule_seconds(bots)
        per = (stored / matches, built / matches)
        bases = bases or per
        print(
            f"| {bots} | {matches:,} | {per[0] * 1000:.3f} | {per[0] / bases[0]:.2f} "
            f"| {per[1] * 1000:.3f} | {per[1] / bases[1]:.2f} |"
        )
    print(
        f"\n2-3. playing {args.hands}-hand matches, launched calling stations (sandbox off, one "
        f"process each), max_live_bots = {args.bound}, {args.concurrency} tables\n"
    )
    print(
        "| round robin, phase | matches | bots started by its end | per match | live RSS, mean "
        "| max | per live bot | peak live / bound | restarts per match | stopped for room per match |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    big = play(200, args, 2)
    peer = play(20, args, 1)
    first, later = big.phases
    print(first.row("200 bots, first phase", args.bound, big.peak))
    print(later.row("200 bots, later phase", args.bound, big.peak))
    print(peer.phases[0].row("20 bots (peer)", args.bound, peer.peak))
    ratio = peer.phases[0]

    def per(phase: Phase) -> float:
        return phase.seconds / max(phase.matches, 1)

    def rss(phase: Phase) -> float:
        return sum(phase.rss) / max(len(phase.rss), 1)

    print(
        f"\nratios: later / first phase: time per match {per(later) / per(first):.2f}, live RSS "
        f"{rss(later) / rss(first):.2f}; 200 bots (later) / 20 bots: time per match "
        f"{per(later) / per(ratio):.2f}, live RSS {rss(later) / rss(ratio):.2f}"
    )
    print(
        f"time to the first match: 200 bots {big.first_match:.1f} s, 20 bots "
        f"{peer.first_match:.1f} s (ratio {big.first_match / max(peer.first_match, 1e-9):.2f})"
    )
    print(
        f"\n4. the whole 200-bot league, planned without processes, max_live_bots = {args.bound}\n"
    )
    print("| lookahead | bot starts per match | most results held for commit order |")
    print("|---|---|---|")
    for name, lookahead in (
        ("1 (schedule order)", 1),
        (f"{LOOKAHEAD:,} (the default)", LOOKAHEAD),
        ("none", 1 << 30),
    ):
        rate, held = planned(200, args.bound, lookahead)
        print(f"| {name} | {rate:.2f} | {held:,} |")
    print(
        f"\nload average (1 min) before and after: {load:.1f}, {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

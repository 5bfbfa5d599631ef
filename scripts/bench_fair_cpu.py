"""Fair CPU between seats (issue 19 item 6): an honest bot next to a CPU hog, against alone.

The honest bot (``tests/hostile/bots/burner.py``) burns 0.3 s of CPU per decision. It plays
one match against a plain calling bot ("alone") and one against a hog
(``tests/hostile/bots/spinners.py``: 60 children, each in a session of its own, spinning
between its own decisions), alternating round by round so a busy neighbour slows both
alike. Printed: the honest bot's TIMEOUT faults, the median and max wall time of its
decisions as the dealer sees them (DecisionRequest sent to Action received), and the
arena's own lateness (a 10 ms Trio tick, how late it woke: median, 99th percentile, max),
each as a ratio to alone.
``--extra-hogs K`` adds K hog-against-hog matches in the same process at the same time
(is the dealer starved by many seats?). Usage: ``.venv/bin/python scripts/bench_fair_cpu.py
[--sandbox L2] [--rounds 2] [--hands 20] [--children 60] [--extra-hogs 0]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import trio

from arena.dealer import LaunchedBot, MatchSettings, run_match
from arena.engine import GameConfig

BOTS = Path(__file__).resolve().parent.parent / "tests" / "hostile" / "bots"


class _Timed:
    """A seat connection that notes each decision's wall time (request sent to action)."""

    def __init__(self, inner: object, times: list[float]) -> None:
        self._inner, self._times, self._sent = inner, times, None

    async def send(self, message) -> None:  # type: ignore[no-untyped-def]
        if message.WhichOneof("kind") == "decision":
            self._sent = time.perf_counter()
        await self._inner.send(message)  # type: ignore[attr-defined]

    async def receive(self):  # type: ignore[no-untyped-def]
        message = await self._inner.receive()  # type: ignore[attr-defined]
        if self._sent is not None and message.WhichOneof("kind") == "action":
            self._times.append(time.perf_counter() - self._sent)
            self._sent = None
        return message

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)


class TimedBot(LaunchedBot):
    """A launched bot whose decisions are timed by the dealer's side of the stream."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.times: list[float] = []

    async def connect(self):  # type: ignore[no-untyped-def]
        return _Timed(await super().connect(), self.times)


def _bot(name: str, script: str, *args: str, layer: str, timed: bool = False) -> LaunchedBot:
    kind = TimedBot if timed else LaunchedBot
    argv = [sys.executable, str(BOTS / script), f"fc{name[:10]}", *args]
    return kind(name, argv, sandbox=layer, startup_timeout=60, max_restarts=0)


async def _ticks(lateness: list[float], done: trio.Event) -> None:
    """How late a 10 ms sleep of the arena's own Trio loop wakes, until ``done``."""
    while not done.is_set():
        began = time.perf_counter()
        await trio.sleep(0.01)
        lateness.append(time.perf_counter() - began - 0.01)


async def _match(opponent: list[str], args: argparse.Namespace) -> dict[str, object]:
    settings = MatchSettings(
        config=GameConfig(), hands=args.hands, seed=None, action_timeout=args.timeout
    )
    honest = _bot("honest", "burner.py", str(args.burn), layer=args.sandbox, timed=True)
    other = _bot("other", *opponent, layer=args.sandbox)
    extra = [
        [
            _bot(f"x{i}{side}", "spinners.py", str(args.children), layer=args.sandbox)
            for side in "ab"
        ]
        for i in range(args.extra_hogs if opponent[1:] != ["0"] else 0)
    ]
    lateness: list[float] = []
    done = trio.Event()
    result = None
    async with trio.open_nursery() as nursery:
        bots = [honest, other, *(b for pair in extra for b in pair)]
        try:
            for bot in bots:
                await bot.start(nursery)
            await trio.sleep(1.0)  # the hog's children are spinning by now
            nursery.start_soon(_ticks, lateness, done)
            for pair in extra:
                nursery.start_soon(run_match, pair, settings)
            result = await run_match([honest, other], settings)
        finally:
            done.set()
            for bot in bots:
                await bot.aclose()
            nursery.cancel_scope.cancel()
    assert result is not None and isinstance(honest, TimedBot)
    faults = [f for f in result.faults if f.seat == 0]
    return {
        "times": honest.times,
        "timeouts": sum(f.reason == "TIMEOUT" for f in faults),
        "hog_faults": sum(f.seat == 1 for f in result.faults),
        "lateness": lateness,
        "clock": result.clocks[0] if result.clocks else "?",
    }


async def main(args: argparse.Namespace) -> None:
    runs: dict[str, list[dict[str, object]]] = {"alone": [], "hog": []}
    for _ in range(args.rounds):
        runs["alone"].append(await _match(["spinners.py", "0"], args))
        runs["hog"].append(await _match(["spinners.py", str(args.children)], args))
    summary = {}
    for kind, found in runs.items():
        times = [t for run in found for t in run["times"]]  # type: ignore[attr-defined]
        late = [t for run in found for t in run["lateness"]]  # type: ignore[attr-defined]
        summary[kind] = {
            "decisions": len(times),
            "timeouts": sum(run["timeouts"] for run in found),  # type: ignore[misc]
            "other_faults": sum(run["hog_faults"] for run in found),  # type: ignore[misc]
            "median": statistics.median(times) if times else float("nan"),
            "max": max(times) if times else float("nan"),
            "late_median": statistics.median(late) if late else float("nan"),
            "late_p99": statistics.quantiles(late, n=100)[98] if len(late) > 1 else float("nan"),
            "late_max": max(late) if late else float("nan"),
            "clock": found[0]["clock"],
        }
    alone = summary["alone"]
    print(
        f"sandbox {args.sandbox}, {args.hands} hands x {args.rounds} rounds, honest bot "
        f"{args.burn} s CPU per decision, hog {args.children} children, "
        f"{args.extra_hogs} extra hog matches, action timeout {args.timeout} s"
    )
    print(
        f"{'next to':<6} {'clock':>5} {'decisions':>9} {'TIMEOUT':>7} {'opp. faults':>11} "
        f"{'median s':>8} {'x alone':>7} {'max s':>6} {'x alone':>7} "
        f"{'arena late med ms':>17} {'x alone':>7} {'p99 ms':>6} {'x alone':>7} "
        f"{'max ms':>7} {'x alone':>7}"
    )
    for kind, row in summary.items():
        print(
            f"{kind:<6} {row['clock']:>5} {row['decisions']:>9} {row['timeouts']:>7} "
            f"{row['other_faults']:>11} {row['median']:8.3f} "
            f"{row['median'] / alone['median']:7.2f} {row['max']:6.2f} "
            f"{row['max'] / alone['max']:7.2f} {row['late_median'] * 1000:17.2f} "
            f"{row['late_median'] / alone['late_median']:7.2f} {row['late_p99'] * 1000:6.1f} "
            f"{row['late_p99'] / alone['late_p99']:7.2f} {row['late_max'] * 1000:7.1f} "
            f"{row['late_max'] / alone['late_max']:7.2f}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", default="L2")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--children", type=int, default=60)
    parser.add_argument("--burn", type=float, default=0.3)
    parser.add_argument("--timeout", type=float, default=2.0)
    parser.add_argument("--extra-hogs", type=int, default=0)
    trio.run(main, parser.parse_args())

"""Benchmark: tournament hands/s with 1 worker (in-process) and N worker processes, one run.

The same heads-up duplicate round robin (``--bots`` trivial bots, ``--hands`` per match,
the same seed) is played start to finish by ``arena.tournament.run_tournament`` with
``workers = 1`` (every match in this process, ``--concurrency`` tables at once) and with
``workers = N`` (:class:`arena.executors.ProcessExecutor`: N dealer processes, one match
at a time each), alternating ``--repeats`` times so that both see the same machine. Two
kinds of bot: ``builtin`` (in-process calling stations: the dealer's own cost) and
``launched`` (``examples_bots/calling_station.py`` processes over gRPC, started by each
process that plays them). The time is the whole run (workers and bots started, every
match committed); hands/s is hands dealt over it. The ratio is N workers over 1.

    .venv/bin/python scripts/bench_workers.py                   # builtin and launched, 2 workers
    .venv/bin/python scripts/bench_workers.py --kinds launched --bots 6 --hands 400
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import trio

from arena.executors import ProcessExecutor
from arena.tournament import Store, load_tournament, run_tournament

ROOT = Path(__file__).resolve().parent.parent


def tournament_file(folder: Path, kind: str, bots: int, hands: int, concurrency: int) -> Path:
    entries = []
    for i in range(bots):
        how = (
            'builtin = "calling-station"'
            if kind == "builtin"
            else f'command = "{{python}} {ROOT / "examples_bots" / "calling_station.py"}"'
        )
        entries.append(f'[[bots]]\nname = "bot-{i}"\n{how}\n')
    path = folder / "bench.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [tournament]
            name = "bench"
            hands_per_match = {hands}
            duplicate = true
            concurrency = {concurrency}
            max_tables_per_bot = {concurrency}
            seed = 1
            output = "runs"
            database = "arena.db"
            sandbox = "off"

            [game]
            structure = "fixed_limit"
            big_blind = 2

            [timeouts]
            action = 10.0
            """
        )
        + "\n".join(entries)
    )
    return path


def play_once(path: Path, workers: int) -> tuple[float, int]:
    """(seconds, hands) for one whole tournament in a fresh folder."""
    config = load_tournament(path)
    executor = ProcessExecutor(workers) if workers > 1 else None

    async def main() -> int:
        with Store.open(config.database) as store:
            progress = await run_tournament(config, store, executor=executor)
            assert progress.done == progress.total, "a match was not played"
        return progress.total

    start = time.perf_counter()
    matches = trio.run(main)
    seconds = time.perf_counter() - start
    return seconds, matches * config.hands_for(2)


def bench(kind: str, args: argparse.Namespace) -> None:
    rates: dict[int, list[float]] = {1: [], args.workers: []}
    for _ in range(args.repeats):
        for workers in rates:
            with tempfile.TemporaryDirectory(prefix="bench-workers-") as tmp:
                path = tournament_file(Path(tmp), kind, args.bots, args.hands, args.concurrency)
                seconds, hands = play_once(path, workers)
                rates[workers].append(hands / seconds)
    one, many = (statistics.median(rates[w]) for w in rates)
    print(
        f"| {kind} | {args.bots} bots, {args.hands} hands/match | {one:,.0f} | {many:,.0f} "
        f"| {many / one:.2f} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", nargs="+", default=["builtin", "launched"])
    parser.add_argument("--bots", type=int, default=6)
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=2, help="tables at once, workers = 1")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.workers < 2:
        parser.error("--workers must be at least 2 (1 is the baseline)")
    print(f"| bots | tournament | workers = 1 hands/s | workers = {args.workers} hands/s | ratio |")
    print("|---|---|---|---|---|")
    before = os.getloadavg()[0]
    for kind in args.kinds:
        bench(kind, args)
    print(
        f"\nload average (1 min) before and after: {before:.1f}, {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores (above the core count, the workers share cores with others)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

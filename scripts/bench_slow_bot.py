"""Benchmark (issue 21 item 1): how much one slow bot stretches a league.

The league is the one ``arena tournament init`` writes (a duplicate heads-up round robin,
``--hands`` per match, 2 s per decision, one table at a time) of five built-in bots and one
launched bot (``scripts/_sleeper_bot.py``): once sleeping ``--sleep`` seconds before each
decision (no CPU: the CPU clock's backstop and the wall budget are what stop it), once the
same bot without the sleep. Both leagues are played in the same run, alternating
``--repeats`` times; printed: each league's median time, the ratio slow over fast, and
the slow bot's faults by reason. The target is a ratio of at most 1.5 with the defaults: the sleeper spends its wall
budget at its first decision, is sat out of that match and benched (``bench_after = 1``),
and its other matches are recorded as not started.

    .venv/bin/python scripts/bench_slow_bot.py
    .venv/bin/python scripts/bench_slow_bot.py --sleep 3 --hands 200 --repeats 1
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import textwrap
import time
from collections import Counter
from pathlib import Path

import trio

from arena.tournament import Store, load_tournament, run_tournament

HERE = Path(__file__).resolve().parent
BUILTINS = ("random", "calling-station", "rule-based", "random", "calling-station")


def league_file(folder: Path, sleep: float, hands: int, extra: str) -> Path:
    entries = [
        f'[[bots]]\nname = "{policy}-{i}"\nbuiltin = "{policy}"\n'
        for i, policy in enumerate(BUILTINS)
    ]
    command = f"{{python}} {HERE / '_sleeper_bot.py'} {sleep}"
    entries.append(f'[[bots]]\nname = "sleeper"\ncommand = "{command}"\n')
    path = folder / "league.toml"
    header = textwrap.dedent(
        f"""
        [tournament]
        name = "league"
        format = "round_robin"
        hands_per_match = {hands}
        duplicate = true
        seed = 1
        output = "runs"
        database = "arena.db"

        [timeouts]
        action = 2.0
        startup = 30.0
        """
    )
    path.write_text(header + extra + "\n" + "\n".join(entries))
    return path


def play(sleep: float, hands: int, extra: str) -> tuple[float, Counter[str]]:
    """(seconds, the sleeper's faults by reason) for one whole league in a fresh folder."""
    with tempfile.TemporaryDirectory(prefix="bench-slow-") as tmp:
        config = load_tournament(league_file(Path(tmp), sleep, hands, extra))

        faults: Counter[str] = Counter()
        benched: list[int] = []

        def finished(match_id: str, result) -> None:  # type: ignore[no-untyped-def]
            seat = result.names.index("sleeper") if "sleeper" in result.names else -1
            faults.update(f.reason for f in result.faults if f.seat == seat)

        async def main() -> None:
            with Store.open(config.database) as store:
                progress = await run_tournament(config, store, on_match_finished=finished)
                assert progress.done == progress.total, "a match was not recorded"
                benched.append(progress.not_started)  # matches left of a benched bot

        start = time.perf_counter()
        trio.run(main)
        faults["matches benched (recorded as not started)"] = benched[0]
        return time.perf_counter() - start, faults


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sleep", type=float, default=3.0)
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--timeouts", default="", help="extra [timeouts] lines, e.g. 'wall_budget = 10.0'"
    )
    args = parser.parse_args()
    extra = args.timeouts.replace(";", "\n")
    times: dict[str, list[float]] = {"fast": [], "slow": []}
    faults: Counter[str] = Counter()
    for _ in range(args.repeats):
        times["fast"].append(play(0.0, args.hands, extra)[0])
        print(f"  without the sleeper: {times['fast'][-1]:.1f} s", flush=True)
        seconds, seen = play(args.sleep, args.hands, extra)
        times["slow"].append(seconds)
        print(f"  with the sleeper: {seconds:.1f} s", flush=True)
        faults = seen
    fast, slow = (statistics.median(times[k]) for k in ("fast", "slow"))
    print(f"league of 6 (5 built-in + 1 launched), {args.hands} hands/match, 2 s per decision")
    print(f"without the sleeper: {fast:.1f} s")
    print(f"with a {args.sleep:g} s sleeper: {slow:.1f} s")
    print(f"ratio slow/fast: {slow / fast:.2f} (target <= 1.5)")
    print(f"the sleeper's faults: {dict(faults) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

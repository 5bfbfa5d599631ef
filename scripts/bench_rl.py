"""Environment steps per second: arena.rl's AEC environment beside PettingZoo's texas_holdem_v4.

Not a test: run it by hand (``python scripts/bench_rl.py``) after touching ``arena/rl/``
or the engine. Each environment is made as its package hands it out (``env()``:
texas_holdem_v4 with PettingZoo's three wrappers, arena.rl with the same checks built
in) and, in the last two rows, bare (``raw_env()``), and driven by the same loop:
``last()``, a uniformly random legal action read from the action mask, ``step``;
``reset`` after each hand. Rates are on this process's CPU time, rows alternate several
times and the best run of each counts (to shed the noise of a shared machine), so the
ratios are measured in one process. Target (issue 13 item 2): 2x.
``texas_holdem_v4`` (RLCard's limit hold'em) comes with the ``rl`` extra.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any


def steps_per_second(make: Callable[[], Any], seconds: float, seed: int) -> tuple[float, float]:
    """(steps/s, hands/s) of random legal play for about ``seconds``."""
    env = make()
    env.reset(seed=seed)
    rng = random.Random(seed)
    steps = hands = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                mask = obs["action_mask"]
                action = rng.choice(mask.nonzero()[0].tolist())
            env.step(action)
            steps += 1
        hands += 1
        if time.process_time() >= deadline:
            break
        env.reset()
    elapsed = time.process_time() - start
    return steps / elapsed, hands / elapsed


def profile(make: Callable[[], Any], seconds: float) -> None:
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.runcall(steps_per_second, make, seconds, 1)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(20)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per timed run (2)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per row, best kept")
    parser.add_argument("--profile", action="store_true", help="profile the arena rows")
    args = parser.parse_args(argv)
    try:
        from pettingzoo.classic import texas_holdem_v4

        import arena.rl
    except ImportError as error:
        print(f"{error}; install the rl extra: pip install -e '.[rl]'", file=sys.stderr)
        return 2

    rows: list[tuple[str, Callable[[], Any]]] = [
        ("texas_holdem_v4.env() (RLCard limit hold'em), 2", texas_holdem_v4.env),
        ("arena.rl.env() fixed limit, 2 players", lambda: arena.rl.env(players=2)),
        ("arena.rl.env() no limit, 2 players", lambda: arena.rl.env(structure="no_limit")),
        ("arena.rl.env() fixed limit, 6 players", lambda: arena.rl.env(players=6)),
        ("arena.rl.env() no limit, 6 players", lambda: arena.rl.env(6, structure="no_limit")),
        ("texas_holdem_v4.raw_env() (no wrappers), 2", texas_holdem_v4.raw_env),
        ("arena.rl.raw_env() fixed limit, 2 players", lambda: arena.rl.raw_env(players=2)),
    ]
    if args.profile:
        profile(rows[1][1], args.seconds)
        return 0
    best: dict[str, tuple[float, float]] = {}
    for repeat in range(args.repeats):
        for name, make in rows:
            rate = steps_per_second(make, args.seconds, seed=repeat)
            if rate[0] > best.get(name, (0.0, 0.0))[0]:
                best[name] = rate
    print("CPU time of this process; best of", args.repeats, "runs per row")
    print(f"{'environment':<52} {'steps/s':>10} {'hands/s':>9} {'ratio':>7}")
    for k, (name, _) in enumerate(rows):
        steps, hands = best[name]
        baseline = best[rows[0][0] if k < 5 else rows[5][0]][0]
        print(f"{name:<52} {steps:>10,.0f} {hands:>9,.0f} {steps / baseline:>6.1f}x")
    worst = min(best[name][0] for name, _ in rows[1:5]) / best[rows[0][0]][0]
    raw = best[rows[6][0]][0] / best[rows[5][0]][0]
    verdict = "met" if worst >= 2 else "missed"
    print(f"slowest env() row: {worst:.1f}x texas_holdem_v4.env() (target 2x: {verdict})")
    print(f"without wrappers, heads-up fixed limit: {raw:.1f}x texas_holdem_v4.raw_env()")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

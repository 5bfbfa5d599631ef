"""CPU time of the arena engine now against an earlier revision of it, in one process.

Not a test: run it by hand (``python scripts/bench_engine_ab.py``) after touching
``arena/engine/``. ``bench_engine.py`` compares the engine with PokerKit, but two runs of
it on a busy machine differ by more than a refactor costs; this one answers "did my
change make the engine slower?" directly. It loads ``arena/engine`` from git revision
``--before`` (default ``ecdb0e9~1``, the engine before the phase objects) under the name
``arena_before.engine`` beside the working tree's ``arena.engine``, then for each row of
``bench_engine.py`` (fixed, pot and no limit, 2 and 6 players, two policies) plays the
same seeded hands with each engine in turn, many short rounds alternating which goes
first, and prints the CPU-time ratio new / before (below 1.00: the new engine is
faster). The ratio is the median over rounds, which sheds the rounds another process
disturbed; ``total`` is the ratio of the summed times.
"""

from __future__ import annotations

import argparse
import gc
import io
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parent
ROOT = SCRIPTS.parent
sys.path.insert(0, str(SCRIPTS))

from bench_engine import PLAYER_COUNTS, POLICIES, STRUCTURES, Play, arena_plays  # noqa: E402

import arena.engine  # noqa: E402

BEFORE = "ecdb0e9~1"
LIMIT = 1.05  # issue 8: the engine may not lose more than 5%


def load_engine(revision: str, into: Path, name: str = "arena_before") -> ModuleType:
    """Import ``arena/engine`` as it was at ``revision``, as the package ``<name>.engine``.

    The files come from ``git archive``; their ``arena.engine`` imports are renamed, so
    the two engines share no module (the engine imports nothing else from ``arena``).
    """
    archive = subprocess.run(
        ["git", "archive", "--format=tar", revision, "arena/engine"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    package = into / name
    (package / "engine").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if not member.isfile() or not member.name.endswith(".py"):
                continue
            source = tar.extractfile(member).read().decode()  # type: ignore[union-attr]  # a file member has a body
            source = re.sub(r"\barena\.engine\b", f"{name}.engine", source)
            (package / "engine" / Path(member.name).name).write_text(source)
    sys.path.insert(0, str(into))
    __import__(f"{name}.engine")
    return sys.modules[f"{name}.engine"]


def config_for(engine: ModuleType, structure: str) -> object:
    """The benchmark's game for ``structure``, built from ``engine``'s own ``GameConfig``
    (each engine compares against its own enums)."""
    kind = engine.Structure(structure)
    if kind is engine.Structure.FIXED_LIMIT:
        return engine.GameConfig(structure=kind, small_bet=2)
    return engine.GameConfig(structure=kind, small_blind=1, big_blind=2)


def _cpu_seconds(play: Play, config: object, n: int, hands: int, seed: int) -> float:
    """CPU time of ``hands`` hands from ``seed`` (the same hands for either engine)."""
    import random

    rng = random.Random(seed)
    gc.collect()
    clock = time.process_time
    start = clock()
    for _ in range(hands):
        play(config, n, rng)  # type: ignore[arg-type]  # the before engine has its own GameConfig
    return clock() - start


def compare_row(
    before: tuple[Play, object], after: tuple[Play, object], n: int, hands: int, rounds: int,
    seed: int,
) -> tuple[float, float, float, float]:  # fmt: skip
    """(median ratio, total ratio, before us/hand, after us/hand) over ``rounds`` rounds of
    ``hands`` hands each; each round plays new seeded hands, alternating who goes first."""
    ratios: list[float] = []
    sum_before = sum_after = 0.0
    for k in range(rounds):
        if k % 2:
            t_after = _cpu_seconds(*after, n, hands, seed + k)
            t_before = _cpu_seconds(*before, n, hands, seed + k)
        else:
            t_before = _cpu_seconds(*before, n, hands, seed + k)
            t_after = _cpu_seconds(*after, n, hands, seed + k)
        ratios.append(t_after / t_before)
        sum_before += t_before
        sum_after += t_after
    played = hands * rounds
    return (
        statistics.median(ratios),
        sum_after / sum_before,
        sum_before / played * 1e6,
        sum_after / played * 1e6,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help=f"git revision to compare with ({BEFORE})")
    parser.add_argument("--hands", type=int, default=200, help="hands per round (200)")
    parser.add_argument("--rounds", type=int, default=15, help="rounds per row (15)")
    parser.add_argument("--seed", type=int, default=20240601, help="policy and deck seed")
    parser.add_argument("--quick", action="store_true", help="short run: 100 hands x 7 rounds")
    parser.add_argument("--only", default="", help="rows whose label contains this text")
    args = parser.parse_args(argv)
    hands, rounds = (100, 7) if args.quick else (args.hands, args.rounds)

    with tempfile.TemporaryDirectory(prefix="bench_engine_ab_") as tmp:
        old = load_engine(args.before, Path(tmp))
        old_plays, new_plays = arena_plays(old), arena_plays(arena.engine)
        print(
            f"arena engine: working tree / {args.before}, CPU time, {rounds} rounds x "
            f"{hands} hands per row, median ratio of rounds; Python {sys.version.split()[0]}"
        )
        header = (
            f"{'structure':12s} {'players':>7s} {'policy':11s} {'before us':>10s} "
            f"{'now us':>8s} {'ratio':>6s} {'total':>6s}"
        )
        print(header)
        print("-" * len(header))
        worst = 0.0
        all_before = all_after = 0.0
        for structure in STRUCTURES:
            for n in PLAYER_COUNTS:
                for policy in POLICIES:
                    label = f"{structure.value} {n} {policy}"
                    if args.only not in label:
                        continue
                    median, total, us_before, us_after = compare_row(
                        (old_plays[policy], config_for(old, structure.value)),
                        (new_plays[policy], config_for(arena.engine, structure.value)),
                        n,
                        hands,
                        rounds,
                        args.seed,
                    )
                    worst = max(worst, median)
                    all_before += us_before
                    all_after += us_after
                    flag = "  > 5% slower" if median > LIMIT else ""
                    print(
                        f"{structure.value:12s} {n:>7d} {policy:11s} {us_before:>10.1f} "
                        f"{us_after:>8.1f} {median:>6.3f} {total:>6.3f}{flag}"
                    )
        if all_before:
            print(
                f"\nall rows: {all_after / all_before:.3f} (sum of us per hand); worst row {worst:.3f}"
            )
    return 0 if worst <= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())

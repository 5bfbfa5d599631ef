"""Benchmark the arena's 5-card evaluator against treys on the same random hands.

Not a test: run it by hand (``python scripts/bench_eval.py``) after touching
``arena/engine/_eval.py``. Both evaluators see the same seeded 100,000 hands, each
timed over several repeats (the best run counts, to shed scheduler noise). treys
comes with the ``bench`` extra: ``pip install -e '.[bench]'``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence

from arena.engine._cards import STANDARD_DECK
from arena.engine._eval import evaluate, evaluate5


def _best_rate(run: Callable[[], object], count: int, repeats: int) -> float:
    """Evaluations per second of the fastest of ``repeats`` runs over ``count`` hands."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return count / best


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000, help="random hands (100000)")
    parser.add_argument("--repeats", type=int, default=7, help="timed runs, best kept (7)")
    parser.add_argument("--seed", type=int, default=20240601, help="hand generator seed")
    args = parser.parse_args(argv)

    try:
        from treys import Card as TreysCard
        from treys import Evaluator
    except ImportError:
        print(
            "treys is not installed; it is in the bench extra: pip install -e '.[bench]'",
            file=sys.stderr,
        )
        return 2

    rng = random.Random(args.seed)
    hands = [tuple(rng.sample(STANDARD_DECK, 5)) for _ in range(args.hands)]
    treys_hands = [[TreysCard.new(str(card)) for card in hand] for hand in hands]
    treys_eval = Evaluator().evaluate

    def run_arena() -> None:
        for hand in hands:
            evaluate(hand)

    def run_arena5() -> None:
        for a, b, c, d, e in hands:
            evaluate5(a, b, c, d, e)

    def run_treys() -> None:
        board: list[int] = []
        for hand in treys_hands:
            treys_eval(hand, board)

    # Same hands, same answers (treys is lower-is-better, 7462 distinct ranks).
    for hand, treys_hand in zip(hands[:1000], treys_hands[:1000], strict=True):
        assert evaluate(hand) == 7463 - treys_eval(treys_hand, []), hand

    rates = {
        "arena evaluate(hand)": _best_rate(run_arena, len(hands), args.repeats),
        "arena evaluate5(a, b, c, d, e)": _best_rate(run_arena5, len(hands), args.repeats),
        "treys Evaluator().evaluate(hand, [])": _best_rate(run_treys, len(hands), args.repeats),
    }
    treys_rate = rates["treys Evaluator().evaluate(hand, [])"]
    print(f"{len(hands):,} hands, best of {args.repeats} runs, Python {sys.version.split()[0]}")
    for name, rate in rates.items():
        print(f"  {name:38s} {rate:>12,.0f} evals/s  {rate / treys_rate:5.2f}x treys")
    return 0


if __name__ == "__main__":
    sys.exit(main())

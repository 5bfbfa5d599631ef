"""Benchmark: a full standings refit (read + fit + win rates + pairs + LOS) at league size.

Builds (once, cached in a temporary folder) an arena database of heads-up duplicate
matches between ``--bots`` bots, each with ``--units`` duplicate blocks, then times
``compute_standings`` on it: the goal is under 0.5 s for 200 bots and 20,000 matches.
The old pure-Python standings (``scripts/_reference_standings.py``) are timed in the
same run on a smaller database (``--old-matches``) with the new code beside them, so the
ratio does not depend on how busy the machine is.

    .venv/bin/python scripts/bench_standings.py                 # 200 bots, 20,000 matches
    .venv/bin/python scripts/bench_standings.py --bots 50 --matches 2000 --old-matches 500
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from arena.tournament import Store, compute_standings

GAME_TYPE = "fixed_limit"
HANDS_PER_UNIT = 2  # heads-up duplicate: each deal from both seats


def build_database(path: Path, *, bots: int, matches: int, units: int, seed: int = 1) -> Path:
    """A database of ``matches`` heads-up duplicate matches between ``bots`` bots.

    Pairs are taken round-robin (every pair once before any twice); bot ``k`` is ``k * 5``
    mbb/hand stronger than bot 0, and each block's chips are that edge plus noise.
    Synchronous writes are off: this is a throwaway benchmark file.
    """
    rng = random.Random(seed)
    names = [f"bot-{k:03d}" for k in range(bots)]
    pairs = list(itertools.combinations(range(bots), 2))
    rng.shuffle(pairs)
    schedule = [
        {"key": f"m{m:06d}", "seats": [names[a], names[b]], "hands": units * HANDS_PER_UNIT}
        for m, (a, b) in enumerate(itertools.islice(itertools.cycle(pairs), matches))
    ]
    config = {"ratings": {"anchor": names[0], "anchor_rating": 1000.0}}
    with Store.open(path) as store:
        store._db.execute("PRAGMA synchronous = OFF")
        tournament_id = store.create_tournament("bench", json.dumps(config), schedule)
        for row in schedule:
            a, b = (names.index(bot) for bot in row["seats"])
            edge = (b - a) * 5 * HANDS_PER_UNIT * 2 / 1000.0  # chips per block, big blind 2
            chips = [round(rng.gauss(-edge, 12.0)) for _ in range(units)]
            seats = [
                {"bot": row["seats"][0], "seat": 0, "chips": sum(chips), "hands": row["hands"]},
                {"bot": row["seats"][1], "seat": 1, "chips": -sum(chips), "hands": row["hands"]},
            ]
            seats[0]["unit_chips"] = chips
            seats[1]["unit_chips"] = [-x for x in chips]
            store.record_match(
                tournament_id,
                row["key"],
                game_type=GAME_TYPE,
                big_blind=2,
                duplicate_block=HANDS_PER_UNIT,
                result_summary={"hands_played": row["hands"], "reason": "completed"},
                seats=seats,
                records_dir="-",
            )
    return path


def cached_database(bots: int, matches: int, units: int) -> Path:
    folder = Path(tempfile.gettempdir()) / "arena-bench-standings"
    folder.mkdir(exist_ok=True)
    path = folder / f"b{bots}-m{matches}-u{units}.db"
    if not path.exists():
        partial = path.with_suffix(".partial")
        for stale in folder.glob(partial.name + "*"):
            stale.unlink()
        started = time.perf_counter()
        build_database(partial, bots=bots, matches=matches, units=units)
        partial.rename(path)
        print(f"built {path} in {time.perf_counter() - started:.1f} s", flush=True)
    return path


def best_of(repeats: int, run) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def time_new(path: Path, repeats: int) -> float:
    with Store.open(path) as store:
        return best_of(repeats, lambda: compute_standings(store, GAME_TYPE, anchor="bot-000"))


def time_parts(path: Path, repeats: int) -> tuple[float, float]:
    """The read (SQLite rows and unit chips into numpy) and the refit from those columns."""
    from arena.tournament._standings import _read_seats, _standings_of

    with Store.open(path) as store:
        with store._read() as db:
            read = best_of(repeats, lambda: _read_seats(db, GAME_TYPE, None))
            seats = _read_seats(db, GAME_TYPE, None)
        refit = best_of(
            repeats,
            lambda: _standings_of(seats, GAME_TYPE, {}, anchor="bot-000", anchor_rating=1000.0),
        )
    return read, refit


def time_old(path: Path) -> float:
    import _reference_standings as old

    with Store.open(path) as store:

        def run() -> None:
            rows = store.match_rows(game_type=GAME_TYPE)
            old.standings_from_rows(
                rows, GAME_TYPE, store.current_ratings("elo", GAME_TYPE), anchor="bot-000"
            )

        return best_of(1, run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--matches", type=int, default=20_000)
    parser.add_argument("--units", type=int, default=100, help="duplicate blocks per match")
    parser.add_argument("--old-matches", type=int, default=2_000, help="size for the old code")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    big = cached_database(args.bots, args.matches, args.units)
    small = cached_database(args.bots, args.old_matches, args.units)
    new_big = time_new(big, args.repeats)
    read, refit = time_parts(big, args.repeats)
    new_small = time_new(small, args.repeats)
    old_small = time_old(small)
    print(
        f"standings refit, {args.bots} bots, {args.matches:,} matches x {args.units} blocks: "
        f"{new_big:.3f} s (goal < 0.5 s: {'met' if new_big < 0.5 else 'missed'}): "
        f"read {read:.3f} s + fit, win rates, pairs and LOS {refit:.3f} s"
    )
    print(
        f"same run, {args.old_matches:,} matches: old pure Python {old_small:.3f} s, "
        f"numpy {new_small:.3f} s, {old_small / new_small:.1f}x faster"
    )


if __name__ == "__main__":
    main()

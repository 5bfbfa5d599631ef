"""Benchmark: a full standings refit (read + fit + win rates + pairs + LOS) at league size.

Builds (once, cached in a temporary folder) an arena database of heads-up duplicate
matches between ``--bots`` bots, each with ``--units`` duplicate blocks, then times:

- cold: ``compute_standings`` on a new connection, reading every match (``arena
  ratings``, and a live leaderboard's first refit); the goal is under 0.5 s for 200 bots
  and 20,000 matches. Split into the read (SQLite rows and unit chips into per-row sums)
  and the refit from those (fit, win rates, pairs, LOS).
- live: what the live leaderboard pays per refit once it has read the database: one
  more match is recorded, then ``compute_standings`` runs again on the same connection
  (it reads only that match), ``--live`` times.

The old pure-Python standings (``scripts/_reference_standings.py``, which read and refit
everything every time, live or not) are timed in the same run on a smaller database
(``--old-matches``) beside the new code, so the ratios do not depend on how busy the
machine is. Figures are the best of ``--repeats`` (the machine may be shared); the first
cold refit of the process is printed too.

    .venv/bin/python scripts/bench_standings.py                 # 200 bots, 20,000 matches
    .venv/bin/python scripts/bench_standings.py --bots 50 --matches 2000 --old-matches 500
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from arena.tournament import Store, compute_standings

GAME_TYPE = "fixed_limit"
HANDS_PER_UNIT = 2  # heads-up duplicate: each deal from both seats
ANCHOR = "bot-000"


def bot_names(bots: int) -> list[str]:
    return [f"bot-{k:03d}" for k in range(bots)]


def record(
    store: Store,
    tournament_id: int,
    row: dict,
    units: int,
    rng: random.Random,
    elo: dict[str, float],
) -> None:
    """Record one scheduled heads-up match and its Elo updates, as a tournament does.

    Bot ``k`` is ``k * 5`` mbb/hand stronger than bot 0.
    """
    a, b = (int(bot.removeprefix("bot-")) for bot in row["seats"])
    edge = (b - a) * 5 * HANDS_PER_UNIT * 2 / 1000.0  # chips per block, big blind 2
    chips = [round(rng.gauss(-edge, 12.0)) for _ in range(units)]
    first, second = row["seats"]
    before = (elo.get(first, 1500.0), elo.get(second, 1500.0))
    score = 1.0 if sum(chips) > 0 else 0.0 if sum(chips) < 0 else 0.5
    change = 16.0 * (score - 1.0 / (1.0 + 10 ** ((before[1] - before[0]) / 400.0)))
    elo[first], elo[second] = before[0] + change, before[1] - change
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
        rating_updates=[
            (first, "elo", GAME_TYPE, before[0], elo[first]),
            (second, "elo", GAME_TYPE, before[1], elo[second]),
        ],
    )


def schedule(bots: int, matches: int, units: int, rng: random.Random, prefix: str) -> list[dict]:
    """Round-robin pairs (every pair once before any twice), shuffled."""
    names = bot_names(bots)
    pairs = list(itertools.combinations(range(bots), 2))
    rng.shuffle(pairs)
    return [
        {"key": f"{prefix}{m:06d}", "seats": [names[a], names[b]], "hands": units * HANDS_PER_UNIT}
        for m, (a, b) in enumerate(itertools.islice(itertools.cycle(pairs), matches))
    ]


def build_database(path: Path, *, bots: int, matches: int, units: int, seed: int = 1) -> Path:
    """A database of ``matches`` heads-up duplicate matches between ``bots`` bots.

    Each block's chips are the stronger bot's edge plus noise; Elo is updated after each
    match, as a tournament does. Synchronous writes are off: a throwaway benchmark file.
    """
    rng = random.Random(seed)
    rows = schedule(bots, matches, units, rng, "m")
    config = {"ratings": {"anchor": ANCHOR, "anchor_rating": 1000.0}}
    with Store.open(path) as store:
        store._db.execute("PRAGMA synchronous = OFF")
        tournament_id = store.create_tournament("bench", json.dumps(config), rows)
        elo: dict[str, float] = {}
        for row in rows:
            record(store, tournament_id, row, units, rng, elo)
    return path


def cached_database(bots: int, matches: int, units: int) -> Path:
    folder = Path(tempfile.gettempdir()) / "arena-bench-standings"
    folder.mkdir(exist_ok=True)
    path = folder / f"b{bots}-m{matches}-u{units}-elo.db"
    if not path.exists():
        partial = path.with_suffix(".partial")
        for stale in folder.glob(partial.name + "*"):
            stale.unlink()
        started = time.perf_counter()
        build_database(partial, bots=bots, matches=matches, units=units)
        partial.rename(path)
        print(f"built {path} in {time.perf_counter() - started:.1f} s", flush=True)
    return path


def timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def time_cold(path: Path, repeats: int) -> tuple[float, float]:
    """A refit on a new connection each time, nothing read before: the first and the best.

    The first also pays for growing the process's memory (page faults, costly in a VM).
    """

    def run() -> None:
        with Store.open(path, create=False) as store:
            compute_standings(store, GAME_TYPE, anchor=ANCHOR)

    times = [timed(run) for _ in range(repeats)]
    return times[0], min(times)


def time_parts(path: Path, repeats: int) -> tuple[float, float]:
    """The cold read (SQLite rows and unit chips into per-row sums) and the refit from those."""
    from arena.store._columns import ColumnsCache
    from arena.tournament._standings import _standings_of

    with Store.open(path, create=False) as store, store._read() as db:
        read = min(timed(lambda: ColumnsCache(GAME_TYPE, None).refresh(db)) for _ in range(repeats))
        columns = ColumnsCache(GAME_TYPE, None).refresh(db)
    refit = min(
        timed(lambda: _standings_of(columns, GAME_TYPE, {}, anchor=ANCHOR, anchor_rating=1000.0))
        for _ in range(repeats)
    )
    return read, refit


def time_live(path: Path, *, bots: int, units: int, refits: int) -> tuple[float, float]:
    """Best and median refit of a live leaderboard, one new match recorded before each.

    On a copy of the database, so the cached file stays as built.
    """
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "live.db"
        with sqlite3.connect(path) as source, sqlite3.connect(copy) as target:
            source.backup(target)
        rng = random.Random(2)
        rows = schedule(bots, refits, units, rng, "live")
        with Store.open(copy) as store:
            tournament_id = store.create_tournament("live", "{}", rows)
            compute_standings(store, GAME_TYPE, anchor=ANCHOR)  # the first refit reads it all
            elo = store.current_ratings("elo", GAME_TYPE)
            times = []
            for row in rows:
                record(store, tournament_id, row, units, rng, elo)
                times.append(timed(lambda: compute_standings(store, GAME_TYPE, anchor=ANCHOR)))
    return min(times), statistics.median(times)


def time_old(path: Path) -> float:
    import _reference_standings as old

    with Store.open(path, create=False) as store:

        def run() -> None:
            rows = store.match_rows(game_type=GAME_TYPE)
            elo = store.current_ratings("elo", GAME_TYPE)
            old.standings_from_rows(rows, GAME_TYPE, elo, anchor=ANCHOR)

        return timed(run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--matches", type=int, default=20_000)
    parser.add_argument("--units", type=int, default=100, help="duplicate blocks per match")
    parser.add_argument("--old-matches", type=int, default=2_000, help="size for the old code")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--live", type=int, default=5, help="live refits to time")
    args = parser.parse_args()

    big = cached_database(args.bots, args.matches, args.units)
    small = cached_database(args.bots, args.old_matches, args.units)
    first, cold = time_cold(big, args.repeats)
    read, refit = time_parts(big, args.repeats)
    live, live_median = time_live(big, bots=args.bots, units=args.units, refits=args.live)
    _, small_cold = time_cold(small, args.repeats)
    small_live, _ = time_live(small, bots=args.bots, units=args.units, refits=args.live)
    old_small = time_old(small)
    print(
        f"standings refit, {args.bots} bots, {args.matches:,} matches x {args.units} blocks: "
        f"cold {cold:.3f} s (goal < 0.5 s: {'met' if cold < 0.5 else 'missed'}; "
        f"first in this process {first:.3f} s) = "
        f"read {read:.3f} s + fit, win rates, pairs and LOS {refit:.3f} s; "
        f"live, one new match: {live:.3f} s (median of {args.live} {live_median:.3f} s)"
    )
    print(
        f"same run, {args.old_matches:,} matches: old pure Python {old_small:.3f} s per refit; "
        f"numpy cold {small_cold:.3f} s ({old_small / small_cold:.0f}x faster), "
        f"live {small_live:.3f} s ({old_small / small_live:.0f}x faster)"
    )


if __name__ == "__main__":
    main()

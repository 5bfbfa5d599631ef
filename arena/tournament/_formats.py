"""Who plays whom: the schedule of a tournament, deterministic given its seed.

Heads-up formats (round robin, gauntlet, ladder) list pairs; ring lists tables of 3 to 7
seats. Each :class:`ScheduledMatch` carries a key that is stable within the tournament
(``r1-m007``: round 1, match 7), the bots in seat order, the hands to play and a seed
derived from the tournament seed and the key, so a resumed tournament replays the same
decks for the same key.

Ring tables use a cyclic design: a base block ``D`` of ``table_size`` residues mod ``N``
(the number of bots) gives ``N`` tables per round, table ``b`` seating bots
``b + d_0, b + d_1, ...`` in that order. Every bot then plays ``table_size`` tables per
round, each seat position exactly once, and two bots whose indexes differ by ``δ`` share
as many tables as ``δ`` occurs among the differences of ``D``. The block is found by a
bounded depth-first search for differences that are as even as possible: every pair of
bots shares a table the same number of times, give or take one, when such a block exists
(it does for all the small fields we tried, see the tests).
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from arena.tournament._config import Format, TournamentConfig
from arena.tournament._scheduled import ScheduledMatch


@dataclass(frozen=True, kw_only=True)
class ScheduleStats:
    """Per-bot counts over a schedule.

    ``matches``: matches per bot; ``positions``: per bot, how often it sat in each seat
    position (index 0 = the first button); ``pairs``: for every two bots in the schedule
    (names sorted), how many matches they shared, zeros included.
    """

    matches: dict[str, int]
    positions: dict[str, tuple[int, ...]]
    pairs: dict[tuple[str, str], int]

    @property
    def match_spread(self) -> int:
        """Most matches of a bot minus fewest."""
        return _spread(self.matches.values())

    @property
    def position_spread(self) -> int:
        """The largest gap, over bots, between a bot's most and least played position."""
        return max((_spread(counts) for counts in self.positions.values()), default=0)

    @property
    def pair_spread(self) -> int:
        """Most tables shared by two bots minus fewest."""
        return _spread(self.pairs.values())


def _spread(values) -> int:
    values = list(values)
    return max(values) - min(values) if values else 0


def schedule_statistics(schedule: Sequence[ScheduledMatch]) -> ScheduleStats:
    """Count matches, seat positions and shared tables per bot (for tests and reports)."""
    names: list[str] = []
    for match in schedule:
        for name in match.seats:
            if name not in names:
                names.append(name)
    width = max((len(match.seats) for match in schedule), default=0)
    matches = Counter[str]()
    positions = {name: [0] * width for name in names}
    pairs = {tuple(sorted(pair)): 0 for pair in itertools.combinations(names, 2)}
    for match in schedule:
        for position, name in enumerate(match.seats):
            matches[name] += 1
            positions[name][position] += 1
        for pair in itertools.combinations(match.seats, 2):
            pairs[tuple(sorted(pair))] += 1
    return ScheduleStats(
        matches={name: matches[name] for name in names},
        positions={name: tuple(counts) for name, counts in positions.items()},
        pairs=pairs,  # type: ignore[arg-type]  # keys are tuple(sorted(pair)) of two names, typed tuple[str, ...]
    )


def match_seed(tournament_seed: int, key: str) -> int:
    """A match's deck seed: 63 bits of SHA-256 over the tournament seed and the key."""
    digest = hashlib.sha256(f"arena-tournament:{tournament_seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def build_schedule(
    config: TournamentConfig, *, standing_pool: Sequence[str] = ()
) -> list[ScheduledMatch]:
    """Every match of the tournament, all rounds, in play order.

    ``standing_pool`` (ladder only): the bots already rated in the database. The
    challengers play those of them that are in the file; with none, the other bots in
    the file. Raises ``ValueError`` if the format has no one to play.
    """
    names = list(config.bot_names)
    if config.tables:
        tables = list(config.tables)
    elif config.format is Format.ROUND_ROBIN:
        tables = _round_robin(names)
    elif config.format is Format.GAUNTLET:
        field = [name for name in names if name not in config.challengers]
        tables = _gauntlet(list(config.challengers), field)
    elif config.format is Format.LADDER:
        others = [name for name in names if name not in config.challengers]
        rated = set(standing_pool)
        pool = [name for name in others if name in rated] or others
        tables = _gauntlet(list(config.challengers), pool)
    else:
        tables = _ring(names, config.table_size)
    if not tables:
        raise ValueError(f"format {config.format.value!r}: nobody to play")
    width = max(3, len(str(len(tables))))
    schedule = []
    for round_ in range(1, config.rounds + 1):
        for number, seats in enumerate(tables, start=1):
            if config.format is not Format.RING and len(seats) == 2 and round_ % 2 == 0:
                seats = seats[::-1]  # heads-up: swap seats every other round
            key = f"r{round_}-m{number:0{width}d}"
            schedule.append(
                ScheduledMatch(
                    key=key,
                    seats=seats,
                    hands=config.hands_for(len(seats)),
                    seed=match_seed(config.seed, key),
                    duplicate=config.duplicate,
                    round=round_,
                )
            )
    return schedule


# --- heads-up ----------------------------------------------------------------------


def _round_robin(names: list[str]) -> list[tuple[str, ...]]:
    """Every pair once, ordered by the circle method so that consecutive matches are
    disjoint (a round of the circle seats every bot once); seat 0 from a regular
    tournament, so each bot has seat 0 in half its matches (rounded)."""
    n = len(names)
    slots = n + (n % 2)  # a bye when odd
    order = list(range(slots))
    pairs: list[tuple[int, int]] = []
    for _ in range(slots - 1):
        for k in range(slots // 2):
            a, b = order[k], order[slots - 1 - k]
            if a < n and b < n:
                pairs.append((min(a, b), max(a, b)))
        order = [order[0], order[-1], *order[1:-1]]
    return [
        (names[i], names[j]) if _first_sits_first(i, j, n) else (names[j], names[i])
        for i, j in pairs
    ]


def _first_sits_first(i: int, j: int, n: int) -> bool:
    """Whether bot ``i`` takes seat 0 against bot ``j`` (``i < j``).

    Odd ``n``: the rotational tournament (``i`` leads ``i+1 .. i+(n-1)/2`` mod ``n``),
    so every bot leads exactly ``(n-1)/2`` times. Even ``n``: the same on the first
    ``n-1`` bots, and the last bot leads against the even-numbered ones.
    """
    if n % 2 == 0:
        if j == n - 1:
            return i % 2 == 1
        n -= 1
    return (j - i) % n <= (n - 1) // 2


def _gauntlet(challengers: list[str], field: list[str]) -> list[tuple[str, ...]]:
    """Each challenger against each bot of the field, heads-up.

    Listed in rows: in row ``r`` challenger ``c`` meets field bot ``(r + c) mod F``, so
    the matches of a row have no bot in common while there are no more challengers than
    field bots. Challenger ``c`` takes seat 0 against field bot ``f`` when ``c + f`` is
    even, so both sides have seat 0 in half their matches, rounded.
    """
    tables: list[tuple[str, ...]] = []
    for r in range(len(field)):
        for c, challenger in enumerate(challengers):
            f = (r + c) % len(field)
            seats = (challenger, field[f])
            tables.append(seats if (c + f) % 2 == 0 else seats[::-1])
    return tables


# --- ring --------------------------------------------------------------------------


def _ring(names: list[str], size: int) -> list[tuple[str, ...]]:
    n = len(names)
    block = ring_block(n, size)
    return [tuple(names[(b + d) % n] for d in block) for b in range(n)]


_SEARCH_BUDGET = 40_000  # search nodes per window; keeps a block under a second


@cache
def ring_block(n: int, size: int) -> tuple[int, ...]:
    """A base block of ``size`` residues mod ``n`` (containing 0) whose differences are
    as even as a bounded search finds. Deterministic.

    Each nonzero residue ``δ`` occurs ``count(δ)`` times among the ordered differences,
    and bots ``δ`` apart share ``count(δ)`` of the ``n`` tables. The search tries windows
    ``lo <= count <= hi`` of width 0, 1, 2, ... around the mean ``size(size-1)/(n-1)``
    and keeps the first block that fits one.
    """
    if not 2 <= size <= n:
        raise ValueError(f"table size {size} does not fit {n} bots")
    if size == n:
        return tuple(range(n))
    total = size * (size - 1)
    mean = total / (n - 1)
    for width in range(size + 1):
        for low in range(int(mean), max(-1, int(mean) - width - 1), -1):
            if low <= mean <= low + width:
                block = _search_block(n, size, low, low + width)
                if block is not None:
                    return block
    raise AssertionError("unreachable: the widest window admits every block")


def _search_block(n: int, size: int, low: int, high: int) -> tuple[int, ...] | None:
    """Depth-first search for a block whose difference counts all lie in [low, high]."""
    counts = [0] * n
    block = [0]
    short = (n - 1) * low  # differences still missing below ``low``, summed
    nodes = 0

    def search(start: int) -> tuple[int, ...] | None:
        nonlocal short, nodes
        nodes += 1
        if len(block) == size:
            return tuple(block) if short == 0 else None
        if nodes > _SEARCH_BUDGET:
            return None
        for x in range(start, n - (size - len(block)) + 1):
            added = []
            ok = True
            for y in block:
                for d in ((x - y) % n, (y - x) % n):
                    if counts[d] < low:
                        short -= 1
                    counts[d] += 1
                    added.append(d)
                    ok = ok and counts[d] <= high
            k = len(block) + 1
            if ok and short <= total - k * (k - 1):
                block.append(x)
                found = search(x + 1)
                block.pop()
            else:
                found = None
            for d in added:
                counts[d] -= 1
                if counts[d] < low:
                    short += 1
            if found is not None:
                return found
            if nodes > _SEARCH_BUDGET:
                return None
        return None

    total = size * (size - 1)
    return search(1)

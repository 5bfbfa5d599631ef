"""Halite's matchmaking: the neediest version first, opponents near it in rating within a
random window, never a busy version, a team against itself, or a version twice."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from arena.ladder._matchmaking import Candidate, pick_tables
from arena.ladder._rating import Skill


def field(count: int, *, spread: float = 1.0) -> list[Candidate]:
    """``count`` versions of ``count`` teams, version i rated ``i * spread`` above the last."""
    return [
        Candidate(
            version=100 + i,
            team=f"team-{i}",
            skill=Skill(20.0 + i * spread, 2.0),
            matches=5,
            last_played=1000.0 + i,
            busy=False,
        )
        for i in range(count)
    ]


def test_busy_versions_never_play() -> None:
    candidates = field(10)
    candidates[3] = replace(candidates[3], busy=True, matches=0)
    for seed in range(50):
        tables = pick_tables(candidates, table_size=2, tables=5, rng=random.Random(seed))
        assert 103 not in {v for table in tables for v in table}
        assert len(tables) == 4  # nine idle versions make four pairs


def test_no_team_meets_itself_and_no_version_plays_twice() -> None:
    candidates = field(12)
    # team-0 and team-1 each have a second idle version
    candidates += [replace(candidates[0], version=900), replace(candidates[1], version=901)]
    team_of = {c.version: c.team for c in candidates}
    for seed in range(100):
        for size in (2, 3, 6):
            tables = pick_tables(candidates, table_size=size, tables=10, rng=random.Random(seed))
            seated = [v for table in tables for v in table]
            assert len(seated) == len(set(seated))
            for table in tables:
                assert len(table) == size
                assert len({team_of[v] for v in table}) == size


def test_it_stops_when_too_few_teams_are_idle() -> None:
    candidates = field(5)
    candidates.append(replace(candidates[0], version=999))  # 6 versions, 5 teams
    assert pick_tables(candidates, table_size=6, tables=3, rng=random.Random(1)) == []
    assert len(pick_tables(candidates, table_size=5, tables=3, rng=random.Random(1))) == 1
    assert len(pick_tables(candidates, table_size=2, tables=9, rng=random.Random(1))) == 3
    assert pick_tables(candidates, table_size=2, tables=0, rng=random.Random(1)) == []


def test_the_neediest_version_plays_first() -> None:
    candidates = field(20)
    candidates[7] = replace(candidates[7], matches=0, last_played=5000.0)
    candidates[12] = replace(candidates[12], matches=0, last_played=None)
    for seed in range(30):
        first, second = pick_tables(candidates, table_size=2, tables=2, rng=random.Random(seed))
        assert 112 in first  # never played beats played long ago at equal matches
        assert 107 in first or 107 in second


def test_least_recently_played_goes_first_at_equal_matches() -> None:
    candidates = field(20)  # version 100 played longest ago
    for seed in range(30):
        assert 100 in pick_tables(candidates, table_size=2, tables=1, rng=random.Random(seed))[0]


def test_opponents_are_usually_close_and_sometimes_far() -> None:
    candidates = field(40)
    candidates[20] = replace(candidates[20], matches=0)  # the seeker, rated in the middle
    distances = Counter()
    for seed in range(400):
        (table,) = pick_tables(candidates, table_size=2, tables=1, rng=random.Random(seed))
        (opponent,) = [v for v in table if v != 120]
        distances[abs(opponent - 120)] += 1
    close = sum(n for d, n in distances.items() if d <= 2)
    far = sum(n for d, n in distances.items() if d > 6)
    assert close > 400 * 0.6
    assert far > 400 * 0.03


def test_same_seed_same_tables_whatever_the_input_order() -> None:
    candidates = field(15)
    shuffled = list(candidates)
    random.Random(3).shuffle(shuffled)
    one = pick_tables(candidates, table_size=3, tables=4, rng=random.Random(42))
    two = pick_tables(shuffled, table_size=3, tables=4, rng=random.Random(42))
    assert one == two
    assert one != pick_tables(candidates, table_size=3, tables=4, rng=random.Random(43))


@pytest.mark.parametrize("size", [2, 3, 4, 6])
def test_over_many_batches_nobody_starves(size: int) -> None:
    """Ratings spread far apart (the extremes are nobody's near opponent) and few tables
    per batch: still every version plays, near its fair share (the neediest goes first),
    and one busy for half the time catches up."""
    candidates = {c.version: c for c in field(23, spread=5.0)}
    candidates[105] = replace(candidates[105], busy=True)  # busy for the first half
    rng = random.Random(7)
    for batch in range(120):
        if batch == 60:
            candidates[105] = replace(candidates[105], busy=False)
        for table in pick_tables(list(candidates.values()), table_size=size, tables=2, rng=rng):
            for version in table:
                old = candidates[version]
                candidates[version] = replace(old, matches=old.matches + 1, last_played=batch)
    played = {v: c.matches - 5 for v, c in candidates.items()}
    fair = sum(played.values()) / len(played)
    assert min(played.values()) >= 0.8 * fair


def test_seat_order_varies() -> None:
    candidates = field(8)
    candidates[0] = replace(candidates[0], matches=0)
    seats = Counter()
    for seed in range(200):
        (table,) = pick_tables(candidates, table_size=4, tables=1, rng=random.Random(seed))
        seats[table.index(100)] += 1
    assert set(seats) == {0, 1, 2, 3}
    assert min(seats.values()) > 20


def test_a_bad_table_size_is_refused() -> None:
    for size in (1, 7):
        with pytest.raises(ValueError):
            pick_tables(field(8), table_size=size, tables=1, rng=random.Random(0))
    with pytest.raises(ValueError):
        pick_tables([*field(3), field(3)[0]], table_size=2, tables=1, rng=random.Random(0))

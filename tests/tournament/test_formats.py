"""Schedules: who plays whom, in which seat, how often; balanced and deterministic."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from arena.tournament import TournamentConfig, parse_tournament
from arena.tournament._formats import (
    ScheduledMatch,
    build_schedule,
    ring_block,
    schedule_statistics,
)


def config(n: int, tournament: str = "", *, seed: int = 1) -> TournamentConfig:
    bots = "".join(f'[[bots]]\nname = "b{i}"\nbuiltin = "random"\n' for i in range(n))
    return parse_tournament(f'[tournament]\nname = "t"\nseed = {seed}\n{tournament}\n{bots}')


def pair_counts(schedule: list[ScheduledMatch]) -> Counter:
    return Counter(
        frozenset(pair) for match in schedule for pair in itertools.combinations(match.seats, 2)
    )


class TestRoundRobin:
    @pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8, 9, 12])
    def test_every_pair_once_per_round(self, n):
        """N*(N-1)/2 heads-up matches, each pair exactly once."""
        schedule = build_schedule(config(n))
        assert len(schedule) == n * (n - 1) // 2
        assert all(len(match.seats) == 2 for match in schedule)
        counts = pair_counts(schedule)
        assert len(counts) == n * (n - 1) // 2
        assert set(counts.values()) == {1}

    @pytest.mark.parametrize("n", [3, 4, 5, 6, 7, 8, 9, 12])
    def test_seat_zero_is_shared_as_evenly_as_possible(self, n):
        """Each bot has seat 0 in half its matches, rounded either way."""
        stats = schedule_statistics(build_schedule(config(n)))
        for counts in stats.positions.values():
            assert counts[0] in ((n - 1) // 2, n // 2)
        assert stats.position_spread <= 1

    @pytest.mark.parametrize("n", [4, 5])
    def test_two_rounds_swap_seats(self, n):
        """The second round repeats the pairs with seats swapped: seat 0 exactly half."""
        schedule = build_schedule(config(n, "rounds = 2"))
        assert len(schedule) == n * (n - 1)
        first = [m.seats for m in schedule if m.round == 1]
        second = [m.seats for m in schedule if m.round == 2]
        assert second == [seats[::-1] for seats in first]
        stats = schedule_statistics(schedule)
        assert stats.position_spread == 0
        assert set(pair_counts(schedule).values()) == {2}

    def test_consecutive_matches_use_different_bots(self):
        """Circle-method order: the first N/2 matches seat every bot once."""
        schedule = build_schedule(config(8))
        first = [name for match in schedule[:4] for name in match.seats]
        assert sorted(first) == sorted(f"b{i}" for i in range(8))

    def test_duplicate_rounds_hands_up_to_the_table(self):
        """With duplicate dealing heads-up matches play an even number of hands."""
        assert {m.hands for m in build_schedule(config(3, "hands_per_match = 7"))} == {8}
        plain = build_schedule(config(3, "hands_per_match = 7\nduplicate = false"))
        assert {(m.hands, m.duplicate) for m in plain} == {(7, False)}


class TestGauntletAndLadder:
    def test_gauntlet_challenger_plays_the_field(self):
        """Each challenger meets each other bot once; the field does not play itself."""
        cfg = config(5, 'format = "gauntlet"\nchallengers = ["b0", "b1"]')
        schedule = build_schedule(cfg)
        assert len(schedule) == 2 * 3
        assert set(pair_counts(schedule)) == {
            frozenset((c, f)) for c in ("b0", "b1") for f in ("b2", "b3", "b4")
        }
        stats = schedule_statistics(schedule)
        assert stats.matches == {"b0": 3, "b1": 3, "b2": 2, "b3": 2, "b4": 2}
        assert stats.position_spread <= 1

    @pytest.mark.parametrize(("n", "c"), [(n, c) for n in range(2, 10) for c in range(1, n)])
    def test_gauntlet_seats_are_balanced_for_both_sides(self, n, c):
        """Challengers and field bots each have seat 0 in half their matches, rounded."""
        names = ", ".join(f'"b{i}"' for i in range(c))
        schedule = build_schedule(config(n, f'format = "gauntlet"\nchallengers = [{names}]'))
        assert len(schedule) == c * (n - c)
        assert schedule_statistics(schedule).position_spread <= 1
        if c <= n - c:  # a row of c matches has no bot in common
            row = [name for match in schedule[:c] for name in match.seats]
            assert len(set(row)) == 2 * c

    def test_ladder_plays_only_the_standing_pool(self):
        """The newcomer plays the rated bots in the file and nobody else."""
        cfg = config(5, 'format = "ladder"\nchallengers = ["b4"]')
        schedule = build_schedule(cfg, standing_pool=["b0", "b2", "elsewhere"])
        assert {frozenset(m.seats) for m in schedule} == {
            frozenset(("b4", "b0")),
            frozenset(("b4", "b2")),
        }

    def test_ladder_without_a_pool_plays_the_other_bots(self):
        """An empty database: the challengers play every other bot in the file."""
        cfg = config(4, 'format = "ladder"\nchallengers = ["b3"]')
        schedule = build_schedule(cfg)
        assert {frozenset(m.seats) for m in schedule} == {
            frozenset(("b3", f"b{i}")) for i in range(3)
        }


RING_CASES = [(7, 6), (8, 4), (9, 3), (6, 6), (7, 3), (10, 5), (12, 7), (5, 3), (13, 4)]


class TestRing:
    @pytest.mark.parametrize(("n", "t"), RING_CASES)
    def test_every_bot_plays_every_position_equally(self, n, t):
        """Each bot plays t tables a round, once in each seat position."""
        schedule = build_schedule(config(n, f'format = "ring"\ntable_size = {t}'))
        assert len(schedule) == n
        assert all(len(set(m.seats)) == t for m in schedule)
        stats = schedule_statistics(schedule)
        assert set(stats.matches.values()) == {t}
        assert {counts for counts in stats.positions.values()} == {(1,) * t}
        assert stats.position_spread == 0

    @pytest.mark.parametrize(("n", "t"), RING_CASES)
    def test_pairs_share_tables_within_one(self, n, t):
        """Every two bots share a table as often as any other two, give or take one."""
        schedule = build_schedule(config(n, f'format = "ring"\ntable_size = {t}'))
        stats = schedule_statistics(schedule)
        assert len(stats.pairs) == n * (n - 1) // 2
        assert stats.pair_spread <= 1
        assert sum(stats.pairs.values()) == n * t * (t - 1) // 2

    def test_full_table_rotates_seats(self):
        """N == T: everyone at every table, each table a rotation of the first."""
        schedule = build_schedule(config(6, 'format = "ring"\ntable_size = 6'))
        first = schedule[0].seats
        assert [m.seats for m in schedule] == [first[i:] + first[:i] for i in range(6)]

    def test_duplicate_rounds_hands_to_the_table_size(self):
        """Duplicate dealing: hands a multiple of the table size (one deck per rotation)."""
        schedule = build_schedule(
            config(7, 'format = "ring"\ntable_size = 6\nhands_per_match = 100')
        )
        assert {m.hands for m in schedule} == {102}

    @pytest.mark.parametrize("t", [3, 4, 5, 6, 7])
    def test_small_fields_are_balanced_within_one(self, t):
        """For every field of t to 15 bots the cyclic block's pair counts differ by <= 1."""
        for n in range(t, 16):
            if (n, t) == (14, 7):
                continue  # no cyclic block within one exists here; the search gives 2
            block = ring_block(n, t)
            counts = Counter((x - y) % n for x in block for y in block if x != y)
            values = [counts[d] for d in range(1, n)]
            assert max(values) - min(values) <= 1, (n, t, block)


class TestDeterminism:
    @pytest.mark.parametrize("fmt", ['format = "round_robin"', 'format = "ring"\ntable_size = 4'])
    def test_same_seed_same_schedule(self, fmt):
        """The schedule is a function of the file."""
        assert build_schedule(config(8, fmt + "\nrounds = 2")) == build_schedule(
            config(8, fmt + "\nrounds = 2")
        )

    def test_different_seed_different_match_seeds(self):
        """Same pairs, new decks."""
        a = build_schedule(config(5, seed=1))
        b = build_schedule(config(5, seed=2))
        assert [m.seats for m in a] == [m.seats for m in b]
        assert not {m.seed for m in a} & {m.seed for m in b}

    def test_keys_and_seeds_are_unique(self):
        """Keys name round and match; no two matches share a key or a seed."""
        schedule = build_schedule(config(7, "rounds = 3"))
        keys = [m.key for m in schedule]
        assert len(set(keys)) == len(keys) == 63
        assert keys[0] == "r1-m001" and keys[-1] == "r3-m021"
        assert len({m.seed for m in schedule}) == 63
        assert all(0 <= m.seed < 2**63 for m in schedule)

    def test_rounds_get_new_seeds(self):
        """Round 2 replays the pairings with fresh decks."""
        schedule = build_schedule(config(3, "rounds = 2"))
        assert [m.round for m in schedule] == [1, 1, 1, 2, 2, 2]
        assert schedule[0].seed != schedule[3].seed

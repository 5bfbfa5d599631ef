"""Standings read from the database as numpy columns: same figures as the pure-Python standings."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from arena.store._intlists import parse_int_lists as _parse_int_lists
from arena.store._intlists import parse_joined_lists
from arena.tournament import Store, compute_standings
from arena.tournament._standings import standings_from_rows

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import _reference_standings as old
from bench_standings import build_database


def mixed_database(path: Path, seed: int) -> Path:
    """Heads-up and ring tables, whole-match results, cut-short matches with absent bots."""
    rng = random.Random(seed)
    names = [f"student-{k}" for k in range(7)]
    schedule = []
    for m in range(40):
        seats = rng.sample(names, rng.choice([2, 2, 3, 6]))
        schedule.append({"key": f"m{m}", "seats": seats, "hands": 10})
    config = {"ratings": {"anchor": names[0], "anchor_rating": 1000}}
    with Store.open(path) as store:
        tid = store.create_tournament("mixed", json.dumps(config), schedule)
        for row in schedule:
            units = rng.choice([0, 1, 3, 12])
            block = rng.choice([1, len(row["seats"])])
            cut = rng.random() < 0.25
            seats = []
            for s, bot in enumerate(row["seats"]):
                chips = [rng.randint(-40, 40) for _ in range(units)]
                seats.append(
                    {
                        "bot": bot,
                        "seat": s,
                        "chips": sum(chips) if units else rng.randint(-9, 9),
                        "hands": units * block,
                        "faults": rng.randint(0, 2),
                        "sat_out": cut and s == 0,
                        "unit_chips": chips,
                    }
                )
            store.record_match(
                tid,
                row["key"],
                game_type="fixed_limit",
                big_blind=rng.choice([2, 4]),
                duplicate_block=block,
                result_summary={"reason": "time_limit" if cut else "completed"},
                seats=seats,
                records_dir="-",
            )
    return path


def same_standings(new, ref) -> None:
    assert [r.bot for r in new.rows] == [r.bot for r in ref.rows]
    assert new.matches == ref.matches
    for a, b in zip(new.rows, ref.rows, strict=True):
        assert (a.matches, a.hands, a.faults) == (b.matches, b.hands, b.faults)
        assert a.fit.elo == pytest.approx(b.fit.elo, abs=1e-6)
        assert a.fit.ci95 == pytest.approx(b.fit.ci95, abs=1e-6)
        assert a.win_rate.hands == b.win_rate.hands
        assert a.win_rate.mbb_per_hand == pytest.approx(b.win_rate.mbb_per_hand, abs=1e-9)
        assert a.win_rate.ci95 == pytest.approx(b.win_rate.ci95, abs=1e-9)
    assert list(new.pairs) == list(ref.pairs)
    for key, rate in ref.pairs.items():
        assert new.pairs[key].mbb_per_hand == pytest.approx(rate.mbb_per_hand, abs=1e-9)
        assert new.pairs[key].ci95 == pytest.approx(rate.ci95, abs=1e-9)
    assert new.los == pytest.approx(ref.los, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_standings_from_the_database_match_the_pure_python_standings(tmp_path: Path, seed: int):
    """compute_standings (numpy columns read from SQLite) equals the old per-object standings."""
    with Store.open(mixed_database(tmp_path / "mixed.db", seed)) as store:
        rows = store.match_rows(game_type="fixed_limit")
        elo = store.current_ratings("elo", "fixed_limit")
        for anchor in (None, "student-3"):
            ref = old.standings_from_rows(rows, "fixed_limit", elo, anchor=anchor)
            same_standings(compute_standings(store, "fixed_limit", anchor=anchor), ref)
            same_standings(standings_from_rows(rows, "fixed_limit", elo, anchor=anchor), ref)


def test_benchmark_database_standings_match_too(tmp_path: Path):
    """The benchmark's league shape (heads-up duplicate blocks), small: same figures."""
    with Store.open(build_database(tmp_path / "b.db", bots=12, matches=80, units=6)) as store:
        rows = store.match_rows(game_type="fixed_limit")
        ref = old.standings_from_rows(rows, "fixed_limit", {}, anchor="bot-000", anchor_rating=1000)
        new = compute_standings(store, "fixed_limit", anchor="bot-000", anchor_rating=1000)
        same_standings(new, ref)
        assert (new.anchor, new.anchor_rating) == ("bot-000", 1000)


@pytest.mark.parametrize(
    "texts",
    [
        ["[]"],
        ["[1, -2, 3]", "[]", "[0]", "[-0]", "[123456789012345678, -5]"],
        ["[1,2]", "[ 3 ]", "[]", "[]"],
        ["[1 2]"],  # not JSON: the slow path says so
        ["[1.5]"],
        ["[1, 2", "]"],
        [],
        ["[1, , 2]"],
        ["[, 1]"],
        ["[1, ]"],
        ["[-]"],
        ["[1-2]"],
        ["[--1]"],
        ["[01]"],
        ["[-01]"],
        ["[[1]]"],
        ["]1["],
        ["[1][2]"],
        ["[1]", "[]", "[2]"],
        ["[]", "[5, 6]", "[]"],
        ["[1] "],
        [" [1]"],
        ["[1e5]"],
        ["[true]"],
        ["[\u0661]"],
        ["[" + "9" * 18 + ", -" + "9" * 18 + "]"],
        ["[" + "9" * 19 + "]"],  # JSON, but not a 64-bit number: refused
        ["[]", ""],
    ],
)
def test_int_list_parser_agrees_with_json(texts: list[str]):
    """The one-pass numpy parser gives what json.loads gives, or raises ValueError as it does."""
    try:
        lists = [json.loads(t) for t in texts]
        fits = all(type(v) is int and abs(v) < 2**63 for x in lists for v in x)
        expected = lists if all(isinstance(x, list) for x in lists) and fits else None
    except ValueError:
        expected = None
    if expected is None:
        with pytest.raises(ValueError):
            _parse_int_lists(texts)
        return
    values, counts = _parse_int_lists(texts)
    assert counts.tolist() == [len(x) for x in expected]
    assert values.tolist() == [v for x in expected for v in x]


def test_int_list_parser_on_many_random_lists():
    """Random lists, as the store writes them (json.dumps), parse exactly."""
    rng = random.Random(4)
    lists = [[rng.randint(-(10**12), 10**12) for _ in range(rng.randint(0, 9))] for _ in range(500)]
    values, counts = _parse_int_lists([json.dumps(x) for x in lists])
    assert counts.tolist() == [len(x) for x in lists]
    assert np.array_equal(values, np.array([v for x in lists for v in x], dtype=np.int64))


def test_lists_back_to_back_parse_like_each_on_its_own():
    """What one aggregate query returns ("[1, 2][][-3]") parses to the same values and lengths."""
    rng = random.Random(5)
    lists = [[rng.randint(-999, 999) for _ in range(rng.choice([0, 1, 4]))] for _ in range(300)]
    values, counts = parse_joined_lists("".join(json.dumps(x) for x in lists))
    assert counts.tolist() == [len(x) for x in lists]
    assert values.tolist() == [v for x in lists for v in x]
    assert [[], []] == [parse_joined_lists("")[0].tolist(), parse_joined_lists("")[1].tolist()]
    assert [1, 2, 3] == parse_joined_lists("[1,2][3]")[0].tolist()  # not the store's format
    for garbage in ("[1, 2", "[1][", "[1]x", "[1.5]", "[[1]]"):
        with pytest.raises(ValueError):
            parse_joined_lists(garbage)


def test_the_store_is_read_in_aggregate_rows_and_parsed_without_json(tmp_path: Path, monkeypatch):
    """Item 17: records come in one aggregate row per query, in record order, and no json.loads.

    The mixed database's keys ("m0", "m1", "m10", ...) sort unlike their ids, so a scan in
    key order (the tournament index) would be caught and read again row by row.
    """
    import arena.store._intlists as intlists

    def refuse(texts):
        raise AssertionError("the slow parser was used")

    monkeypatch.setattr(intlists, "_parse_slowly", refuse)
    statements: list[str] = []
    with Store.open(mixed_database(tmp_path / "mixed.db", 1)) as store:
        store._db.set_trace_callback(statements.append)
        for tournament in (None, "mixed"):
            assert 40 == compute_standings(store, "fixed_limit", tournament=tournament).matches
    assert [s for s in statements if "group_concat" in s]
    assert not [s for s in statements if "ORDER BY r.match_id" in s]

"""The numpy ratings give the figures of the pure-Python ones they replaced (scripts/_reference_standings.py)."""

from __future__ import annotations

import dataclasses
import math
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from arena.ratings import (
    MatchChips,
    PairResult,
    UnitTable,
    bot_win_rates,
    chip_los_matrix,
    fit_matrix,
    fit_ratings,
    margin_results,
    pair_win_rates,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import _reference_standings as old


def random_results(rng: random.Random, bots: int, count: int) -> list[PairResult]:
    names = [f"b{k}" for k in range(bots)]
    out = []
    for _ in range(count):
        a, b = rng.sample(names, 2)
        score = rng.choice([0.0, 0.5, 1.0, rng.random()])
        out.append(PairResult(a, b, score, rng.choice([1.0, 0.5, 1 / 3, rng.uniform(0.1, 3)])))
    return out


def random_matches(rng: random.Random, bots: int, count: int) -> list[MatchChips]:
    names = [f"bot-{k}" for k in range(bots)]
    matches = []
    for _ in range(count):
        seats = rng.sample(names, rng.choice([2, 2, 2, 3, 6]))
        units = rng.choice([0, 1, 2, 5, 40])
        chips = {bot: [rng.randint(-60, 60) for _ in range(units)] for bot in seats}
        if rng.random() < 0.2 and units:
            chips[seats[0]] = [7] * units  # a constant series: zero spread
        matches.append(
            MatchChips(
                bot_chips=chips,
                big_blind=rng.choice([2, 10]),
                hands_per_unit=rng.choice([1, len(seats)]),
            )
        )
    return matches


def same_ratings(new: dict, ref: dict) -> None:
    assert list(new) == list(ref)
    for name, rating in ref.items():
        got = new[name]
        assert got.elo == pytest.approx(rating.elo, abs=1e-6)
        assert got.ci95 == pytest.approx(rating.ci95, abs=1e-6)
        assert got.games == pytest.approx(rating.games, rel=1e-12)


def same_rates(new: dict, ref: dict) -> None:
    assert list(new) == list(ref)
    for key, rate in ref.items():
        got = new[key]
        assert got.hands == rate.hands, key
        assert got.mbb_per_hand == pytest.approx(rate.mbb_per_hand, rel=1e-9, abs=1e-9), key
        if math.isinf(rate.ci95):
            assert math.isinf(got.ci95), key
        else:
            assert got.ci95 == pytest.approx(rate.ci95, rel=1e-9, abs=1e-9), key


@pytest.mark.parametrize("seed", range(6))
def test_fit_matches_the_pure_python_fit(seed: int) -> None:
    """Random weighted results: the same ratings and intervals, anchored or not."""
    rng = random.Random(seed)
    results = random_results(rng, rng.choice([2, 3, 7, 25]), rng.choice([1, 30, 400]))
    anchor = results[0].b
    same_ratings(fit_ratings(results), old.fit_ratings(results))
    same_ratings(
        fit_ratings(results, anchor=anchor, anchor_rating=1000.0),
        old.fit_ratings(results, anchor=anchor, anchor_rating=1000.0),
    )
    same_ratings(fit_ratings(results, prior_games=0.25), old.fit_ratings(results, prior_games=0.25))


@pytest.mark.parametrize("seed", range(6))
def test_win_rates_pairs_and_los_match_the_pure_python_ones(seed: int) -> None:
    """Random tables of 2-6 seats, 0-40 units, mixed blinds: the same figures."""
    matches = random_matches(random.Random(seed), 8, 30)
    same_rates(bot_win_rates(matches), old.bot_win_rates(matches))
    same_rates(pair_win_rates(matches), old.pair_win_rates(matches))
    ref = old.chip_los_matrix(matches)
    new = chip_los_matrix(matches)
    assert list(new) == list(ref)
    for key, value in ref.items():
        assert new[key] == pytest.approx(value, abs=1e-12), key


@pytest.mark.parametrize("seed", range(4))
def test_margin_sums_fit_like_margin_results(seed: int) -> None:
    """Per-pair sums of every unit's margin score fit exactly like the PairResults they replace."""
    matches = [m for m in random_matches(random.Random(seed), 6, 25) if m.hands_per_unit]
    results = [
        result
        for m in matches
        for unit in range(len(next(iter(m.bot_chips.values()))))
        for result in margin_results(
            {bot: chips[unit] for bot, chips in m.bot_chips.items()},
            big_blind=m.big_blind,
            hands=m.hands_per_unit,
        )
    ]
    table = UnitTable.from_matches(matches)
    scores, played = table.margin_sums()
    met = [k for k, name in enumerate(table.names) if played[k].sum() > 0]
    names = [table.names[k] for k in met]
    fitted = fit_matrix(names, scores[sorted(met)][:, met], played[met][:, met], anchor=names[0])
    same_ratings(fitted, old.fit_ratings(results, anchor=names[0]))


def test_rows_of_one_length_give_the_bits_of_the_general_path():
    """Matches of equal length sum as a matrix; the sums equal the general path's to the bit."""
    rng = random.Random(9)
    names = [f"bot-{k}" for k in range(6)]
    uniform = [
        MatchChips(
            bot_chips={
                bot: [rng.randint(-60, 60) for _ in range(units)]
                for bot in rng.sample(names, rng.choice([2, 2, 3, 4]))
            },
            big_blind=3,
            hands_per_unit=rng.choice([1, 2]),
        )
        for units in [7] * 30 + [0] * 3
    ]
    odd = MatchChips(bot_chips={"bot-0": [1, 2, 3], "bot-1": [4, 5, 6]}, big_blind=2)
    fast = UnitTable.from_matches(uniform).summary()
    general = UnitTable.from_matches([*uniform, odd]).summary().take_matches(np.arange(33))
    assert fast.names == general.names
    for field in dataclasses.fields(fast):
        value = getattr(fast, field.name)
        if isinstance(value, np.ndarray):
            assert value.tobytes() == getattr(general, field.name).tobytes(), field.name

"""Side pots (R14) and splitting a pot with odd chips (R19), as pure functions."""

from __future__ import annotations

import pytest

from arena.engine import Pot
from arena.engine._pots import build_pots, split_pot


def test_r14_equal_contributions_make_one_pot():
    """Three players who put in the same amount share one main pot."""
    assert [Pot(30, (0, 1, 2))] == build_pots([10, 10, 10], [False] * 3)


def test_r14_folded_chips_stay_in_the_pot_without_eligibility():
    """A folded player's chips are in the pot, but the folded player cannot win it."""
    assert [Pot(25, (0, 1))] == build_pots([10, 10, 5], [False, False, True])


def test_r14_all_in_player_is_eligible_only_for_the_main_pot():
    """Chips above the all-in amount form a side pot the all-in player cannot win."""
    assert [Pot(60, (0, 1, 2)), Pot(60, (1, 2))] == build_pots([20, 50, 50], [False] * 3)


def test_r14_each_all_in_level_closes_a_side_pot():
    """All-ins at 30 and 60 make three pots; a folded player's 40 feeds the first two."""
    pots = build_pots([100, 30, 60, 100, 40], [False, False, False, False, True])
    assert [Pot(150, (0, 1, 2, 3)), Pot(100, (0, 2, 3)), Pot(80, (0, 3))] == pots


def test_r14_pots_hold_every_chip_put_in():
    """The pots add up to all contributions plus the dead money."""
    committed = [100, 30, 60, 100, 40]
    pots = build_pots(committed, [False, True, False, False, True], dead_money=7)
    assert sum(committed) + 7 == sum(pot.amount for pot in pots)


def test_r28_dead_money_joins_the_main_pot():
    """A carried Jackpots pot goes into the main pot, which everyone live can win."""
    assert [Pot(25, (0, 1)), Pot(5, (1,))] == build_pots([10, 15], [False, False], dead_money=5)


def test_r26_no_live_player_is_an_error():
    """Pots with nobody to award them to are refused rather than losing chips."""
    with pytest.raises(ValueError, match="no live player"):
        build_pots([10, 10], [True, True], dead_money=5)


def test_r19_even_split():
    """An even pot splits into equal shares."""
    assert split_pot(10, [0, 1]) == [(0, 5), (1, 5)]


def test_r19_odd_chip_goes_to_the_first_winner_in_order():
    """The odd chip goes to the first winner in the given (clockwise from the button's left) order."""
    assert split_pot(19, [3, 0]) == [(3, 10), (0, 9)]


def test_r19_two_odd_chips_go_to_the_first_two_winners():
    """With three winners and two odd chips, the first two in order get one each."""
    assert split_pot(11, [2, 0, 1]) == [(2, 4), (0, 4), (1, 3)]


def test_r19_single_winner_takes_all():
    """One winner takes the whole pot."""
    assert split_pot(7, [4]) == [(4, 7)]

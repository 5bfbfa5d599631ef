"""The ladder's Plackett-Luce rating: who wins rises, ties move little, new versions
start from their team's mean with a fresh uncertainty."""

from __future__ import annotations

import pytest

from arena.ladder._rating import START, Skill, new_version_skill, ranks_by_chips, rate_table


def test_a_winner_rises_a_loser_falls_and_both_grow_surer() -> None:
    winner, loser = rate_table([START, START], [120, -120])
    assert winner.mu > START.mu > loser.mu
    assert winner.sigma < START.sigma
    assert loser.sigma < START.sigma
    assert winner.shown > loser.shown


def test_the_chips_not_the_seat_order_decide() -> None:
    loser, winner = rate_table([START, START], [-5, 5])
    assert winner.mu > START.mu > loser.mu


def test_a_tie_moves_little() -> None:
    strong, weak = Skill(30.0, 3.0), Skill(25.0, START.sigma)
    tied = rate_table([strong, weak], [0, 0])
    won = rate_table([strong, weak], [-10, 10])
    assert [skill.mu for skill in rate_table([START, START], [7, 7])] == [START.mu, START.mu]
    assert abs(tied[0].mu - strong.mu) < 0.5
    assert abs(tied[1].mu - weak.mu) < abs(won[1].mu - weak.mu) / 3


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_a_ring_table_is_ordered_by_chips(seats: int) -> None:
    chips = [10 * (seats - i) for i in range(seats)]  # seat 0 won most
    rated = rate_table([START] * seats, chips)
    mus = [skill.mu for skill in rated]
    assert mus == sorted(mus, reverse=True)
    assert len(set(mus)) == seats
    assert all(skill.sigma < START.sigma for skill in rated)


def test_equal_chips_share_a_rank_in_a_ring() -> None:
    assert ranks_by_chips([5, 9, 5, -19]) == [1, 0, 1, 3]
    rated = rate_table([START] * 4, [5, 9, 5, -19])
    assert rated[0] == rated[2]
    assert rated[1].mu > rated[0].mu > rated[3].mu


def test_the_leaderboard_sorts_by_the_conservative_figure() -> None:
    sure = Skill(27.0, 1.0)  # shown 24
    lucky = Skill(30.0, 5.0)  # shown 15
    assert sure.shown == pytest.approx(24.0)
    assert sorted([lucky, sure], key=lambda s: s.shown, reverse=True) == [sure, lucky]


def test_the_rating_is_deterministic() -> None:
    skills = [Skill(26.0, 4.0), Skill(22.0, 6.0), START]
    assert rate_table(skills, [3, -1, -2]) == rate_table(skills, [3, -1, -2])


def test_bad_tables_are_refused() -> None:
    with pytest.raises(ValueError):
        rate_table([START], [0])
    with pytest.raises(ValueError):
        rate_table([START] * 7, [0] * 7)
    with pytest.raises(ValueError):
        rate_table([START, START], [1])


def test_a_new_version_keeps_its_teams_mean_and_resets_sigma() -> None:
    assert new_version_skill(None) == START
    assert new_version_skill(Skill(31.5, 1.2)) == Skill(31.5, START.sigma)

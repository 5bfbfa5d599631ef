"""Tournament-file keys for where matches run (issue 12 items 3 and 5): fast, no Ray.

``tournament.max_live_bots`` (bots on a budget), ``tournament.executor``,
``tournament.ray_address`` and a bot's ``ray_resources``: each parsed, each refused in one
line naming the key, none stored in ``to_json`` (a league may resume elsewhere).
"""

from __future__ import annotations

import pytest

from arena.tournament import TournamentConfig, TournamentConfigError, parse_tournament

BOTS = """
[[bots]]
name = "random"
builtin = "random"

[[bots]]
name = "station"
builtin = "calling-station"

[[bots]]
name = "rules"
builtin = "rule-based"
"""


def parse(tournament: str, bots: str = BOTS) -> TournamentConfig:
    return parse_tournament(f'[tournament]\nname = "t"\nseed = 1\n{tournament}\n{bots}', "t.toml")


def refused(tournament: str, bots: str = BOTS) -> TournamentConfigError:
    with pytest.raises(TournamentConfigError) as info:
        parse(tournament, bots)
    return info.value


class TestMaxLiveBots:
    """issue 12 item 5: ``tournament.max_live_bots``, read by the bots-on-a-budget code."""

    def test_absent_is_none(self) -> None:
        """No key, no bound."""
        assert parse("").max_live_bots is None

    def test_whole_number_is_kept(self) -> None:
        """A bound at or past one match's bots is kept as given."""
        assert parse("max_live_bots = 12").max_live_bots == 12

    def test_duplicate_heads_up_needs_four(self) -> None:
        """Duplicate heads-up opens 2 seats x 2 rotations: 4 is the least, 3 is refused."""
        assert parse("max_live_bots = 4").max_live_bots == 4
        error = refused("max_live_bots = 3")
        assert error.key == "tournament.max_live_bots"
        assert "at least 4" in str(error) and "\n" not in str(error)

    def test_not_duplicate_needs_the_seats(self) -> None:
        """Without duplicate one bot process a seat is enough."""
        assert parse("duplicate = false\nmax_live_bots = 2").max_live_bots == 2
        assert "at least 2" in str(refused("duplicate = false\nmax_live_bots = 1"))

    def test_ring_needs_seats_times_rotations(self) -> None:
        """A duplicate ring of 3 needs 9; without duplicate, 3."""
        ring = 'format = "ring"\ntable_size = 3\n'
        assert parse(ring + "max_live_bots = 9").max_live_bots == 9
        assert "at least 9" in str(refused(ring + "max_live_bots = 8"))
        assert parse(ring + "duplicate = false\nmax_live_bots = 3").max_live_bots == 3

    @pytest.mark.parametrize("value", ['"auto"', "4.5", "true", "0", "-4"])
    def test_not_a_whole_number_is_refused(self, value: str) -> None:
        """A string, a float, a boolean or a number below 1 names the key."""
        error = refused(f"max_live_bots = {value}")
        assert error.key == "tournament.max_live_bots"

    def test_not_stored(self) -> None:
        """A tournament may resume with another bound: to_json is the same either way."""
        assert parse("max_live_bots = 40").to_json() == parse("").to_json()

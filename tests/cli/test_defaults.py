"""One default per setting: the command line, tournament files and the dataclasses agree.

Each default has one owner (``arena/dealer/_settings.py`` for match settings,
``arena.ratings`` for rating settings); everyone else reads it from there. These tests
compare what a user gets each way, so a default changed in one place only fails here.
"""

from __future__ import annotations

import inspect

import click
import pytest

from arena import dealer, ratings
from arena.cli._check import command as check_command
from arena.cli._match import command as match_command
from arena.cli._ratings import DEFAULT_ANCHOR_RATING as CLI_ANCHOR_RATING
from arena.dealer import LaunchedBot, MatchSettings, open_bot
from arena.engine import GameConfig
from arena.ratings import EloSystem, IncrementalElo
from arena.tournament import DriverContext, parse_tournament

MINIMAL = """
[tournament]
name = "defaults"
[[bots]]
name = "a"
builtin = "random"
[[bots]]
name = "b"
builtin = "random"
"""


def option_default(command: click.Command, name: str) -> object:
    (param,) = [p for p in command.params if p.name == name]
    return param.default


def parameter_default(function: object, name: str) -> object:
    return inspect.signature(function).parameters[name].default


@pytest.fixture(scope="module")
def loaded():
    """A tournament file that sets nothing it may leave out."""
    return parse_tournament(MINIMAL, "t.toml")


class TestMatchSettings:
    def test_hands_per_match(self, loaded):
        """`arena match --hands`, `hands_per_match` and MatchSettings: one number."""
        settings = MatchSettings(config=GameConfig())
        assert dealer.HANDS_PER_MATCH == settings.hands
        assert dealer.HANDS_PER_MATCH == option_default(match_command, "hands")
        assert dealer.HANDS_PER_MATCH == loaded.hands_per_match

    def test_clocks(self, loaded):
        """Per-decision clock, time bank and Hello wait agree across the three."""
        settings = MatchSettings(config=GameConfig())
        assert dealer.ACTION_TIMEOUT == settings.action_timeout
        assert dealer.ACTION_TIMEOUT == option_default(match_command, "action_timeout")
        assert dealer.ACTION_TIMEOUT == loaded.timeouts.action
        assert settings.time_bank == option_default(match_command, "time_bank")
        assert settings.time_bank == loaded.timeouts.time_bank
        assert dealer.WALL_BUDGET == settings.wall_budget
        assert dealer.WALL_BUDGET == option_default(match_command, "wall_budget")
        assert dealer.WALL_BUDGET == loaded.timeouts.wall_budget
        assert dealer.HELLO_TIMEOUT == settings.hello_timeout
        assert dealer.HELLO_TIMEOUT == option_default(match_command, "hello_timeout")
        assert dealer.HELLO_TIMEOUT == loaded.timeouts.hello

    def test_faults_and_stack(self, loaded):
        """R25's limit and what follows it, and the starting stack."""
        settings = MatchSettings(config=GameConfig())
        assert settings.fault_limit == option_default(match_command, "fault_limit")
        assert settings.fault_limit == loaded.timeouts.fault_limit
        assert settings.on_fault_limit.value == option_default(match_command, "on_fault_limit")
        assert settings.on_fault_limit == loaded.timeouts.on_fault_limit
        assert settings.starting_stack == option_default(match_command, "stack")
        assert settings.starting_stack == loaded.stack

    def test_startup_timeout(self, loaded):
        """The launcher, the driver context, both commands and tournament files: one wait."""
        assert dealer.STARTUP_TIMEOUT == parameter_default(open_bot, "startup_timeout")
        assert dealer.STARTUP_TIMEOUT == parameter_default(LaunchedBot, "startup_timeout")
        assert dealer.STARTUP_TIMEOUT == DriverContext().startup_timeout
        assert dealer.STARTUP_TIMEOUT == option_default(match_command, "startup_timeout")
        assert dealer.STARTUP_TIMEOUT == option_default(check_command, "startup_timeout")
        assert dealer.STARTUP_TIMEOUT == loaded.timeouts.startup

    def test_game(self, loaded):
        """`arena match`'s game options default to GameConfig's own defaults."""
        game = GameConfig()
        assert game == loaded.game
        assert game.structure.value == option_default(match_command, "structure")
        assert game.big_blind == option_default(match_command, "big_blind")
        assert game.ante == option_default(match_command, "ante")
        assert game.max_draw == option_default(match_command, "max_draw")
        assert game.joker.value == option_default(match_command, "joker")


class TestRatings:
    def test_k_and_start(self, loaded):
        """Elo's K and start rating: arena.ratings, its systems and tournament files."""
        assert ratings.DEFAULT_K_FACTOR == EloSystem().k == IncrementalElo().k
        assert ratings.DEFAULT_K_FACTOR == loaded.ratings.k
        assert ratings.DEFAULT_START_RATING == EloSystem().start == IncrementalElo().start
        assert ratings.DEFAULT_START_RATING == loaded.ratings.start

    def test_anchor_rating(self, loaded):
        """The anchor's rating: tournament files and `arena ratings`."""
        assert ratings.DEFAULT_ANCHOR_RATING == loaded.ratings.anchor_rating
        assert ratings.DEFAULT_ANCHOR_RATING == CLI_ANCHOR_RATING

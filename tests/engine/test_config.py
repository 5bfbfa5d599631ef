"""The game configuration: defaults from the rules, and errors that name the setting."""

from __future__ import annotations

import dataclasses

import pytest

from arena.engine import (
    ConfigError,
    ForcedBets,
    GameConfig,
    JokerMode,
    Opening,
    ShowdownReveal,
    Structure,
)


def test_r2_r12_r15_r19_r27_r28_defaults():
    """The defaults are fixed limit, blinds, any opener, no joker, draw up to 5, show all."""
    config = GameConfig()
    actual = (
        config.structure,
        config.forced_bets,
        config.opening,
        config.joker,
        config.max_draw,
        config.showdown_reveal,
        config.ante,
        config.uncapped_heads_up,
        config.max_bets_per_round,
    )
    expected = (
        Structure.FIXED_LIMIT,
        ForcedBets.BLINDS,
        Opening.ANY,
        JokerMode.OFF,
        5,
        ShowdownReveal.ALL,
        0,
        False,
        4,
    )
    assert expected == actual


def test_r6_fixed_limit_blinds_follow_the_small_bet():
    """In a $10-20 game the big blind is the small bet, 10, and the small blind half of it."""
    config = GameConfig(small_bet=10)
    actual = (config.small_blind, config.big_blind, config.small_bet, config.big_bet)
    assert actual == (5, 10, 10, 20)


def test_r12_big_bet_is_twice_the_small_bet_by_default():
    """The default fixed-limit game is $2-4 with blinds 1 and 2."""
    config = GameConfig()
    actual = (config.small_blind, config.big_blind, config.small_bet, config.big_bet)
    assert actual == (1, 2, 2, 4)


def test_r6_no_limit_blinds_are_set_directly():
    """In no limit the blinds are as given and the minimum bet is the big blind."""
    config = GameConfig(structure="no_limit", small_blind=25, big_blind=50)
    assert (config.small_blind, config.big_blind, config.min_bet) == (25, 50, 50)


def test_settings_given_as_text_become_enums():
    """Text settings (from TOML or the CLI) are converted to their enums."""
    config = GameConfig(structure="pot_limit", joker="wild", showdown_reveal="muck")
    assert (
        config.structure,
        config.joker,
        config.showdown_reveal,
        config.uses_joker,
    ) == (Structure.POT_LIMIT, JokerMode.WILD, ShowdownReveal.MUCK, True)


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        ({"structure": "spread_limit"}, "structure"),
        ({"forced_bets": "straddles"}, "forced_bets"),
        ({"opening": "queens"}, "opening"),
        ({"joker": "maybe"}, "joker"),
        ({"showdown_reveal": "some"}, "showdown_reveal"),
        ({"structure": "no_limit", "small_blind": 0}, "small_blind"),
        ({"structure": "no_limit", "big_blind": -2}, "big_blind"),
        ({"structure": "no_limit", "small_blind": 20, "big_blind": 10}, "small_blind"),
        ({"small_bet": 2.5}, "small_bet"),
        ({"big_bet": -4}, "big_bet"),
        ({"ante": -1}, "ante"),
        ({"ante": 0.5}, "ante"),
        ({"max_draw": 2}, "max_draw"),
        ({"max_draw": 6}, "max_draw"),
        ({"max_bets_per_round": 1}, "max_bets_per_round"),
        ({"forced_bets": "antes"}, "ante"),
        ({"opening": "jacks_or_better"}, "opening"),
    ],
)
def test_config_error_names_the_key(settings, key):
    """A bad setting raises ConfigError whose ``key`` and message name the setting."""
    with pytest.raises(ConfigError) as info:
        GameConfig(**settings)
    assert (key, True) == (info.value.key, str(info.value).startswith(f"{key}: "))


def test_config_error_is_a_value_error():
    """ConfigError can be caught as ValueError."""
    assert issubclass(ConfigError, ValueError)


@pytest.mark.parametrize("max_draw", [3, 4, 5])
def test_r15_max_draw_accepts_three_four_or_five(max_draw):
    """``max_draw`` may be 3, 4 or 5."""
    assert max_draw == GameConfig(max_draw=max_draw).max_draw


def test_r28_jackpots_is_an_ante_game():
    """Jacks or better works with antes."""
    config = GameConfig(forced_bets="antes", ante=1, opening="jacks_or_better")
    assert config.opening == Opening.JACKS_OR_BETTER


def test_config_is_frozen():
    """A configuration cannot be changed after it is made."""
    config = GameConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.ante = 5


def test_config_is_keyword_only():
    """Settings must be named: a positional argument is refused."""
    with pytest.raises(TypeError):
        GameConfig("no_limit")

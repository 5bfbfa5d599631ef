"""``arena.play`` from Python (issue 13 item 6): one duplicate match in process, returning
chips per bot and mbb/hand with its 95% interval; ``import arena`` stays light."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import arena
from arena.policies import RandomPolicy, RuleBased
from arena.sdk import Bot

EXAMPLES = Path(__file__).resolve().parents[1] / "examples_bots"


class Folder(Bot):
    """An SDK bot that folds whenever it may, else checks."""

    name = "folder"

    def decide(self, decision):
        if decision.is_draw:
            return decision.stand_pat()
        return decision.fold() if decision.legal.can_fold else decision.check()


def test_importing_arena_does_not_import_trio_or_grpc() -> None:
    """`import arena` is light: play is a lazy attribute (module __getattr__)."""
    code = "import sys, arena; print('trio' in sys.modules, 'grpc' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
    assert callable(arena.play)
    with pytest.raises(AttributeError):
        arena.no_such_thing  # noqa: B018 - the attribute access is the test


def test_play_built_in_names_gives_chips_and_an_interval() -> None:
    """Two built-in policies, duplicate: chips conserved, the interval around the mean."""
    result = arena.play(["rule-based", "builtin:calling-station"], hands=60, seed=3)
    assert result.hands == 60 and result.duplicate and result.seed == 3
    assert sum(result.chips.values()) == 0
    rb = result["rule-based"]
    assert rb.ci95 is not None and rb.ci95 > 0
    low, high = rb.interval or (0.0, 0.0)
    assert low < rb.mbb_per_hand < high
    text = repr(result)
    assert "rule-based" in text and "calling-station" in text and "mbb/hand" in text


def test_play_is_reproducible_from_its_seed() -> None:
    """The same seed deals the same cards: the same chips."""
    bots = {"a": RuleBased(), "b": "rule-based", "c": "random"}
    first = arena.play(bots, hands=30, seed=11, structure="no_limit", big_blind=4)
    again = arena.play(bots, hands=30, seed=11, structure="no_limit", big_blind=4)
    assert first.chips == again.chips
    assert set(first.chips) == {"a", "b", "c"}


def test_play_takes_sdk_bots_policy_objects_and_commands() -> None:
    """An SDK Bot, a policy object and a launched command play one match together."""
    command = f"{sys.executable} {EXAMPLES / 'calling_station.py'}"
    result = arena.play([Folder(), RandomPolicy(), command], hands=12, seed=5, duplicate=False)
    assert [bot.name for bot in result.bots] == ["folder", "random", "calling_station"]
    assert sum(result.chips.values()) == 0
    assert all(bot.faults == 0 for bot in result.bots)


def test_play_refuses_what_it_cannot_use() -> None:
    """A wrong game setting, a non-bot or too few bots: a clear Python error."""
    with pytest.raises(TypeError, match="unknown game setting 'big_blinds'"):
        arena.play(["random", "random"], big_blinds=2)
    with pytest.raises(TypeError, match="expected a built-in policy name"):
        arena.play(["random", 42])
    with pytest.raises(ValueError, match="2 to 7 bots"):
        arena.play(["random"])

"""Tournament files choose the sandbox and give command bots their own limits (issue 9 item 1).

``sandbox = auto|off|L0|L1|L2`` in ``[tournament]``; ``[bots.limits]`` holds a command
bot's :class:`arena.dealer.BotLimits`. The records folder and the database (and SQLite's
files beside it) are hidden paths for every launched bot.
"""

from __future__ import annotations

import dataclasses

import pytest

from arena.dealer import BotLimits
from arena.tournament import TournamentConfigError, parse_tournament
from arena.tournament._instances import rotations_needed
from arena.tournament._limits import KEYS
from arena.tournament._scheduled import ScheduledMatch

COMMAND_BOT = """
[[bots]]
name = "random"
builtin = "random"

[[bots]]
name = "jvm"
command = "java -jar bot.jar"
"""


def parse(text: str, tmp_path):
    return parse_tournament(text, "t.toml", base_dir=tmp_path)


def file_with(tournament: str = "", limits: str = "") -> str:
    return f'[tournament]\nname = "t"\n{tournament}\n{COMMAND_BOT}{limits}'


def test_the_sandbox_defaults_to_auto_and_is_stored_only_when_chosen(tmp_path):
    config = parse(file_with(), tmp_path)
    assert config.sandbox == "auto"
    assert "sandbox" not in config.to_dict()["tournament"]  # older stored copies resume
    chosen = parse(file_with('sandbox = "L1"'), tmp_path)
    assert chosen.sandbox == "L1" and chosen.to_dict()["tournament"]["sandbox"] == "L1"
    assert chosen.driver_context().options["sandbox"] == "L1"


def test_an_unknown_sandbox_names_the_key(tmp_path):
    with pytest.raises(TournamentConfigError) as info:
        parse(file_with('sandbox = "L9"'), tmp_path)
    assert "tournament.sandbox" in str(info.value) and "L9" in str(info.value)


def test_bot_limits_are_read_resolved_and_stored(tmp_path):
    limits = """[bots.limits]
address_space_mb = 0
memory_mb = 2048
binds = ["models"]
share_network = true
env = { JAVA_OPTS = "-Xmx1g" }
"""
    config = parse(file_with(limits=limits), tmp_path)
    got = config.bot("jvm").limits
    assert got == BotLimits(
        address_space_mb=None,
        memory_mb=2048,
        binds=(str(tmp_path / "models"),),
        share_network=True,
        env={"JAVA_OPTS": "-Xmx1g"},
    )
    stored = config.to_dict()["bots"][1]["limits"]
    assert stored == {
        "address_space_mb": 0,
        "memory_mb": 2048,
        "binds": [str(tmp_path / "models")],
        "share_network": True,
        "env": {"JAVA_OPTS": "-Xmx1g"},
    }
    assert config.bot("random").limits is None


@pytest.mark.parametrize(
    ("limits", "where"),
    [
        ("[bots.limits]\nmemroy_mb = 1\n", "bots[1].limits.memroy_mb"),
        ("[bots.limits]\nmemory_mb = -1\n", "bots[1].limits.memory_mb"),
        ("[bots.limits]\nmemory_mb = 0\n", "bots[1].limits"),
        ('[bots.limits]\nbinds = "x"\n', "bots[1].limits.binds"),
        ("[bots.limits]\nenv = { A = 1 }\n", "bots[1].limits.env"),
        ('limits = "big"\n', "bots[1].limits"),
    ],
)
def test_bad_limits_name_the_key(tmp_path, limits, where):
    with pytest.raises(TournamentConfigError) as info:
        parse(file_with(limits=limits), tmp_path)
    assert where in str(info.value)


def test_limits_on_a_builtin_bot_are_refused(tmp_path):
    text = '[tournament]\nname = "t"\n[[bots]]\nname = "a"\nbuiltin = "random"\n'
    text += '[bots.limits]\nmemory_mb = 5\n[[bots]]\nname = "b"\nbuiltin = "random"\n'
    with pytest.raises(TournamentConfigError, match="only used by command bots"):
        parse(text, tmp_path)


def test_the_limit_keys_are_exactly_the_dealers_bot_limits():
    assert set(KEYS) == {item.name for item in dataclasses.fields(BotLimits)}


def test_records_and_database_files_are_hidden_from_every_launched_bot(tmp_path):
    config = parse(file_with('output = "runs"\ndatabase = "d/arena.db"'), tmp_path)
    hidden = {str(path) for path in config.driver_context().options["hidden_paths"]}
    base = tmp_path / "d" / "arena.db"
    assert {str(tmp_path / "runs"), str(base), f"{base}-wal", f"{base}-shm"} <= hidden


def test_duplicate_matches_need_one_instance_per_rotation():
    """Issue 9 item 3: a bot in a duplicate match of n seats is opened n times."""
    matches = [
        ScheduledMatch(key="m1", seats=("a", "b"), hands=4, seed=1, duplicate=True, round=1),
        ScheduledMatch(key="m2", seats=("a", "c", "d"), hands=6, seed=2, duplicate=True, round=1),
        ScheduledMatch(key="m3", seats=("b", "e"), hands=4, seed=3, duplicate=False, round=1),
    ]
    assert rotations_needed(matches) == {"a": 3, "b": 2, "c": 3, "d": 3, "e": 1}

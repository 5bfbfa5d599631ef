"""The `arena` commands end to end: demo, match, check-bot, and their errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli, main  # noqa: F401 - main registers the commands
from arena.cli._app import _register

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "dealer" / "bots"
EXAMPLES = ROOT / "examples_bots"

_register()


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_demo_runs_a_round_robin_and_prints_the_leaderboard(tmp_path: Path) -> None:
    """The demo plays the example bots' round robin and shows Elo and mbb/hand with intervals."""
    db = tmp_path / "demo.db"
    result = CliRunner().invoke(
        cli,
        [
            "demo",
            "--file",
            str(ROOT / "examples_tournaments" / "demo.toml"),
            "--hands",
            "8",
            "--db",
            str(db),
            "--out",
            str(tmp_path / "runs"),
            "--no-plugins",
        ],
        catch_exceptions=False,
    )
    assert 0 == result.exit_code, result.output
    assert "Elo" in result.output and "mbb/hand" in result.output and "CI)" in result.output
    assert "±" in result.output
    for name in ("random", "calling-", "rule-bas", "monte-ca"):
        assert name in result.output
    again = CliRunner().invoke(cli, ["ratings", "--db", str(db), "--los"])
    assert 0 == again.exit_code, again.output
    assert "likelihood of superiority" in again.output


def test_demo_with_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    """A wrong --file names the file, no traceback."""
    result = CliRunner().invoke(cli, ["demo", "--file", str(tmp_path / "nope.toml")])
    assert 1 == result.exit_code
    assert "nope.toml" in result.output
    assert "Traceback" not in result.output


def test_ratings_without_a_database_is_a_clear_error(tmp_path: Path) -> None:
    """`arena ratings` on a missing database says so."""
    result = CliRunner().invoke(cli, ["ratings", "--db", str(tmp_path / "none.db")])
    assert 1 == result.exit_code
    assert "no such database" in result.output


def test_match_between_builtin_and_launched_python_bot(tmp_path: Path) -> None:
    """A launched SDK bot plays a built-in one; records land in the match folder and replay."""
    result = run(
        "match",
        "builtin:rule-based",
        f"{sys.executable} {EXAMPLES / 'calling_station.py'}",
        "--hands", "30", "--seed", "4", "--out", str(tmp_path),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (folder,) = tmp_path.iterdir()
    summary = json.loads((folder / "result.json").read_text())
    assert summary["hands_played"] == 30
    assert sum(seat["chips_won"] for seat in summary["seats"]) == 0
    assert all(seat["faults"] == 0 for seat in summary["seats"])
    assert {"log.jsonl", "events.jsonl", "hands.phhs", "result.json"} <= {
        p.name for p in folder.iterdir()
    }
    replay = CliRunner().invoke(cli, ["replay", str(folder / "hands.phhs")])
    assert replay.exit_code == 0, replay.output
    assert "replayed 30 hands" in replay.output


def test_match_duplicate_reports_per_pair_interval(tmp_path: Path) -> None:
    """With --duplicate the result is computed over duplicate blocks and still conserves chips."""
    result = run(
        "match", "builtin:rule-based", "builtin:calling-station",
        "--hands", "40", "--seed", "9", "--duplicate", "--out", str(tmp_path),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(next(tmp_path.iterdir()).joinpath("result.json").read_text())
    assert sum(seat["chips_won"] for seat in summary["seats"]) == 0
    assert all(seat["ci95"] is not None for seat in summary["seats"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["match", "builtin:rule-based"], "2 to 7 bots"),
        (["match", "builtin:nobody", "builtin:random"], "unknown built-in 'nobody'"),
        (["match", "builtin:random", "builtin:random", "--max-draw", "9"], "max-draw"),
        (["match", "builtin:random", "builtin:random", "--big-blind", "0"], "big_blind"),
        (["match", "builtin:random", "/no/such/bot --flag"], "did not start"),
        (["match", "builtin:random", "builtin:random", "--timeout", "-1"], "--timeout"),
        (["match", "builtin:random", "builtin:random", "--timeout", "nan"], "--timeout"),
        (["match", "builtin:random", "builtin:random", "--time-bank", "inf"], "--time-bank"),
        (["match", "builtin:random", "builtin:random", "--stack", str(2**63)], "--stack"),
        # issue 7: the bounds a tournament file has, arena match has too
        (["match", "builtin:random", "builtin:random", "--fault-limit", "-1"], "--fault-limit"),
        (["match", "builtin:random", "builtin:random", "--seed", "-1"], "--seed"),
        (["match", "builtin:random", "builtin:random", "--seed", str(2**64)], "--seed"),
        (["match", "builtin:random", "builtin:random", "--stack", "1"], "--stack"),
        (
            ["match", "builtin:random", "builtin:random", "--big-blind", "10", "--stack", "9"],
            "at least 10 chips",
        ),
        (
            ["match", "builtin:random", "builtin:random", "--out", "/proc/no/such"],
            "cannot write the match records",
        ),
    ],
)
def test_match_bad_input_is_a_clear_error(args: list[str], message: str, tmp_path: Path) -> None:
    """Broken settings and unknown bot commands name the problem without a traceback."""
    wants_out = args[0] == "match" and len(args) > 2 and "--out" not in args
    result = CliRunner().invoke(cli, [*args, "--out", str(tmp_path)] if wants_out else args)
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output


def test_check_bot_passes_an_example_bot(tmp_path: Path) -> None:
    """The example rule-based bot, launched over gRPC, passes every scenario."""
    result = CliRunner().invoke(
        cli,
        [
            "check-bot",
            f"{sys.executable} {EXAMPLES / 'rule_based.py'}",
            "--seed",
            "3",
            "--logs",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "all 6 scenarios passed" in result.output


def test_check_bot_takes_protocol_version_0_as_1(tmp_path: Path) -> None:
    """A Hello that leaves protocol_version unset (0) is taken as 1, as the dealer and the
    .proto take it: check-bot passes the bot rather than fail every scenario."""
    bot = f"{sys.executable} {BOTS / 'version.py'} 0"
    result = CliRunner().invoke(cli, ["check-bot", bot, "--seed", "3", "--logs", str(tmp_path)])
    assert "protocol_version" not in result.output
    assert result.exit_code == 0, result.output
    assert "all 6 scenarios passed" in result.output


def test_check_bot_fails_a_protocol_version_the_dealer_refuses(tmp_path: Path) -> None:
    """Hello.protocol_version 999: the dealer's own check refuses it and check-bot says so."""
    bot = f"{sys.executable} {BOTS / 'version.py'}"
    options = ["--seed", "3", "--timeout", "0.5", "--logs", str(tmp_path)]
    result = CliRunner().invoke(cli, ["check-bot", bot, *options])
    assert result.exit_code == 1
    assert "protocol_version 999" in result.output
    assert "Traceback" not in result.output


def test_check_bot_reports_a_broken_bot(tmp_path: Path) -> None:
    """A bot that bets illegal amounts fails with the reason code and the dealer's explanation."""
    result = CliRunner().invoke(
        cli,
        [
            "check-bot",
            f"{sys.executable} {BOTS / 'illegal.py'}",
            "--seed",
            "3",
            "--timeout",
            "0.5",
            "--logs",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 1
    assert "ILLEGAL_ACTION" in result.output
    assert "amount_too_large" in result.output
    assert "scenarios failed" in result.output


def test_match_memory_limit_reaches_the_launched_bot(tmp_path: Path) -> None:
    """--memory-limit-mb is applied to launched bots: a Python bot cannot even start in 30 MB."""
    result = CliRunner().invoke(
        cli,
        ["match", "builtin:random", f"{sys.executable} {EXAMPLES / 'calling_station.py'}",
         "--hands", "2", "--memory-limit-mb", "30", "--startup-timeout", "10", "--out", str(tmp_path)],
    )  # fmt: skip
    assert 1 == result.exit_code
    assert "did not start" in result.output
    assert "Traceback (most recent call last)" not in result.output.split("stderr ends:")[0]


def test_check_bot_runs_each_scenario_against_a_fresh_bot_process(tmp_path: Path) -> None:
    """Issue 21 item 2: a bot that breaks after its first scenario's hands still passes
    every scenario, since each starts a new process; one line per scenario is printed."""
    bot = f"{sys.executable} {BOTS / 'counted.py'} 100"
    result = CliRunner().invoke(cli, ["check-bot", bot, "--seed", "3", "--logs", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "all 6 scenarios passed" in result.output
    assert 6 == sum(line.startswith("scenario ") for line in result.output.splitlines())


def test_check_bot_fails_a_bot_the_wall_budget_would_sit_out(tmp_path: Path) -> None:
    """Issue 21 item 1: a bot that sleeps past the clock is failed (TIMEOUT on the wall
    budget, then sat out), every scenario cut short, instead of passed after minutes."""
    bot = f"{sys.executable} {ROOT / 'scripts' / '_sleeper_bot.py'} 1.0"
    options = ["--seed", "3", "--timeout", "0.5", "--logs", str(tmp_path)]
    result = CliRunner().invoke(cli, ["check-bot", bot, *options])
    assert result.exit_code == 1
    assert "wall budget" in result.output
    assert "6 of 6 scenarios failed" in result.output

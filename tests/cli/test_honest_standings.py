"""Honest standings, end to end (issue 21 item 3): a league of student folders with a bot
that cannot start, run with every default, then ``arena ratings`` and ``arena report``
with no ``--db``.

What a teacher must see: the bot that did not start named, listed apart and not
ranked; no interval shown as ``± ∞`` or ``± 0``; the tournament marked unfinished; the
table at the end of the run the same as ``arena ratings`` for the tournament.
"""

from __future__ import annotations

import math
import re

import pytest
from click.testing import CliRunner, Result

from arena.cli import cli
from arena.cli._app import _register
from arena.cli._tournament import NOT_STARTED_EXIT

_register()


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def _rows(output: str) -> list[str]:
    """The ranked rows of the first standings table in ``output``, spaces collapsed."""
    rows, started = [], False
    for line in output.splitlines():
        if re.match(r"^\s+\d+\s+\S", line):
            rows.append(" ".join(line.split()))
            started = True
        elif started and not line.strip():
            break
    return rows


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    """Init, run, ratings and report in one folder, every command with its defaults."""
    root = tmp_path_factory.mktemp("week")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        for student in ("alice", "bob"):
            assert 0 == invoke("new-bot", f"sub/{student}").exit_code
        ghost = root / "sub" / "ghost"
        ghost.mkdir()
        (ghost / "bot.toml").write_text('name = "ghost"\nlang = "python"\nrun = "/nonexistent/g"\n')
        made = invoke("tournament", "init", "--bots-dir", "sub", "--hands", "4")
        assert 0 == made.exit_code, made.output
        return {
            "init": made,
            "run": invoke("tournament", "run", "tournament.toml", "--no-plugins"),
            "ratings": invoke("ratings"),
            "this": invoke("ratings", "--tournament", "sub"),
            "report": invoke("report"),
            "html": (root / "report.html").read_text() if (root / "report.html").exists() else "",
        }  # type: ignore[dict-item]


def test_every_command_finds_the_same_database_with_no_option(league) -> None:
    """Issue 21 item 3: init, run, ratings and report agree on one default database."""
    assert NOT_STARTED_EXIT == league["run"].exit_code, league["run"].output
    assert "arena-data/arena.db" in league["run"].output
    assert 0 == league["ratings"].exit_code, league["ratings"].output
    assert 0 == league["report"].exit_code, league["report"].output


def test_the_note_of_a_bot_that_did_not_start_names_it(league) -> None:
    """Issue 21 item 3: the line after the run names the bot, not "a bot"."""
    line = next(x for x in league["run"].output.splitlines() if "not started" in x and "/" in x)
    assert "ghost did not start" in " ".join(league["run"].output.split()), line


def test_a_bot_with_no_hands_is_listed_apart_not_ranked(league) -> None:
    """Issue 21 item 3: the forfeits' bot is under "did not play", with its reason."""
    for key in ("run", "ratings", "this"):
        output = league[key].output
        assert not any("ghost" in row for row in _rows(output)), output
        assert "did not play: ghost" in " ".join(output.split()), output
        assert "/nonexistent/g" in output
    html = league["html"]
    assert "did not play" in html and "ghost" in html


def test_no_interval_is_shown_as_infinite_or_zero(league) -> None:
    """Issue 21 item 3: "too few hands", never "± ∞" or "± 0"."""
    for text in (league["run"].output, league["ratings"].output, league["html"]):
        assert "± ∞" not in text and "± 0 " not in text and not re.search(r"± 0\b", text)


def test_an_unfinished_tournament_says_so_at_the_top(league) -> None:
    """Issue 21 item 3: the standings and the report open with "unfinished: ..."."""
    for key in ("ratings", "this"):
        first = league[key].output.lstrip().splitlines()[0]
        assert first.startswith("unfinished: sub: 10 of 15 matches played"), league[key].output
    html = league["html"]
    assert "unfinished: sub: 10 of 15 matches played" in html
    assert html.index("unfinished:") < html.index("<table")


def test_the_table_at_the_end_of_the_run_is_arena_ratings(league) -> None:
    """Issue 21 item 3: the run's final table equals ``arena ratings --tournament``."""
    assert _rows(league["this"].output)
    assert _rows(league["run"].output) == _rows(league["this"].output)


def test_other_systems_and_a_match_show_too_few_hands_not_infinite_or_zero(
    tmp_path, capsys
) -> None:
    """Issue 21 item 3: ``arena ratings --system``'s rows, the ``arena match`` table and
    ``arena.play``'s result say "too few hands" where an interval cannot be estimated."""
    from arena.cli._match_play import print_summary
    from arena.cli._play import BotResult, PlayResult
    from arena.cli._rating_systems import ranked
    from arena.ratings import Rating

    flat = Rating("a", 1500.0, 1500.0, 1500.0, 0.0)
    wide = Rating("b", 1400.0, -math.inf, math.inf, 1.0)
    assert [("a", "1500 (too few hands)"), ("b", "1400 (too few hands)")] == ranked(
        {"a": flat, "b": wide}
    )
    bots = (BotResult("x", 5, 2500.0, None, 0), BotResult("y", -5, -2500.0, 0.0, 0))
    text = repr(PlayResult(bots=bots, hands=1, seed=1, duplicate=False, reason="completed"))
    assert "inf" not in text and not re.search(r"± 0\b", text) and "too few hands" in text, text
    seat = {"chips_won": 5, "mbb_per_hand": 2500.0, "faults": 0, "forfeited": False}
    seats = [
        {**seat, "seat": 0, "name": "x", "ci95": None, "sat_out": False},
        {**seat, "seat": 1, "name": "y", "ci95": 0.0, "sat_out": False, "chips_won": -5},
    ]
    summary = {"match_id": "m", "hands_played": 1, "reason": "completed", "seed": 1}
    print_summary({**summary, "seats": seats}, tmp_path)
    shown = capsys.readouterr().out
    assert "∞" not in shown and not re.search(r"± 0\b", shown), shown
    assert "too few hands" in shown, shown

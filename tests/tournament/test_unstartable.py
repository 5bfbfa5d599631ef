"""A bot that cannot start does not stop the tournament (issue 7).

Its matches are recorded as *not started*: the bot forfeits them (it counts as absent,
so it loses them in the leaderboard's fit, as an absent bot loses a cut-short match),
the others are played, and the tournament stays unfinished so that ``arena tournament
resume`` tries the bot again and, if it starts, plays those matches in place of the
forfeits.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from click.testing import CliRunner
from flags import flag_limits
from test_runner import write_tournament

from arena.cli import cli
from arena.cli._app import _register
from arena.tournament import NOT_STARTED, Store, compute_standings

_register()

BROKEN = Path(__file__).resolve().parent / "bots" / "broken_until.py"


def test_a_bot_that_cannot_start_forfeits_and_resume_plays_its_matches(tmp_path, monkeypatch):
    """The run goes on without the bot, notes why (escaped), and resume plays its matches."""
    fixed = tmp_path / "flags" / "fixed"
    monkeypatch.setenv("FIXED", str(fixed))
    extra = f'\n[[bots]]\nname = "broken"\ncommand = "{sys.executable} {BROKEN}"\n'
    extra += flag_limits("FIXED", fixed)
    path = write_tournament(tmp_path, "league", extra_bots=extra, hands=4)
    path.write_text(path.read_text() + "\n[timeouts]\nstartup = 5\n")

    first = CliRunner().invoke(cli, ["tournament", "run", str(path), "--no-plugins"])
    assert 3 == first.exit_code, first.output  # not finished: a match is not started
    assert "bot 'broken' did not start" in first.output
    assert "no module named numpy" in first.output  # the tail of its error
    assert "\x1b" not in first.output and "\x07" not in first.output  # never raw to a terminal
    assert "numpy\\x1b[31m" in first.output  # but escaped, so the author can read it
    assert "resume" in first.output

    with Store.open(tmp_path / "arena.db") as store:
        rows = store.match_rows(tournament="league")
        assert 6 == len(rows)  # 4 bots: every pair has a record
        skipped = [row for row in rows if row.reason == NOT_STARTED]
        assert 3 == len(skipped)
        for row in skipped:
            assert 0 == row.hands_played
            broken = next(seat for seat in row.seats if seat.bot == "broken")
            assert broken.forfeited
        assert all(
            "broken" not in {seat.bot for seat in row.seats}
            for row in rows
            if row.reason != NOT_STARTED
        )
        standings = compute_standings(store, "fixed_limit", tournament="league")
        # no hand played: listed apart with its start-up error, not ranked (issue 21 item 3)
        assert "broken" not in {row.bot for row in standings.rows}
        ((bot, why),) = standings.did_not_play
        assert "broken" == bot and "no module named numpy" in why
        assert "running" == store.get_tournament("league").status

    fixed.touch()
    second = CliRunner().invoke(cli, ["tournament", "resume", str(path), "--no-plugins"])
    assert 0 == second.exit_code, second.output
    with sqlite3.connect(tmp_path / "arena.db") as db:
        reasons = dict(db.execute("select match_key, reason from matches"))
        status = db.execute("select status from tournaments").fetchone()[0]
        seats = db.execute("select count(*) from seat_results").fetchone()[0]
    assert 6 == len(reasons)
    assert NOT_STARTED not in reasons.values()
    assert 12 == seats  # the forfeits' seat rows were replaced, not added to
    assert "finished" == status


def test_a_played_result_is_never_replaced(tmp_path):
    """Only a not-started forfeit gives way to a played result; two results stay refused."""
    from arena.tournament import AlreadyRecorded

    with Store.open(tmp_path / "a.db") as store:
        tid = store.create_tournament("t", "{}", [{"key": "m", "seats": ["a", "b"], "hands": 2}])
        seats = [
            {"bot": "a", "seat": 0, "chips": 0, "hands": 0, "forfeited": True},
            {"bot": "b", "seat": 1, "chips": 0, "hands": 0},
        ]
        common = {"game_type": "g", "big_blind": 2, "duplicate_block": 1, "records_dir": "x"}
        store.record_match(tid, "m", result_summary={"reason": NOT_STARTED}, seats=seats, **common)
        with_played = [dict(seat, forfeited=False, hands=2) for seat in seats]
        store.record_match(
            tid, "m", result_summary={"reason": "completed"}, seats=with_played, **common
        )
        assert ["completed"] == [row.reason for row in store.match_rows()]
        try:
            store.record_match(
                tid, "m", result_summary={"reason": NOT_STARTED}, seats=seats, **common
            )
        except AlreadyRecorded:
            pass
        else:
            raise AssertionError("a forfeit replaced a played result")
        assert ["completed"] == [row.reason for row in store.match_rows()]

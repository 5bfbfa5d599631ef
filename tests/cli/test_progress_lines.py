"""A tournament's progress in words (issue 21 item 1): a plain line per recorded match when
the output is not a terminal, and the live view's status line (running, ETA, slowest)."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from arena.cli import cli
from arena.cli._app import _register
from arena.cli._progress_lines import eta_seconds, match_line, slowest_bots, status_line
from arena.dealer import SeatSummary
from arena.tournament import Progress
from arena.tournament._runner import RecordedMatch

_register()

LEAGUE = """\
[tournament]
name = "tiny"
format = "round_robin"
hands_per_match = 4
concurrency = 2
seed = 3
output = "runs"
database = "arena.db"

[[bots]]
name = "random"
builtin = "random"

[[bots]]
name = "calling-station"
builtin = "calling-station"

[[bots]]
name = "rule-based"
builtin = "rule-based"
"""


def _seat(seat: int, name: str, mbb: float, faults: int = 0) -> SeatSummary:
    return SeatSummary(seat, name, 0, 200, (), mbb, None, faults, 0, False, False)


class TestMatchLine:
    def test_the_best_seat_hands_faults_and_seconds(self) -> None:
        """A played match reads like cutechess's line: the winner's mbb/hand and the time."""
        seats = (_seat(0, "alice", 12.5), _seat(1, "bob", -12.5, faults=2))
        line = match_line(RecordedMatch(4, ("alice", "bob"), seats, (), 12.2), 36)
        assert "match 4/36 alice vs bob: alice +12.5 mbb/hand, 200 hands, 2 faults, 12 s" == line

    def test_a_match_a_bot_did_not_start_names_it(self) -> None:
        """A forfeit says who did not start; an untimed match has no seconds."""
        line = match_line(RecordedMatch(1, ("alice", "ghost"), (), ("ghost",), None), 3)
        assert "match 1/3 alice vs ghost: not started (ghost did not start)" == line

    def test_names_are_escaped(self) -> None:
        """A bot's name cannot move the cursor or colour a log file."""
        seats = (_seat(0, "a\x1b[2Jb", 1.0), _seat(1, "bob", -1.0))
        line = match_line(RecordedMatch(1, ("a\x1b[2Jb", "bob"), seats, (), 61.0), 1)
        assert "\x1b" not in line and "1 min 1 s" in line


class TestStatusLine:
    def _progress(self) -> Progress:
        progress = Progress(1, 10, 4)
        progress.running = {"t/m5": ["alice", "bob"], "t/m6": ["carol", "dave"]}
        progress.match_seconds = [10.0, 20.0, 30.0, 20.0]
        progress.bot_seconds = {"alice": [10.0], "bob": [30.0, 20.0], "carol": [5.0], "eve": [1]}
        return progress

    def test_running_eta_and_slowest(self) -> None:
        """The running matches, the mean match times those left over those at once, the
        three bots with the longest mean match."""
        progress = self._progress()
        assert 60.0 == eta_seconds(progress)  # 20 s x 6 left / 2 at once
        assert [("bob", 25.0), ("alice", 10.0), ("carol", 5.0)] == slowest_bots(progress)
        assert (
            "running: alice vs bob, carol vs dave · ETA 1 min 0 s · "
            "slowest: bob 25 s/match, alice 10 s/match, carol 5 s/match"
        ) == status_line(progress)

    def test_nothing_to_say_before_a_match_starts(self) -> None:
        """No match running and none timed: an empty line (the bar alone)."""
        assert "" == status_line(Progress(1, 10, 0))
        assert eta_seconds(Progress(1, 10, 0)) is None


def test_a_run_into_a_log_file_prints_a_line_per_recorded_match(tmp_path: Path) -> None:
    """CliRunner's output is not a terminal: one plain line per match, numbered in the order
    recorded, as many as the schedule holds, and nothing animated."""
    (tmp_path / "tiny.toml").write_text(LEAGUE)
    result = CliRunner().invoke(
        cli, ["tournament", "run", str(tmp_path / "tiny.toml"), "--no-plugins"]
    )
    assert 0 == result.exit_code, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("match ")]
    assert [f"match {n}/3 " for n in (1, 2, 3)] == [line[: len("match 1/3 ")] for line in lines]
    pattern = (
        r"match \d/3 [\w-]+ vs [\w-]+: [\w-]+ [+-]\d+\.\d mbb/hand, 4 hands, \d+ faults?, \d+ s"
    )
    assert all(re.fullmatch(pattern, line) for line in lines), lines
    assert "starting bots" not in result.output and "\r" not in result.output

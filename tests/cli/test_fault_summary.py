"""The terminal names every bot that went wrong, with its reasons (issue 21 item 2): one
line per bot at the end of `arena match` and `arena tournament run`, escaped."""

from __future__ import annotations

import json
from pathlib import Path

from arena.cli._fault_summary import Trouble, match_troubles, trouble_lines
from arena.store import BotFaults


def test_one_line_per_bot_with_reasons_detail_and_sit_out() -> None:
    """issue 21 item 2: the line the teacher reads, most frequent reason first."""
    alice = Trouble(
        "alice",
        {"TIMEOUT": 2, "BOT_ERROR": 10},
        {"BOT_ERROR": "decide raised IndexError at bot.py:12", "TIMEOUT": "cpu clock: 1.1 s"},
        out="sat out at hand 40",
    )
    assert trouble_lines([alice, Trouble("bob", {}, {})]) == [
        "alice: 12 faults — 10 BOT_ERROR (decide raised IndexError at bot.py:12), "
        "2 TIMEOUT; sat out at hand 40"
    ]


def test_a_bot_that_did_not_start_is_named_with_why() -> None:
    """issue 21 item 2: no faults, but a start error: still a line."""
    (line,) = trouble_lines([Trouble("carol", {}, {}, out="did not start: exited with status 1")])
    assert line == "carol: did not start: exited with status 1"


def test_names_and_details_are_escaped_and_short() -> None:
    """issue 21 item 2: a bot's text reaches the terminal escaped, on one line, capped."""
    (line,) = trouble_lines(
        [Trouble("\x1b[31mevil", {"BOT_ERROR": 1}, {"BOT_ERROR": "\x07x\ny" + "z" * 500})]
    )
    assert "\x1b" not in line and "\x07" not in line and "\n" not in line
    assert line.startswith("\\x1b[31mevil: 1 fault — 1 BOT_ERROR (\\x07x | y")
    assert len(line) < 200


def test_a_match_folder_gives_each_seats_troubles(tmp_path: Path) -> None:
    """issue 21 item 2: `arena match` reads its own log.jsonl: faults by seat, the sit-out's hand."""
    rows = [
        {"event": "fault", "seat": 0, "hand_number": 3, "reason": "BOT_ERROR",
         "detail": "decide raised IndexError at bot.py:12", "applied": "fold"},
        {"event": "fault", "seat": 0, "hand_number": 7, "reason": "SAT_OUT",
         "detail": "2 faults", "applied": "sit out"},
        {"event": "hand_finished", "seat": 1},
    ]  # fmt: skip
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary = {
        "seats": [
            {"seat": 0, "name": "alice", "sat_out": True, "forfeited": False},
            {"seat": 1, "name": "bob", "sat_out": False, "forfeited": False},
        ]
    }
    assert trouble_lines(match_troubles(summary, tmp_path)) == [
        "alice: 1 fault — 1 BOT_ERROR (decide raised IndexError at bot.py:12); sat out at hand 7"
    ]


def test_a_tournament_tally_becomes_troubles() -> None:
    """issue 21 item 2: `tournament run` reads the store's tally and the bots that did not start."""
    from arena.cli._fault_summary import tournament_troubles

    tally = {
        "alice": BotFaults(
            "alice", 4, 80, 3, 2, 0, {"BOT_ERROR": 3}, {"BOT_ERROR": "x at bot.py:1"}
        ),
        "bob": BotFaults("bob", 4, 80, 0, 0, 0, {}),
    }
    lines = trouble_lines(tournament_troubles(tally, {"carol": "exited with status 1"}))
    assert lines == [
        "alice: 3 faults — 3 BOT_ERROR (x at bot.py:1); sat out in 2 of 4 matches",
        "carol: did not start: exited with status 1",
    ]

"""An exception in a bot's own code reaches its author (issue 21 item 2, the bot side): the
SDK prints the traceback to stderr, answers that decision with the default (check when
free, else fold; stand pat at the draw) and keeps playing; the stream never breaks."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from arena.cli import cli
from arena.cli._app import _register
from arena.protocol import pb
from arena.sdk import Bot, Decision

_register()


def _decision(phase: int = pb.PHASE_PREDRAW_BETTING, call_amount: int = 1) -> pb.DealerMessage:
    return pb.DealerMessage(
        decision=pb.DecisionRequest(
            decision_id="d-9",
            phase=phase,
            hole_cards=["As", "Ad", "7c", "7d", "2s"],
            legal=pb.LegalActions(
                can_fold=call_amount > 0,
                call_amount=call_amount,
                can_raise=True,
                min_raise_to=4,
                max_raise_to=4,
                max_discard=5,
            ),
        )
    )


class Raising(Bot):
    name = "raising"

    def decide(self, decision: Decision):
        return [][0]  # the line the traceback must name

    def on_hand_end(self, message: pb.HandEnd) -> None:
        raise KeyError("seen")


def test_an_exception_in_decide_is_answered_with_the_default_action(capsys) -> None:
    """issue 21 item 2: decide raising IndexError is a fold facing a bet, a check when
    free, a stand pat at the draw, each with the request's decision_id (no exception)."""
    bot = Raising()
    facing = bot.handle(_decision(call_amount=1))
    free = bot.handle(_decision(call_amount=0))
    draw = bot.handle(_decision(phase=pb.PHASE_DRAW, call_amount=0))
    assert facing is not None and facing.action.kind == pb.ACTION_KIND_FOLD
    assert free is not None and free.action.kind == pb.ACTION_KIND_CHECK
    assert draw is not None and draw.action.kind == pb.ACTION_KIND_DISCARD
    assert list(draw.action.cards) == []
    assert {facing.action.decision_id, free.action.decision_id} == {"d-9"}


def test_the_answer_tells_the_dealer_where_decide_raised(capsys) -> None:
    """issue 21 item 2: the default goes out with Action.error set to the summary line
    (the dealer records a BOT_ERROR fault naming the file and line)."""
    reply = Raising().handle(_decision())
    assert reply is not None
    assert reply.action.error == "decide raised IndexError at test_bot_errors.py:42"


def test_the_traceback_goes_to_stderr_with_file_and_line(capsys) -> None:
    """issue 21 item 2: the whole traceback, naming this file and the raising line, and
    one summary line saying what was played instead."""
    Raising().handle(_decision())
    err = capsys.readouterr().err
    assert "Traceback (most recent call last):" in err
    assert "IndexError: list index out of range" in err
    assert f'File "{__file__}", line 42, in decide' in err
    assert "raising: decide raised IndexError at test_bot_errors.py:42; played fold" in err


class BadCard(Bot):
    name = "bad-card"

    def decide(self, decision: Decision):
        return decision.discard(["Zz"])  # parse_card raises inside arena.engine


def test_the_summary_names_the_bots_line_not_the_engines(capsys) -> None:
    """issue 21 item 2: an SDK call that refuses its argument raises inside arena/, but the
    summary line names the bot's own line (the traceback still shows both)."""
    BadCard().handle(_decision(phase=pb.PHASE_DRAW, call_amount=0))
    err = capsys.readouterr().err
    line = next(
        n for n, text in enumerate(Path(__file__).read_text().splitlines(), 1) if '"Zz"' in text
    )
    assert (
        f"bad-card: decide raised CardParseError at test_bot_errors.py:{line}; played stand pat"
        in err
    )
    assert "arena/engine/" in err


def test_an_exception_in_a_hook_is_logged_and_the_stream_goes_on(capsys) -> None:
    """issue 21 item 2: on_hand_end raising is logged with its traceback, never raised."""
    message = pb.DealerMessage(hand_end=pb.HandEnd(hand_id="h1", payoffs=[1, -1]))
    assert Raising().handle(message) is None
    err = capsys.readouterr().err
    assert "KeyError: 'seen'" in err and "on_hand_end raised KeyError" in err


def test_a_bot_whose_decide_raises_plays_the_whole_match(tmp_path: Path) -> None:
    """issue 21 item 2: a new-bot folder whose decide raises after 10 decisions plays all
    20 hands: no DISCONNECTED fault, not sat out, the traceback (bot.py and its line) in
    its stderr log. It used to break its stream at each decision (84 DISCONNECTED faults
    reading 'Unexpected <class IndexError>', an empty stderr log, then sat out)."""
    runner = CliRunner()
    folder = tmp_path / "raiser"
    assert runner.invoke(cli, ["new-bot", str(folder)]).exit_code == 0
    source = (folder / "bot.py").read_text()
    head, sep, tail = source.partition("    def decide(self, decision):\n")
    assert sep
    broken = "    def decide(self, decision):\n        self.n = getattr(self, 'n', 0) + 1\n"
    broken += "        if self.n > 10:\n            return [][0]\n"
    (folder / "bot.py").write_text(head + broken + tail)
    line = (head + broken).count("\n")  # the line of `return [][0]`
    out = str(tmp_path / "out")
    args = ["match", str(folder), "builtin:calling-station", "--hands", "20", "--seed", "3"]
    result = runner.invoke(cli, [*args, "--out", out])
    assert result.exit_code == 0, result.output
    (match,) = (tmp_path / "out").iterdir()
    summary = json.loads((match / "result.json").read_text())
    assert summary["hands_played"] == 20
    seat = next(s for s in summary["seats"] if s["name"] == "raiser")
    assert not seat["sat_out"] and not seat["forfeited"]
    faults = [
        json.loads(row)
        for row in (match / "log.jsonl").read_text().splitlines()
        if '"event": "fault"' in row
    ]
    assert not [f for f in faults if f["reason"] == "DISCONNECTED"], faults[:2]
    errors = [f for f in faults if f["reason"] == "BOT_ERROR"]
    assert errors and {f["detail"] for f in errors} == {
        f"decide raised IndexError at bot.py:{line}"
    }
    n = len(errors)  # and the terminal names the bot with its reason, file and line
    said = f"raiser: {n} faults — {n} BOT_ERROR (decide raised IndexError at bot.py:{line})"
    assert said in result.output, result.output
    stderr = (match / "bots" / "raiser.stderr.log").read_text()
    assert f'bot.py", line {line}, in decide' in stderr
    assert "IndexError: list index out of range" in stderr
    assert f"decide raised IndexError at bot.py:{line}" in stderr


def test_a_tournament_names_the_bot_whose_decide_raises(tmp_path: Path) -> None:
    """issue 21 item 2: the end of `arena tournament run` has a line for the bot, its
    BOT_ERROR count and where (from the database), and none for the bots that behaved."""
    runner = CliRunner()
    folder = tmp_path / "raiser"
    assert runner.invoke(cli, ["new-bot", str(folder)]).exit_code == 0
    source = (folder / "bot.py").read_text()
    head, sep, tail = source.partition("    def decide(self, decision):\n")
    (folder / "bot.py").write_text(head + sep + "        return [][0]\n" + tail)
    line = (head + sep).count("\n") + 1
    (tmp_path / "league.toml").write_text(
        '[tournament]\nname = "errors"\nhands_per_match = 6\nseed = 2\n'
        'output = "runs"\ndatabase = "arena.db"\n\n'
        '[[bots]]\nname = "raiser"\nfolder = "raiser"\n\n'
        '[[bots]]\nname = "caller"\nbuiltin = "calling-station"\n'
    )
    result = runner.invoke(cli, ["tournament", "run", str(tmp_path / "league.toml")])
    assert result.exit_code == 0, result.output
    said = [row for row in result.output.splitlines() if row.startswith("raiser: ")]
    assert len(said) == 1, result.output
    assert f"BOT_ERROR (decide raised IndexError at bot.py:{line})" in said[0], said
    assert not [row for row in result.output.splitlines() if row.startswith("caller: ")]

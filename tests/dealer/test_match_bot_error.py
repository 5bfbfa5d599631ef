"""A bot that says its strategy failed (Action.error, issue 21 item 2): the dealer plays
the R23 default whatever kind the Action carries, records a BOT_ERROR fault whose detail
is the bot's text (escaped), tells the bot, and counts it towards the fault limit."""

from __future__ import annotations

import pytest

from arena.dealer import LocalBot, MatchSettings, run_match
from arena.engine import GameConfig
from arena.policies import CallingStation
from arena.policies import PolicyBot as SeatedPolicy
from arena.protocol import pb
from arena.sdk import Bot


class Failing(Bot):
    """Answers every decision with a raise and ``error`` set, as a broken strategy's SDK does."""

    name = "failing"

    def __init__(self, text: str = "decide raised IndexError at bot.py:12") -> None:
        self.text = text
        self.faults: list[pb.Fault] = []

    def answer(self, request: pb.DecisionRequest) -> pb.BotMessage:
        kind = (
            pb.ACTION_KIND_DISCARD if request.phase == pb.PHASE_DRAW else pb.ACTION_KIND_BET_RAISE
        )
        amount = request.legal.max_raise_to if kind == pb.ACTION_KIND_BET_RAISE else 0
        action = pb.Action(
            decision_id=request.decision_id, kind=kind, amount=amount, error=self.text
        )
        return pb.BotMessage(action=action)

    def on_fault(self, message: pb.Fault) -> None:
        self.faults.append(message)


def _bots(failing: Failing) -> list[LocalBot]:
    return [LocalBot(failing), LocalBot(SeatedPolicy("station", CallingStation()))]


@pytest.mark.trio
async def test_an_action_with_error_is_a_bot_error_fault_and_the_default() -> None:
    """issue 21 item 2: every decision is a BOT_ERROR naming file and line; the raise the
    Action carried is never played (the default is: check, else fold; stand pat)."""
    failing = Failing()
    result = await run_match(_bots(failing), MatchSettings(config=GameConfig(), hands=6, seed=5))
    mine = [f for f in result.faults if f.seat == 0]
    assert mine and {f.reason for f in mine} == {"BOT_ERROR"}
    assert {f.detail for f in mine} == {"decide raised IndexError at bot.py:12"}
    assert {f.applied for f in mine} <= {"check", "fold", "stand pat"}
    assert not result.sat_out[0]
    assert sum(result.chips_won) == 0
    assert failing.faults and failing.faults[0].reason == pb.FAULT_REASON_BOT_ERROR
    assert failing.faults[0].detail == "decide raised IndexError at bot.py:12"


@pytest.mark.trio
async def test_bot_errors_count_towards_the_fault_limit() -> None:
    """issue 21 item 2: a bug that fires at every decision sits the bot out (R25)."""
    settings = MatchSettings(config=GameConfig(), hands=20, seed=5, fault_limit=4)
    result = await run_match(_bots(Failing()), settings)
    mine = [f.reason for f in result.faults if f.seat == 0]
    assert mine == ["BOT_ERROR"] * 4 + ["SAT_OUT"]
    assert result.sat_out[0]


@pytest.mark.trio
async def test_the_error_text_reaches_the_record_escaped() -> None:
    """issue 21 item 2: a bot's text is untrusted: no control character in the record."""
    result = await run_match(
        _bots(Failing("\x1b]0;owned\x07 at bot.py:1")),
        MatchSettings(config=GameConfig(), hands=2, seed=5),
    )
    (detail,) = {f.detail for f in result.faults if f.seat == 0}
    assert detail == "\\x1b]0;owned\\x07 at bot.py:1"

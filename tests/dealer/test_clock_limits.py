"""Limit breaches (issue 9 item 1, L2; R25): when the seat's cgroup says the bot went past
its memory or process cap, the fault is MEMORY_LIMIT / PROCESS_LIMIT, never a plain
DISCONNECTED or TIMEOUT; a breach the bot survived is still one fault."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from arena.dealer import LocalBot, MatchSettings, SeatBrokenError, run_match
from arena.dealer._answers import describe_action
from arena.dealer._clock import breach_fault, read_breach
from arena.engine import GameConfig
from arena.policies import CallingStation, PolicyBot
from arena.protocol import pb


class _Conn:
    """A calling station that, from decision ``die_at`` on, breaks (or goes silent)."""

    def __init__(self, driver: BreachingBot) -> None:
        self.driver = driver
        self.bot = PolicyBot("b", CallingStation())
        self.replies: list[pb.BotMessage] = []

    async def send(self, message: pb.DealerMessage) -> None:
        if message.WhichOneof("kind") == "decision":
            self.driver.decisions += 1
            if self.driver.decisions == self.driver.breach_at:
                self.driver.pending = self.driver.limit
        reply = self.bot.handle(message)
        if reply is not None:
            self.replies.append(reply)
            if reply.WhichOneof("kind") == "action":
                self.driver.answers.append(reply.action)

    async def receive(self) -> pb.BotMessage:
        d = self.driver
        if d.die_at is not None and d.decisions >= d.die_at:
            if d.how == "break":
                raise SeatBrokenError("stream broke: the process was killed")
            await trio.sleep_forever()
        return self.replies.pop(0)

    async def aclose(self) -> None:
        return None


class BreachingBot:
    """A driver whose ``limit_breach()`` reports ``limit`` once, at decision ``breach_at``."""

    def __init__(self, limit: str, *, breach_at: int, die_at: int | None, how: str = "break"):
        self.name = "breacher"
        self.limit = limit
        self.breach_at = breach_at
        self.die_at = die_at
        self.how = how
        self.decisions = 0
        self.pending: str | None = None
        self.calls = 0
        self.answers: list[pb.Action] = []

    def limit_breach(self) -> str | None:
        self.calls += 1
        pending, self.pending = self.pending, None
        return pending

    async def connect(self) -> _Conn:
        return _Conn(self)

    async def aclose(self) -> None:
        return None


async def _play(driver, hands: int = 3):
    settings = MatchSettings(
        config=GameConfig(), hands=hands, seed=4, action_timeout=1.0, reconnect=False
    )
    return await run_match([driver, LocalBot(PolicyBot("c", CallingStation()))], settings)


@pytest.mark.trio
async def test_memory_breach_that_kills_the_bot_is_memory_limit_not_disconnected() -> None:
    """The OOM-killed bot's broken stream is recorded as MEMORY_LIMIT, naming the limit."""
    result = await _play(BreachingBot("MEMORY_LIMIT", breach_at=2, die_at=2))
    mine = [f for f in result.faults if f.seat == 0]
    assert ["MEMORY_LIMIT"] == [f.reason for f in mine]
    assert "memory limit" in mine[0].detail
    assert "stream broke" in mine[0].detail
    assert result.sat_out[0]


def test_memory_breach_that_hangs_the_bot_is_memory_limit_not_timeout() -> None:
    """A bot stalled by its memory cap times out; the fault names the limit instead."""
    driver = BreachingBot("MEMORY_LIMIT", breach_at=1, die_at=1, how="hang")
    clock = trio.testing.MockClock(autojump_threshold=0)
    result = trio.run(_play, driver, 1, clock=clock)
    mine = [f for f in result.faults if f.seat == 0]
    assert mine and mine[0].reason == "MEMORY_LIMIT"
    assert "no action within" in mine[0].detail


@pytest.mark.trio
async def test_process_breach_the_bot_survived_is_one_fault_and_its_action_stands() -> None:
    """A refused fork does not kill the bot: one PROCESS_LIMIT fault, its own action played."""
    driver = BreachingBot("PROCESS_LIMIT", breach_at=2, die_at=None)
    result = await _play(driver)
    mine = [f for f in result.faults if f.seat == 0]
    assert ["PROCESS_LIMIT"] == [f.reason for f in mine]
    assert "process limit" in mine[0].detail
    assert describe_action(driver.answers[1]) == mine[0].applied  # its own answer
    assert not result.sat_out[0]
    assert driver.calls >= driver.decisions  # asked after every decision


@pytest.mark.trio
async def test_a_breach_at_start_up_is_recorded_as_itself() -> None:
    """A bot that breaks its cap before its Hello is MEMORY_LIMIT at hand 0."""

    class Dies(BreachingBot):
        async def connect(self):
            self.pending = "MEMORY_LIMIT"
            raise SeatBrokenError("exited with -9")

    result = await _play(Dies("MEMORY_LIMIT", breach_at=0, die_at=None))
    assert [("MEMORY_LIMIT", 0)] == [(f.reason, f.hand_number) for f in result.faults]


def test_only_known_limits_are_taken() -> None:
    """A probe answering garbage (or raising) is no breach; a known one has its own reason."""

    class Odd:
        def limit_breach(self):
            return "\x1b[31mEVIL"

    class Raises:
        def limit_breach(self):
            raise OSError("cgroup gone")

    assert read_breach(Odd()) is None
    assert read_breach(Raises()) is None
    assert read_breach(object()) is None
    assert breach_fault("PROCESS_LIMIT", "x")[0] == pb.FAULT_REASON_PROCESS_LIMIT

"""``arena.play`` against hostile in-process bots (issue 13 audit, item 6).

Three defects the audit found: duplicate tables shared one bot object (it saw every
rotation's cards), in-process bots ignored ``action_timeout`` (a ``decide`` that sleeps
blocked the match), and a duck-typed bot whose ``handle()`` returned junk raised out
of ``play()``. Each test here failed before the fix.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import ClassVar

import pytest

import arena
from arena.cli import _play, _play_seats
from arena.policies import CallingStation
from arena.protocol import pb
from arena.sdk import Bot

SAFETY = 20.0
"""Seconds after which a test releases its blocked bots anyway, so that the code before
the fix (which waited for them) fails in bounded time instead of hanging the suite."""


class Recorder(Bot):
    """An SDK bot that notes which object saw which table (a class-level log, which copies
    share on purpose, so the test can see every object)."""

    name = "recorder"
    seen: ClassVar[list[tuple[int, str, int]]] = []

    def on_match_start(self, message: pb.MatchStart) -> None:
        Recorder.seen.append((id(self), message.table_id, message.seat))

    def decide(self, decision):
        if decision.is_draw:
            return decision.stand_pat()
        return decision.check_or_call()


class Locked(Recorder):
    """A bot holding a lock: ``copy.deepcopy`` cannot copy it."""

    name = "locked"

    def __init__(self) -> None:
        self.lock = threading.Lock()


@pytest.fixture(autouse=True)
def _fresh_log() -> Iterator[None]:
    Recorder.seen = []
    yield
    Recorder.seen = []


def _conserved(result: _play.PlayResult) -> None:
    assert sum(result.chips.values()) == 0


# --- 1. one bot object per table and seat --------------------------------------------


def test_duplicate_tables_each_play_their_own_copy() -> None:
    """issue 13 audit: in a duplicate match each rotation's table gets its own copy of
    the object, so no object sees two tables' cards; the object passed is never played."""
    original = Recorder()
    result = arena.play([original, "calling-station", "random"], hands=9, seed=4)
    _conserved(result)
    objects = {obj for obj, _, _ in Recorder.seen}
    tables = {table for _, table, _ in Recorder.seen}
    assert len(tables) == 3  # one table per rotation
    assert len(objects) == 3  # ... each with its own object
    assert all(sum(1 for o, _, _ in Recorder.seen if o == obj) == 1 for obj in objects)
    assert id(original) not in objects


def test_the_same_object_at_two_seats_plays_as_two_objects() -> None:
    """issue 13 audit: one object given for two seats would see both seats' cards."""
    bot = Recorder()
    result = arena.play([bot, bot], hands=4, seed=2, duplicate=False)
    _conserved(result)
    assert [b.name for b in result.bots] == ["recorder", "recorder-2"]
    assert sorted(seat for _, _, seat in Recorder.seen) == [0, 1]
    assert len({obj for obj, _, _ in Recorder.seen}) == 2


def test_one_seat_at_one_table_plays_the_object_itself() -> None:
    """Nothing to share with: the object itself plays (its state can be read afterwards)."""
    bot = Recorder()
    arena.play([bot, "random"], hands=3, seed=1, duplicate=False)
    assert [obj for obj, _, _ in Recorder.seen] == [id(bot)]


def test_an_object_that_cannot_be_copied_is_refused_naming_the_bot() -> None:
    """issue 13 audit: an object deepcopy refuses is not silently shared between tables."""
    with pytest.raises(
        TypeError, match=r"bot 'mine': it plays at 2 tables.*cannot be copied.*its class"
    ):
        arena.play({"mine": Locked(), "cs": "calling-station"}, hands=4, seed=1)
    assert Recorder.seen == []  # refused before anything played
    result = arena.play({"mine": Locked(), "cs": "calling-station"}, hands=4, duplicate=False)
    assert result.hands == 4


def test_a_class_or_a_factory_makes_one_bot_per_table() -> None:
    """A class (or a zero-argument function) is called once per table and seat."""
    result = arena.play([Locked, lambda: Recorder()], hands=4, seed=3)
    _conserved(result)
    assert [b.name for b in result.bots] == ["locked", "<lambda>"]
    assert len({obj for obj, _, _ in Recorder.seen}) == 4  # 2 seats x 2 rotations
    with pytest.raises(TypeError, match=r"bot 'bad'.*returned int"):
        arena.play({"bad": lambda: 42, "cs": "calling-station"}, hands=2)

    def policy(view):  # a function of a view is not a policy object
        return None

    with pytest.raises(TypeError, match=r"bot 'policy': policy\(\) needs arguments"):
        arena.play([policy, "calling-station"], hands=2)


# --- 2. the action timeout applies in process ------------------------------------------


class Gate:
    """A release for blocked bots: set by the test when it ends (or after SAFETY s)."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self._timer = threading.Timer(SAFETY, self.event.set)
        self._timer.daemon = True
        self._timer.start()

    def release(self) -> None:
        self.event.set()
        self._timer.cancel()


class SleepyPolicy(CallingStation):
    """A policy whose first decision blocks until released; it calls after that."""

    name = "sleepy"
    gate: Gate
    calls = 0

    def decide(self, view):
        type(self).calls += 1
        if type(self).calls == 1:
            type(self).gate.event.wait()
        return super().decide(view)


class Spinner(Recorder):
    """An SDK bot whose first decision spins (a busy loop, no sleep) until released."""

    name = "spinner"
    gate: Gate
    calls = 0

    def decide(self, decision):
        type(self).calls += 1
        while type(self).calls == 1 and not type(self).gate.event.is_set():
            pass
        return super().decide(decision)


@pytest.mark.parametrize("cls", [SleepyPolicy, Spinner])
def test_an_in_process_bot_that_does_not_answer_times_out(cls: type) -> None:
    """issue 13 audit: a decide() that sleeps or spins gets a TIMEOUT fault and the default
    action, as a launched bot would; the match finishes and says the call still runs."""
    cls.gate, cls.calls = Gate(), 0
    try:
        with pytest.warns(RuntimeWarning, match="still running"):
            result = arena.play(
                [cls(), "calling-station"], hands=4, seed=5, duplicate=False, action_timeout=0.3
            )
        assert result.hands == 4
        _conserved(result)
        mine = [f for f in result.faults if f.seat == 0]
        # stuck in its first call for good: every decision after it waits behind it
        assert mine and {f.reason for f in mine} == {"TIMEOUT"}
        assert all(f.applied in ("check", "fold", "stand pat") for f in mine)
        assert "no action within 300 ms" in mine[0].detail
        assert result.still_running == (cls.name,)
        assert result.bots[0].faults == len(mine)
        assert not [f for f in result.faults if f.seat == 1]
    finally:
        cls.gate.release()


class HangsAtStart(Bot):
    """An SDK bot that never says Hello: its MatchStart blocks."""

    name = "mute"
    gate: Gate

    def handle(self, message):
        if message.WhichOneof("kind") == "match_start":
            type(self).gate.event.wait()
        return super().handle(message)

    def decide(self, decision):
        return decision.fold()


def test_an_in_process_bot_that_never_says_hello_sits_out() -> None:
    """issue 13 audit: a blocked MatchStart is a Hello timeout (the seat sits out)."""
    HangsAtStart.gate = Gate()
    try:
        with pytest.warns(RuntimeWarning, match="still running"):
            result = arena.play(
                [HangsAtStart(), "calling-station", "random"], hands=3, duplicate=False
            )
        assert [(f.seat, f.reason) for f in result.faults][:1] == [(0, "TIMEOUT")]
        assert result.hands == 3
        _conserved(result)
    finally:
        HangsAtStart.gate.release()


def test_a_bot_stuck_for_good_is_cut_once_it_falls_behind(monkeypatch) -> None:
    """A bot stuck in one call falls behind on its messages; past the backlog limit its
    stream is cut (it sits out) instead of costing a timeout per decision forever."""
    monkeypatch.setattr(_play_seats, "BACKLOG_LIMIT", 6)
    SleepyPolicy.gate, SleepyPolicy.calls = Gate(), 0
    try:
        with pytest.warns(RuntimeWarning, match="still running"):
            result = arena.play(
                [SleepyPolicy(), "calling-station", "random"],
                hands=20,
                seed=8,
                duplicate=False,
                action_timeout=0.2,
            )
        assert result.hands == 20
        _conserved(result)
        reasons = [f.reason for f in result.faults if f.seat == 0]
        assert reasons[0] == "TIMEOUT" and reasons[-1] == "DISCONNECTED"
        assert any("behind" in f.detail for f in result.faults if f.seat == 0)
    finally:
        SleepyPolicy.gate.release()


# --- 3. junk from handle() is a fault, never an exception out of play() ----------------


def _junk_bot(reply: object) -> Bot:
    """An SDK bot that says Hello, then answers every decision with ``reply``
    (or raises it, when it is an exception)."""

    class Junk(Bot):
        name = "junk"

        def handle(self, message):
            if message.WhichOneof("kind") != "decision":
                return super().handle(message)
            if isinstance(reply, BaseException):
                raise reply
            return reply

    return Junk()


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (None, "TIMEOUT"),
        ("call", "MALFORMED"),
        (pb.Action(kind=pb.ACTION_KIND_CALL), "MALFORMED"),  # not wrapped in a BotMessage
        (pb.DealerMessage(), "MALFORMED"),
        (b"\x08\x01", "MALFORMED"),
        (ValueError("boom"), "DISCONNECTED"),
        (SystemExit(3), "DISCONNECTED"),
    ],
    ids=["none", "str", "action", "dealer-message", "bytes", "raises", "system-exit"],
)
def test_junk_from_handle_is_a_recorded_fault(reply: object, reason: str) -> None:
    """issue 13 audit: whatever handle() returns or raises, play() finishes with chips
    conserved and the junk recorded as a fault with the dealer's fallback."""
    result = arena.play(
        [_junk_bot(reply), "calling-station", "random"],
        hands=6,
        seed=9,
        duplicate=False,
        action_timeout=0.2,
    )
    assert result.hands == 6
    _conserved(result)
    mine = [f for f in result.faults if f.seat == 0]
    assert mine and mine[0].reason == reason
    assert mine[0].applied in ("check", "fold", "stand pat")
    assert result.bots[0].faults >= 1


def test_junk_instead_of_a_hello_sits_the_seat_out() -> None:
    """issue 13 audit: a string for a Hello is MALFORMED at the handshake; the others play."""

    class NoHello(Bot):
        name = "no-hello"

        def handle(self, message):
            return "hello!"

    result = arena.play([NoHello(), "calling-station", "random"], hands=4, duplicate=False)
    assert [(f.seat, f.reason) for f in result.faults] == [(0, "MALFORMED")]
    assert result.hands == 4
    _conserved(result)

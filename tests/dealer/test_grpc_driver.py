"""Matches over real gRPC: SDK bots launched as processes, well-behaved and hostile.

Every bot here is a script in tests/dealer/bots. Deadlines are generous and no test
asserts an upper bound on time: on a loaded machine things are only slower.
"""

from __future__ import annotations

import asyncio
import math
import shutil
import threading

import pytest
import trio

from arena.dealer import (
    MAX_STALE,
    GrpcBot,
    MatchResult,
    MatchSettings,
    SeatBrokenError,
    _bridge,
    run_match,
)
from arena.dealer._grpc import MAX_UNREAD, MAX_UNREAD_BYTES
from arena.engine import GameConfig
from arena.protocol import pb
from arena.sandbox._process import free_tcp_port

pytestmark = [pytest.mark.trio, pytest.mark.timeout(60)]


def settings(**changes) -> MatchSettings:
    options = {"config": GameConfig(), "hands": 30, "seed": 1, "action_timeout": 2.0}
    options.update(changes)
    return MatchSettings(**options)


def assert_conserved(result: MatchResult) -> None:
    """R26: every hand's payoffs, and the match's chips, sum to zero."""
    assert sum(result.chips_won) == 0
    for number, payoffs in enumerate(result.payoffs, start=1):
        assert sum(payoffs) == 0, f"hand {number}: {payoffs}"


def faults_of(result: MatchResult, seat: int) -> list:
    return [fault for fault in result.faults if fault.seat == seat]


class TestWellBehaved:
    async def test_match_between_two_launched_sdk_bots(self, launch):
        """Fifty hands heads-up over gRPC: all played, chips conserved, no faults."""
        async with launch("calling.py", "calling.py") as bots:
            result = await run_match(bots, settings(hands=50))
        assert result.hands_played == 50
        assert result.reason == "completed"
        assert result.faults == []
        assert len(result.payoffs) == 50
        assert_conserved(result)

    async def test_six_handed_over_a_unix_socket(self, launch):
        """Six seats, three bots (two seats each) listening on unix sockets."""
        async with launch("calling.py", "calling.py", "calling.py", transport="unix") as bots:
            assert all(bot.address.startswith("unix:") for bot in bots)
            result = await run_match(bots * 2, settings(hands=12))
        assert result.hands_played == 12
        assert result.faults == []
        assert_conserved(result)


class TestConnection:
    async def test_cancelled_receive_loses_nothing(self, launch):
        """Receives cancelled before and while waiting still leave the Hello to read."""
        async with launch("calling.py") as (bot,):
            connection = await bot.connect()
            with trio.move_on_after(0):
                await connection.receive()
            with trio.move_on_after(0.05):
                await connection.receive()  # nothing sent yet: waits, then is cancelled
            await connection.send(pb.DealerMessage(match_start=pb.MatchStart(seat=0)))
            for _ in range(3):
                with trio.move_on_after(0):
                    await connection.receive()
            with trio.fail_after(10):
                reply = await connection.receive()
            assert reply.WhichOneof("kind") == "hello"
            await connection.aclose()
            with pytest.raises(SeatBrokenError):
                await connection.send(pb.DealerMessage(match_end=pb.MatchEnd()))

    async def test_stream_end_is_reported_on_every_receive(self, launch):
        """After MatchEnd the bot ends the stream: receive raises, and keeps raising."""
        async with launch("calling.py") as (bot,):
            connection = await bot.connect()
            await connection.send(pb.DealerMessage(match_start=pb.MatchStart(seat=0)))
            await connection.send(pb.DealerMessage(match_end=pb.MatchEnd()))
            with trio.fail_after(10):
                assert (await connection.receive()).WhichOneof("kind") == "hello"
                for _ in range(2):
                    with pytest.raises(SeatBrokenError, match="ended the stream"):
                        await connection.receive()
            await connection.aclose()

    async def test_flood_of_unasked_messages_cuts_the_stream(self, launch):
        """More than MAX_UNREAD unread messages: the stream is broken, with the reason."""
        async with launch("flood.py") as (bot,):
            connection = await bot.connect()
            await connection.send(pb.DealerMessage(match_start=pb.MatchStart(seat=0)))
            with trio.fail_after(10):
                await trio.sleep(0.5)  # let it flood before the dealer reads
                received = 0
                with pytest.raises(SeatBrokenError, match=f"more than {MAX_UNREAD} messages"):
                    while True:
                        await connection.receive()
                        received += 1
            assert received <= MAX_UNREAD + 1
            await connection.aclose()

    async def test_unread_bytes_are_bounded(self, launch):
        """40 unread Actions of ~0.9 MB (far fewer than MAX_UNREAD): the stream is cut once
        more than MAX_UNREAD_BYTES wait unread, so the dealer never holds the other ~30 MB."""
        async with launch("big_flood.py") as (launched,):
            bot = GrpcBot("big-flood", launched.address)
            try:
                connection = await bot.connect()
                await connection.send(pb.DealerMessage(match_start=pb.MatchStart(seat=0)))
                with trio.fail_after(30):
                    while connection._failed is None:  # read nothing until the stream is over
                        await trio.sleep(0.05)
                    queued = []
                    with pytest.raises(SeatBrokenError) as cut:
                        while True:
                            queued.append((await connection.receive()).ByteSize())
            finally:
                await bot.aclose()
        assert f"more than {MAX_UNREAD_BYTES} bytes" in str(cut.value)
        big = max(queued)
        assert big > 800_000
        assert len(queued) < 41  # the Hello and some of the 40: not all of them
        assert sum(queued) <= MAX_UNREAD_BYTES + big

    async def test_send_waits_when_the_bot_stops_reading(self, launch):
        """Sends queue only so far: a bot that never reads makes send() wait, not grow."""
        big = pb.DealerMessage(hand_end=pb.HandEnd(hand_id="x" * 20_000))
        async with launch("deaf.py") as (bot,):
            connection = await bot.connect()
            await connection.send(pb.DealerMessage(match_start=pb.MatchStart(seat=0)))
            with trio.fail_after(10):
                assert (await connection.receive()).WhichOneof("kind") == "hello"
            sent = 0
            with trio.move_on_after(2) as scope:
                for sent in range(10_000):  # noqa: B007
                    await connection.send(big)
            assert scope.cancelled_caught
            assert sent < 10_000
            await connection.aclose()

    async def test_unreachable_address_fails_connect(self):
        """Nothing listens at the address: connect raises SeatBrokenError, not a gRPC error."""
        bot = GrpcBot("nobody", f"127.0.0.1:{free_tcp_port()}", connect_timeout=0.3)
        try:
            with pytest.raises(SeatBrokenError, match="cannot reach nobody"):
                await bot.connect()
        finally:
            await bot.aclose()


class TestBridge:
    async def test_run_on_loop_returns_and_raises(self):
        """Results and exceptions of the asyncio coroutine come back to Trio."""

        async def double(x):
            await asyncio.sleep(0)
            return 2 * x

        async def fail():
            raise KeyError("nope")

        assert await _bridge.run_on_loop(double, 21) == 42
        with pytest.raises(KeyError, match="nope"):
            await _bridge.run_on_loop(fail)

    async def test_cancelling_trio_cancels_the_asyncio_task(self):
        """A Trio timeout cancels the coroutine on the loop (its finally runs there)."""
        cleaned = threading.Event()

        async def forever():
            try:
                await asyncio.sleep(3600)
            finally:
                cleaned.set()

        with trio.move_on_after(0.05):
            await _bridge.run_on_loop(forever)
        assert await trio.to_thread.run_sync(cleaned.wait, 10)

    async def test_pusher_delivers_in_order_into_trio(self):
        """Items pushed from the loop thread arrive in Trio's channel in order."""
        send, receive = trio.open_memory_channel(math.inf)
        push = _bridge.trio_pusher(trio.lowlevel.current_trio_token(), send)

        async def produce():
            for item in range(100):
                push(item)

        await _bridge.run_on_loop(produce)
        assert [await receive.receive() for _ in range(100)] == list(range(100))


class TestHostileBots:
    async def test_slow_bot_gets_timeouts_and_the_match_completes(self, launch):
        """Answers past the deadline become TIMEOUT faults; late answers are skipped."""
        async with launch("calling.py", "slow.py") as bots:
            result = await run_match(bots, settings(hands=20, action_timeout=0.3))
        assert result.hands_played == 20
        slow = faults_of(result, 1)
        assert slow, "the slow bot was never late"
        assert {fault.reason for fault in slow} == {"TIMEOUT"}
        # the clock that ran out is named: CPU for a launched bot that is measured (item 5)
        assert all(f.detail.startswith(("cpu clock:", "wall clock:")) for f in slow), slow
        assert not result.sat_out[1]
        assert_conserved(result)

    async def test_bot_crashing_mid_hand_is_disconnected_and_sits_out(self, launch):
        """os._exit on its 3rd decision: a DISCONNECTED fault, the others play on."""
        async with launch("calling.py", "calling.py", "crash.py") as bots:
            result = await run_match(bots, settings(hands=30))
            assert bots[2].process.returncode == 1
        assert result.hands_played == 30
        assert faults_of(result, 0) == faults_of(result, 1) == []
        crashed = faults_of(result, 2)
        assert {fault.reason for fault in crashed} == {"DISCONNECTED"}
        assert "stream broke" in crashed[0].detail
        assert "the process exited with status 1" in crashed[0].detail
        # every later hand tries to reconnect and is told the process is gone
        assert any("exited with status 1" in fault.detail for fault in crashed)
        assert any("exiting on purpose" in fault.detail for fault in crashed)
        assert result.sat_out[2]
        assert_conserved(result)

    async def test_garbage_actions_are_malformed(self, launch):
        """An invalid ActionKind and unknown card text are MALFORMED, with the reason."""
        async with launch("calling.py", "garbage.py") as bots:
            result = await run_match(bots, settings(hands=20))
        assert result.hands_played == 20
        garbage = faults_of(result, 1)
        assert {fault.reason for fault in garbage} == {"MALFORMED"}
        assert any("not a valid ActionKind" in fault.detail for fault in garbage)
        assert any("Zz" in fault.detail for fault in garbage)
        assert faults_of(result, 0) == []
        assert_conserved(result)

    async def test_illegal_amounts_are_illegal_actions(self, launch):
        """Raises to 1 chip or to a billion are ILLEGAL_ACTION faults; defaults are applied."""
        async with launch("calling.py", "illegal.py") as bots:
            result = await run_match(bots, settings(hands=20))
        assert result.hands_played == 20
        illegal = faults_of(result, 1)
        assert illegal and {fault.reason for fault in illegal} == {"ILLEGAL_ACTION"}
        assert all(fault.applied in ("check", "fold") for fault in illegal)
        assert_conserved(result)

    async def test_wrong_decision_id(self, launch):
        """An action for a decision that was never asked is WRONG_DECISION_ID."""
        async with launch("calling.py", "wrong_id.py") as bots:
            result = await run_match(bots, settings(hands=10))
        assert result.hands_played == 10
        wrong = faults_of(result, 1)
        assert wrong and {fault.reason for fault in wrong} == {"WRONG_DECISION_ID"}
        assert all("bogus" in fault.detail for fault in wrong)
        assert_conserved(result)

    async def test_oversize_action_breaks_the_stream(self, launch):
        """A 2 MB action passes the 1 MB limit: RESOURCE_EXHAUSTED, DISCONNECTED, reconnect."""
        async with launch("calling.py", ("oversize.py", "action")) as bots:
            result = await run_match(bots, settings(hands=20, reconnect=True))
        assert result.hands_played == 20
        oversize = faults_of(result, 1)
        assert oversize and {fault.reason for fault in oversize} == {"DISCONNECTED"}
        assert any("RESOURCE_EXHAUSTED" in fault.detail for fault in oversize)
        # it came back after the break: it broke again on a later stream
        broken_in = {fault.hand_number for fault in oversize}
        assert len(broken_in) >= 2, broken_in
        assert faults_of(result, 0) == []
        assert_conserved(result)

    async def test_oversize_hello_keeps_the_bot_out(self, launch):
        """A 2 MB Hello never arrives: the seat sits out, the other two play on."""
        async with launch("calling.py", "calling.py", ("oversize.py", "hello")) as bots:
            result = await run_match(bots, settings(hands=10, reconnect=False))
        assert result.hands_played == 10
        (fault,) = faults_of(result, 2)
        assert fault.reason == "DISCONNECTED"
        assert "RESOURCE_EXHAUSTED" in fault.detail
        assert result.sat_out[2]
        assert all(payoffs[2] == 0 for payoffs in result.payoffs)
        assert_conserved(result)

    async def test_bot_that_hangs_up_once_is_reconnected(self, launch):
        """It ends its first stream at its 3rd decision; the dealer reconnects next hand."""
        async with launch("calling.py", "hangup.py") as bots:
            result = await run_match(bots, settings(hands=20, reconnect=True))
        assert result.hands_played == 20
        hangups = faults_of(result, 1)
        assert hangups and {fault.reason for fault in hangups} == {"DISCONNECTED"}
        assert any("ended the stream" in fault.detail for fault in hangups)
        last_fault_hand = max(fault.hand_number for fault in hangups)
        assert last_fault_hand < 20
        # back in play after the reconnect
        assert any(payoffs[1] != 0 for payoffs in result.payoffs[last_fault_hand:])
        assert not result.sat_out[1]
        assert_conserved(result)


class TestStaleAnswers:
    async def test_r24_an_extra_answer_does_not_put_the_bot_out_of_step(self, launch):
        """A bot answers its first request twice, then every request once: the repeat is
        dropped and counted, never taken for the next request (no fault at all)."""
        async with launch("calling.py", "twice.py") as bots:
            result = await run_match(bots, settings(hands=20))
        assert result.hands_played == 20
        assert faults_of(result, 1) == []
        assert result.stale_actions == [0, 1]
        assert_conserved(result)

    async def test_r24_a_flood_of_answers_to_earlier_decisions_is_cut(self, launch):
        """40 repeats of its previous answer before each answer: past MAX_STALE in one
        decision it is a WRONG_DECISION_ID fault and the stream is cut; it comes back."""
        async with launch("calling.py", "calling.py", ("twice.py", "flood")) as bots:
            result = await run_match(bots, settings(hands=10))
        assert result.hands_played == 10
        flooded = faults_of(result, 2)
        assert flooded and {fault.reason for fault in flooded} == {"WRONG_DECISION_ID"}
        assert all(f"more than {MAX_STALE} answers" in fault.detail for fault in flooded)
        assert len({fault.hand_number for fault in flooded}) >= 2, "it was never reconnected"
        assert result.stale_actions[2] > MAX_STALE
        assert faults_of(result, 0) == faults_of(result, 1) == []
        assert_conserved(result)


class TestHelloAndBytes:
    async def test_r25_no_hello_is_a_timeout_counted_against_the_bot(self, launch):
        """A bot that never says Hello costs hello_timeout per try, each a TIMEOUT fault that
        counts towards the fault limit: past it, the seat is out for the match (R25)."""
        async with launch("calling.py", "calling.py", "mute.py") as bots:
            result = await run_match(bots, settings(hands=10, hello_timeout=0.5, fault_limit=3))
        assert result.hands_played == 10
        mute = faults_of(result, 2)
        assert [fault.reason for fault in mute] == ["TIMEOUT"] * 3 + ["SAT_OUT"]
        assert all("no Hello within 0.5 s" in fault.detail for fault in mute[:3])
        assert result.sat_out[2]
        assert_conserved(result)

    async def test_the_default_hello_wait_is_short(self):
        """A silent bot stalls its table for at most a couple of seconds per try."""
        assert MatchSettings(config=GameConfig()).hello_timeout <= 2.0

    async def test_r24_garbage_bytes_are_malformed_and_cut_the_stream(self, launch):
        """Bytes that are not a BotMessage: MALFORMED (the fault table's code), stream cut,
        the bot reconnected at the next hand, where it does it again."""
        async with launch("calling.py", ("raw_bytes.py", "action")) as bots:
            result = await run_match(bots, settings(hands=10))
        assert result.hands_played == 10
        garbage = faults_of(result, 1)
        assert garbage and {fault.reason for fault in garbage} == {"MALFORMED"}
        assert all("not a BotMessage" in fault.detail for fault in garbage)
        assert len({fault.hand_number for fault in garbage}) >= 2
        assert_conserved(result)

    async def test_r25_garbage_bytes_for_a_hello_are_malformed(self, launch):
        """The first message is not a BotMessage: MALFORMED, the seat sits out."""
        async with launch("calling.py", "calling.py", ("raw_bytes.py", "hello")) as bots:
            result = await run_match(bots, settings(hands=4, reconnect=False))
        (fault,) = faults_of(result, 2)
        assert (fault.reason, fault.hand_number) == ("MALFORMED", 0)
        assert "not a BotMessage" in fault.detail
        assert result.sat_out[2]

    async def test_r25_an_unknown_protocol_version_is_refused(self, launch):
        """Hello with protocol_version 999: a MALFORMED fault naming both versions; out."""
        async with launch("calling.py", "calling.py", "version.py") as bots:
            result = await run_match(bots, settings(hands=4, reconnect=False))
        (fault,) = faults_of(result, 2)
        assert fault.reason == "MALFORMED"
        assert "protocol_version 999" in fault.detail and "speaks 1" in fault.detail
        assert result.sat_out[2]
        assert result.hellos[2] is None
        assert all(payoffs[2] == 0 for payoffs in result.payoffs)


class TestHowABotDied:
    async def test_r25_a_cpu_limit_kill_names_the_signal(self, launch):
        """A bot spinning at its first decision is stopped by its CPU limit: the fault
        says SIGXCPU, not just that the socket closed."""
        if shutil.which("prlimit") is None:
            pytest.skip("prlimit is not installed")
        async with launch("calling.py", "spin.py", cpu_seconds=2, max_restarts=0) as bots:
            result = await run_match(bots, settings(hands=2, action_timeout=30.0))
        (first, *_) = faults_of(result, 1)
        assert first.reason == "DISCONNECTED"
        assert "was killed by signal SIGXCPU" in first.detail, first.detail

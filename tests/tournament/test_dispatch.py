"""The dispatcher (issue 11 item 4): the first match whose bots can all play now, streams leased.

Fake bots that dial in (:class:`FakeRemote`) count "connected" streams the test sets;
their leased tables are in-process policies. Virtual time (``MockClock``) makes the
polls instant; nothing here asserts a timing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest
import trio
import trio.testing

from arena.dealer import policy_driver
from arena.tournament._dispatch import Dispatcher, LeasableDriver, Taken, leasable, tables_of


@dataclass(frozen=True)
class Match:
    key: str
    seats: tuple[str, ...]
    duplicate: bool = False


class LeasedTable:
    """One leased stream: an in-process policy, naming its bot as ``process``."""

    def __init__(self, parent: FakeRemote) -> None:
        self.process = parent
        self.name = parent.name
        self._inner = policy_driver(parent.name, parent.policy, 1)
        self.closed = False

    async def connect(self):
        return await self._inner.connect()

    async def aclose(self) -> None:
        if not self.closed:
            self.closed = True
            self.process.leased -= 1  # the bot opens a fresh stream at once
            self.process.closed += 1


class FakeRemote:
    """A bot that dials in: ``streams`` connected streams, set by the test."""

    def __init__(self, name: str, streams: int = 0, policy: str = "calling-station") -> None:
        self.name = name
        self.policy = policy
        self.streams = streams
        self.leased = 0
        self.closed = 0
        self.refuse = 0  # leases still to refuse with LookupError (a stream went away)
        self.leases: list[int] = []

    def free_tables(self) -> int:
        return self.streams - self.leased

    def lease(self, count: int) -> list[LeasedTable]:
        if self.refuse:
            self.refuse -= 1
            raise LookupError(f"{self.name}: a stream went away")
        if self.free_tables() < count:
            raise LookupError(f"{self.name}: {self.free_tables()} free, {count} asked")
        self.leased += count
        self.leases.append(count)
        return [LeasedTable(self) for _ in range(count)]

    async def connect(self):
        raise AssertionError("the bot's own driver is never seated: its leased streams are")

    async def aclose(self) -> None:
        return None


def local(name: str) -> list:
    return [policy_driver(name, "random", 1), policy_driver(f"{name}.2", "random", 1)]


def test_the_protocol_is_duck_typed() -> None:
    """issue 11 item 4: a driver with free_tables and lease is leasable, a launched-like one not."""
    assert isinstance(FakeRemote("a"), LeasableDriver)
    assert leasable(FakeRemote("a")) is not None
    assert leasable(policy_driver("b", "random")) is None
    assert 2 == tables_of(Match("m", ("a", "b"), duplicate=True))
    assert 1 == tables_of(Match("m", ("a", "b", "c")))


def test_the_first_match_whose_bots_can_play_is_taken_in_schedule_order() -> None:
    """issue 11 item 4: a match whose remote bot has no stream waits; the next one is taken."""
    away, here = FakeRemote("away"), FakeRemote("here", streams=1)
    drivers = {"away": [away], "here": [here]} | {name: local(name) for name in "xyz"}
    schedule = [
        Match("m1", ("away", "x")),
        Match("m2", ("x", "here")),
        Match("m3", ("here", "y")),
        Match("m4", ("y", "z")),
    ]
    dispatcher = Dispatcher(schedule, drivers, max_tables_per_bot=1)
    first = dispatcher.take_nowait()
    assert first is not None and "m2" == first.match.key
    assert first.tables[0][1].process is here  # seat 1 plays on the leased stream
    assert first.tables[0][0] is drivers["x"][0]
    second = dispatcher.take_nowait()  # m1: away has no stream; m3: here is busy (limit 1)
    assert second is not None and "m4" == second.match.key
    away.streams = 1
    assert dispatcher.take_nowait() is None  # m1 now waits for x only, m3 for here
    assert ["m1", "m3"] == [m.key for m in dispatcher._pending]


def test_a_bot_that_failed_to_start_has_no_instance_and_no_pending_match() -> None:
    """issue 11 item 4: the runner's drivers may hold [] for a bot that did not start
    (its matches are forfeits, not pending): the others are dispatched as usual."""
    drivers = {"gone": [], "x": local("x"), "y": local("y")}
    dispatcher = Dispatcher([Match("m1", ("x", "y"))], drivers, max_tables_per_bot=1)
    taken = dispatcher.take_nowait()
    assert taken is not None and "m1" == taken.match.key
    assert [] == dispatcher.absent()


def test_the_per_bot_limit_is_kept() -> None:
    """issue 11 item 4: max_tables_per_bot counts a bot's matches in flight, as before."""
    drivers = {name: local(name) for name in "abc"}
    schedule = [Match("m1", ("a", "b")), Match("m2", ("a", "c")), Match("m3", ("b", "c"))]
    one = Dispatcher(schedule, drivers, max_tables_per_bot=1)
    assert ["m1"] == [t.match.key for t in iter(one.take_nowait, None)]
    two = Dispatcher(schedule, drivers, max_tables_per_bot=2)
    assert ["m1", "m2", "m3"] == [t.match.key for t in iter(two.take_nowait, None)]


def test_duplicate_matches_lease_a_stream_per_seat() -> None:
    """issue 11 item 4: table k gets the k-th leased stream; launched bots their k-th instance."""
    remote = FakeRemote("r", streams=1)
    drivers = {"r": [remote], "x": local("x")}
    dispatcher = Dispatcher(
        [Match("m1", ("r", "x"), duplicate=True)], drivers, max_tables_per_bot=1
    )
    assert dispatcher.take_nowait() is None  # one stream, two rotations
    assert ["r"] == dispatcher.absent()
    remote.streams = 2
    taken = dispatcher.take_nowait()
    assert taken is not None and [2] == remote.leases
    assert [d.process for d in (taken.tables[0][0], taken.tables[1][0])] == [remote, remote]
    assert taken.tables[0][0] is not taken.tables[1][0]
    assert [drivers["x"][0], drivers["x"][1]] == [taken.tables[0][1], taken.tables[1][1]]
    assert taken.leased == [taken.tables[0][0], taken.tables[1][0]]


def test_a_refused_lease_puts_the_match_back_and_closes_what_was_leased() -> None:
    """issue 11 item 4: LookupError from lease (the stream went away): the match stays
    pending, streams leased for its other seat are closed, and a later look takes it."""
    ok, flaky = FakeRemote("a-ok", streams=1), FakeRemote("b-flaky", streams=1)
    flaky.refuse = 1
    dispatcher = Dispatcher(
        [Match("m1", ("a-ok", "b-flaky"))],
        {"a-ok": [ok], "b-flaky": [flaky]},
        max_tables_per_bot=1,
    )

    async def main() -> Taken | None:
        return await dispatcher.take()

    taken = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert taken is not None and "m1" == taken.match.key
    assert 1 == ok.closed  # the first lease of a-ok was given back
    assert [1, 1] == ok.leases and [1] == flaky.leases
    assert 0 == dispatcher.remaining


def test_waiting_is_reported_once_per_change_and_ends_when_the_bot_connects() -> None:
    """issue 11 item 4: nothing can start, nothing plays: the absent bots are named once
    (however many polls), and ``[]`` once a match starts."""
    late = FakeRemote("late")
    reports: list[list[str]] = []
    dispatcher = Dispatcher(
        [Match("m1", ("late", "x")), Match("m2", ("x", "late"))],
        {"late": [late], "x": local("x")},
        max_tables_per_bot=1,
        on_waiting=reports.append,
    )
    got: list[Taken | None] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:

            async def take() -> None:
                got.append(await dispatcher.take())

            nursery.start_soon(take)
            await trio.sleep(10)  # virtual: about 50 polls
            assert [["late"]] == reports and not got
            late.streams = 1

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert [["late"], []] == reports
    assert got[0] is not None and "m1" == got[0].match.key


def test_a_match_ending_wakes_a_waiting_worker() -> None:
    """issue 11 item 4: release wakes the waiters (no poll needed: here polls never come)."""
    drivers = {name: local(name) for name in "abc"}
    dispatcher = Dispatcher(
        [Match("m1", ("a", "b")), Match("m2", ("a", "c"))],
        drivers,
        max_tables_per_bot=1,
        poll_seconds=math.inf,
    )
    order: list[str] = []

    async def main() -> None:
        first = dispatcher.take_nowait()
        assert first is not None
        with trio.fail_after(100):  # virtual time: a missed wake-up fails, never hangs
            async with trio.open_nursery() as nursery:

                async def second() -> None:
                    taken = await dispatcher.take()
                    assert taken is not None
                    order.append(taken.match.key)

                nursery.start_soon(second)
                await trio.testing.wait_all_tasks_blocked()
                order.append("release m1")
                await dispatcher.release(first)
        assert await dispatcher.take() is None  # nothing left

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert ["release m1", "m2"] == order


def test_release_closes_the_leased_streams_even_when_cancelled() -> None:
    """issue 11 item 4: a match cut short (Ctrl-C) still gives its streams back."""
    remote = FakeRemote("r", streams=2)
    dispatcher = Dispatcher(
        [Match("m1", ("r", "x"), duplicate=True)],
        {"r": [remote], "x": local("x")},
        max_tables_per_bot=1,
    )
    taken = dispatcher.take_nowait()
    assert taken is not None

    async def main() -> None:
        with trio.CancelScope() as scope:
            scope.cancel()
            await dispatcher.release(taken)

    trio.run(main)
    assert 2 == remote.closed and 0 == remote.leased


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])

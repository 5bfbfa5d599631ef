"""Benchmark the dealer over real gRPC: decisions/s and hands/s against a bare-stream ceiling.

Not a test: run it by hand (``python scripts/bench_dealer.py``, ``--quick`` for a short
run) after touching ``arena/dealer/``. Bots are launched as processes through
:class:`arena.dealer.LaunchedBot`; with ``--bots python`` (the default) they are this
script run as gRPC servers (``--serve echo|sdk``):

* ``echo``: answers every DecisionRequest at once with CALL (a check when nothing is
  owed), or stands pat at the draw; no SDK parsing. The trivial bot.
* ``sdk``: the same play through the Python SDK (``Decision`` objects, ``decide``).

``--bots cpp`` seats the C++ example bot instead (``examples_bots/cpp``, built by
``scripts/build_cpp_bot``, ``--policy call``: the same play, native): the targets are
about the DEALER's cost, and Python bots take half the two cores from it.

For each shape (heads-up and six-handed, one table and many at once) it measures:

* the **ceiling**: Trio tasks that send a realistic DecisionRequest on each seat's
  Play stream and await the answer, round-robin, with no game logic, through the same
  bridge and driver (``GrpcBot`` / ``GrpcConnection``);
* the **dealer**: ``run_match`` on every table (fixed limit, the default game),
  counting decisions and whole hands. The seats keep the wall clock (the counting
  wrapper hides the launched bot's CPU probe), as the ceiling does.

and prints dealer/ceiling. Beside the rates, the CPU per decision of the dealer's own
process (every thread: Trio, the gRPC loop, gRPC's pollers) and of the bots (their
process trees), which hold much better than rates on a machine shared with other jobs:
``cpu ratio`` is the dealer process's CPU per decision in the ceiling over the same in
the dealer run. A second heads-up 16-table row runs the seats on the CPU
clock a tournament gives launched bots (each decision reads the bot's CPU; at L2 its
cgroup), against the same ceiling. Then hands/s heads-up with the SDK bot, and the
dealer process's RSS with 64 tables running at once. Targets (issue 12 item 6): dealer
>= 0.8 of the ceiling with 16 heads-up tables, >= 500 hands/s heads-up fixed limit;
<= 150 MB RSS with 64 tables.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import resource
import sys
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import trio

from arena import protocol
from arena.dealer import BotDriver, LaunchedBot, MatchSettings, open_bot, run_match
from arena.engine import Deck, GameConfig, Hand
from arena.protocol import pb
from arena.sdk import Bot, run

ROOT = Path(__file__).resolve().parents[1]
CPP_BOT = ROOT / "examples_bots" / "cpp"
CPP_BINARY = CPP_BOT / "build" / "arena-cpp-bot"

# --- the bots (run as ``bench_dealer.py --serve KIND``) ----------------------------


class EchoBot(Bot):
    """Answers decisions without parsing them: CALL, or stand pat at the draw."""

    name = "echo"

    def handle(self, message: pb.DealerMessage) -> pb.BotMessage | None:
        kind = message.WhichOneof("kind")
        if kind == "decision":
            request = message.decision
            if request.phase == pb.PHASE_DRAW:
                action = pb.Action(decision_id=request.decision_id, kind=pb.ACTION_KIND_DISCARD)
            else:
                action = pb.Action(decision_id=request.decision_id, kind=pb.ACTION_KIND_CALL)
            return pb.BotMessage(action=action)
        if kind == "match_start":
            return self.hello()
        return None


class SdkBot(Bot):
    """Checks or calls, stands pat, through the SDK's Decision."""

    name = "sdk"

    def decide(self, decision):
        return decision.stand_pat() if decision.is_draw else decision.check_or_call()


# --- counting --------------------------------------------------------------------


@dataclass
class Counter:
    decisions: int = 0
    hands: int = 0
    writes: int = 0


class CountingConnection:
    """A SeatConnection that counts the Actions received (one per decision)."""

    def __init__(self, inner, counter: Counter) -> None:
        self._inner = inner
        self._counter = counter

    async def send(self, message: pb.DealerMessage) -> None:
        self._counter.writes += 1
        await self._inner.send(message)

    async def receive(self) -> pb.BotMessage:
        message = await self._inner.receive()
        if message.HasField("action"):
            self._counter.decisions += 1
        return message

    async def aclose(self) -> None:
        await self._inner.aclose()


class CountingDriver:
    """Counts a driver's traffic; ``probes`` passes on its CPU and breach probes (the
    seats then run on the CPU clock, as a tournament runs launched bots)."""

    def __init__(self, inner: BotDriver, counter: Counter, *, probes: bool = False) -> None:
        self.name = inner.name
        self._inner = inner
        self._counter = counter
        if probes:
            for probe in ("cpu_seconds", "limit_breach"):
                if hasattr(inner, probe):
                    setattr(self, probe, getattr(inner, probe))

    async def connect(self) -> CountingConnection:
        return CountingConnection(await self._inner.connect(), self._counter)

    async def aclose(self) -> None:
        pass  # the owner closes the real driver


# --- CPU per decision --------------------------------------------------------------


def own_cpu() -> float:
    """CPU seconds (user + system) of this process, every thread."""
    times = os.times()
    return times.user + times.system


def bots_cpu(drivers: Sequence[BotDriver]) -> float:
    """CPU seconds of the distinct bots' process trees (NaN when one cannot say)."""
    total = 0.0
    for driver in {id(driver): driver for driver in drivers}.values():
        probe = getattr(driver, "cpu_seconds", None)
        value = probe() if callable(probe) else None
        if value is None:
            return float("nan")
        total += value
    return total


@dataclass
class Row:
    """One measured run: decisions/s, hands/s, writes/s, and CPU microseconds per decision."""

    decisions: float
    hands: float = 0.0
    writes: float = 0.0
    dealer_us: float = float("nan")
    bots_us: float = float("nan")


async def measured(drivers: Sequence[BotDriver], run: Callable[[], Awaitable[Row]]) -> Row:
    """``run()`` (a ceiling or a dealer run), with the CPU it and the bots used per decision."""
    dealer_0, bots_0, wall_0 = own_cpu(), bots_cpu(drivers), trio.current_time()
    row = await run()
    dealer_1, bots_1, wall_1 = own_cpu(), bots_cpu(drivers), trio.current_time()
    count = row.decisions * (wall_1 - wall_0)
    if count > 0:
        row.dealer_us = (dealer_1 - dealer_0) / count * 1e6
        row.bots_us = (bots_1 - bots_0) / count * 1e6
    return row


# --- runs ------------------------------------------------------------------------


def sample_requests(players: int) -> list[pb.DealerMessage]:
    """Realistic DecisionRequests (first decision of a few real hands) for the ceiling."""
    config = GameConfig()
    messages = []
    for index in range(8):
        deck = Deck.shuffled(random.Random(index), joker=False)
        hand = Hand(config, [200] * players, 0, deck)
        request = protocol.decision(
            hand.view(hand.actor),
            decision_id=f"1.{index}",
            hand_id=f"bench/table/{index}",
            hand_number=1,
            names=[f"seat-{seat}" for seat in range(players)],
            time_left_ms=1000,
            time_bank_ms=0,
        )
        messages.append(request)
    return messages


async def ceiling(drivers: Sequence[BotDriver], tables: int, seconds: float) -> Row:
    """Decisions/s answering bare requests round-robin over each table's seats (one write each)."""
    counter = Counter()
    requests = sample_requests(len(drivers))
    start = trio.current_time()
    deadline = start + seconds

    async def table(number: int) -> None:
        connections = []
        for seat, driver in enumerate(drivers):
            connection = await driver.connect()
            start = protocol.match_start(
                match_id="bench",
                table_id=f"table-{number}",
                seat=seat,
                names=[driver.name for driver in drivers],
                config=GameConfig(),
                action_timeout=1.0,
                time_bank=0.0,
                hands=0,
                starting_stack=200,
            )
            await connection.send(start)
            await connection.receive()  # Hello
            connections.append(connection)
        for connection, request in zip(
            itertools.cycle(connections), itertools.cycle(requests), strict=False
        ):
            if trio.current_time() >= deadline:
                break
            await connection.send(request)
            await connection.receive()
            counter.decisions += 1
        for connection in connections:
            end = protocol.match_end(
                match_id="bench", hands_played=0, chips_won=[], reason="completed"
            )
            await connection.send(end)
            await connection.aclose()

    async with trio.open_nursery() as nursery:
        for number in range(tables):
            nursery.start_soon(table, number)
    return Row(counter.decisions / (trio.current_time() - start))


async def dealer(
    drivers: Sequence[BotDriver],
    tables: int,
    seconds: float,
    *,
    hands_per_match: int = 200,
    cpu_clock: bool = False,
) -> Row:
    """Decisions/s, hands/s and messages written/s of run_match on ``tables`` tables at once."""
    counter = Counter()
    counting = [CountingDriver(driver, counter, probes=cpu_clock) for driver in drivers]
    start = trio.current_time()
    deadline = start + seconds

    def on_hand(*_: object) -> None:
        counter.hands += 1

    async def table(number: int) -> None:
        for match in itertools.count():
            settings = MatchSettings(
                config=GameConfig(),
                hands=hands_per_match,
                seed=number * 1000 + match,
                action_timeout=5.0,
                match_id=f"bench-{number}-{match}",
                table_id=f"table-{number}",
            )
            result = await run_match(counting, settings, on_hand=on_hand)
            if result.faults:
                raise RuntimeError(f"faults in a benchmark match: {result.faults[:3]}")

    with trio.move_on_at(deadline):  # matches still running are cut mid-hand
        async with trio.open_nursery() as nursery:
            for number in range(tables):
                nursery.start_soon(table, number)
    decisions, hands, writes = counter.decisions, counter.hands, counter.writes
    elapsed = trio.current_time() - start  # counted before the cut matches close
    return Row(decisions / elapsed, hands / elapsed, writes / elapsed)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def rss_with_tables(
    drivers: Sequence[BotDriver], tables: int, seconds: float
) -> tuple[float, float]:
    """Peak VmRSS (sampled) while ``tables`` heads-up tables play, and the hands/s."""
    peak = rss_mb()
    result: list[tuple[float, float]] = []

    async def play() -> None:
        row = await dealer(drivers, tables, seconds, hands_per_match=50)
        result.append((row.decisions, row.hands))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(play)
        while not result:
            peak = max(peak, rss_mb())
            await trio.sleep(0.1)
    return peak, result[0][1]


def bot_commands(args: argparse.Namespace) -> tuple[list[str], list[str], Path | None]:
    """The trivial bot's command, the SDK bot's, and the trivial bot's working folder."""
    command = [sys.executable, str(Path(__file__).resolve()), "--serve"]
    if args.bots == "python":
        return [*command, "echo"], [*command, "sdk"], None
    if not os.access(CPP_BINARY, os.X_OK):
        raise SystemExit(
            f"bench_dealer: --bots cpp needs {CPP_BINARY.relative_to(ROOT)}: "
            "run scripts/build_cpp_bot first"
        )
    return [str(CPP_BINARY), "--policy", "call"], [*command, "sdk"], CPP_BOT


HEADER = (
    f"{'shape':<32}{'ceiling dec/s':>14}{'dealer dec/s':>14}{'ratio':>7}{'hands/s':>9}"
    f"{'writes/dec':>11}{'ceil us/dec':>12}{'dealer us/dec':>14}{'cpu ratio':>10}"
    f"{'bots us/dec':>12}"
)


def row_text(shape: str, top: Row | None, row: Row) -> str:
    """One line of the table; ``top`` is the ceiling (None for the SDK row)."""
    ratio = f"{row.decisions / top.decisions:>7.2f}" if top else f"{'':>7}"
    cpu_ratio = f"{top.dealer_us / row.dealer_us:>10.2f}" if top else f"{'':>10}"
    return (
        f"{shape:<32}{f'{top.decisions:,.0f}' if top else '':>14}{row.decisions:>14,.0f}{ratio}"
        f"{row.hands:>9,.0f}{row.writes / row.decisions:>11.2f}"
        f"{f'{top.dealer_us:,.0f}' if top else '':>12}{row.dealer_us:>14,.0f}{cpu_ratio}"
        f"{row.bots_us:>12,.0f}"
    )


async def main(args: argparse.Namespace) -> None:
    seconds = 1.0 if args.quick else args.seconds
    trivial, sdk_command, workdir = bot_commands(args)
    async with AsyncExitStack() as stack:
        logs = stack.enter_context(tempfile.TemporaryDirectory(prefix="arena-bench-"))
        echo = [
            await stack.enter_async_context(
                open_bot(
                    f"{args.bots}-{i}",
                    command=trivial,
                    log_dir=logs,
                    sandbox=args.sandbox,
                    workdir=workdir,
                )
            )
            for i in range(args.processes)
        ]
        sdk = [
            await stack.enter_async_context(
                open_bot(f"sdk-{i}", command=sdk_command, log_dir=logs, sandbox=args.sandbox)
            )
            for i in range(2)
        ]
        assert all(isinstance(bot, LaunchedBot) for bot in echo + sdk)
        layer = getattr(echo[0], "sandbox_layer", "")
        kind = "Python echo" if args.bots == "python" else "C++ (--policy call)"
        print(
            f"dealer over gRPC, {seconds:g} s per row, {args.processes} {kind} bot processes"
            f" (sandbox {layer}), load average {os.getloadavg()[0]:.1f}"
        )
        print(HEADER)
        ratios = {}
        for players, tables, cpu_clock in (
            (2, 1, False),
            (2, 16, False),
            (2, 16, True),
            (6, 1, False),
            (6, 8, False),
        ):
            seats = [echo[i % len(echo)] for i in range(players)]
            if not cpu_clock:  # the CPU-clock row is against the row above's ceiling
                top = await measured(seats, partial(ceiling, seats, tables, seconds))
            row = await measured(
                seats, partial(dealer, seats, tables, seconds, cpu_clock=cpu_clock)
            )
            shape = f"{'heads-up' if players == 2 else 'six-handed'}, {tables} table{'s' * (tables > 1)}"
            shape += ", CPU clock" if cpu_clock else ""
            ratios[shape] = row.decisions / top.decisions
            print(row_text(shape, top, row))
        row = await measured(sdk, partial(dealer, sdk, 1, seconds))
        print(row_text("heads-up, 1, Python SDK bots", None, row))
        ratio = ratios["heads-up, 16 tables"]
        print(
            f"dealer/ceiling heads-up, 16 tables: {ratio:.2f}  target >= 0.8: "
            f"{'ok' if ratio >= 0.8 else 'MISSED'}"
        )
        pair = echo[:2] if len(echo) > 1 else echo * 2
        hands_1 = (await dealer(pair, 1, seconds)).hands
        hands_16 = (await dealer(pair, 16, seconds)).hands
        best = max(hands_1, hands_16)
        verdict = "ok" if best >= 500 else "MISSED"
        print(
            f"hands/s heads-up fixed limit: {hands_1:,.0f} (1 table), {hands_16:,.0f} (16 tables)"
            f"  target >= 500: {verdict}"
        )
        peak, hands = await rss_with_tables(pair, 64, max(seconds, 2.0))
        max_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        verdict = "ok" if peak <= 150 else "MISSED"
        print(
            f"RSS with 64 tables: peak VmRSS {peak:.0f} MB (ru_maxrss {max_rss:.0f} MB), "
            f"{hands:,.0f} hands/s  target <= 150 MB: {verdict}"
        )
        print(f"load average at the end: {os.getloadavg()[0]:.1f}")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 s per row")
    parser.add_argument("--seconds", type=float, default=4.0, help="wall time per row")
    parser.add_argument("--processes", type=int, default=2, help="echo bot processes to seat")
    parser.add_argument(
        "--sandbox", default="auto", help="sandbox of the bots: auto (default), off, L0, L1, L2"
    )
    parser.add_argument(
        "--bots",
        choices=["python", "cpp"],
        default="python",
        help="the trivial bots: python (an echo bot, default) or cpp (examples_bots/cpp, built)",
    )
    parser.add_argument("--serve", choices=["echo", "sdk"], help=argparse.SUPPRESS)
    return parser.parse_known_args(argv)[0]


if __name__ == "__main__":
    arguments = parse_args()
    if arguments.serve:
        run(EchoBot() if arguments.serve == "echo" else SdkBot(), argv=[])
    else:
        trio.run(main, arguments)

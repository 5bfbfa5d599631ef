"""The SDK dials in to an arena (issue 11 item 5): against a small fake Arena service.

The fake (below) hosts ``arena.v1.Arena/Play`` on 127.0.0.1 over TLS (trustme's CA),
records each call's metadata and plays a script per stream: the SDK must answer it as
the Bot service does, reopen a stream after MatchEnd, resume a broken match with its
ticket, open ``tables`` streams at once, and stop for good on UNAUTHENTICATED.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import grpc
import pytest

from arena.protocol import pb
from arena.sdk import Bot, Decision, DialError, dial, run
from arena.sdk._dial import CHANNEL_OPTIONS, MAX_BACKOFF, is_loopback

trustme = pytest.importorskip("trustme", reason="trustme (dev extra) makes the TLS material")
from fake_arena import FakeArena, fake_arena, tls_pair  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "arena_caller_" + "ab" * 32


@pytest.fixture(scope="module")
def tls(tmp_path_factory) -> tuple[grpc.ServerCredentials, Path]:
    """Server credentials for 127.0.0.1 / localhost and the CA file a bot trusts."""
    return tls_pair(tmp_path_factory.mktemp("tls"))


class Caller(Bot):
    name = "caller"

    def decide(self, decision: Decision):
        return decision.check_or_call()


def match_start(ticket: str = "") -> pb.DealerMessage:
    players = [pb.Player(seat=0, name="caller"), pb.Player(seat=1, name="other")]
    return pb.DealerMessage(
        match_start=pb.MatchStart(
            match_id="m1", table_id="t1", seat=0, players=players, hands=1, resume_ticket=ticket
        )
    )


DECISION = pb.DealerMessage(
    decision=pb.DecisionRequest(
        decision_id="d-7",
        phase=pb.PHASE_PREDRAW_BETTING,
        hole_cards=["As", "Ad", "7c", "7d", "2s"],
        legal=pb.LegalActions(
            can_fold=True, call_amount=1, can_raise=True, min_raise_to=4, max_raise_to=4
        ),
    )
)
HAND_END = pb.DealerMessage(hand_end=pb.HandEnd(hand_id="h1", payoffs=[1, -1], stacks=[201, 199]))
MATCH_END = pb.DealerMessage(
    match_end=pb.MatchEnd(match_id="m1", hands_played=1, chips_won=[1, -1], reason="completed")
)


async def expect_hello(context) -> None:
    message = await context.read()
    assert message.WhichOneof("kind") == "hello", message
    assert message.hello.name == "caller" and message.hello.protocol_version == 1


async def expect_call(context) -> None:
    message = await context.read()
    assert message.WhichOneof("kind") == "action", message
    assert message.action.decision_id == "d-7"
    assert message.action.kind == pb.ACTION_KIND_CALL


async def hold(context) -> None:
    """A silent stream: a table offered, never seated (until the bot goes)."""
    await asyncio.Event().wait()


async def until(
    arena: FakeArena, predicate: Callable[[FakeArena], bool], task: asyncio.Task
) -> None:
    """Wait for ``predicate`` on the fake, failing early if ``dial`` ended first."""
    waiter = asyncio.ensure_future(arena.wait_for(predicate))
    done, _ = await asyncio.wait([waiter, task], return_when=asyncio.FIRST_COMPLETED)
    if waiter not in done:
        waiter.cancel()
        task.result()  # dial's own error, if it raised
        pytest.fail("dial returned before the fake arena saw what it waits for")


async def stop(task: asyncio.Task) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


@pytest.mark.timeout(60)
def test_dial_plays_a_scripted_match_over_tls_then_offers_a_new_table(tls) -> None:
    """issue 11 item 5: MatchStart -> Hello, a DecisionRequest -> its Action, HandEnd,
    MatchEnd, the stream ends OK; the bot opens a new stream, with no resume header,
    and every call carries exactly ``authorization: Bearer <token>``."""
    credentials, ca_file = tls
    finished = []

    async def script(n: int, context) -> None:
        if n > 0:
            return await hold(context)
        await context.write(match_start(ticket="ticket-1"))
        await expect_hello(context)
        await context.write(DECISION)
        await expect_call(context)
        await context.write(HAND_END)
        await context.write(MATCH_END)
        assert await context.read() is grpc.aio.EOF  # the bot half-closed after MatchEnd
        finished.append(n)

    async def main() -> None:
        async with fake_arena(script, credentials) as (address, arena):
            task = asyncio.create_task(dial(Caller(), address, token=TOKEN, ca=ca_file, tables=1))
            await until(arena, lambda a: len(a.metadata) == 2, task)
            await stop(task)
            assert finished == [0]
            assert [m["authorization"] for m in arena.metadata] == [f"Bearer {TOKEN}"] * 2
            assert all("arena-resume" not in m for m in arena.metadata)

    asyncio.run(main())


@pytest.mark.timeout(60)
def test_dial_with_three_tables_keeps_three_streams_open_at_once(tls) -> None:
    """issue 11 item 5: ``tables=3`` offers three tables: three silent streams open together."""
    credentials, ca_file = tls

    async def main() -> None:
        async with fake_arena(lambda n, context: hold(context), credentials) as (address, arena):
            task = asyncio.create_task(dial(Caller(), address, token=TOKEN, ca=ca_file, tables=3))
            await until(arena, lambda a: a.open == 3, task)
            await stop(task)
            assert len(arena.metadata) == 3

    asyncio.run(main())


async def broken_then_resumed(
    n: int, context, *, break_first: Callable[[], Awaitable[None]]
) -> None:
    """Stream 0 breaks after the bot's first answer; stream 1 must carry the ticket and
    gets the same MatchStart and the pending decision again; stream 2 is a new table."""
    if n == 0:
        await context.write(match_start(ticket="ticket-1"))
        await expect_hello(context)
        await context.write(DECISION)
        await expect_call(context)
        await break_first()
    elif n == 1:
        await context.write(match_start(ticket="ticket-1"))
        await expect_hello(context)
        await context.write(DECISION)
        await expect_call(context)
        await context.write(MATCH_END)
    else:
        await hold(context)


@pytest.mark.timeout(60)
def test_a_stream_broken_mid_match_is_reopened_with_its_resume_ticket(tls) -> None:
    """issue 11 item 5: a stream cut (UNAVAILABLE) between MatchStart and MatchEnd is
    reopened with ``arena-resume: <ticket>``; after that match ends, no header again."""
    credentials, ca_file = tls

    async def script(n: int, context) -> None:
        async def cut() -> None:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "connection lost")

        await broken_then_resumed(n, context, break_first=cut)

    async def main() -> None:
        async with fake_arena(script, credentials) as (address, arena):
            task = asyncio.create_task(dial(Caller(), address, token=TOKEN, ca=ca_file, tables=1))
            await until(arena, lambda a: len(a.metadata) == 3, task)
            await stop(task)
            assert [m.get("arena-resume") for m in arena.metadata] == [None, "ticket-1", None]

    asyncio.run(main())


@pytest.mark.timeout(60)
def test_a_match_cut_by_the_arena_going_away_is_resumed_when_it_is_back(tls) -> None:
    """issue 11 item 5: the arena's process stops mid-match (the connection drops) and
    starts again on the same port: the bot reconnects, backing off, with the ticket."""
    credentials, ca_file = tls
    first_gone = asyncio.Event()

    async def main() -> None:
        async def script(n: int, context) -> None:
            await broken_then_resumed(n, context, break_first=wait_for_the_cut)

        async def wait_for_the_cut() -> None:
            first_gone.set()
            await asyncio.Event().wait()  # until the server stops under it

        async with fake_arena(script, credentials) as (address, first):
            task = asyncio.create_task(dial(Caller(), address, token=TOKEN, ca=ca_file, tables=1))
            await first_gone.wait()
        port = int(address.rsplit(":", 1)[1])
        async with fake_arena(lambda n, c: script(n + 1, c), credentials, port) as (_, second):
            await until(second, lambda a: len(a.metadata) == 2, task)
            await stop(task)
        assert first.metadata[0].get("arena-resume") is None
        assert second.metadata[0].get("arena-resume") == "ticket-1"
        assert second.metadata[1].get("arena-resume") is None

    asyncio.run(main())


@pytest.mark.timeout(60)
def test_unauthenticated_stops_the_bot_without_retrying(tls) -> None:
    """issue 11 item 5: UNAUTHENTICATED raises DialError (a SystemExit) with one line
    naming the cause, and no stream is opened again."""
    credentials, ca_file = tls

    async def script(n: int, context) -> None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown token")

    async def main() -> None:
        async with fake_arena(script, credentials) as (address, arena):
            with pytest.raises(DialError) as error:
                await dial(Caller(), address, token=TOKEN, ca=ca_file, tables=1)
            assert len(arena.metadata) == 1
        assert isinstance(error.value, SystemExit)
        assert "refused the token" in error.value.message and "\n" not in error.value.message
        assert TOKEN not in error.value.message

    asyncio.run(main())


def test_a_run_that_is_over_is_not_redialled_at_once(tls, capsys) -> None:
    """issue 19 item 9d: FAILED_PRECONDITION (the tournament is over) says so in one line
    and waits the longest back-off before dialling again, never a quick loop."""
    credentials, ca_file = tls
    said: list[str] = []

    async def script(n: int, context) -> None:
        detail = "the tournament is over: do not reconnect"
        await context.abort(grpc.StatusCode.FAILED_PRECONDITION, detail)

    async def main() -> None:
        async with fake_arena(script, credentials) as (address, arena):
            task = asyncio.create_task(dial(Caller(), address, token=TOKEN, ca=ca_file, tables=1))
            await until(arena, lambda a: len(a.metadata) == 1, task)
            while "again in" not in "".join(said):
                said.append(capsys.readouterr().err)
                await asyncio.sleep(0.02)
            await stop(task)

    asyncio.run(main())
    line = next(line for line in "".join(said).splitlines() if "again in" in line)
    assert "the tournament is over" in line
    wait = float(line.rsplit("again in ", 1)[1].split()[0])
    assert wait >= MAX_BACKOFF / 2  # the longest back-off (jittered in its upper half)


def run_bot(*args: str, token: str | None) -> Awaitable[asyncio.subprocess.Process]:
    env = {k: v for k, v in os.environ.items() if k not in ("ARENA_TOKEN", "ARENA_BOT_ADDRESS")}
    if token is not None:
        env["ARENA_TOKEN"] = token
    return asyncio.create_subprocess_exec(
        sys.executable,
        *args,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


@pytest.mark.timeout(60)
def test_run_with_a_refused_token_exits_2_with_one_line(tls) -> None:
    """issue 11 item 5: ``calling_station.py --dial ... --ca`` with a wrong $ARENA_TOKEN:
    exit status 2, the last stderr line says the token was refused, no traceback, and
    the token is never printed."""
    credentials, ca_file = tls
    wrong = "arena_caller_" + "0" * 64

    async def script(n: int, context) -> None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown token")

    async def main() -> tuple[int, str]:
        async with fake_arena(script, credentials) as (address, _):
            bot = await run_bot(
                str(ROOT / "examples_bots" / "calling_station.py"),
                *("--dial", address, "--ca", str(ca_file), "--tables", "1"),
                token=wrong,
            )
            _, err = await bot.communicate()
            return bot.returncode, err.decode()

    code, err = asyncio.run(main())
    assert code == 2, err
    assert "refused the token" in err.strip().splitlines()[-1]
    assert "Traceback" not in err and wrong not in err


@pytest.mark.timeout(60)
def test_an_example_bot_plays_over_dial_in_and_stops_cleanly_on_sigterm(tls) -> None:
    """issue 11 item 5: rule_based.py (arena.sdk.run) with --dial, --ca, --tables 2 and
    the token in $ARENA_TOKEN plays the scripted match, offers tables again, exits 0 on SIGTERM."""
    credentials, ca_file = tls
    answers: list[pb.BotMessage] = []

    async def script(n: int, context) -> None:
        if n > 0:
            return await hold(context)
        await context.write(match_start(ticket="t"))
        hello = await context.read()
        await context.write(DECISION)
        answers.extend([hello, await context.read()])
        await context.write(MATCH_END)

    async def main() -> tuple[int, str]:
        async with fake_arena(script, credentials) as (address, arena):
            bot = await run_bot(
                str(ROOT / "examples_bots" / "rule_based.py"),
                *("--dial", address, "--ca", str(ca_file), "--tables", "2"),
                token=TOKEN,
            )
            waiter = asyncio.create_task(bot.wait())
            await until(arena, lambda a: len(a.metadata) == 3 and a.open == 2, waiter)
            bot.send_signal(signal.SIGTERM)
            _, err = await bot.communicate()
            assert all(m["authorization"] == f"Bearer {TOKEN}" for m in arena.metadata)
            return bot.returncode, err.decode()

    code, err = asyncio.run(main())
    assert code == 0, err
    assert TOKEN not in err
    assert answers[0].hello.name == "rule-based"
    assert answers[1].action.decision_id == "d-7"


@pytest.mark.parametrize("script", sorted(p.name for p in (ROOT / "examples_bots").glob("*.py")))
def test_every_example_python_bot_takes_the_dial_options(script: str) -> None:
    """issue 11 item 5: each example bot's command line (arena.sdk.run) has --dial and its options."""
    import subprocess

    out = subprocess.run(
        [sys.executable, str(ROOT / "examples_bots" / script), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    for option in ("--dial", "--token", "--ca", "--insecure", "--tables"):
        assert option in out, out


# --- refusals before any traffic ---------------------------------------------------


@pytest.fixture
def no_channels(monkeypatch):
    """Fail if a channel is made at all: these refusals come before any traffic."""

    def forbidden(*args, **kwargs):
        raise AssertionError("a channel was opened")

    monkeypatch.setattr(grpc.aio, "insecure_channel", forbidden)
    monkeypatch.setattr(grpc.aio, "secure_channel", forbidden)


@pytest.mark.parametrize("address", ["192.0.2.1:443", "arena.example.org:50051", "[2001:db8::1]:1"])
def test_insecure_is_refused_for_an_address_that_is_not_loopback(address, no_channels) -> None:
    """issue 11 item 5: --insecure only on loopback; elsewhere DialError, no channel made."""
    with pytest.raises(DialError, match="--insecure is refused"):
        asyncio.run(dial(Caller(), address, token=TOKEN, insecure=True))


def test_run_refuses_insecure_to_a_remote_address_with_one_line(
    no_channels, monkeypatch, capsys
) -> None:
    """issue 11 item 5: run(--dial 192.0.2.1:1 --insecure) exits 2 with one line on stderr."""
    monkeypatch.delenv("ARENA_BOT_ADDRESS", raising=False)
    with pytest.raises(SystemExit) as exit:
        run(Caller(), ["--dial", "192.0.2.1:1", "--insecure", "--token", TOKEN])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--insecure is refused" in err and TOKEN not in err


def test_run_takes_the_dial_options_as_keywords_too(no_channels, monkeypatch, capsys) -> None:
    """issue 11 item 5: run(bot, dial=..., token=..., insecure=True) dials as --dial
    does (here refused: plain text to an address that is not loopback), and the command
    line overrides the keywords (--tables 0 is refused first)."""
    monkeypatch.delenv("ARENA_BOT_ADDRESS", raising=False)
    with pytest.raises(SystemExit) as exit:
        run(Caller(), [], dial="192.0.2.1:1", token=TOKEN, insecure=True)
    assert exit.value.code == 2
    assert "--insecure is refused" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run(Caller(), ["--tables", "0"], dial="127.0.0.1:1", token=TOKEN, insecure=True)
    assert "--tables must be between" in capsys.readouterr().err


def test_run_without_a_token_refuses_to_dial(no_channels, monkeypatch, capsys) -> None:
    """issue 11 item 5: no --token and no $ARENA_TOKEN: one line, exit 2, nothing dialled."""
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    monkeypatch.delenv("ARENA_BOT_ADDRESS", raising=False)
    with pytest.raises(SystemExit) as exit:
        run(Caller(), ["--dial", "127.0.0.1:1", "--insecure"])
    assert exit.value.code == 2
    assert "no token" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"token": "arena_x_1\nsecond"}, "characters no arena token has"),
        ({"token": TOKEN, "tables": 0}, "--tables"),
        ({"token": TOKEN, "ca": "/nonexistent/ca.pem"}, "cannot read the CA file"),
        ({"token": TOKEN, "ca": __file__}, "no PEM certificate"),
    ],
)
def test_bad_arguments_are_refused_before_any_traffic(kwargs, says, no_channels) -> None:
    """issue 11 item 5: a token with a newline, zero tables, an unreadable or non-PEM CA file."""
    with pytest.raises(DialError, match=says):
        asyncio.run(dial(Caller(), "127.0.0.1:1", **kwargs))


@pytest.mark.parametrize(
    ("address", "loopback"),
    [
        ("127.0.0.1:5", True),
        ("127.8.9.1:5", True),
        ("[::1]:5", True),
        ("localhost:5", True),
        ("unix:/tmp/arena.sock", True),
        ("10.0.0.1:5", False),
        ("[::ffff:8.8.8.8]:5", False),
        ("arena.example.org:5", False),
        ("127.0.0.1.example.org:5", False),
        ("127.0.0.1", False),
    ],
)
def test_which_addresses_are_loopback(address: str, loopback: bool) -> None:
    """issue 11 item 5: plain text is allowed exactly for 127.x, ::1, localhost and unix:."""
    assert is_loopback(address) is loopback


def test_client_keepalive_is_no_faster_than_the_proto_allows() -> None:
    """issue 11 item 5: the proto asks clients to ping no more often than every 20 s,
    and bot messages are at most 16 KiB."""
    options = dict(CHANNEL_OPTIONS)
    assert options["grpc.keepalive_time_ms"] >= 20_000
    assert options["grpc.max_send_message_length"] == 16 * 1024
    assert options["grpc.max_receive_message_length"] == 1 << 20

"""The Node.js example bot dials in to an arena (issue 11 item 5), against a small fake
Arena service on 127.0.0.1 over TLS (trustme's CA): it plays a scripted match, opens a
new stream after it, resumes a broken match with its ticket, keeps ``--tables`` streams
open, stops with one line and exit status 2 on UNAUTHENTICATED, and refuses
``--insecure`` to an address that is not loopback.

Needs ``node`` and ``npm ci`` run in examples_bots/node; skipped otherwise.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
from pathlib import Path

import grpc
import pytest

from arena.protocol import pb

NODE_BOT = Path(__file__).resolve().parents[2] / "examples_bots" / "node"
NODE = shutil.which("node")


def _skip_reason() -> str | None:
    if NODE is None:
        return "node is not installed"
    if not (NODE_BOT / "node_modules").is_dir():
        return f"no {NODE_BOT / 'node_modules'}: run `npm ci` in examples_bots/node"
    return None


_REASON = _skip_reason()
if _REASON is not None:
    print(f"tests/examples/test_node_dial.py skipped: {_REASON}")
    pytest.skip(_REASON, allow_module_level=True)

trustme = pytest.importorskip("trustme", reason="trustme (dev extra) makes the TLS material")
from fake_arena import FakeArena, fake_arena, tls_pair  # noqa: E402

TOKEN = "arena_node_" + "cd" * 32


@pytest.fixture(scope="module")
def tls(tmp_path_factory) -> tuple[grpc.ServerCredentials, Path]:
    """Server credentials for 127.0.0.1 / localhost and the CA file a bot trusts."""
    return tls_pair(tmp_path_factory.mktemp("tls"))


async def start_node(*args: str, token: str | None = TOKEN) -> asyncio.subprocess.Process:
    env = {k: v for k, v in os.environ.items() if k not in ("ARENA_TOKEN", "ARENA_BOT_ADDRESS")}
    if token is not None:
        env["ARENA_TOKEN"] = token
    return await asyncio.create_subprocess_exec(
        NODE,
        str(NODE_BOT / "bot.js"),
        *args,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )


async def until(arena: FakeArena, predicate, bot: asyncio.subprocess.Process) -> None:
    """Wait for ``predicate`` on the fake, failing early if the bot exits first."""
    waiter = asyncio.ensure_future(arena.wait_for(predicate))
    exited = asyncio.ensure_future(bot.wait())
    done, _ = await asyncio.wait([waiter, exited], return_when=asyncio.FIRST_COMPLETED)
    if waiter not in done:
        waiter.cancel()
        err = (await bot.stderr.read()).decode() if bot.stderr else ""
        pytest.fail(f"the Node bot exited with {bot.returncode} first: {err}")
    exited.cancel()


async def stop(bot: asyncio.subprocess.Process) -> tuple[int, str]:
    if bot.returncode is None:
        bot.send_signal(signal.SIGTERM)
    _, err = await bot.communicate()
    return bot.returncode, err.decode()


MATCH_START = pb.DealerMessage(
    match_start=pb.MatchStart(
        match_id="m1",
        seat=0,
        players=[pb.Player(seat=0, name="node"), pb.Player(seat=1, name="other")],
        resume_ticket="ticket-9",
    )
)
DECISION = pb.DealerMessage(
    decision=pb.DecisionRequest(
        decision_id="d-3",
        phase=pb.PHASE_PREDRAW_BETTING,
        hole_cards=["As", "Ad", "7c", "7d", "2s"],  # two pair: the Node bot raises
        legal=pb.LegalActions(
            can_fold=True, call_amount=1, can_raise=True, min_raise_to=4, max_raise_to=8
        ),
    )
)
MATCH_END = pb.DealerMessage(
    match_end=pb.MatchEnd(match_id="m1", hands_played=1, reason="completed")
)


async def hold(context) -> None:
    await asyncio.Event().wait()


async def hello_and_answer(context) -> pb.Action:
    await context.write(MATCH_START)
    hello = await context.read()
    assert hello.WhichOneof("kind") == "hello", hello
    assert hello.hello.name == "node-pairs" and hello.hello.protocol_version == 1
    await context.write(DECISION)
    action = await context.read()
    assert action.WhichOneof("kind") == "action", action
    return action.action


@pytest.mark.timeout(60)
def test_node_bot_dials_in_plays_a_match_and_offers_a_new_table(tls) -> None:
    """issue 11 item 5: over TLS (--ca), MatchStart -> Hello, a DecisionRequest -> its
    Action (a legal raise, right decision id), MatchEnd -> the bot half-closes; then a
    new stream, no resume header, and ``authorization: Bearer <token>`` on each."""
    credentials, ca_file = tls
    actions: list[pb.Action] = []
    half_closed: list[bool] = []

    async def script(n: int, context) -> None:
        if n > 0:
            return await hold(context)
        actions.append(await hello_and_answer(context))
        await context.write(MATCH_END)
        half_closed.append(await context.read() is grpc.aio.EOF)

    async def main() -> tuple[int, str]:
        async with fake_arena(script, credentials) as (address, arena):
            bot = await start_node("--dial", address, "--ca", str(ca_file), "--tables", "1")
            await until(arena, lambda a: len(a.metadata) == 2, bot)
            assert [m["authorization"] for m in arena.metadata] == [f"Bearer {TOKEN}"] * 2
            assert all("arena-resume" not in m for m in arena.metadata)
            return await stop(bot)

    code, err = asyncio.run(main())
    assert code == 0, err
    assert TOKEN not in err
    assert actions[0].decision_id == "d-3"
    assert actions[0].kind == pb.ACTION_KIND_BET_RAISE and actions[0].amount == 4
    assert half_closed == [True]


@pytest.mark.timeout(60)
def test_node_bot_resumes_a_broken_match_with_its_ticket(tls) -> None:
    """issue 11 item 5: a stream cut mid-match (UNAVAILABLE) is reopened with
    ``arena-resume: <ticket>``; after that match ends, the next stream has no header."""
    credentials, ca_file = tls

    async def script(n: int, context) -> None:
        if n == 0:
            await hello_and_answer(context)
            await context.abort(grpc.StatusCode.UNAVAILABLE, "connection lost")
        elif n == 1:
            await hello_and_answer(context)
            await context.write(MATCH_END)
        else:
            await hold(context)

    async def main() -> tuple[int, str]:
        async with fake_arena(script, credentials) as (address, arena):
            bot = await start_node("--dial", address, "--ca", str(ca_file), "--tables", "1")
            await until(arena, lambda a: len(a.metadata) == 3, bot)
            assert [m.get("arena-resume") for m in arena.metadata] == [None, "ticket-9", None]
            return await stop(bot)

    code, err = asyncio.run(main())
    assert code == 0, err


@pytest.mark.timeout(60)
def test_node_bot_keeps_three_tables_open_on_loopback_plain_text() -> None:
    """issue 11 item 5: ``--tables 3 --insecure`` to 127.0.0.1 (allowed: loopback) and
    the token from ``--token``: three silent streams at once."""

    async def main() -> tuple[int, str]:
        async with fake_arena(lambda n, c: hold(c), None) as (address, arena):
            bot = await start_node(
                "--dial", address, "--insecure", "--tables", "3", "--token", TOKEN, token=None
            )
            await until(arena, lambda a: a.open == 3, bot)
            assert len(arena.metadata) == 3
            assert all(m["authorization"] == f"Bearer {TOKEN}" for m in arena.metadata)
            return await stop(bot)

    code, err = asyncio.run(main())
    assert code == 0, err
    assert TOKEN not in err


@pytest.mark.timeout(60)
def test_node_bot_stops_with_exit_2_and_one_line_on_unauthenticated(tls) -> None:
    """issue 11 item 5: UNAUTHENTICATED: exit status 2, the last line says the token was
    refused, one stream only (no retry), and the token is not printed."""
    credentials, ca_file = tls
    wrong = "arena_node_" + "0" * 64

    async def script(n: int, context) -> None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown token")

    async def main() -> tuple[int, str, int]:
        async with fake_arena(script, credentials) as (address, arena):
            bot = await start_node(
                "--dial", address, "--ca", str(ca_file), "--tables", "1", token=wrong
            )
            _, err = await bot.communicate()
            return bot.returncode, err.decode(), len(arena.metadata)

    code, err, streams = asyncio.run(main())
    assert code == 2, err
    assert "refused the token" in err.strip().splitlines()[-1]
    assert streams == 1
    assert wrong not in err


@pytest.mark.parametrize(
    ("args", "env_token", "says"),
    [
        (["--dial", "192.0.2.1:443", "--insecure"], TOKEN, "--insecure is refused"),
        (["--dial", "[2001:db8::1]:443", "--insecure"], TOKEN, "--insecure is refused"),
        (["--dial", "127.0.0.1:1", "--insecure"], None, "no token"),
        (
            ["--dial", "127.0.0.1:1", "--ca", "/nonexistent/ca.pem"],
            TOKEN,
            "cannot read the CA file",
        ),
        (["--dial", "127.0.0.1:1", "--insecure", "--tables", "0"], TOKEN, "--tables"),
    ],
)
def test_node_bot_refuses_bad_dial_options_with_one_line(args, env_token, says) -> None:
    """issue 11 item 5: before any connection: plain text to an address that is not
    loopback, no token, an unreadable CA file, zero tables: exit 2, one line."""
    env = {k: v for k, v in os.environ.items() if k not in ("ARENA_TOKEN", "ARENA_BOT_ADDRESS")}
    if env_token is not None:
        env["ARENA_TOKEN"] = env_token
    done = subprocess.run(
        [NODE, str(NODE_BOT / "bot.js"), *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    assert TOKEN not in done.stderr

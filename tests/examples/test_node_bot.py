"""The Node.js example bot (examples_bots/node), written from the .proto alone, plays
whole matches over gRPC: its health check answers SERVING, and every action it sends is
legal and on time, so the dealer records no fault, and the chips add up (R26).

Needs ``node`` and ``npm ci`` run in examples_bots/node; skipped otherwise.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import trio
from grpc_health.v1 import health_pb2, health_pb2_grpc
from processes import assert_exits, kill_launcher_while_the_bot_starts

from arena.dealer import GrpcBot, LocalBot, MatchSettings, run_match
from arena.engine import GameConfig, JokerMode, Structure
from arena.policies import CallingStation, RandomPolicy
from arena.policies import PolicyBot as SeatedPolicy

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
    print(f"tests/examples/test_node_bot.py skipped: {_REASON}")
    pytest.skip(_REASON, allow_module_level=True)

HEALTH_TIMEOUT = 15.0


def PolicyBot(policy) -> SeatedPolicy:
    """An in-process policy, to sit opposite the Node bot."""
    return SeatedPolicy(policy.name, policy)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_serving(address: str, process: subprocess.Popen, log: Path) -> None:
    """Poll the standard health check until it says SERVING (sync client, with retries)."""
    deadline = time.monotonic() + HEALTH_TIMEOUT
    last = "no answer"
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail(f"the Node bot exited with {process.returncode}: {log.read_text()}")
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1.0)
            except grpc.RpcError as error:
                last = f"{error.code().name}"
                time.sleep(0.1)
                continue
            if reply.status == health_pb2.HealthCheckResponse.SERVING:
                return
            last = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
            time.sleep(0.1)
    pytest.fail(
        f"the Node bot was not SERVING within {HEALTH_TIMEOUT:g} s (last: {last}): {log.read_text()}"
    )


@pytest.fixture(scope="module")
def node_bot(tmp_path_factory) -> Iterator[str]:
    """Start ``node bot.js`` on a free port; yield its address; stop it at the end."""
    address = f"127.0.0.1:{free_port()}"
    log = tmp_path_factory.mktemp("node-bot") / "bot.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [NODE, str(NODE_BOT / "bot.js")],
            env={**os.environ, "ARENA_BOT_ADDRESS": address},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_serving(address, process, log)
        yield address
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def play(address: str, opponent: SeatedPolicy, config: GameConfig, hands: int, seed: int):
    settings = MatchSettings(
        config=config,
        hands=hands,
        seed=seed,
        duplicate=True,
        action_timeout=2.0,
        hello_timeout=10.0,
    )

    async def main():
        node = GrpcBot("node", address)
        try:
            return await run_match([node, LocalBot(opponent)], settings)
        finally:
            await node.aclose()

    return trio.run(main)


def test_node_bot_health_check_names_the_bot_service(node_bot):
    """The Node bot reports SERVING for the arena.v1.Bot service too, NOT_FOUND for others."""
    with grpc.insecure_channel(node_bot) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service="arena.v1.Bot"), timeout=5.0)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        with pytest.raises(grpc.RpcError) as error:
            stub.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=5.0)
        assert error.value.code() is grpc.StatusCode.NOT_FOUND


def test_node_bot_plays_fixed_limit_without_faults(node_bot):
    """300 hands of fixed limit against a calling station: no fault, chips conserved (R24, R26)."""
    result = play(node_bot, PolicyBot(CallingStation()), GameConfig(small_bet=2), hands=300, seed=7)
    assert result.hands_played == 300
    assert result.faults == []
    assert sum(result.chips_won) == 0
    assert all(sum(payoffs) == 0 for payoffs in result.payoffs)


def test_node_bot_plays_no_limit_with_a_wild_joker_and_draw_three(node_bot):
    """No limit, a wild joker (R2) and draws of at most 3 (R15) against random play: every
    Node action is still legal (raise amounts, discards within max_discard, joker cards)."""
    config = GameConfig(structure=Structure.NO_LIMIT, big_blind=2, joker=JokerMode.WILD, max_draw=3)
    opponent = PolicyBot(RandomPolicy(random.Random(11)))
    result = play(node_bot, opponent, config, hands=200, seed=11)
    assert result.hands_played == 200
    assert result.faults == []
    assert sum(result.chips_won) == 0


# --- the Node bot does not outlive the arena ------------------------------------------


@pytest.mark.timeout(60)
def test_node_bot_exits_when_the_arena_is_killed_while_it_starts(tmp_path):
    """SIGKILL of the arena before the Node bot serves (a preload holds it 1 s first):
    it was re-parented before its watchdog ran, yet it stops."""
    preload = tmp_path / "hold.js"
    preload.write_text("Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);\n")
    command = [NODE, "--require", str(preload), str(NODE_BOT / "bot.js")]
    assert_exits(
        kill_launcher_while_the_bot_starts(tmp_path, command), "the Node bot outlived the arena"
    )


@pytest.mark.timeout(60)
def test_node_bot_stops_when_the_arena_pid_is_gone_or_its_stdin_closes():
    """Either sign of a dead arena stops it: $ARENA_PARENT_PID no longer runs (stdin not
    a pipe), or the stdin pipe from the arena reaches end-of-file (the arena alive)."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    base = {**os.environ, "ARENA_BOT_ADDRESS": f"127.0.0.1:{free_port()}"}
    by_pid = subprocess.Popen(
        [NODE, str(NODE_BOT / "bot.js")],
        env={**base, "ARENA_PARENT_PID": str(gone.pid)},
        stdin=subprocess.DEVNULL,
    )
    base["ARENA_BOT_ADDRESS"] = f"127.0.0.1:{free_port()}"
    by_pipe = subprocess.Popen(
        [NODE, str(NODE_BOT / "bot.js")],
        env={**base, "ARENA_PARENT_PID": str(os.getpid())},
        stdin=subprocess.PIPE,
    )
    try:
        by_pid.wait(timeout=30)
        time.sleep(1.0)
        assert by_pipe.poll() is None, "the Node bot stopped while the arena was alive"
        by_pipe.stdin.close()
        assert by_pipe.wait(timeout=30) == 0
    finally:
        for process in (by_pid, by_pipe):
            if process.poll() is None:
                process.kill()
                process.wait()


def test_node_bot_ships_the_current_proto_in_its_own_folder():
    """A sandboxed bot sees only its own folder (issue 9), so the Node bot carries its
    copy of the .proto; scripts/gen_proto refreshes it and this keeps it identical."""
    root = Path(__file__).resolve().parents[2]
    copy = root / "examples_bots" / "node" / "arena.proto"
    assert copy.read_bytes() == (root / "proto" / "arena" / "v1" / "arena.proto").read_bytes()

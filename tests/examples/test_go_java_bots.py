"""The Go and Java bots of ``arena new-bot`` (issue 24 item 2): each, built from Debian's
packages alone in the bots' build sandbox, plays a tournament against the Python example
bots at the sandbox's highest layer (L2 as root) in the loopback-only network namespace
(no ``share_network``: Go serves the unix socket itself, Java through its own unix socket
relayed to gRPC over Netty's in-process channel), several tables at once per bot; plays
no limit with a wild joker through the launcher; listens on ``unix:PATH`` with the health
service; exits 0 on SIGTERM and when the arena is gone.

Each template is built once per session (tests/template_builds.py, shared with
tests/cli/test_new_bot.py); a language whose toolchain is missing is skipped with the
reason printed (``scripts/bootstrap`` installs both as root).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
import trio
from click.testing import CliRunner
from processes import assert_exits, kill_launcher_while_the_bot_starts
from template_builds import built_bot, missing, run_command

from arena.cli import cli
from arena.cli._app import _register
from arena.dealer import MatchSettings, check_layers, open_bot, resolve_sandbox, run_match
from arena.engine import GameConfig, JokerMode, Structure
from arena.tournament import load_tournament

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples_bots"
LANGS = ("go", "java")

_register()


def _bot(lang: str) -> Path:
    reason = missing(lang)
    if reason is not None:
        print(f"tests/examples/test_go_java_bots.py [{lang}] skipped: {reason}")
        pytest.skip(reason)
    return built_bot(lang)


@pytest.fixture(scope="module", params=LANGS)
def bot(request) -> Path:
    """The built template folder of each language (my-go, my-java)."""
    return _bot(request.param)


@pytest.mark.timeout(600)
def test_go_and_java_play_a_tournament_against_python_bots_at_the_highest_layer(
    tmp_path: Path,
) -> None:
    """issue 24 item 2: the Go and Java folders (those whose toolchain is here) and two
    Python example bots, a round robin, two tables at once per bot: every match completes,
    no fault, no forfeit, chips conserved, every seat at the highest layer available (L2 as
    root), launched with the default limits (no share_network: loopback only)."""
    folders = {}
    for lang in LANGS:
        reason = missing(lang)
        if reason is None:
            folders[lang] = built_bot(lang)
        else:
            print(
                f"tests/examples/test_go_java_bots.py: the tournament goes on without {lang}: {reason}"
            )
    if not folders:
        pytest.skip("neither the Go nor the Java toolchain is installed")
    bots = "".join(
        f'[[bots]]\nname = "{lang}"\nfolder = {json.dumps(str(f))}\n\n'
        for lang, f in folders.items()
    )
    for name in ("calling_station", "rule_based"):
        command = f"{{python}} {EXAMPLES / (name + '.py')}"
        bots += f'[[bots]]\nname = "{name}"\ncommand = {json.dumps(command)}\n\n'
    (tmp_path / "league.toml").write_text(
        '[tournament]\nname = "go-java"\nformat = "round_robin"\nhands_per_match = 40\n'
        "duplicate = true\nconcurrency = 2\nmax_tables_per_bot = 2\nseed = 4\n"
        'output = "runs"\ndatabase = "arena.db"\n\n'
        '[game]\nstructure = "fixed_limit"\nbig_blind = 2\nstack = 200\n\n' + bots
    )
    config = load_tournament(tmp_path / "league.toml")
    ours = [bot for bot in config.bots if bot.name in folders]
    assert all(bot.limits is None or not bot.limits.share_network for bot in ours)  # the defaults
    started = time.monotonic()
    result = CliRunner().invoke(cli, ["tournament", "run", str(tmp_path / "league.toml")])
    print(f"tournament of {len(config.bots)} bots: {time.monotonic() - started:.1f} s")
    assert result.exit_code == 0, result.output
    results = sorted((tmp_path / "runs" / "go-java").glob("*/result.json"))
    n = len(config.bots)
    assert len(results) == n * (n - 1) // 2
    layer = resolve_sandbox("auto")  # the highest layer that works here
    if os.geteuid() == 0 and any(c.layer == "L2" and c.available for c in check_layers()):
        assert layer == "L2"
    for file in results:
        data = json.loads(file.read_text())
        assert data["reason"] == "completed", data
        assert sum(seat["chips_won"] for seat in data["seats"]) == 0, data
        for seat in data["seats"]:
            assert seat["faults"] == 0 and not seat["forfeited"], seat
            assert seat["sandbox"] == layer, seat


@pytest.mark.timeout(300)
def test_no_limit_with_a_wild_joker_and_draw_three_through_the_launcher(bot: Path) -> None:
    """No limit, a wild joker (R2) and draws of at most 3 (R15) against the random Python
    bot, both launched at the default sandbox: every action legal (raise amounts, discards
    within max_discard), on the CPU clock, chips conserved."""
    config = GameConfig(structure=Structure.NO_LIMIT, big_blind=2, joker=JokerMode.WILD, max_draw=3)
    settings = MatchSettings(config=config, hands=120, seed=11, duplicate=True, action_timeout=2.0)
    python_bot = [sys.executable, str(EXAMPLES / "random_bot.py")]

    async def main():
        async with (
            open_bot(bot.name, command=run_command(bot), workdir=bot, sandbox="auto") as ours,
            open_bot("py", command=python_bot, workdir=EXAMPLES, sandbox="auto") as py,
        ):
            return ours.sandbox_layer, await run_match([ours, py], settings)

    layer, result = trio.run(main)
    assert layer == resolve_sandbox("auto")
    assert result.hands_played == 120
    assert result.faults == []
    assert result.hellos[0]["name"] == bot.name
    assert result.hellos[0]["protocol_version"] == 1
    assert result.clocks == ["cpu", "cpu"]
    assert sum(result.chips_won) == 0


@pytest.mark.timeout(120)
def test_serves_a_unix_socket_answers_health_and_exits_0_on_sigterm(
    bot: Path, tmp_path: Path
) -> None:
    """It listens on ``unix:PATH`` (the arena's default), answers the health check for ""
    and arena.v1.Bot (NOT_FOUND for others), and exits with status 0 on SIGTERM."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    address = f"unix:{tmp_path / 'bot.sock'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    process = subprocess.Popen(
        [*run_command(bot), "--address", address], env=env, stderr=subprocess.PIPE, cwd=tmp_path
    )
    try:
        with grpc.insecure_channel(address) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            for service in ("", "arena.v1.Bot"):
                request = health_pb2.HealthCheckRequest(service=service)
                reply = stub.Check(request, timeout=30.0, wait_for_ready=True)
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
            with pytest.raises(grpc.RpcError) as error:
                stub.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=5.0)
            assert error.value.code() is grpc.StatusCode.NOT_FOUND
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.stderr is not None
    err = process.stderr.read().decode()
    assert f"{bot.name} 1.0.0 listening on unix:" in err, err
    assert not (tmp_path / "bot.sock").exists(), "the socket is left behind"


@pytest.mark.timeout(120)
def test_stops_when_the_arena_pid_is_gone_or_its_stdin_closes(bot: Path) -> None:
    """Either sign of a dead arena stops it: $ARENA_PARENT_PID no longer runs (stdin not a
    pipe), or the stdin pipe from the arena reaches end-of-file (the arena alive)."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    base = {**os.environ, "ARENA_BOT_ADDRESS": "127.0.0.1:0"}
    command = run_command(bot)
    by_pid = subprocess.Popen(
        command, env={**base, "ARENA_PARENT_PID": str(gone.pid)}, stdin=subprocess.DEVNULL
    )
    by_pipe = subprocess.Popen(
        command, env={**base, "ARENA_PARENT_PID": str(os.getpid())}, stdin=subprocess.PIPE
    )
    try:
        assert by_pid.wait(timeout=60) == 0
        time.sleep(2.0)
        assert by_pipe.poll() is None, f"the {bot.name} bot stopped while the arena was alive"
        assert by_pipe.stdin is not None
        by_pipe.stdin.close()
        assert by_pipe.wait(timeout=60) == 0
    finally:
        for process in (by_pid, by_pipe):
            if process.poll() is None:
                process.kill()
                process.wait()


@pytest.mark.timeout(120)
def test_exits_when_the_arena_is_killed_while_it_starts(bot: Path, tmp_path: Path) -> None:
    """SIGKILL of the launching arena as soon as the bot runs: it stops all the same."""
    pid = kill_launcher_while_the_bot_starts(tmp_path, run_command(bot))
    assert_exits(pid, f"the {bot.name} bot outlived the arena", seconds=60)


def test_refuses_a_bad_option_in_one_line(bot: Path) -> None:
    """A wrong option: one line on stderr naming it, exit status 2."""
    done = subprocess.run(
        [*run_command(bot), "--x", "1"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "unknown option --x" in done.stderr and len(done.stderr.strip().splitlines()) == 1, (
        done.stderr
    )

"""Launching bots as processes: addresses, start-up failures, logs, limits, stopping."""

from __future__ import annotations

import os
import shutil
import signal
import sys
from pathlib import Path

import pytest
import trio
from processes import alive

from arena.dealer import (
    BotStartError,
    GrpcBot,
    LaunchedBot,
    MatchSettings,
    SeatBrokenError,
    driver_from_spec,
    open_bot,
    policy_driver,
    run_match,
)
from arena.engine import GameConfig
from arena.protocol import pb
from arena.sandbox._process import limit_command, parse_command
from arena.sandbox._seatbox import ADDRESS_ENV

pytestmark = pytest.mark.timeout(60)

BOTS = Path(__file__).parent / "bots"


def _gone(pid: int) -> bool:
    """The process is reaped (no zombie left behind)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


class TestCommands:
    def test_address_env_matches_the_sdk(self):
        """The dealer and the SDK agree on the variable that carries the address."""
        from arena.sdk import ADDRESS_ENV as SDK_ADDRESS_ENV

        assert ADDRESS_ENV == SDK_ADDRESS_ENV

    def test_parse_command_splits_strings_like_a_shell(self):
        """A string is split with shell quoting rules; a list is kept as is."""
        assert parse_command("bot --name 'my bot' {address}") == [
            "bot",
            "--name",
            "my bot",
            "{address}",
        ]
        assert parse_command(["a b", "c"]) == ["a b", "c"]
        with pytest.raises(ValueError, match="empty"):
            parse_command("  ")

    def test_limits_wrap_the_command_in_prlimit(self):
        """Memory (MB, as bytes of address space) and CPU seconds become prlimit options."""
        assert limit_command(["bot"]) == ["bot"]
        if shutil.which("prlimit") is None:
            pytest.skip("prlimit is not installed")
        wrapped = limit_command(["bot", "-x"], memory_limit_mb=512, cpu_seconds=30)
        assert wrapped[1:] == [f"--as={512 << 20}", "--cpu=30:31", "--", "bot", "-x"]
        assert wrapped[0].endswith("prlimit")

    def test_limits_without_prlimit_are_an_error(self, monkeypatch):
        """Asking for a limit that cannot be enforced fails loudly."""
        monkeypatch.setattr(shutil, "which", lambda name: None)
        with pytest.raises(BotStartError, match="prlimit"):
            limit_command(["bot"], cpu_seconds=1)

    def test_port_placeholder_needs_tcp(self):
        """A unix socket has no port to put into the command: a bot that cannot start (a
        tournament's bot forfeits; a ValueError stopped the league, issue 13 audit)."""
        with pytest.raises(BotStartError, match="port"):
            LaunchedBot("b", "bot --port {port}", transport="unix")

    def test_driver_from_spec_takes_a_command_or_an_address(self):
        """Exactly one of command= and address= picks the driver."""
        assert isinstance(driver_from_spec("a", address="127.0.0.1:1"), GrpcBot)
        assert isinstance(driver_from_spec("a", command="bot"), LaunchedBot)
        for bad in ({}, {"command": "bot", "address": "127.0.0.1:1"}):
            with pytest.raises(ValueError, match="exactly one"):
                driver_from_spec("a", **bad)


@pytest.mark.trio
class TestStartUp:
    async def test_process_that_exits_first_fails_fast_with_its_stderr(self, bot_command, tmp_path):
        """The error says it exited, with which code, and ends with its stderr."""
        with pytest.raises(BotStartError, match="exited with status 3") as caught:
            async with open_bot("exits", command=bot_command("exits.py"), log_dir=tmp_path):
                pytest.fail("the bot should not start")
        assert "missing configuration file" in str(caught.value)

    async def test_bot_that_never_listens_fails_after_the_timeout(self, bot_command, tmp_path):
        """No health answer within startup_timeout: a clear error, the process reaped."""
        bot = LaunchedBot("silent", bot_command("silent.py"), startup_timeout=1.0, log_dir=tmp_path)
        async with trio.open_nursery() as nursery:
            with pytest.raises(BotStartError, match="not healthy within 1 s") as caught:
                await bot.start(nursery)
        assert "not listening anywhere" in str(caught.value)
        assert bot.process is not None and bot.process.returncode is not None
        assert _gone(bot.process.pid)

    async def test_missing_executable(self, tmp_path):
        """A command that cannot run at all is a start-up error, not an OSError."""
        with pytest.raises(BotStartError, match="cannot run"):
            async with open_bot("ghost", command=[str(tmp_path / "no-such-bot")], log_dir=tmp_path):
                pass

    async def test_address_reaches_the_bot_by_env_and_placeholder(self, tmp_path):
        """``{address}`` is substituted, ARENA_BOT_ADDRESS and ``env`` are set."""
        command = f"{sys.executable} {BOTS / 'calling.py'} --address {{address}}"
        async with open_bot(
            "placeholder",
            command=command,
            transport="unix",
            env={"ARENA_TEST_FLAG": "1"},
            log_dir=tmp_path,
            sandbox="off",  # the command itself is the process (L0+: tests/dealer/test_sandbox.py)
        ) as bot:
            assert bot.address.startswith("unix:")
            pid = bot.process.pid
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            assert bot.address.encode() in argv
            assert f"{ADDRESS_ENV}={bot.address}".encode() in environ
            assert b"ARENA_TEST_FLAG=1" in environ
            socket_dir = bot.address.removeprefix("unix:").rsplit("/", 1)[0]
        assert not os.path.exists(socket_dir)

    async def test_limits_are_applied_to_the_process(self, bot_command, tmp_path):
        """memory_limit_mb and cpu_seconds show in the bot's /proc limits; it still plays."""
        if shutil.which("prlimit") is None:
            pytest.skip("prlimit is not installed")
        async with open_bot(
            "limited",
            command=bot_command("calling.py"),
            memory_limit_mb=1024,
            cpu_seconds=100,
            log_dir=tmp_path,
        ) as bot:
            limits = Path(f"/proc/{bot.process.pid}/limits").read_text()
            connection = await bot.connect()
            await connection.send(pb.DealerMessage(match_start=pb.MatchStart()))
            with trio.fail_after(10):
                assert (await connection.receive()).WhichOneof("kind") == "hello"
            await connection.aclose()
        cpu = next(line for line in limits.splitlines() if line.startswith("Max cpu time"))
        memory = next(line for line in limits.splitlines() if line.startswith("Max address space"))
        assert cpu.split()[3:5] == ["100", "101"]
        assert memory.split()[3:5] == [str(1024 << 20)] * 2


@pytest.mark.trio
class TestRunning:
    async def test_logs_are_captured_and_capped(self, bot_command, tmp_path):
        """stdout stops at the cap with a marker line; stderr is kept."""
        async with open_bot(
            "chatty", command=bot_command("chatty.py"), log_dir=tmp_path, log_limit_bytes=10_000
        ) as bot:
            pass
        stdout = bot.stdout_log.read_bytes()
        assert stdout.startswith(b"chatty line 00000")
        assert stdout.endswith(b"[arena: log truncated at 10000 bytes]\n")
        assert len(stdout) < 10_100
        assert b"chatty: ready" in bot.stderr_log.read_bytes()

    async def test_stop_is_graceful_for_a_bot_that_listens(self, bot_command, tmp_path):
        """SIGTERM stops an SDK bot cleanly (exit code 0), and it is reaped."""
        async with open_bot("calling", command=bot_command("calling.py"), log_dir=tmp_path) as bot:
            pid = bot.process.pid
        assert bot.process.returncode == 0
        assert _gone(pid)

    async def test_stop_escalates_to_sigkill(self, bot_command, tmp_path):
        """A bot that ignores SIGTERM is killed after stop_timeout, and reaped."""
        async with open_bot(
            "stubborn", command=bot_command("stubborn.py"), stop_timeout=0.5, log_dir=tmp_path
        ) as bot:
            pid = bot.process.pid
        assert bot.process.returncode == -signal.SIGKILL
        assert _gone(pid)

    async def test_connect_after_the_process_died_fails_at_once(self, bot_command, tmp_path):
        """With no restarts left, connect() checks the process first: no waiting on a dead address."""
        async with open_bot(
            "victim", command=bot_command("calling.py"), log_dir=tmp_path, max_restarts=0
        ) as bot:
            bot.process.kill()
            await bot.process.wait()
            with pytest.raises(SeatBrokenError, match="was killed by signal SIGKILL"):
                await bot.connect()

    async def test_a_dead_bot_is_restarted_on_connect_and_its_old_logs_kept(
        self, bot_command, tmp_path
    ):
        """connect() after a crash starts the process again (up to max_restarts) and plays on."""
        async with open_bot(
            "phoenix", command=bot_command("calling.py"), log_dir=tmp_path, max_restarts=1
        ) as bot:
            first = bot.process.pid
            bot.process.kill()
            await bot.process.wait()
            connection = await bot.connect()
            assert bot.process.pid != first
            assert 1 == bot.restarts
            await connection.aclose()
            assert (tmp_path / "phoenix.stderr.1.log").exists()
            bot.process.kill()
            await bot.process.wait()
            with pytest.raises(SeatBrokenError, match="was killed by signal SIGKILL"):
                await bot.connect()

    async def test_a_running_bot_dialled_by_address(self, bot_command, tmp_path):
        """open_bot(address=...) drives a bot someone else started; both seats play."""
        async with (
            open_bot("launched", command=bot_command("calling.py"), log_dir=tmp_path) as launched,
            open_bot("dialled", address=launched.address) as dialled,
        ):
            assert isinstance(dialled, GrpcBot)
            settings = MatchSettings(config=GameConfig(), hands=10, seed=3, action_timeout=2.0)
            result = await run_match([launched, dialled], settings)
        assert result.hands_played == 10
        assert result.faults == []
        assert sum(result.chips_won) == 0


@pytest.mark.trio
async def test_tables_finding_a_dead_bot_at_once_restart_it_once(bot_command, tmp_path):
    """Several connects racing after a crash start one new process, not one each (no orphans)."""
    async with open_bot(
        "racer", command=bot_command("calling.py"), log_dir=tmp_path, max_restarts=3
    ) as bot:
        bot.process.kill()
        await bot.process.wait()
        connections = []

        async def connect():
            connections.append(await bot.connect())

        async with trio.open_nursery() as nursery:
            for _ in range(4):
                nursery.start_soon(connect)
        assert 4 == len(connections)
        assert 1 == bot.restarts
        for connection in connections:
            await connection.aclose()


def _heads_up(hands: int, seed: int = 1) -> MatchSettings:
    return MatchSettings(config=GameConfig(), hands=hands, seed=seed, action_timeout=5.0)


@pytest.mark.trio
class TestRestartAfterCrash:
    async def test_r25_a_bot_whose_exit_lags_its_socket_is_restarted(self, bot_command, tmp_path):
        """The socket closes 1 s before the process exits: the next connect waits for the
        exit and restarts the bot, instead of dialling the dead address for 5 s (R25)."""
        marker = tmp_path / "crashed-once"
        async with open_bot(  # L0: the bot writes its marker in tmp_path
            "linger",
            command=bot_command("linger.py", str(marker)),
            log_dir=tmp_path,
            sandbox="L0",
        ) as bot:
            station = policy_driver("station", "calling-station")
            result = await run_match([bot, station], _heads_up(10))
        assert marker.exists()
        assert 1 == bot.restarts
        assert not [f for f in result.faults if "cannot reach" in f.detail], result.faults
        assert (10, "completed") == (result.hands_played, result.reason)
        assert sum(result.chips_won) == 0

    @pytest.mark.parametrize("run", range(4))
    async def test_r25_crash_bot_is_restarted_every_time(self, bot_command, tmp_path, run):
        """crash.py dies at its 3rd decision in every run: each crash is found and the bot
        restarted until max_restarts is spent (the race lost about one run in six)."""
        async with open_bot("crash", command=bot_command("crash.py"), log_dir=tmp_path) as bot:
            station = policy_driver("station", "calling-station")
            result = await run_match([bot, station], _heads_up(10, seed=run))
        assert not [f for f in result.faults if "cannot reach" in f.detail], result.faults
        assert 3 == bot.restarts == bot.max_restarts
        assert sum(result.chips_won) == 0


@pytest.mark.trio
async def test_a_crashed_bots_grandchild_is_stopped(bot_command, tmp_path):
    """Sandbox off: the bot leader dies, its grandchild lives on in its process group:
    closing the driver signals the whole group, so nothing the bot started outlives the
    match. (At L0+ the supervisor kills it as soon as the bot dies: tests/hostile.)"""
    pid_file = tmp_path / "grandchild.pid"
    async with open_bot(
        "spawner",
        command=bot_command("spawner.py", str(pid_file)),
        log_dir=tmp_path,
        max_restarts=0,
        stop_timeout=0.5,
        sandbox="off",
    ) as bot:
        result = await run_match([bot, policy_driver("station", "calling-station")], _heads_up(4))
        grandchild = int(pid_file.read_text())
        assert bot.process.returncode == 1
        assert alive(grandchild), "the grandchild should still run while the driver is open"
    assert result.hands_played >= 1
    with trio.move_on_after(10):
        while alive(grandchild):
            await trio.sleep(0.05)
    if alive(grandchild):
        os.kill(grandchild, signal.SIGKILL)
        pytest.fail("the crashed bot's grandchild outlived the match")

"""Hostile bots against each sandbox layer (issue 9 item 7; items 1, 2 and 4).

L1 and L2 tests skip with the reason printed where the layer does not work; CI runs
them all as root. No test sends traffic anywhere but to loopback and unix sockets.
"""

from __future__ import annotations

import os
import socket
import threading

import pytest
import trio

from arena.dealer import BotLimits, BotStartError, LaunchedBot
from arena.sandbox import _sandbox, _seatbox

pytestmark = [pytest.mark.trio, pytest.mark.timeout(90)]


async def _wait_for(predicate, seconds: float = 20.0) -> bool:
    """Poll ``predicate`` until it holds or ``seconds`` pass (no timing is asserted)."""
    with trio.move_on_after(seconds):
        while not predicate():
            await trio.sleep(0.05)
    return bool(predicate())


async def _run(bot: LaunchedBot, during=None):
    """Start ``bot``, run ``during(bot)`` while it serves, close it; returns the bot."""
    async with trio.open_nursery() as nursery:
        try:
            await bot.start(nursery)
            if during is not None:
                await during(bot)
        finally:
            await bot.aclose()
    return bot


def _bot(tools, tmp_path, script, token, *args, **options) -> LaunchedBot:
    options.setdefault("log_dir", tmp_path / "logs")
    options.setdefault("startup_timeout", 30)
    return LaunchedBot(script, tools.bot_command(script, token, *args), **options)


class TestFiles:
    async def test_i9_no_bot_reads_another_seat_the_records_or_the_database(
        self, tools, tmp_path, token, layer
    ):
        """At L1+ another seat's folder is not mounted, and the records folder and the
        database are masked even inside the bot's own (mounted) folder (items 1, 2)."""
        seat = tmp_path / "seat"
        (seat / "runs" / "m1").mkdir(parents=True)
        records = seat / "runs" / "m1" / "events.jsonl"
        records.write_text("hole cards")
        database = seat / "arena.db"
        database.write_text("sqlite")
        other = tmp_path / "other-seat"
        other.mkdir()
        (other / "bot.py").write_text("secret strategy")
        targets = [str(records), str(database), str(other / "bot.py")]
        bot = _bot(
            tools, tmp_path, "snoop.py", token, *targets,
            sandbox=layer, workdir=seat, hidden_paths=[seat / "runs", database],
        )  # fmt: skip
        await _run(bot)
        seen = tools.verdicts(bot.stderr_log)
        assert len(seen) == 3, seen
        if layer == "L0":  # L0 cannot hide them, and says so
            assert bot.records_visible
        else:
            assert not bot.records_visible
            assert all(line.startswith("denied") for line in seen), seen

    async def test_i9_no_channel_between_instances_and_no_privilege(
        self, tools, tmp_path, token, namespaced_layer
    ):
        """At L1+ a bot finds no channel its other instances (the rotations of a duplicate
        deal) could read without a shared writable file: kernel keyrings, flock and POSIX
        locks or inotify on the files every sandbox mounts; and it is never root, holds no
        capability and cannot unmount the mask over the records (audit findings F1, F2)."""
        seat = tmp_path / "seat"
        (seat / "runs").mkdir(parents=True)
        bot = _bot(
            tools, tmp_path, "channels.py", token, sandbox=namespaced_layer, workdir=seat,
            hidden_paths=[seat / "runs"], limits=BotLimits(env={"UNMASK": str(seat / "runs")}),
        )  # fmt: skip
        await _run(bot)
        seen = tools.verdicts(bot.stderr_log)
        assert [line.split()[0] for line in seen] == [
            "add_key", "flock", "posix_lock", "inotify", "umount", "uid",
        ], seen  # fmt: skip
        assert all(" denied " in line for line in seen[:5]), seen
        uid, caps = seen[5].split()[1], seen[5].split()[3]
        assert uid != "0" and int(caps, 16) == 0, seen

    async def test_i9_writing_64_mb_stops_at_the_file_size_cap(self, tools, tmp_path, token, layer):
        """The file-size rlimit (16 MB by default) stops a 64 MB file, in the current
        folder and in the private /tmp alike."""
        bot = await _run(_bot(tools, tmp_path, "writer.py", token, sandbox=layer))
        seen = tools.verdicts(bot.stderr_log)
        assert len(seen) == 2, seen
        for line in seen:
            kind, written, *_ = line.split()
            assert kind == "stopped" and int(written) <= 16 << 20, seen

    async def test_i9_the_private_tmp_is_size_capped(self, tools, tmp_path, token):
        """At L1 the private /tmp (tmp_mb) fills before a loose file-size cap."""
        tools.need_layer("L1")
        limits = BotLimits(file_size_mb=256, tmp_mb=8)
        bot = await _run(_bot(tools, tmp_path, "writer.py", token, sandbox="L1", limits=limits))
        seen = tools.verdicts(bot.stderr_log)
        assert seen and all(line.startswith("stopped") for line in seen), seen
        assert all(int(line.split()[1]) <= 8 << 20 for line in seen), seen


class TestLimits:
    @pytest.mark.parametrize("capped_layer", ["L0", "L1"])
    async def test_i9_the_address_space_cap_stops_an_allocation(
        self, tools, tmp_path, token, capped_layer
    ):
        """L0/L1: allocating past ``address_space_mb`` raises MemoryError in the bot."""
        tools.need_layer(capped_layer)
        limits = BotLimits(address_space_mb=1024)
        bot = _bot(tools, tmp_path, "hog.py", token, sandbox=capped_layer, limits=limits)

        async def until_stopped(bot):
            assert await _wait_for(lambda: tools.verdicts(bot.stderr_log))

        await _run(bot, until_stopped)
        assert tools.verdicts(bot.stderr_log)[0].startswith("MemoryError"), bot.stderr_log

    async def test_i9_l2_memory_breach_is_memory_limit(self, tools, tmp_path, token):
        """L2: past the cgroup's memory cap the bot is OOM-killed and limit_breach() says
        MEMORY_LIMIT (not a plain disconnect)."""
        tools.need_layer("L2")
        limits = BotLimits(address_space_mb=None, memory_mb=200)
        bot = _bot(tools, tmp_path, "hog.py", token, sandbox="L2", limits=limits, max_restarts=0)
        breaches = []

        async def until_killed(bot):
            with trio.move_on_after(30):
                await bot.process.wait()
            breaches.append(bot.limit_breach())
            breaches.append(bot.limit_breach())  # reported once

        await _run(bot, until_killed)
        assert breaches == ["MEMORY_LIMIT", None]

    async def test_i9_a_fork_loop_is_bounded_and_dies_at_close(self, tools, tmp_path, token, layer):
        """Up to 300 sleeping children: at L2 the pids cap stops the loop (PROCESS_LIMIT),
        at L1 as root too where cgroups work (issue 19 item 7), else the leased uid's
        process limit; at every layer none of them outlives aclose (item 4)."""
        limits = BotLimits(max_processes=64)
        bot = _bot(tools, tmp_path, "forker.py", token, sandbox=layer, limits=limits)
        breach = []

        async def check(bot):
            assert tools.marked(token), "the bot and its children should be running"
            breach.append(bot.limit_breach())

        await _run(bot, check)
        seen = tools.verdicts(bot.stderr_log)
        if layer == "L2" or (layer == "L1" and _sandbox.groups_work()):
            assert seen[0].startswith("fork failed"), seen
            assert breach == ["PROCESS_LIMIT"]
        if layer == "L1" and os.geteuid() == 0:  # a uid of its own: RLIMIT_NPROC (audit F8)
            assert seen[0].startswith("fork failed"), seen
        assert await _wait_for(lambda: not tools.marked(token)), "children outlived aclose"


class TestEscapes:
    @pytest.mark.parametrize("crash", [False, True], ids=["serving", "crashed"])
    async def test_i9_a_setsid_grandchild_dies(self, tools, tmp_path, token, layer, crash):
        """A double-forked, setsid grandchild is dead after aclose, and at once when the
        bot itself crashes (item 4: subreaper at L0, PID namespace at L1, cgroup at L2)."""
        args = ("crash",) if crash else ()
        bot = _bot(tools, tmp_path, "escaper.py", token, *args, sandbox=layer, max_restarts=0)
        if crash:
            async with trio.open_nursery() as nursery:
                with pytest.raises(BotStartError):
                    await bot.start(nursery)
        else:
            await _run(bot)
        assert await _wait_for(lambda: not tools.marked(token)), "a grandchild outlived the bot"

    async def test_i9_a_bot_that_stops_itself_is_still_ended(self, tools, tmp_path, token, layer):
        """SIGSTOP on itself: aclose still ends it (SIGKILL reaches a stopped process)."""
        bot = _bot(tools, tmp_path, "stopper.py", token, sandbox=layer, stop_timeout=0.5)

        async def until_stopped(bot):
            def stopped() -> bool:
                for pid in tools.marked(token):
                    with open(f"/proc/{pid}/stat") as file:
                        if file.read().rsplit(")", 1)[1].split()[0] == "T":
                            return True
                return False

            assert await _wait_for(stopped)

        await _run(bot, until_stopped)
        assert bot.process.returncode is not None
        assert await _wait_for(lambda: not tools.marked(token))

    async def test_i9_a_stderr_flood_is_capped_and_escaped(self, tools, tmp_path, layer):
        """ESC, BEL and U+202E: the log is capped, the error text holds only escapes."""
        bot = _bot(tools, tmp_path, "flood.py", "-", sandbox=layer, log_limit_bytes=100_000)
        async with trio.open_nursery() as nursery:
            with pytest.raises(BotStartError) as caught:
                await bot.start(nursery)
        text = str(caught.value)
        assert "exited with status 3" in text
        assert not any(char in text for char in "\x1b\x07\u202e"), repr(text[-300:])
        assert "\\x1b" in text and "\\u202e" in text
        assert bot.stderr_log.stat().st_size <= 100_000 + 100
        tail = text.split("stderr ends:\n", 1)[1].splitlines()
        assert tail and all(line.startswith("  | ") for line in tail), tail  # quoted (F9)
        assert tail[-1] == "  | the last line", tail  # drained at exit: the tail is complete


class TestNetwork:
    async def test_i9_the_bots_namespace_has_only_loopback(
        self, tools, tmp_path, token, namespaced_layer
    ):
        """At L1+ the bot's network namespace holds ``lo`` and nothing else."""
        bot = await _run(_bot(tools, tmp_path, "netview.py", token, sandbox=namespaced_layer))
        assert tools.verdicts(bot.stderr_log) == ["interfaces lo"]

    async def test_i9_tcp_at_l1_needs_share_network(self, tools, tmp_path, token):
        """TCP cannot reach a bot in its own network namespace: a clear error, not a hang."""
        tools.need_layer("L1")
        bot = _bot(tools, tmp_path, "netview.py", token, sandbox="L1", transport="tcp")
        async with trio.open_nursery() as nursery:
            with pytest.raises(BotStartError, match="share_network"):
                await bot.start(nursery)

    async def test_i9_a_second_listener_of_the_bot_is_refused(self, tools, tmp_path, token):
        """Two sockets on the bot's port (SO_REUSEPORT) in its own tree: refused."""
        bot = _bot(tools, tmp_path, "squatter.py", token, "twice", sandbox="L0", transport="tcp")
        async with trio.open_nursery() as nursery:
            with pytest.raises(BotStartError, match=r"2 sockets listen on 127\.0\.0\.1:"):
                await bot.start(nursery)
        assert await _wait_for(lambda: not tools.marked(token))

    async def test_i9_another_process_on_the_bots_port_is_refused(
        self, tools, tmp_path, token, monkeypatch
    ):
        """A process outside the bot's tree already listens on the port (SO_REUSEPORT):
        BotStartError naming it, before any Play stream."""
        squatter = socket.socket(socket.AF_INET6)  # gRPC binds 127.0.0.1 as ::ffff:127.0.0.1
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        squatter.bind(("::ffff:127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        monkeypatch.setattr(_seatbox, "free_tcp_port", lambda: port)
        closing = threading.Event()

        def refuse() -> None:  # accept and hang up, so the health check finds the bot
            squatter.settimeout(0.1)
            while not closing.is_set():
                try:
                    squatter.accept()[0].close()
                except OSError:
                    continue

        thread = threading.Thread(target=refuse, daemon=True)
        thread.start()
        try:
            bot = _bot(tools, tmp_path, "squatter.py", token, sandbox="L0", transport="tcp")
            async with trio.open_nursery() as nursery:
                with pytest.raises(
                    BotStartError, match=rf"another process listens on 127\.0\.0\.1:{port}"
                ):
                    await bot.start(nursery)
        finally:
            closing.set()
            thread.join()
            squatter.close()

"""The sandbox's kernel surface (issue 19 items 3, 4, 5 and 8): the seat's endpoint
cannot be redirected, every byte a bot writes is inside its budget, machine-wide kernel
resources are out of reach, and nothing about the host shows in the sandbox.

Every test sends traffic only to unix sockets; the "outside" socket is one the test
itself serves in its temporary folder, counting every connection made to it.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from arena.dealer import (
    BotLimits,
    BotStartError,
    LaunchedBot,
    MatchSettings,
    SeatBrokenError,
    policy_driver,
    run_match,
)
from arena.engine import GameConfig
from arena.sandbox._leftovers import owner_tag

pytestmark = [pytest.mark.trio, pytest.mark.timeout(120)]


class Outside:
    """A unix socket outside every sandbox that counts the connections it accepts."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.accepted = 0
        self._server = socket.socket(socket.AF_UNIX)
        self._server.bind(str(path))
        os.chmod(path, 0o777)  # any uid may dial it: only the dealer must not
        self._server.listen()
        self._server.settimeout(0.1)
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._closing.is_set():
            try:
                self._server.accept()[0].close()
            except OSError:
                continue
            self.accepted += 1

    def close(self) -> None:
        self._closing.set()
        self._thread.join()
        self._server.close()


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Outside]:
    """The outside socket, in a folder every uid may traverse (a bot at L2 is not root)."""
    folder = Path(tempfile.mkdtemp(prefix="i19-outside-"))
    folder.chmod(0o755)
    served = Outside(folder / "outside.sock")
    try:
        yield served
    finally:
        served.close()
        shutil.rmtree(folder, ignore_errors=True)


def _bot(tools, tmp_path, script, token, *args, **options) -> LaunchedBot:
    options.setdefault("log_dir", tmp_path / "logs")
    options.setdefault("startup_timeout", 30)
    return LaunchedBot(script, tools.bot_command(script, token, *args), **options)


async def _wait_verdict(tools, bot: LaunchedBot, prefix: str) -> bool:
    with trio.move_on_after(20):
        while not any(v.startswith(prefix) for v in tools.verdicts(bot.stderr_log)):
            await trio.sleep(0.05)
        return True
    return False


class TestEndpoint:
    @pytest.mark.parametrize("mode", ["symlink", "hardlink"])
    async def test_i19_a_planted_link_is_never_dialled(
        self, tools, tmp_path, token, layer, outside, mode
    ):
        """Item 3: bot.sock a symbolic link (or a hard link) to a socket outside the
        sandbox: a start-up error naming it, and the outside socket is never dialled."""
        bot = _bot(tools, tmp_path, "redirector.py", token, mode, str(outside.path), sandbox=layer)
        async with trio.open_nursery() as nursery:
            with pytest.raises(BotStartError) as caught:
                await bot.start(nursery)
        text = str(caught.value)
        assert "the dealer does not dial it" in text, text
        assert re.search(r"symbolic link|hard links|served by pid", text), text
        await trio.sleep(0.3)  # a late dial would show now
        assert outside.accepted == 0
        if layer != "L0":  # across mounts no hard link to a host file can be made
            assert "planted hardlink" not in tools.verdicts(bot.stderr_log)

    @pytest.mark.parametrize("mode", ["swap", "rebind"])
    async def test_i19_a_socket_swapped_after_start_is_a_recorded_fault(
        self, tools, tmp_path, token, layer, outside, mode
    ):
        """Item 3: once healthy, the bot swaps bot.sock (for a link to the outside socket,
        or for a socket another of its processes serves): the dealer still dials only the
        socket it checked, the outside one never, and the seat's fault says why."""
        bot = _bot(tools, tmp_path, "redirector.py", token, mode, str(outside.path), sandbox=layer)
        settings = MatchSettings(config=GameConfig(), hands=4, seed=3, action_timeout=3.0)
        async with trio.open_nursery() as nursery:
            try:
                await bot.start(nursery)
                assert await _wait_verdict(tools, bot, "planted" if mode == "swap" else "rebound")
                with pytest.raises(SeatBrokenError, match="replaced by"):
                    await bot.connect()
                result = await run_match(
                    [bot, policy_driver("caller", "calling-station")], settings
                )
            finally:
                await bot.aclose()
        assert outside.accepted == 0
        details = [f.detail for f in result.faults if f.seat == 0]
        assert any("replaced by" in detail for detail in details), result.faults

    async def test_i19_a_restarted_bot_is_pinned_again_in_a_fresh_folder(
        self, tools, tmp_path, token, layer
    ):
        """Item 3: a crashed bot started again (max_restarts) binds in a fresh seat folder
        and is checked again before it is dialled; the dead run's folder is gone."""
        bot = _bot(tools, tmp_path, "snoop.py", token, sandbox=layer)
        async with trio.open_nursery() as nursery:
            try:
                await bot.start(nursery)
                first = bot.address
                assert first is not None and first.endswith("/pin/bot.sock"), first
                os.kill(bot.process.pid, 9)  # the supervisor: the whole sandbox goes with it
                await bot.process.wait()
                connection = await bot.connect()
                await connection.aclose()
                assert bot.restarts == 1 and bot.address != first, bot.address
                assert bot.address.endswith("/pin/bot.sock")
                assert not os.path.lexists(Path(first.removeprefix("unix:")).parents[1])
            finally:
                await bot.aclose()


class TestBudget:
    async def test_i19_every_writable_folder_is_capped_off_the_hosts_disk(
        self, tools, tmp_path, token, namespaced_layer
    ):
        """Item 4 (as root: L2, L1): 1 GB and 100,000 files tried in every folder the bot
        can write stop at its seat's cap (tmp_mb, tmp_mb x 256 files), and the host's
        disk under the temporary folder does not lose the gigabyte."""
        if os.geteuid() != 0:
            pytest.skip("without root the socket folder is on the host's disk (README)")
        limits = BotLimits(tmp_mb=8)
        before = shutil.disk_usage(tempfile.gettempdir()).free
        bot = _bot(
            tools, tmp_path, "filler.py", token, "1024", "100000",
            sandbox=namespaced_layer, limits=limits, startup_timeout=60,
        )  # fmt: skip
        held = []

        async def measure(bot: LaunchedBot) -> None:  # while the bot holds what it wrote
            held.append(before - shutil.disk_usage(tempfile.gettempdir()).free)

        async with trio.open_nursery() as nursery:
            try:
                await bot.start(nursery)
                await measure(bot)
            finally:
                await bot.aclose()
        seen = tools.verdicts(bot.stderr_log)
        folders = {line.split()[0]: line.split()[1:] for line in seen}
        assert "/run/arena" in folders and "/tmp" in folders, seen
        total_bytes = sum(int(fields[1]) for fields in folders.values())
        for folder, (_b, written, why, _f, made, file_why) in folders.items():
            assert int(written) < 1 << 30 and why != "none", (folder, seen)
            assert int(made) < 100_000 and file_why != "none", (folder, seen)
            assert int(made) <= 8 * 256 + 16, (folder, seen)
        assert total_bytes <= 8 << 20, seen  # /tmp and the socket folder share tmp_mb
        assert held[0] < 512 << 20, f"the host's disk lost {held[0] >> 20} MB"


class TestKernel:
    async def test_i19_machine_wide_kernel_resources_are_out_of_reach(
        self, tools, tmp_path, token, namespaced_layer
    ):
        """Item 5: AIO, io_uring, vsock, IPv4/IPv6 datagrams, exotic netlink, user namespaces, ptys, page-cache
        probes and the machine-wide counters in /proc are denied at L1 and L2, while
        threads and fork still work."""
        bot = _bot(tools, tmp_path, "kernel.py", token, sandbox=namespaced_layer)
        async with trio.open_nursery() as nursery:
            try:
                await bot.start(nursery)
            finally:
                await bot.aclose()
        seen = {line.split()[0]: line.split(None, 1)[1] for line in tools.verdicts(bot.stderr_log)}
        expected = {
            "io_setup": "denied EPERM",
            "io_uring_setup": "denied EPERM",
            "vsock": "denied EAFNOSUPPORT",
            "netlink_generic": "denied EAFNOSUPPORT",
            "udp": "denied EPERM",  # buffers no v1 cap charges, a machine-wide count
            "udp6": "denied EPERM",
            "udp_nonblock": "denied EPERM",
            "raw": "denied EPERM",
            "seqpacket": "denied EPERM",  # audit 19e: streams only, of TCP only
            "sctp_stream": "denied EPERM",
            "tcp_protocol": "WORKS AF_INET6 SOCK_STREAM 6",
            "bpf": "denied EPERM",
            "userfaultfd": "denied EPERM",
            "tcp": "WORKS AF_INET SOCK_STREAM",  # a bot may still serve on loopback TCP
            "tcp6": "WORKS AF_INET6 SOCK_STREAM",
            "unshare_user": "denied EPERM",
            "clone_newuser": "denied EPERM",
            "clone3": "denied ENOSYS",
            "openpty": "denied ENOENT",
            "mincore": "denied EPERM",
            "cachestat": "denied EPERM",
            "fadvise_dontneed": "denied EPERM",
            "readahead": "denied EPERM",
            "preadv2_nowait": "denied EPERM",
            "/proc/sys/fs/aio-nr": "denied ENOENT",
            "/proc/sys/kernel/pty/nr": "denied ENOENT",
            "/proc/sys/fs/file-nr": "denied ENOENT",
            "/proc/stat": "denied EACCES",
            "/proc/loadavg": "denied EACCES",
            "/proc/cmdline": "denied EACCES",  # the host's kernel command line (audit 19)
            "/proc/partitions": "denied EACCES",  # and its disks
        }
        if os.path.exists("/proc/modules"):  # a kernel without modules has none to mask
            expected["/proc/modules"] = "denied EACCES"
        assert {name: seen.get(name) for name in expected} == expected
        assert seen.get("threads") == "WORKS thread 1 fork ok", seen


class TestHostInfo:
    async def test_i19_nothing_of_the_host_in_the_sandbox(
        self, tools, tmp_path, token, namespaced_layer
    ):
        """Item 8: no /proc/*/cmdline or environ the bot can read holds the records
        path, its socket folder's name or the arena's pid (bubblewrap reads its
        arguments from a file descriptor); as root its mountinfo names no seat folder."""
        seat = tmp_path / "seat"
        records = seat / "runs" / "m1"
        records.mkdir(parents=True)
        bot = _bot(
            tools, tmp_path, "peeker.py", token, sandbox=namespaced_layer, workdir=seat,
            hidden_paths=[seat / "runs"],
        )  # fmt: skip
        async with trio.open_nursery() as nursery:
            try:
                await bot.start(nursery)
                assert bot._box is not None and bot._box.folder is not None
                folder_name = Path(bot._box.folder.top).name
            finally:
                await bot.aclose()
        read = {}
        for line in tools.verdicts(bot.stderr_log):
            path, value = line.split(" ", 1)
            if not value.startswith("denied-"):
                read[path] = bytes.fromhex(value).replace(b"\0", b" ").decode(errors="replace")
        assert "/proc/1/cmdline" in read and "/proc/self/mountinfo" in read, sorted(read)
        pid = re.compile(rf"(?<![0-9]){os.getpid()}(?![0-9])")
        for path, text in read.items():
            if path.endswith("mountinfo"):
                continue  # lists its mounts: the masked records folder is one (as is its name)
            assert str(seat / "runs") not in text, (path, text)
            assert folder_name not in text and owner_tag() not in text, (path, text)
            assert not pid.search(text), (path, text)
        if os.geteuid() == 0:  # its folders are a tmpfs of their own: no host path in them
            assert folder_name not in read["/proc/self/mountinfo"]
        assert "bwrap --args" in read["/proc/1/cmdline"]

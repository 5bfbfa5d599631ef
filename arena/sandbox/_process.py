"""Process helpers for the launcher: commands, limits, free ports, exit texts, log copies.

Nothing here knows about gRPC or matches; :mod:`arena.dealer._launch` puts it together.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

import trio

from arena.sandbox._errors import BotStartError
from arena.text import escape_untrusted

_TAIL_BYTES = 2000
_CHUNK = 65536
DRAIN_PAUSE = 1.0  # past a log's cap: one chunk read (and dropped) per pause
TRICKLE_PAUSE = 0.01  # after a short read: at most ~100 wake-ups a second per pipe
_SHORT_READ = 4096
_DRAIN_AT_EXIT = 1 << 20  # a pipe's largest buffer (F_SETPIPE_SZ), read at once at exit


def free_tcp_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on right now (the bot binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def parse_command(command: str | Sequence[str]) -> list[str]:
    """A command as a list of arguments; a string is split like a shell would (no shell runs)."""
    argv = shlex.split(command) if isinstance(command, str) else [str(arg) for arg in command]
    if not argv:
        raise ValueError("empty bot command")
    return argv


def limit_command(
    argv: list[str], *, memory_limit_mb: int | None = None, cpu_seconds: int | None = None
) -> list[str]:
    """``argv`` wrapped in ``prlimit`` for the limits asked for (unchanged if none)."""
    limits = []
    if memory_limit_mb is not None:
        limits.append(f"--as={int(memory_limit_mb) << 20}")
    if cpu_seconds is not None:
        # soft:hard, so the bot gets SIGXCPU (a clear cause) before the kernel's SIGKILL
        limits.append(f"--cpu={int(cpu_seconds)}:{int(cpu_seconds) + 1}")
    if not limits:
        return argv
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        raise BotStartError("resource limits need util-linux `prlimit`, which is not on PATH")
    return [prlimit, *limits, "--", *argv]


def describe_exit(returncode: int | None) -> str:
    """How a process ended, for a fault: ``exited with status 3``, ``was killed by signal SIGXCPU``."""
    if returncode is None:
        return "is still running"
    if returncode >= 0:
        return f"exited with status {returncode}"
    try:
        signum = signal.Signals(-returncode)
    except ValueError:
        return f"was killed by signal {-returncode}"
    description = signal.strsignal(signum)
    return f"was killed by signal {signum.name}" + (f" ({description})" if description else "")


def safe_name(name: str) -> str:
    """``name`` as a file name: letters, digits, ``_.-``, at most 64 characters."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:64] or "bot"


class Log:
    """Copies one pipe into a file capped at ``limit`` bytes, keeping a short tail in memory.

    Past the cap it reads one chunk per ``DRAIN_PAUSE`` and drops it (issue 19, audit item
    6): reading a flood as fast as a bot writes it cost the arena about a core. Closing the
    pipe would cost nothing too, but kill an honest bot that logs a little per decision
    once a long match adds up to the cap; throttled, a flooding bot blocks in its own
    ``write`` and an honest one never notices (64 KB a second, and the pipe's buffer).
    Below the cap, a short read (under 4 KB) is followed by a ``TRICKLE_PAUSE`` before the
    next (audit 19b): a bot writing one byte per ``write`` cost the arena a wake-up, a
    read and a log write per byte (29 us, 41% of a core); now its bytes gather in the
    pipe (64 KB absorbs honest logging) and each wake-up takes what has come. At the
    bot's exit the reads go on to end-of-file, so the tail is complete.
    """

    def __init__(self, path: Path, limit: int) -> None:
        self.path = path
        self.limit = limit
        self._tail = bytearray()  # the last bytes read, at most twice _TAIL_BYTES
        self.read_bytes = 0
        self.reads = 0
        self.done = trio.Event()
        self._drain_asked = trio.Event()
        self._drain_left = 0  # bytes still read with no pause once the bot has exited

    @property
    def tail(self) -> bytes:
        """The last (at most) ``_TAIL_BYTES`` bytes read."""
        return bytes(self._tail[-_TAIL_BYTES:])

    async def copy(self, stream: trio.abc.ReceiveStream) -> None:
        """Copy until EOF or the stream is closed; never raises (but Cancelled)."""
        file: BinaryIO | None
        try:
            file = self.path.open("wb", buffering=0)
        except OSError:
            file = None  # no log, but keep draining, or the bot blocks on a full pipe
        try:
            while True:
                if self.read_bytes >= self.limit:
                    await self._pause(DRAIN_PAUSE)
                try:
                    chunk = await stream.receive_some(_CHUNK)
                except (trio.ClosedResourceError, trio.BrokenResourceError):
                    break
                if not chunk:
                    break
                file = self._take(file, chunk)
                if len(chunk) < _SHORT_READ and self.read_bytes < self.limit:
                    await self._pause(TRICKLE_PAUSE)  # let a trickle gather (audit 19b)
        finally:
            if file is not None:
                file.close()
            self.done.set()

    def drain(self) -> None:
        """The bot has exited: read what is left in the pipe (up to ``_DRAIN_AT_EXIT``
        bytes) without pausing, so its last words are in the tail."""
        self._drain_left = _DRAIN_AT_EXIT
        self._drain_asked.set()

    async def _pause(self, seconds: float) -> None:
        if self._drain_left > 0:
            return
        if self._drain_asked.is_set():  # drained what was asked: paced again
            await trio.sleep(seconds)
            return
        with trio.move_on_after(seconds):
            await self._drain_asked.wait()

    def _take(self, file: BinaryIO | None, chunk: bytes | bytearray) -> BinaryIO | None:
        """One chunk read: counted, kept in the tail, logged up to the cap."""
        self.reads += 1
        self._drain_left -= len(chunk)
        logged, self.read_bytes = self.read_bytes, self.read_bytes + len(chunk)
        self._tail += chunk[-_TAIL_BYTES:]
        if len(self._tail) > 2 * _TAIL_BYTES:  # trimmed now and then, never rebuilt per read
            del self._tail[:-_TAIL_BYTES]
        if logged < self.limit:
            file = _write_log(file, chunk[: self.limit - logged])
            if self.read_bytes >= self.limit:
                _write_log(file, f"\n[arena: log truncated at {self.limit} bytes]\n".encode())
        return file

    def tail_text(self, lines: int = 10) -> str:
        text = self.tail.decode("utf-8", "replace").rstrip()
        return "\n".join(text.splitlines()[-lines:])


def _write_log(file: BinaryIO | None, data: bytes | bytearray) -> BinaryIO | None:
    """``data`` into the log; None from then on if the disk is full or gone."""
    if file is None or not data:
        return file
    try:
        file.write(data)
    except OSError:
        file.close()
        return None
    return file


def signal_group(
    process: trio.Process | None, pgid: int | None, signum: int, *, boxed: bool
) -> bool:
    """Signal a bot's process group, even if its leader died (its children may live:
    ``killpg`` reaches the group while any member does); False if nobody is left.

    Signal 0 only asks whether anyone is left. In a sandbox (``boxed``), SIGTERM goes to
    the supervisor alone while it runs: it stops the bot (not bubblewrap) and the rest.
    """
    leader_alive = process is not None and process.poll() is None
    if boxed and leader_alive and signum == signal.SIGTERM:
        assert process is not None
        process.send_signal(signum)
        return True
    if pgid is not None:
        try:
            os.killpg(pgid, signum)
            return True
        except ProcessLookupError:
            pass
        except PermissionError:  # not ours any more: signal only the leader
            pass
    if leader_alive and process is not None:
        if signum:
            process.send_signal(signum)
        return True
    return False


async def stderr_tail(logs: Sequence[Log], process: trio.Process | None, lines: int = 10) -> str:
    """The escaped last ``lines`` of a bot's stderr log, each quoted, for an error."""
    if len(logs) < 2:
        return ""
    stderr = logs[1]
    if process is not None and process.poll() is not None:
        stderr.drain()
        with trio.move_on_after(0.5):  # let the copier read what the bot wrote last
            await stderr.done.wait()
    tail = escape_untrusted(stderr.tail_text(lines), keep_newlines=True)
    # each line quoted, so a bot cannot print a line that looks like the arena's own
    quoted = "\n".join(f"  | {line}" for line in tail.splitlines())
    return f"; stderr ends:\n{quoted}" if tail else "; stderr is empty"


def log_paths(log_dir: Path | None, name: str, restarts: int) -> tuple[Path, Path]:
    """A bot's stdout and stderr logs in ``log_dir`` (a fresh folder if None).

    After a restart the logs of the run that died are renamed ``NAME.stderr.N.log`` (N
    the restart), so the reason a bot crashed survives its restart.
    """
    log_dir = log_dir or Path(tempfile.mkdtemp(prefix=f"arena-{safe_name(name)}-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    stdout, stderr = (log_dir / f"{safe_name(name)}.{kind}.log" for kind in ("stdout", "stderr"))
    if restarts:  # keep the logs of the run that died
        for log in (stdout, stderr):
            if log.exists():
                log.rename(log.with_suffix(f".{restarts}.log"))
    return stdout, stderr

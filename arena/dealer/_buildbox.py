"""A bot folder's build steps, run in the sandbox bots run in (issue 13 audit).

A build is a student's commands (``cmake``, ``npm ci``, anything), so it is as untrusted
as the bot it makes. Each step runs under the exec-chain supervisor (rlimits, a clean
environment, every descendant killed when the step ends) and, where bubblewrap works
(L1), inside it: the bot's folder read-write and nothing else of the file system but a
read-only system and the Python install, a private size-capped ``/tmp`` as ``$HOME``, its
own PID namespace (a ``setsid`` grandchild dies with the step), loopback only unless the
manifest asks for the network. As root, the step is uid 1000 inside its user namespace,
not root (root regains every capability at exec), and, where cgroups work, in a cgroup
of its own (memory and process caps). One budget of time and of printed bytes covers
all of a folder's steps; what a step prints goes to the build log, never the terminal.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from arena.dealer._bwrap import SANDBOX_TMP, bwrap_command
from arena.dealer._cgroups import SeatCgroup, cgroup_support
from arena.dealer._process import safe_name
from arena.dealer._sandbox import check_layers

SUPERVISOR = Path(__file__).with_name("_supervisor.py")
BUILD_UID = 1000
"""The uid a build has inside its user namespace when the arena runs as root."""
_PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")


@dataclass(frozen=True, kw_only=True)
class BuildLimits:
    """What one folder's build may use, all its steps together.

    ``seconds``: wall time; ``output_bytes``: what its steps may print (to the log);
    ``memory_mb`` / ``max_processes``: its cgroup's caps (as root, with cgroups);
    ``file_size_mb``: the largest file it may write; ``tmp_mb``: its private ``/tmp``.
    """

    seconds: float = 900.0
    output_bytes: int = 8 << 20
    memory_mb: int = 4096
    max_processes: int = 512
    file_size_mb: int = 1024
    tmp_mb: int = 1024


class BuildFailed(RuntimeError):
    """A build step failed or broke its budget; ``str()`` says how, ``step`` which (from 0)."""

    def __init__(self, problem: str, step: int | None = None) -> None:
        super().__init__(problem)
        self.step = step


@functools.cache
def build_layer() -> str:
    """``L1`` where bubblewrap works here, else ``L0`` (the supervisor alone)."""
    if os.geteuid() != 0:
        return "L1" if any(c.layer == "L1" and c.available for c in check_layers()) else "L0"
    probe = bwrap_command(["true"], inner_uid=BUILD_UID)
    try:
        done = subprocess.run(probe, capture_output=True, timeout=20, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return "L0"
    return "L1" if done.returncode == 0 else "L0"


def run_build(
    steps: Sequence[Sequence[str]],
    folder: Path,
    log: BinaryIO,
    *,
    layer: str,
    network: bool = False,
    hidden: Sequence[str | os.PathLike[str]] = (),
    limits: BuildLimits = BuildLimits(),
) -> None:
    """Run ``steps`` in order in ``folder`` at ``layer`` (``L0`` or ``L1``), each one's
    output appended to ``log``; :class:`BuildFailed` at the first that fails."""
    deadline = time.monotonic() + limits.seconds
    budget = [limits.output_bytes]
    for index, argv in enumerate(steps):
        log.write(f"$ {' '.join(argv)}\n".encode())
        log.flush()
        try:
            _run_step(list(argv), folder, log, layer, network, hidden, limits, deadline, budget)
        except BuildFailed as error:
            raise BuildFailed(str(error), index) from None


def _run_step(
    argv: list[str],
    folder: Path,
    log: BinaryIO,
    layer: str,
    network: bool,
    hidden: Sequence[str | os.PathLike[str]],
    limits: BuildLimits,
    deadline: float,
    budget: list[int],
) -> None:
    path = _environment(network, layer, folder)["PATH"]
    if "/" not in argv[0] and shutil.which(argv[0], path=path) is None:
        raise BuildFailed(f"failed: {argv[0]!r} is not installed (not on PATH)")
    command, cgroup = _command(argv, folder, layer, network, hidden, limits)
    try:
        status = _watch(command, log, deadline, budget)
    finally:
        if cgroup is not None:
            cgroup.remove()
    if status != 0:
        raise BuildFailed(_status_text(status))


def _status_text(status: int) -> str:
    if status > 128 and status - 128 < 65:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(status - 128).name}"
    if status == 127:
        return "failed: its program is not installed (exit status 127)"
    return f"failed with exit status {status}"


def _environment(network: bool, layer: str, folder: Path) -> dict[str, str]:
    home = SANDBOX_TMP if layer == "L1" else str(folder)
    env = {
        "PATH": f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin",
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "HOME": home,
        "TMPDIR": SANDBOX_TMP,
    }
    if network:  # a build that downloads (npm ci) may need the machine's proxy
        env.update({key: os.environ[key] for key in _PROXIES if key in os.environ})
    return env


def _command(
    argv: list[str],
    folder: Path,
    layer: str,
    network: bool,
    hidden: Sequence[str | os.PathLike[str]],
    limits: BuildLimits,
) -> tuple[list[str], SeatCgroup | None]:
    """The supervisor's command line for one step, and the cgroup it joins (or None)."""
    inner = argv
    if layer == "L1":  # no seccomp filter: a build's own processes share nothing worth it
        inner = bwrap_command(
            argv,
            writable=[folder],
            tmp_mb=limits.tmp_mb,
            hidden=hidden,
            share_network=network,
            inner_uid=BUILD_UID if os.geteuid() == 0 else None,
            chdir=str(folder),
        )
    cgroup = None
    if os.geteuid() == 0 and cgroup_support()[0]:
        with contextlib.suppress(OSError):
            cgroup = SeatCgroup.create(
                f"build-{safe_name(folder.name)[:16]}",
                memory_mb=limits.memory_mb,
                max_processes=limits.max_processes,
            )
    size, cpu = limits.file_size_mb << 20, int(limits.seconds)
    config = {
        "argv": inner,
        "env": _environment(network, layer, folder),
        "cwd": str(folder),
        "rlimits": {
            "RLIMIT_CORE": [0, 0],
            "RLIMIT_FSIZE": [size, size],
            "RLIMIT_CPU": [cpu, cpu + 1],  # a backstop per process; the deadline is wall time
        },
        "cgroup_procs": cgroup.procs_files() if cgroup is not None else [],
        "parent_pid": os.getpid(),
        "grace": 1.0,
        "signal_exit_codes": layer == "L1",
        "leftovers": {"cgroups": [str(p) for p in cgroup.dirs] if cgroup else [], "folders": []},
        "seccomp": None,
    }
    return [sys.executable, "-I", "-S", str(SUPERVISOR), json.dumps(config)], cgroup


def _watch(command: list[str], log: BinaryIO, deadline: float, budget: list[int]) -> int:
    """Run one step, copying what it prints into ``log`` within the budgets; its status
    (128 + N for a signal). :class:`BuildFailed` when a budget runs out."""
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,  # the supervisor stops the step when this closes
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as error:
        raise BuildFailed(f"could not start: {error.strerror}") from None
    assert process.stdout is not None
    try:
        problem = _copy_output(process.stdout.fileno(), log, deadline, budget)
        if problem is not None:
            raise BuildFailed(problem)
        status = process.wait(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        raise BuildFailed("ran out of its time budget and was stopped") from None
    finally:
        _stop(process)
    return -status + 128 if status < 0 else status


def _copy_output(fd: int, log: BinaryIO, deadline: float, budget: list[int]) -> str | None:
    """Copy the step's output to ``log`` until it closes; why it must stop, or None."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return "ran out of its time budget and was stopped"
        ready, _, _ = select.select([fd], [], [], min(left, 1.0))
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            return None
        if len(chunk) > budget[0]:
            log.write(chunk[: budget[0]])
            log.write(b"\n[arena: the build printed too much and was stopped]\n")
            budget[0] = 0
            return "printed more than its output budget and was stopped"
        budget[0] -= len(chunk)
        log.write(chunk)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End the step's supervisor (which kills everything the step started) and reap it."""
    if process.poll() is None:
        with contextlib.suppress(OSError):
            process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                process.kill()
            process.wait()
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()

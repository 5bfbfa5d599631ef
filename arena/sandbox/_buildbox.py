"""A bot folder's build steps, run in the sandbox bots run in (issue 13 audit).

A build is a student's commands (``cmake``, ``npm ci``, anything), so it is as untrusted
as the bot it makes. Each step runs under the exec-chain supervisor (rlimits, a clean
environment, every descendant killed when the step ends) and, where bubblewrap works
(L1), inside it: the bot's folder read-write and nothing else of the file system but a
read-only system and the Python install, a private size-capped ``/tmp`` as ``$HOME``, its
own PID namespace (a ``setsid`` grandchild dies with the step), loopback only unless the
manifest asks for the network, no kernel keyrings. As root the step runs as a leased
uid of its own, as a bot's seat does (never uid 0 in any namespace: that uid owns
``/etc/shadow`` and may write ``/proc/sys``), the folder lent to it for the build
(:mod:`arena.sandbox._buildtree`), and, where cgroups work, in a cgroup of its own. One
budget of time and of printed bytes covers all of a folder's steps; what a step prints
goes to the build log, never the terminal. Afterwards no FIFO, socket or device file
(a channel between two instances of the bot) and no setuid or setgid bit is left.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import platform
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

from arena.sandbox._buildtree import Owners, TreeError, give_back, lend
from arena.sandbox._bwrap import (
    DENIED_SYSCALLS,
    SANDBOX_TMP,
    SECCOMP_FD,
    bwrap_command,
    setpriv_command,
)
from arena.sandbox._cgroups import SeatCgroup, cgroup_support
from arena.sandbox._process import safe_name
from arena.sandbox._sandbox import SandboxError, check_layers, lease_uid
from arena.sandbox._seatbox import CONFIG_ENV, SUPERVISOR

_KEYRING_CALLS = {name: DENIED_SYSCALLS[name] for name in ("add_key", "request_key", "keyctl")}
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
    """``L1`` where bubblewrap works here (as root: with a leased uid), else ``L0``."""
    return "L1" if any(c.layer == "L1" and c.available for c in check_layers()) else "L0"


@dataclass
class _Build:
    """One folder's build in progress: where, how, and what of its budgets is left."""

    folder: Path
    layer: str
    network: bool
    hidden: Sequence[str | os.PathLike[str]]
    limits: BuildLimits
    uid: int | None
    deadline: float
    output_left: list[int]


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
    output appended to ``log``; :class:`BuildFailed` at the first that fails, or if the
    build left a FIFO, socket or device file (removed)."""
    try:
        lease = lease_uid() if layer == "L1" and os.geteuid() == 0 else None
    except SandboxError as error:  # no free seat uid (all in use), or no lock folder
        raise BuildFailed(f"could not start: {error}") from None
    uid = lease.uid if lease is not None else None
    build = _Build(folder, layer, network, hidden, limits, uid,
                   time.monotonic() + limits.seconds, [limits.output_bytes])  # fmt: skip
    failure: BuildFailed | None = None
    owners: Owners | None = {} if uid is not None else None
    removed: list[str] = []
    try:
        try:
            if uid is not None and owners is not None:
                lend(folder, uid, owners)
            for index, argv in enumerate(steps):
                log.write(f"$ {' '.join(argv)}\n".encode())
                log.flush()
                try:
                    _run_step(list(argv), build, log)
                except BuildFailed as error:
                    failure = BuildFailed(str(error), index)
                    break
        finally:
            removed = give_back(folder, owners, uid)
    except TreeError as error:  # a folder too deep or unreadable to lend or check whole
        failure = failure or BuildFailed(f"left a folder that cannot be checked: {error}")
    finally:
        if lease is not None:
            lease.release()
    if failure is not None:
        raise failure
    if removed:
        shown = ", ".join(removed[:3]) + (", ..." if len(removed) > 3 else "")
        raise BuildFailed(f"left {shown}: a FIFO, socket or device file (removed; not allowed)")


def _run_step(argv: list[str], build: _Build, log: BinaryIO) -> None:
    path = _environment(build)["PATH"]
    if "/" not in argv[0] and shutil.which(argv[0], path=path) is None:
        raise BuildFailed(f"failed: {argv[0]!r} is not installed (not on PATH)")
    command, cgroup = _command(argv, build)
    try:
        status = _watch(command, log, build.deadline, build.output_left)
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


def _environment(build: _Build) -> dict[str, str]:
    env = {
        "PATH": f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin",
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "HOME": SANDBOX_TMP if build.layer == "L1" else str(build.folder),
        "TMPDIR": SANDBOX_TMP,
    }
    if build.network:  # a build that downloads (npm ci) may need the machine's proxy
        env.update({key: os.environ[key] for key in _PROXIES if key in os.environ})
    return env


def _command(argv: list[str], build: _Build) -> tuple[list[str], SeatCgroup | None]:
    """The supervisor's command line for one step (its config last: :func:`_watch` moves
    it into the supervisor's environment), and the cgroup it joins (or None)."""
    inner, limits = argv, build.limits
    if build.layer == "L1":
        inner = bwrap_command(
            argv if build.uid is None else setpriv_command(argv, build.uid),
            writable=[build.folder],
            tmp_mb=limits.tmp_mb,
            hidden=build.hidden,
            share_network=build.network,
            as_root=build.uid is not None,
            seccomp=platform.machine() == "x86_64",  # the numbers below are x86_64's
            chdir=str(build.folder),
        )
    cgroup = None
    if os.geteuid() == 0 and cgroup_support()[0]:
        with contextlib.suppress(OSError):
            cgroup = SeatCgroup.create(
                f"build-{safe_name(build.folder.name)[:16]}",
                memory_mb=limits.memory_mb,
                max_processes=limits.max_processes,
            )
    size, cpu = limits.file_size_mb << 20, int(limits.seconds)
    rlimits = {"RLIMIT_CORE": [0, 0], "RLIMIT_FSIZE": [size, size], "RLIMIT_CPU": [cpu, cpu + 1]}
    if build.uid is not None:  # its own uid: the kernel counts its processes alone
        rlimits["RLIMIT_NPROC"] = [limits.max_processes, limits.max_processes]
    config = {
        "argv": inner,
        "env": _environment(build),
        "cwd": str(build.folder),
        "rlimits": rlimits,
        "cgroup_procs": cgroup.procs_files() if cgroup is not None else [],
        "parent_pid": os.getpid(),
        "grace": 1.0,
        "signal_exit_codes": build.layer == "L1",
        "leftovers": {"cgroups": [str(p) for p in cgroup.dirs] if cgroup else [], "folders": []},
        # no kernel keyrings: the arena's session keyring would be the build's (audit)
        "seccomp": {"syscalls": _KEYRING_CALLS, "fcntl": []} if SECCOMP_FD in inner else None,
    }
    return [sys.executable, "-I", "-S", str(SUPERVISOR), json.dumps(config)], cgroup


def _watch(command: list[str], log: BinaryIO, deadline: float, budget: list[int]) -> int:
    """Run one step, copying what it prints into ``log`` within the budgets; its status
    (128 + N for a signal). :class:`BuildFailed` when a budget runs out."""
    *argv, config = command  # the config in an environment only this user can read (audit)
    try:
        process = subprocess.Popen(
            argv,
            env={CONFIG_ENV: config, "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
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

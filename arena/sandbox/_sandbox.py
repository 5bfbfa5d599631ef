"""Sandbox layers for launched bots: what each needs, which work here, per-bot limits.

* ``off``: the bot runs as the arena's own child, as before issue 9 (no isolation).
* ``L0`` (always works): the exec-chain supervisor (:mod:`arena.sandbox._supervisor`):
  rlimits, a subreaper that kills every descendant at close, a clean environment, a
  private 0700 current folder, a unix socket in a 0700 folder.
* ``L1`` (where bubblewrap works): L0 inside bubblewrap (:mod:`arena.sandbox._bwrap`):
  its own network namespace (loopback only), a read-only system, its own folder
  read-only, a private size-capped ``/tmp``, nothing else of the file system, a PID
  namespace.
* ``L2`` (as root, with cgroups): L1 with a per-seat uid from :data:`UID_RANGE` and a
  per-seat cgroup (memory, pids, CPU accounting, a CPU weight; :mod:`arena.sandbox._cgroups`).
  As root, L1 runs bots as leased uids too, and gets the seat's cgroups where they work.

``auto`` picks the highest layer that works; asking for one that does not is a
:class:`SandboxError`, never a silent downgrade.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import pwd
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import IO

from arena.sandbox._bwrap import bwrap_command, setpriv_command
from arena.sandbox._cgroups import cgroup_support, fair_cpu_support

SANDBOX_CHOICES = ("auto", "off", "L0", "L1", "L2")
"""What ``--sandbox`` / ``sandbox =`` accept."""
LAYERS = ("L0", "L1", "L2")
UID_RANGE = range(61000, 62000)
"""The uids L2 gives its seats, one each at a time (none may have a passwd entry)."""
UID_LOCK_DIR = Path("/run/arena-uids")
"""One flock'd file per uid in use, so two arena processes never share a uid."""


class SandboxError(ValueError):
    """A sandbox layer was asked for that does not work on this machine; the message says why."""


@dataclass(frozen=True)
class LayerCheck:
    """One layer's probe: whether it works here, and what was found or why it is missing."""

    layer: str
    available: bool
    detail: str


@dataclass(frozen=True, kw_only=True)
class BotLimits:
    """Per-bot sandbox settings; the defaults suit a Python or Node.js gRPC bot.

    ``address_space_mb`` (L0+, RLIMIT_AS; None = no cap, for a JVM or anything that maps
    a lot): loose, since a Python gRPC bot does not start below about 256 MB.
    ``memory_mb`` (L2 and L1 as root, the cgroup's memory limit; a breach is ``MEMORY_LIMIT``).
    ``max_processes`` (L2 and L1 as root, the cgroup's pids limit, threads included;
    ``PROCESS_LIMIT``).
    ``open_files`` (RLIMIT_NOFILE), ``file_size_mb`` (RLIMIT_FSIZE: the largest file it
    may write), ``tmp_mb`` (L1+: the size of its private ``/tmp``),
    ``cpu_backstop_seconds`` (RLIMIT_CPU per process, SIGXCPU: a last resort; the
    match's clocks charge each decision long before). ``binds``: extra paths mounted
    read-only at L1+ (a model file elsewhere). ``share_network``: keep the host's network
    at L1+, only for a bot that cannot serve on a unix socket (TCP 127.0.0.1), recorded as
    weaker. ``env``: extra environment variables for the bot.
    """

    address_space_mb: int | None = 4096
    memory_mb: int = 1024
    max_processes: int = 128
    open_files: int = 256
    file_size_mb: int = 16
    tmp_mb: int = 64
    cpu_backstop_seconds: int = 3600
    binds: tuple[str, ...] = ()
    share_network: bool = False
    env: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        for name in ("memory_mb", "max_processes", "open_files", "file_size_mb", "tmp_mb"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"BotLimits.{name} must be at least 1")
        if self.address_space_mb is not None and self.address_space_mb < 64:
            raise ValueError("BotLimits.address_space_mb must be at least 64 (or None)")
        if self.cpu_backstop_seconds < 1:
            raise ValueError("BotLimits.cpu_backstop_seconds must be at least 1")
        object.__setattr__(self, "binds", tuple(str(b) for b in self.binds))
        object.__setattr__(self, "env", MappingProxyType(dict(self.env)))


def _check_l0() -> LayerCheck:
    supervisor = Path(__file__).with_name("_supervisor.py")
    if not supervisor.is_file():
        return LayerCheck("L0", False, f"the supervisor {supervisor} is missing")
    return LayerCheck("L0", True, "exec-chain supervisor: rlimits, subreaper, clean environment")


def _run_probe(argv: list[str]) -> str | None:
    """None if ``argv`` ran and exited 0, else why not (its stderr's last line)."""
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    if done.returncode != 0:
        lines = (done.stderr or "").strip().splitlines()
        return f"exit status {done.returncode}: {lines[-1] if lines else 'no message'}"
    return None


def _check_l1() -> LayerCheck:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return LayerCheck(
            "L1",
            False,
            "sandbox L1 needs bubblewrap: bwrap is not on PATH (apt-get install bubblewrap)",
        )
    if os.geteuid() == 0:  # root in a user namespace could unmount the masks: a uid instead
        why = _probe_as_root()
        if why is not None:
            return LayerCheck(
                "L1", False, f"sandbox L1 as root runs bots as a uid of their own: {why}"
            )
        return LayerCheck(
            "L1",
            True,
            f"bubblewrap {bwrap} as root, bots as uids {UID_RANGE.start}-{UID_RANGE.stop - 1}: pid, net (loopback only), ipc namespaces, seccomp",
        )
    why = _run_probe(bwrap_command(["true"], bwrap=bwrap))
    if why is not None:
        return LayerCheck("L1", False, f"bubblewrap ({bwrap}) does not work here: {why}")
    return LayerCheck(
        "L1", True, f"bubblewrap {bwrap}: user, pid, net (loopback only), ipc namespaces, seccomp"
    )


def _probe_as_root() -> str | None:
    """None if bubblewrap as root runs ``true`` as a leased uid (setpriv), else why not."""
    if shutil.which("setpriv") is None:
        return "util-linux setpriv is not on PATH"
    try:
        lease = lease_uid()
    except SandboxError as error:
        return str(error)
    try:
        why = _run_probe(bwrap_command(setpriv_command(["true"], lease.uid), as_root=True))
    finally:
        lease.release()
    return None if why is None else f"bubblewrap as root with setpriv fails: {why}"


def _check_l2(l1: LayerCheck) -> LayerCheck:
    if os.geteuid() != 0:
        return LayerCheck("L2", False, "sandbox L2 needs root (a uid per seat, cgroups)")
    if not l1.available:
        return LayerCheck("L2", False, f"sandbox L2 needs L1: {l1.detail}")
    works, cgroups = _groups()
    if not works:
        return LayerCheck("L2", False, f"sandbox L2 needs memory and pids cgroups: {cgroups}")
    return LayerCheck("L2", True, f"uids {UID_RANGE.start}-{UID_RANGE.stop - 1}, {cgroups}")


@functools.cache
def _groups() -> tuple[bool, str]:
    return cgroup_support()


def groups_work() -> bool:
    """Whether per-seat cgroups can be made here (probed once per process): L2 needs them,
    and as root L1 uses them where they work (issue 19 item 7)."""
    return os.geteuid() == 0 and _groups()[0]


@functools.cache
def _checks() -> tuple[LayerCheck, ...]:
    l0, l1 = _check_l0(), _check_l1()
    return (l0, l1, _check_l2(l1))


def check_layers() -> list[LayerCheck]:
    """Probe L0, L1 and L2 (once per process: the result is cached)."""
    return list(_checks())


def check_seat_groups() -> list[LayerCheck]:
    """What the seats' cgroups give here, for ``arena doctor``: equal CPU weights (``fair
    CPU``, issue 19 item 6) and the seat's cgroups at L1 as root (``L1 as root``, item 7)."""
    if os.geteuid() != 0:
        why = "not root: no cgroup per seat"
        return [
            LayerCheck("fair CPU", False, f"{why}; a bot with many processes can starve others"),
            LayerCheck("L1 as root", False, f"{why}; L1 caps memory per process only"),
        ]
    fair, detail = fair_cpu_support()
    if not fair:
        detail += "; a bot with many processes can starve others"
    if not _checks()[1].available:
        l1 = LayerCheck("L1 as root", False, f"L1 does not work here: {_checks()[1].detail}")
    elif groups_work():
        l1 = LayerCheck(
            "L1 as root",
            True,
            "the seat's cgroups, as at L2: a memory cap (memory_mb), every process's CPU counted",
        )
    else:
        l1 = LayerCheck(
            "L1 as root",
            False,
            f"no cgroups ({_groups()[1]}): a bot may hold address_space_mb in each of "
            "max_processes processes, and the CPU clock reads /proc (workers reaped by the "
            "kernel are charged to no one)",
        )
    return [LayerCheck("fair CPU", fair, detail), l1]


def resolve_sandbox(choice: str) -> str:
    """The layer to use for ``choice``: ``off``, the highest working one for ``auto``, or
    ``choice`` itself; :class:`SandboxError` if that layer does not work here."""
    if choice not in SANDBOX_CHOICES:
        raise ValueError(f"sandbox must be one of {', '.join(SANDBOX_CHOICES)}, not {choice!r}")
    if choice == "off":
        return "off"
    checks = {check.layer: check for check in check_layers()}
    if choice == "auto":
        return next(layer for layer in reversed(LAYERS) if checks[layer].available)
    if not checks[choice].available:
        raise SandboxError(checks[choice].detail)
    return choice


def hides_paths(layer: str) -> bool:
    """Whether ``hidden_paths`` are out of a bot's reach at ``layer`` (L1 and up)."""
    return layer in ("L1", "L2")


class UidLease:
    """A uid from :data:`UID_RANGE` held by this process (an flock on its lock file)."""

    def __init__(self, uid: int, lock: IO[bytes]) -> None:
        self.uid = uid
        self._lock: IO[bytes] | None = lock

    def release(self) -> None:
        if self._lock is not None:
            with contextlib.suppress(OSError):
                self._lock.close()
            self._lock = None


def _has_passwd_entry(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def lease_uid() -> UidLease:
    """Take a free uid (no passwd entry, no other holder); :class:`SandboxError` if none."""
    try:
        UID_LOCK_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        raise SandboxError(
            f"sandbox L2 cannot make its uid lock folder {UID_LOCK_DIR}: {error}"
        ) from None
    start = os.getpid() % len(UID_RANGE)  # spread concurrent arenas over the range
    for offset in range(len(UID_RANGE)):
        uid = UID_RANGE[(start + offset) % len(UID_RANGE)]
        if _has_passwd_entry(uid):
            continue
        lock = (UID_LOCK_DIR / f"{uid}.lock").open("ab")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            continue
        return UidLease(uid, lock)
    raise SandboxError(
        f"sandbox L2 has no free uid in {UID_RANGE.start}-{UID_RANGE.stop - 1} (all in use or in /etc/passwd)"
    )


def sandbox_of(driver: object) -> str:
    """What guards ``driver``'s bot, for the records: its layer when launched (``L2``...),
    ``in-process`` for a Python object, ``remote`` for a bot dialled at an address."""
    layer = getattr(driver, "sandbox_layer", None)
    if layer:
        return str(layer)
    return "remote" if hasattr(driver, "address") else "in-process"

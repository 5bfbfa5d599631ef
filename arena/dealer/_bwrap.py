"""The bubblewrap command line of a sandboxed bot (sandbox L1 and L2).

The bot sees a read-only system (``/usr``, ``/etc``, ``/bin``, ``/lib*``, ``/sbin``,
``/opt``), the Python install running the arena (``sys.base_prefix``, the venv) and the
installed ``arena`` package folder (the SDK needs it; nothing else of a checkout), its
own folder and any extra binds read-only, its socket folder read-write, a private
size-capped ``/tmp`` (its current folder and ``$HOME``), ``/dev`` and its own ``/proc``.
Nothing else exists in its file system: no other bot's folder, no ``runs/``, no
database. Paths the caller names as hidden are masked even under a mounted folder.

Namespaces: user (L1 only; at L2 bubblewrap runs as root so ``setpriv`` can switch to
the seat's uid), IPC, PID, UTS, cgroup, and network (only loopback) unless the bot must
share the host's network (a TCP bot at L1+). ``--die-with-parent`` and
``--new-session`` always.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/lib", "/lib32", "/lib64", "/libx32", "/sbin", "/opt")
ARENA_PACKAGE = Path(__file__).resolve().parents[1]
SANDBOX_TMP = "/tmp"


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def python_dirs() -> list[Path]:
    """The interpreter's install and venv folders, and the ``arena`` package folder."""
    found = [Path(sys.base_prefix), Path(sys.prefix), Path(sys.executable).resolve().parent]
    return [*dict.fromkeys(p.resolve() for p in found), ARENA_PACKAGE]


def _system_args() -> list[str]:
    args: list[str] = []
    for name in SYSTEM_DIRS:
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    return args


SECCOMP_FD = "{seccomp_fd}"
"""Where the supervisor puts the number of the fd holding the compiled seccomp filter."""
DENIED_SYSCALLS = {
    "flock": 73,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "inotify_init": 253,
    "inotify_init1": 294,
    "perf_event_open": 298,
    "fanotify_init": 300,
}
"""x86_64 system calls a sandboxed bot gets EPERM for: kernel keyrings, file locks and
file watches work across namespaces and uids on the files every sandbox mounts, so two
instances of a bot (the rotations of a duplicate deal) could talk through them (audit F1)."""
DENIED_FCNTL = (5, 6, 7, 36, 37, 38, 1024, 1026)
"""``fcntl`` commands denied for the same reason: F_GETLK, F_SETLK, F_SETLKW, their OFD
forms, F_SETLEASE and F_NOTIFY."""


def _parents_args(folder: Path, made: set[Path]) -> list[str]:
    """Create the folders above a mount point as 0755 (bubblewrap's own are 0700 as root)."""
    args: list[str] = []
    for parent in reversed(folder.parents):
        if parent not in made:
            made.add(parent)
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


def _mask_args(hidden: Sequence[Path], mounted: Sequence[Path]) -> list[str]:
    """Mask each hidden path that lies under a mounted folder (an empty tmpfs or /dev/null).

    A hidden path that does not exist yet masks its nearest existing ancestor, so a
    records folder created after the bot started is still out of reach.
    """
    args: list[str] = []
    for path in hidden:
        path = Path(os.path.realpath(path))
        if not any(_inside(path, folder) or _inside(folder, path) for folder in mounted):
            continue
        if any(_inside(folder, path) and folder != path for folder in mounted):
            for folder in mounted:  # a mounted folder inside the hidden one: mask it whole
                if _inside(folder, path):
                    args += ["--tmpfs", str(folder)]
            continue
        while not path.exists() and path.parent != path:
            path = path.parent
        if path.is_dir():
            args += ["--perms", "0000", "--tmpfs", str(path)]
        else:
            args += ["--ro-bind", "/dev/null", str(path)]
    return args


def bwrap_command(
    argv: Sequence[str],
    *,
    bot_dirs: Sequence[str | os.PathLike[str]] = (),
    socket_dir: str | None = None,
    tmp_mb: int = 64,
    hidden: Sequence[str | os.PathLike[str]] = (),
    share_network: bool = False,
    as_root: bool = False,
    bwrap: str | None = None,
    seccomp: bool = False,
    writable: Sequence[str | os.PathLike[str]] = (),
    chdir: str = SANDBOX_TMP,
) -> list[str]:
    """``bwrap ... -- argv``: ``bot_dirs`` read-only, ``socket_dir`` and ``writable``
    read-write, ``hidden`` masked.

    ``as_root``: L2, where bubblewrap runs as root without a user namespace and ``argv``
    switches uid itself (``setpriv``); otherwise bubblewrap drops every capability.
    ``seccomp``: load the filter the supervisor compiles (:data:`DENIED_SYSCALLS`) from
    the fd it puts in place of :data:`SECCOMP_FD`.
    """
    program = bwrap or shutil.which("bwrap") or "bwrap"
    args = [program, "--die-with-parent", "--new-session"]
    args += [] if as_root else ["--unshare-user", "--cap-drop", "ALL"]
    args += ["--seccomp", SECCOMP_FD] if seccomp else []
    args += ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
    args += [] if share_network else ["--unshare-net"]
    args += _system_args()
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--size", str(int(tmp_mb) << 20), "--perms", "1777", "--tmpfs", SANDBOX_TMP]
    system = [Path(name).resolve() for name in SYSTEM_DIRS if Path(name).exists()]
    mounted: list[Path] = []
    made: set[Path] = {Path("/"), Path(SANDBOX_TMP)}
    for folder in sorted(
        {Path(os.path.realpath(d)) for d in [*python_dirs(), *bot_dirs]},
        key=lambda p: len(p.parts),
    ):
        if any(_inside(folder, known) for known in [*system, *mounted]) or not folder.exists():
            continue
        mounted.append(folder)
        args += [*_parents_args(folder, made), "--ro-bind", str(folder), str(folder)]
    for folder in [Path(os.path.realpath(d)) for d in [socket_dir, *writable] if d is not None]:
        mounted.append(folder)  # over a read-only parent too: a build writes in its folder
        args += [*_parents_args(folder, made), "--bind", str(folder), str(folder)]
    args += _mask_args([Path(h) for h in hidden], mounted)
    return [*args, "--chdir", chdir, "--", *argv]


def setpriv_command(argv: Sequence[str], uid: int) -> list[str]:
    """``argv`` run as ``uid`` (and gid ``uid``) with no capabilities and no new privileges."""
    setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
    return [
        setpriv,
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
        *argv,
    ]

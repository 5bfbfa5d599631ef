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

With ``private_kernel`` (a launched bot; issue 19 items 4, 5): ``/proc/sys`` and the
machine-wide counters in ``/proc`` (:data:`PROC_COUNTERS`) masked, no pseudo-terminals
(an empty ``/dev/pts``), and ``/`` and ``/dev`` read-only, so the only folders a bot
can write are its ``/tmp`` and its socket folder. :func:`args_on_fd` moves the whole
command line into a file descriptor (bubblewrap's ``--args``), so ``/proc/1/cmdline``
in the sandbox shows no mount, masked path or folder name (item 8).
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/lib", "/lib32", "/lib64", "/libx32", "/sbin", "/opt")
ARENA_PACKAGE = Path(__file__).resolve().parents[1]
SANDBOX_TMP = "/tmp"


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def python_dirs() -> list[Path]:
    """The interpreter's install and venv folders, and the ``arena`` package folder."""
    found = [Path(sys.base_prefix), Path(sys.prefix), Path(sys.executable).resolve().parent]
    return [*dict.fromkeys(p.resolve() for p in found), ARENA_PACKAGE]


def _depth(path: Path) -> int:
    return len(path.parts)


def _system() -> list[Path]:
    return [Path(name).resolve() for name in SYSTEM_DIRS if Path(name).exists()]


def own_folders(bot_dirs: Sequence[str | os.PathLike[str]]) -> list[str]:
    """The bot folders bubblewrap binds as folders of their own (real paths): not inside
    the system, the Python folders or one another; what a duplicate instance copies."""
    found: list[Path] = [*_system(), *(Path(os.path.realpath(d)) for d in python_dirs())]
    own: list[str] = []
    for folder in sorted({Path(os.path.realpath(d)) for d in bot_dirs}, key=_depth):
        if folder.exists() and not any(_inside(folder, known) for known in found):
            found.append(folder)
            own.append(str(folder))
    return own


def _over_copy(
    folder: Path, over: Sequence[Path], pythons: set[Path], copies: Mapping[str, str]
) -> bool:
    """Whether ``folder``, inside the mounts ``over``, is still bound: a Python folder
    inside a copied bot folder (left out of the copy, bound from the host)."""
    return folder in pythons and all(str(known) in copies for known in over)


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
ARGS_FD = "{args_fd}"
"""Where the supervisor puts the number of the fd holding bubblewrap's arguments."""
DENIED_SYSCALLS = {
    "flock": 73,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "inotify_init": 253,
    "inotify_init1": 294,
    "perf_event_open": 298,
    "fanotify_init": 300,
    # issue 19 item 5: machine-wide kernel resources two sandboxes share
    "io_setup": 206,
    "io_destroy": 207,
    "io_getevents": 208,
    "io_submit": 209,
    "io_cancel": 210,
    "io_pgetevents": 333,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "setns": 308,
    "mincore": 27,
    "readahead": 187,
    "fadvise64": 221,
    "cachestat": 451,
    # audit 19e: kernel surface no bot needs (eBPF maps are kernel memory shared by fd
    # passing, userfaultfd stalls the kernel on a bot's page faults)
    "bpf": 321,
    "userfaultfd": 323,
}
"""x86_64 system calls a sandboxed bot gets EPERM for: kernel keyrings, file locks and
file watches work across namespaces and uids on the files every sandbox mounts, so two
instances of a bot (the rotations of a duplicate deal) could talk through them (audit F1);
AIO contexts and io_uring (a machine-wide count any process moves and reads, and a
machine-wide cap one bot could take whole); joining namespaces; asking or steering the
page cache of the files every sandbox shares (mincore, cachestat, readahead, fadvise);
eBPF and userfaultfd (kernel surface no bot needs)."""
DENIED_FCNTL = (5, 6, 7, 36, 37, 38, 1024, 1026)
"""``fcntl`` commands denied for the same reason: F_GETLK, F_SETLK, F_SETLKW, their OFD
forms, F_SETLEASE and F_NOTIFY."""
NAMESPACE_FLAGS = 0x7E020080
"""CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET and NEWTIME."""
SECCOMP_RULES = {
    # clone3's flags sit in memory a filter cannot read: ENOSYS, so libc falls back to clone
    "enosys": {"clone3": 435},
    # [number, argument, mask]: EPERM when the argument has a bit of the mask
    "flags": {
        "clone": [56, 0, NAMESPACE_FLAGS],  # no new user (or any) namespace
        "unshare": [272, 0, NAMESPACE_FLAGS],
        "preadv2": [327, 5, 0x8],  # RWF_NOWAIT: "is this page cached?" without a read
        "pwritev2": [328, 5, 0x8],
    },
    # socket() and socketpair(): unix, IPv4 and IPv6, and netlink's NETLINK_ROUTE (libc's
    # getaddrinfo) only; EAFNOSUPPORT for the rest: AF_VSOCK's ports are one space for the
    # whole machine whatever the network namespace, and other families are kernel surface
    # no bot needs. IPv4 and IPv6 streams only: a datagram socket's buffers are memory no
    # cgroup v1 cap charges, counted in one machine-wide figure (/proc/net/sockstat) that
    # every network namespace reads (audit 19, socket memory); EPERM for them, and for
    # any type but SOCK_STREAM (SOCK_SEQPACKET, SOCK_RDM) or a protocol but 0 or TCP (an
    # SCTP stream, MPTCP: audit 19e)
    "socket": {"calls": [41, 53], "stream": [2, 10], "families": [1], "netlink": [16, [0]]},
}
"""The argument-checking part of the filter (issue 19 item 5), compiled by the supervisor."""
PROC_COUNTERS = (
    "stat",
    "loadavg",
    "meminfo",
    "vmstat",
    "zoneinfo",
    "buddyinfo",
    "pagetypeinfo",
    "slabinfo",
    "diskstats",
    "interrupts",
    "softirqs",
    "schedstat",
    "locks",
    "key-users",
    "swaps",
    "modules",
    "crypto",
    "cgroups",
    "cmdline",
    "partitions",
)
"""Machine-wide counters in ``/proc`` a bot could move in one sandbox and read in another
(forks, context switches, page cache, disk reads, interrupts, a module's or a crypto
algorithm's reference count, which a TCP_ULP socket option moves), and what they tell of
the host (its kernel command line and disks, audit 19): masked with ``private_kernel``."""


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


def _empty(path: str) -> list[str]:
    """An empty read-only folder over ``path`` (writable by nobody, at L1 without root too)."""
    return ["--perms", "0555", "--size", "4096", "--tmpfs", path, "--remount-ro", path]


@functools.cache
def _proc_counters() -> tuple[str, ...]:
    return tuple(f"/proc/{name}" for name in PROC_COUNTERS if os.path.exists(f"/proc/{name}"))


def _private_kernel_args() -> list[str]:
    """Masks over machine-wide counters, no ptys, ``/`` and ``/dev`` read-only (item 5)."""
    args = _empty("/proc/sys") + _empty("/dev/pts")  # /dev/ptmx leads into /dev/pts
    if os.path.isdir("/proc/pressure"):
        args += _empty("/proc/pressure")
    for path in _proc_counters():
        args += ["--ro-bind", "/dev/null", path]  # nodev: opening it is EACCES
    return [*args, "--remount-ro", "/dev", "--remount-ro", "/"]


def _tmp_args(tmp_dir: str | None, tmp_mb: int) -> list[str]:
    """``/tmp``: the seat's capped tmpfs from the host when given, else a fresh one."""
    if tmp_dir is not None:
        return ["--bind", str(tmp_dir), SANDBOX_TMP]
    return ["--size", str(int(tmp_mb) << 20), "--perms", "1777", "--tmpfs", SANDBOX_TMP]


def _namespace_args(as_root: bool, seccomp: bool, share_network: bool) -> list[str]:
    """New session and namespaces; without root a user namespace with no capability."""
    args = ["--die-with-parent", "--new-session"]
    args += [] if as_root else ["--unshare-user", "--cap-drop", "ALL"]
    args += ["--seccomp", SECCOMP_FD] if seccomp else []
    args += ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
    return args + ([] if share_network else ["--unshare-net"])


def bwrap_command(
    argv: Sequence[str],
    *,
    bot_dirs: Sequence[str | os.PathLike[str]] = (),
    socket_dir: str | None = None,
    socket_dest: str | None = None,
    tmp_mb: int = 64,
    tmp_dir: str | None = None,
    hidden: Sequence[str | os.PathLike[str]] = (),
    share_network: bool = False,
    as_root: bool = False,
    bwrap: str | None = None,
    seccomp: bool = False,
    private_kernel: bool = False,
    writable: Sequence[str | os.PathLike[str]] = (),
    chdir: str = SANDBOX_TMP,
    copies: Mapping[str, str] = MappingProxyType({}),
) -> list[str]:
    """``bwrap ... -- argv``: ``bot_dirs`` read-only, ``socket_dir`` (at ``socket_dest``,
    default its own path) and ``writable`` read-write, ``hidden`` masked.

    ``as_root``: L2, where bubblewrap runs as root without a user namespace and ``argv``
    switches uid itself (``setpriv``); otherwise bubblewrap drops every capability.
    ``seccomp``: load the filter the supervisor compiles (:data:`DENIED_SYSCALLS`) from
    the fd it puts in place of :data:`SECCOMP_FD`. ``tmp_dir``: a host folder (the seat's
    capped tmpfs) mounted as ``/tmp`` instead of a tmpfs of ``tmp_mb``.
    ``private_kernel``: see the module docstring. ``copies``: a bot folder (a real path,
    as :func:`own_folders` names it) -> the folder bound read-only in its place (a
    duplicate instance's own copy, :mod:`arena.sandbox._botcopy`); the Python folders
    inside it are still bound from the host.
    """
    program = bwrap or shutil.which("bwrap") or "bwrap"
    args = [program, *_namespace_args(as_root, seccomp, share_network), *_system_args()]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += _tmp_args(tmp_dir, tmp_mb)
    pythons, system = {Path(os.path.realpath(d)) for d in python_dirs()}, _system()
    mounted: list[Path] = []
    made: set[Path] = {Path("/"), Path(SANDBOX_TMP)}
    for folder in sorted(pythons | {Path(os.path.realpath(d)) for d in bot_dirs}, key=_depth):
        over = [known for known in [*system, *mounted] if _inside(folder, known)]
        if not folder.exists() or (over and not _over_copy(folder, over, pythons, copies)):
            continue
        mounted.append(folder)
        source = copies.get(str(folder), str(folder))
        args += [*_parents_args(folder, made), "--ro-bind", source, str(folder)]
    if socket_dir is not None and socket_dest is not None:
        dest = Path(socket_dest)
        args += [*_parents_args(dest, made), "--bind", os.path.realpath(socket_dir), str(dest)]
    elif socket_dir is not None:
        writable = [socket_dir, *writable]
    for folder in [Path(os.path.realpath(d)) for d in writable]:
        mounted.append(folder)  # over a read-only parent too: a build writes in its folder
        args += [*_parents_args(folder, made), "--bind", str(folder), str(folder)]
    args += _mask_args([Path(h) for h in hidden], mounted)
    args += _private_kernel_args() if private_kernel else []
    return [*args, "--chdir", chdir, "--", *argv]


def args_on_fd(command: Sequence[str]) -> tuple[list[str], list[str]]:
    """``bwrap --args FD -- argv`` and the options the supervisor writes to that fd (item
    8): ``/proc/1/cmdline`` in the sandbox then shows no mount, mask or host folder, only
    the command bubblewrap starts (which the bot runs anyway; bubblewrap reads no command
    from the fd)."""
    end = list(command).index("--")  # no option of ours is "--": paths are absolute
    return [command[0], "--args", ARGS_FD, *command[end:]], list(command[1:end])


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

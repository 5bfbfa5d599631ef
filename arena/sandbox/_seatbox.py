"""One start of one launched bot inside its sandbox: folders, uid, cgroup, command, cleanup.

:class:`SeatBox` turns a :class:`~arena.sandbox._sandbox.BotLimits` and a layer into the
command the arena runs (the supervisor's exec chain, with bubblewrap at L1+), the clean
environment, and the resources to give back at close (the private folder, the socket
folder, the uid, the cgroup). It runs nothing itself.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import sys
import tempfile
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path

from arena.sandbox._botcopy import FolderCopy
from arena.sandbox._bwrap import (
    DENIED_FCNTL,
    DENIED_SYSCALLS,
    SANDBOX_TMP,
    SECCOMP_FD,
    SECCOMP_RULES,
    args_on_fd,
    bwrap_command,
    own_folders,
    python_dirs,
    setpriv_command,
)
from arena.sandbox._cgroups import SeatCgroup, sweep_groups
from arena.sandbox._errors import BotStartError
from arena.sandbox._leftovers import (
    SEAT_PREFIX,
    owner_tag,
    remove_tree,
    sweep_folders,
)
from arena.sandbox._process import free_tcp_port, safe_name
from arena.sandbox._sandbox import BotLimits, UidLease, groups_work, lease_uid
from arena.sandbox._seatfs import SANDBOX_SOCKET_DIR, SOCKET_NAME, SeatFolder

SUPERVISOR = Path(__file__).with_name("_supervisor.py")
CONFIG_ENV = "ARENA_SUPERVISOR_CONFIG"
"""Where the supervisor finds its JSON config (``_supervisor.CONFIG_ENV``)."""
ADDRESS_ENV = "ARENA_BOT_ADDRESS"
PARENT_PID_ENV = "ARENA_PARENT_PID"
SANDBOX_ENV = "ARENA_SANDBOX"
"""Tells the bot the layer it runs in (``L0``, ``L1``, ``L2``): informative only."""


_SWEPT: set[int] = set()  # the processes that swept already (by pid: a spawned worker is new)


def sweep_leftovers() -> list[str]:
    """Once per process, before its first launched bot: remove the seat folders and
    cgroups of arena processes that were killed before they (and their supervisors)
    could (:mod:`arena.sandbox._leftovers`); what was removed."""
    if os.getpid() in _SWEPT:
        return []
    _SWEPT.add(os.getpid())
    return [*sweep_folders(), *(sweep_groups() if os.geteuid() == 0 else [])]


def absolute_command(argv: Sequence[str], workdir: str | os.PathLike[str] | None) -> list[str]:
    """``argv`` with the program found on PATH and each argument that names an existing
    file relative to ``workdir`` (default: the current folder) made absolute, since the
    bot then runs in a private folder."""
    base = Path(workdir) if workdir is not None else Path.cwd()
    out = []
    for index, arg in enumerate(argv):
        candidate = base / arg
        if index == 0 and "/" not in arg:
            found = shutil.which(arg)
            out.append(os.path.realpath(found) if found else arg)
        elif arg and not arg.startswith("-") and not os.path.isabs(arg) and candidate.exists():
            out.append(os.path.realpath(candidate))
        else:
            out.append(arg)
    return out


def bot_folders(argv: Sequence[str], workdir: str | os.PathLike[str] | None) -> list[str]:
    """The bot's own folder(s), mounted read-only at L1+: its workdir, or the folder of its
    program and of its script (the first argument that is an existing file)."""
    folders = [os.path.realpath(workdir)] if workdir is not None else []
    if argv and os.path.isabs(argv[0]):
        folders.append(os.path.dirname(os.path.realpath(argv[0])))
    for arg in argv[1:]:
        if os.path.isabs(arg) and os.path.isfile(arg):
            folders.append(os.path.dirname(arg))
            break
    return folders


class SeatBox:
    """The sandbox of one run of one bot at ``layer`` (``L0``, ``L1`` or ``L2``)."""

    def __init__(
        self,
        name: str,
        layer: str,
        limits: BotLimits,
        hidden: Sequence[str],
        *,
        private_copy: bool = False,
    ) -> None:
        self.name = name
        self.private_copy = private_copy  # a duplicate instance: its own copy of its folders
        self.copy: FolderCopy | None = None
        self.layer = layer
        self.limits = limits
        self.hidden = [str(h) for h in hidden]
        self.private_dir: str | None = None
        self.socket_dir: str | None = None
        self.cgroup: SeatCgroup | None = None
        self.uid: UidLease | None = None

    folder: SeatFolder | None = None
    """The seat's socket folder, pinned link and (as root) capped tmpfs (issue 19 items 3, 4)."""

    # --- resources ---------------------------------------------------------------

    def address(self, transport: str) -> tuple[str, str]:
        """Where the bot listens (``unix:PATH`` or ``127.0.0.1:PORT``) and the port text.

        A unix socket's folder is :attr:`folder`'s ``bot/``, at L1+ seen by the bot as
        ``/run/arena`` (its address names nothing of the host); the dealer dials it only
        through :meth:`pin_endpoint`. As root (a leased uid) the folder, and the bot's
        ``/tmp``, are a tmpfs capped in bytes and files."""
        private_fs = self.layer == "L2" or (self.layer == "L1" and os.geteuid() == 0)
        tmp_mb = self.limits.tmp_mb
        if transport == "tcp":
            if self.layer != "L0" and not self.limits.share_network:
                raise BotStartError(
                    f"{self.name}: transport 'tcp' at sandbox {self.layer} needs "
                    "BotLimits(share_network=True): the bot's own network namespace has only "
                    "its own loopback, which the arena cannot reach (use transport 'unix')"
                )
            if private_fs:  # its /tmp still on a capped tmpfs of its own
                self.folder = SeatFolder.create(unix=False, private_fs=True, tmp_mb=tmp_mb)
            port = free_tcp_port()
            return f"127.0.0.1:{port}", str(port)
        self.folder = SeatFolder.create(unix=True, private_fs=private_fs, tmp_mb=tmp_mb)
        self.socket_dir = self.folder.bot_dir
        if self.layer == "L0":
            return f"unix:{self.folder.socket_path}", ""
        return f"unix:{SANDBOX_SOCKET_DIR}/{SOCKET_NAME}", ""

    def pin_endpoint(self, tree: Callable[[], Collection[int]]) -> str | None:
        """The address the dealer dials, once the bot's socket is pinned and checked
        (:meth:`SeatFolder.pin`: a socket of the seat's uid served by a pid of ``tree()``);
        None while it is not there or not listening yet. :class:`BotStartError` if wrong."""
        assert self.folder is not None and self.folder.bot_dir is not None
        uid = self.uid.uid if self.uid is not None else os.geteuid()
        try:
            if not self.folder.pin(uid, tree):
                return None
        except BotStartError as error:
            raise BotStartError(f"{self.name}: {error}") from None
        return f"unix:{self.folder.pinned_path}"

    def endpoint_replaced(self) -> str | None:
        """Why the bot's socket is no longer the one pinned (it swapped it), or None."""
        return self.folder.replaced() if self.folder is not None else None

    def acquire(self) -> None:
        """The private folder (L0), the seat's uid and cgroups (L2, L1 as root); undone by
        :meth:`release`."""
        if self.layer == "L0":
            self.private_dir = tempfile.mkdtemp(
                prefix=f"{SEAT_PREFIX}{owner_tag()}-{safe_name(self.name)}-"
            )
        if self.layer == "L2" or (self.layer == "L1" and os.geteuid() == 0):
            # as root, L1 too runs the bot as a uid of its own: root in a user namespace
            # keeps capabilities that unmount the masks over the records (audit F2)
            self.uid = lease_uid()
            if self.socket_dir is not None:
                os.chown(self.socket_dir, self.uid.uid, self.uid.uid)
        if self.layer == "L2" or (self.uid is not None and groups_work()):
            # as root L1 too gets the seat's cgroups where they work (L2's test): a memory
            # cap for all its processes, CPU accounting of all (issue 19 item 7), a CPU weight
            try:
                self.cgroup = SeatCgroup.create(
                    safe_name(self.name)[:24],
                    memory_mb=self.limits.memory_mb,
                    max_processes=self.limits.max_processes,
                )
            except OSError as error:
                raise BotStartError(f"{self.name}: cannot create its cgroup: {error}") from error

    def release(self) -> None:
        """Kill what is left in the cgroup, remove it and the folders, free the uid."""
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if self.folder is not None:  # its tmpfs unmounted (and all in it dropped), removed
            self.folder.release()
            self.folder = None
        for folder in (self.private_dir, self.socket_dir):
            if folder is not None:
                remove_tree(folder)  # never through a link the bot planted
        self.private_dir = self.socket_dir = None
        if self.copy is not None:
            self.copy.release()
            self.copy = None
        if self.uid is not None:
            self.uid.release()
            self.uid = None

    def _copy_folders(self, bot_dirs: Sequence[str | os.PathLike[str]]) -> None:
        """A duplicate instance's own copy of its folders (:mod:`arena.sandbox._botcopy`):
        no page of them is shared with its other instances (issue 19 item 1)."""
        if not self.private_copy or self.copy is not None:
            return
        skip = [os.path.realpath(p) for p in [*self.hidden, *map(str, python_dirs())]]
        self.copy = FolderCopy.create(self.name, own_folders(bot_dirs), skip)

    # --- the command -------------------------------------------------------------

    def environment(self, address: str, extra: Mapping[str, str]) -> dict[str, str]:
        """The bot's clean environment: nothing of the arena's but PATH's shape and LANG."""
        home = self.private_dir if self.layer == "L0" else SANDBOX_TMP
        assert home is not None
        env = {
            "PATH": f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin",
            "LANG": os.environ.get("LANG", "C.UTF-8"),
            "HOME": home,
            "TMPDIR": home,
            SANDBOX_ENV: self.layer,
            **extra,
            **self.limits.env,
            ADDRESS_ENV: address,
        }
        if self.layer == "L0":  # inside a PID namespace the arena's pid means nothing
            env[PARENT_PID_ENV] = str(os.getpid())
        return env

    def rlimits(self, memory_limit_mb: int | None, cpu_seconds: int | None) -> dict[str, list[int]]:
        """The supervisor's rlimits; the old ``memory_limit_mb`` / ``cpu_seconds`` options win."""
        limits = self.limits
        cpu = cpu_seconds if cpu_seconds is not None else limits.cpu_backstop_seconds
        address_mb = memory_limit_mb if memory_limit_mb is not None else limits.address_space_mb
        found = {
            "RLIMIT_CORE": [0, 0],
            "RLIMIT_NOFILE": [limits.open_files, limits.open_files],
            "RLIMIT_FSIZE": [limits.file_size_mb << 20, limits.file_size_mb << 20],
            # soft:hard, so the bot gets SIGXCPU (a clear cause) before the kernel's SIGKILL
            "RLIMIT_CPU": [int(cpu), int(cpu) + 1],
        }
        if address_mb is not None:
            found["RLIMIT_AS"] = [int(address_mb) << 20, int(address_mb) << 20]
        # no real-time policy and no higher priority: a real-time task runs before every
        # ordinary one, outside any CPU weight, whatever the arena's own limits allow
        found["RLIMIT_RTPRIO"] = [0, 0]
        found["RLIMIT_NICE"] = [0, 0]
        if self.uid is not None and self.cgroup is None:  # L1 as root: no pids cgroup, but a
            # uid of its own, whose processes (threads too) the kernel counts (audit F8)
            found["RLIMIT_NPROC"] = [limits.max_processes, limits.max_processes]
        return found

    def _leftovers(self) -> dict[str, list[str]]:
        """What the supervisor removes itself if the arena dies first."""
        top = self.folder.top if self.folder is not None else None
        mounted = self.folder is not None and self.folder.mounted
        copy_top = self.copy.top if self.copy is not None else None
        copied = self.copy is not None and self.copy.mounted
        return {
            "cgroups": [str(p) for p in self.cgroup.dirs] if self.cgroup is not None else [],
            "folders": [f for f in (top, self.private_dir, copy_top) if f is not None],
            "mounts": [m for m, on in ((top, mounted), (copy_top, copied)) if on and m],
        }

    def command(
        self,
        argv: Sequence[str],
        *,
        workdir: str | os.PathLike[str] | None,
        env: dict[str, str],
        rlimits: Mapping[str, list[int]],
        grace: float,
    ) -> list[str]:
        """``python -I -S _supervisor.py``: the supervisor that starts ``argv``. Its config
        goes into ``env`` (:data:`CONFIG_ENV`), which the caller gives the supervisor: an
        environment only its own user can read (``ps`` shows a command line to all)."""
        if not (os.path.isfile(argv[0]) and os.access(argv[0], os.X_OK)):
            raise BotStartError(f"{self.name}: cannot run {argv[0]!r}: no such executable file")
        inner, bwrap_args = list(argv), list[str]()
        if self.layer in ("L1", "L2"):
            if self.uid is not None:
                inner = setpriv_command(inner, self.uid.uid)
            bot_dirs = [*bot_folders(argv, workdir), *self.limits.binds]
            self._copy_folders(bot_dirs)
            inner, bwrap_args = args_on_fd(
                bwrap_command(
                    inner,
                    bot_dirs=bot_dirs,
                    copies=self.copy.copies if self.copy is not None else {},
                    socket_dir=self.socket_dir,
                    socket_dest=SANDBOX_SOCKET_DIR,
                    tmp_mb=self.limits.tmp_mb,
                    tmp_dir=self.folder.tmp_dir if self.folder is not None else None,
                    hidden=self.hidden,
                    share_network=self.limits.share_network,
                    as_root=self.uid is not None,
                    seccomp=platform.machine() == "x86_64",  # the numbers below are x86_64's
                    private_kernel=True,
                )
            )
        config = {
            "argv": inner,
            "env": env,
            "cwd": self.private_dir,
            "rlimits": dict(rlimits),
            "cgroup_procs": self.cgroup.procs_files() if self.cgroup is not None else [],
            "parent_pid": os.getpid(),
            "grace": grace,
            "signal_exit_codes": self.layer in ("L1", "L2"),
            "leftovers": self._leftovers(),
            # the supervisor compiles the filter and hands bubblewrap its fd (audit F1)
            "seccomp": {"syscalls": DENIED_SYSCALLS, "fcntl": DENIED_FCNTL, "rules": SECCOMP_RULES}
            if SECCOMP_FD in bwrap_args
            else None,
        }
        if self.layer in ("L1", "L2"):  # written to a memfd: bwrap --args FD (item 8)
            config["bwrap_args"] = bwrap_args
        env[CONFIG_ENV] = json.dumps(config)  # after the bot's env was copied into it
        return [sys.executable, "-I", "-S", str(SUPERVISOR)]

"""What a killed arena process leaves behind: whose it is, whether its owner lives, removal.

Each seat's folders in the temporary folder (``arena-sock-OWNER-*``, ``arena-seat-OWNER-*``,
a duplicate instance's ``arena-copy-OWNER-*``)
and cgroups (``arena-OWNER-*``) are named after the process that made them: ``OWNER`` is
``<pid>-~<start>.<boot>``, the pid, its start time (clock ticks since boot) and the first
8 hex digits of the boot id. A pid is reused; the same pid with the same start time in
the same boot is the same process. So a later arena process can tell, from the name
alone, that the owner is provably gone (no such process, or another one under that pid)
and sweep what it left: the supervisor (:mod:`arena.sandbox._supervisor`) removes its own
seat's leftovers when it sees its arena die, and the sweep catches the rest (a supervisor
killed too). Nothing whose owner may still live is touched, and removal never follows a
symlink a bot could have planted.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import logging
import os
import re
import stat
import tempfile

SOCKET_PREFIX = "arena-sock-"
SEAT_PREFIX = "arena-seat-"
COPY_PREFIX = "arena-copy-"
"""A duplicate instance's copy of its bot's folders (:mod:`arena.sandbox._botcopy`)."""
_OWNER = re.compile(r"(\d+)-~(\d+)\.([0-9a-f]{8})-")
_LEGACY = re.compile(r"(\d+)-(?!~)")  # cgroups named before owners had a start time
_LOG = logging.getLogger(__name__)


def _start_ticks(pid: int) -> int | None:
    """``pid``'s start time in clock ticks since boot, None if there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return int(file.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


@functools.cache
def _boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id") as file:
            return file.read().strip().replace("-", "")[:8].ljust(8, "0")
    except OSError:
        return "00000000"


@functools.cache
def _tag(pid: int) -> str:
    return f"{pid}-~{_start_ticks(pid) or 0}.{_boot_id()}"


def owner_tag() -> str:
    """This process's ``OWNER`` text, for the names of what its seats make."""
    return _tag(os.getpid())


def owner_gone(rest: str) -> bool:
    """Whether the owner named at the start of ``rest`` (a leftover's name after its
    ``arena-`` / ``arena-sock-`` / ``arena-seat-`` prefix) is provably gone. Unknown
    shapes are never gone (not ours to judge)."""
    match = _OWNER.match(rest)
    if match is None:
        return False
    if match[3] != _boot_id():
        return True  # made before the last boot: every process of then is gone
    return _start_ticks(int(match[1])) != int(match[2])


def legacy_owner_gone(rest: str) -> bool:
    """Whether an old-style cgroup name's pid (``arena-<pid>-<label>-...``) has no process
    at all (a live process under that pid may be its owner: then it is kept)."""
    match = _LEGACY.match(rest)
    return match is not None and not os.path.exists(f"/proc/{match[1]}")


_MNT_DETACH, _UMOUNT_NOFOLLOW = 2, 8


def unmount(path: str) -> bool:
    """Detach the file system mounted on ``path`` (a seat's tmpfs, root's: issue 19 item 4),
    never through a symlink; whether something was unmounted. Never raises."""
    try:
        info, parent = os.lstat(path), os.lstat(os.path.dirname(path) or ".")
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_dev == parent.st_dev or info.st_uid != 0:
        return False  # not a mount point, or not one the arena (root) made
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.umount2(path.encode(), _MNT_DETACH | _UMOUNT_NOFOLLOW) == 0


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_tree(path: str) -> None:
    """Remove ``path`` (a folder with all in it, or a file or link) without following a
    symlink anywhere in it: a bot owns its seat folder and may plant links out of it.
    Any depth, without recursion and with at most three descriptors (:func:`_empty`);
    never raises. The supervisor keeps a standard-library copy (``_supervisor``)."""
    try:
        info = os.lstat(path)
    except OSError:
        return
    if not stat.S_ISDIR(info.st_mode):
        with contextlib.suppress(OSError):
            os.unlink(path)  # a link itself, never what it points at
        return
    try:
        top = os.open(path, _DIR_FLAGS)
    except OSError:
        return  # gone, or a link swapped in
    try:
        with contextlib.suppress(Exception):  # never raises: what cannot go stays
            _empty(top)
    finally:
        os.close(top)
    with contextlib.suppress(OSError):
        os.rmdir(path)


def _empty(top: int) -> None:
    """Empty the folder open as ``top``: each pass unlinks its files and links, moves each
    subfolder's subfolders up into it (renamed by descriptors), and removes the emptied
    subfolders. A chain of any depth then needs no recursion and three descriptors; it
    stops when a pass changes nothing (what cannot be removed stays)."""
    moved, progress = 0, True
    while progress:
        progress = False
        with os.scandir(top) as found:
            entries = [(e.name, e.is_dir(follow_symlinks=False)) for e in found]
        for name, is_dir in entries:
            if not is_dir:
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=top)
                    progress = True
                continue
            try:
                fd = os.open(name, _DIR_FLAGS, dir_fd=top)
            except OSError:
                continue  # gone, or a link swapped in (unlinked next pass)
            try:
                with os.scandir(fd) as found:
                    inner = [(e.name, e.is_dir(follow_symlinks=False)) for e in found]
                for sub, sub_is_dir in inner:
                    with contextlib.suppress(OSError):
                        if sub_is_dir:
                            moved += 1
                            os.rename(sub, f".arena-rm-{moved}", src_dir_fd=fd, dst_dir_fd=top)
                        else:
                            os.unlink(sub, dir_fd=fd)
                        progress = True
            finally:
                os.close(fd)
            with contextlib.suppress(OSError):
                os.rmdir(name, dir_fd=top)
                progress = True


def sweep_folders(root: str | None = None) -> list[str]:
    """Remove the socket, seat and copy folders of arena processes that are gone, directly in
    ``root`` (default: the temporary folder); the paths removed."""
    root = root if root is not None else tempfile.gettempdir()
    euid, removed = os.geteuid(), list[str]()
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    for entry in entries:
        for prefix in (SOCKET_PREFIX, SEAT_PREFIX, COPY_PREFIX):
            if not entry.name.startswith(prefix) or not owner_gone(entry.name[len(prefix) :]):
                continue
            try:  # one bad leftover must not block every later start: logged, skipped
                # root's: an L2 socket folder belongs to the seat's uid
                if euid == 0 or entry.stat(follow_symlinks=False).st_uid == euid:
                    if euid == 0:
                        unmount(entry.path)  # a seat's tmpfs (as root), and all in it
                    remove_tree(entry.path)
                    removed.append(entry.path)
            except OSError:
                pass
            except Exception as error:
                _LOG.warning("cannot sweep %s: %r", entry.path, error)
    return removed

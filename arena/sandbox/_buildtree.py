"""A bot folder's files around its build: lent to the build's uid, then checked and given back.

As root a build runs as a leased uid of its own (never uid 0 in any namespace: that
uid owns ``/etc/shadow`` and may write ``/proc/sys``), so the folder is lent to it for the
build: every entry ``chown``ed to the uid, each one's owner remembered. Afterwards, with
every process of the build gone (its PID namespace and cgroup ended), :func:`give_back`
walks the folder again and, following no link: removes what no bot folder needs and two
instances of a bot could talk through (FIFOs, sockets, device files), clears setuid and
setgid bits and ACLs, and gives each entry back to its owner (new ones, hard links the
build made included, to the folder's owner). A file that had other hard links before
is never lent: its other names may lie outside the folder.

The walk is iterative with one open folder per level, at most :data:`MAX_DEPTH` levels
and :data:`MAX_ENTRIES` entries (a build's 1,100-deep tree crashed a recursive walk),
and a folder it cannot open is a :class:`TreeError`, never skipped.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

Owners = dict[str, tuple[int, int]]
"""Each lent entry's path relative to the folder, and its owner and group before."""
MAX_DEPTH = 64
MAX_ENTRIES = 500_000
_SPECIAL = (stat.S_ISFIFO, stat.S_ISSOCK, stat.S_ISCHR, stat.S_ISBLK)
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_ACLS = ("system.posix_acl_access", "system.posix_acl_default")


class TreeError(OSError):
    """A folder that cannot be walked whole: too deep, too large, or unreadable."""


def _listing(fd: int, relative: str) -> Iterator[str]:
    try:
        return iter(os.listdir(fd))
    except OSError as error:
        raise TreeError(f"cannot read {relative or '.'}: {error.strerror}") from None


def _walk(folder: Path) -> Iterator[tuple[str, str, int, os.stat_result]]:
    """(relative path, name, its folder's fd, lstat) of each entry; no link followed."""
    root = os.open(folder, _DIR)
    device = os.fstat(root).st_dev
    stack = [(root, "", _listing(root, ""))]
    seen = 0
    try:
        while stack:
            fd, prefix, names = stack[-1]
            name = next(names, None)
            if name is None:
                os.close(stack.pop()[0])
                continue
            seen += 1
            if seen > MAX_ENTRIES:
                raise TreeError(f"more than {MAX_ENTRIES} entries")
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            yield prefix + name, name, fd, info
            if stat.S_ISDIR(info.st_mode) and info.st_dev == device:
                if len(stack) > MAX_DEPTH:
                    raise TreeError(f"{prefix + name}: nested deeper than {MAX_DEPTH} folders")
                try:
                    child = os.open(name, _DIR, dir_fd=fd)
                except OSError as error:
                    raise TreeError(f"cannot open {prefix + name}: {error.strerror}") from None
                stack.append((child, f"{prefix}{name}/", _listing(child, prefix + name)))
    finally:
        for fd, _prefix, _names in stack:
            os.close(fd)


def lend(folder: Path, uid: int, owners: Owners) -> None:
    """Give ``folder`` and everything in it to ``uid``, noting each owner in ``owners``
    (filled as it goes, so what was lent before a :class:`TreeError` is given back)."""
    info = os.stat(folder, follow_symlinks=False)
    owners["."] = (info.st_uid, info.st_gid)
    os.chown(folder, uid, uid, follow_symlinks=False)
    for relative, name, fd, info in _walk(folder):
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            continue  # a hard link: its other names may be outside the folder
        owners[relative] = (info.st_uid, info.st_gid)
        with contextlib.suppress(OSError):
            os.chown(name, uid, uid, dir_fd=fd, follow_symlinks=False)


def give_back(folder: Path, owners: Owners | None, uid: int | None) -> list[str]:
    """After the build: remove special files, clear setuid/setgid bits and ACLs, give each
    entry back (``owners`` from :func:`lend`; None when nothing was lent); what was
    removed. :class:`TreeError` if the folder cannot be checked whole (the folder itself
    is given back all the same)."""
    removed: list[str] = []
    default = owners["."] if owners else None
    try:
        for relative, name, fd, info in _walk(folder):
            if any(test(info.st_mode) for test in _SPECIAL):
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=fd)
                    removed.append(relative)
                continue
            linked = stat.S_ISREG(info.st_mode) and info.st_nlink > 1
            if owners and default and (not linked or info.st_uid == uid):
                # a hard link still the uid's was made by the build (none can cross mounts)
                owner = owners.get(relative, default)
                with contextlib.suppress(OSError):
                    os.chown(name, *owner, dir_fd=fd, follow_symlinks=False)
            if stat.S_ISLNK(info.st_mode):
                continue
            if info.st_mode & (stat.S_ISUID | stat.S_ISGID):
                with contextlib.suppress(OSError, NotImplementedError):
                    os.chmod(name, stat.S_IMODE(info.st_mode) & ~0o6000, dir_fd=fd,
                             follow_symlinks=False)  # fmt: skip
            _drop_acls(folder / relative)
    finally:
        if owners:
            os.chown(folder, *owners["."], follow_symlinks=False)
    return removed


def _drop_acls(path: Path) -> None:
    """Remove the ACLs the build may have set (they could grant its uid access later)."""
    for attribute in _ACLS:
        with contextlib.suppress(OSError):
            os.removexattr(path, attribute, follow_symlinks=False)


def find_special_file(folder: Path) -> str | None:
    """The first FIFO, socket or device file in ``folder`` (relative), or None;
    :class:`TreeError` if the folder cannot be checked whole."""
    for relative, _name, _fd, info in _walk(folder):
        if any(test(info.st_mode) for test in _SPECIAL):
            return relative
    return None

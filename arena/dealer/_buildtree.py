"""A bot folder's files around its build: lent to the build's uid, then checked and given back.

As root a build runs as a leased uid of its own (never uid 0 in any namespace: that
uid owns ``/etc/shadow`` and may write ``/proc/sys``), so the folder is lent to it for the
build: every entry ``chown``ed to the uid, each one's owner remembered. Afterwards, with
every process of the build gone (its PID namespace ended), :func:`give_back` walks the
folder again and, without following a link: removes what no bot folder needs and two
instances of a bot could talk through (FIFOs, sockets, device files), clears setuid and
setgid bits, and gives each entry back to its owner (new ones to the folder's owner).
A file with other hard links is never lent: its other names may lie outside the folder.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

Owners = dict[str, tuple[int, int]]
"""Each lent entry's path relative to the folder, and its owner and group before."""
_SPECIAL = (stat.S_ISFIFO, stat.S_ISSOCK, stat.S_ISCHR, stat.S_ISBLK)


def _entries(folder: Path):
    """(relative path, name, dir_fd, lstat) of every entry under ``folder``, no link followed."""
    root_dev = os.stat(folder, follow_symlinks=False).st_dev
    for dirpath, dirnames, filenames, dirfd in os.fwalk(folder, follow_symlinks=False):
        relative = os.path.relpath(dirpath, folder)
        for name in [*dirnames, *filenames]:
            try:
                info = os.stat(name, dir_fd=dirfd, follow_symlinks=False)
            except OSError:
                continue
            if info.st_dev != root_dev:  # another file system mounted here: not the folder's
                dirnames[:] = [d for d in dirnames if d != name]
                continue
            yield os.path.normpath(os.path.join(relative, name)), name, dirfd, info


def lend(folder: Path, uid: int) -> Owners:
    """Give ``folder`` and everything in it to ``uid``; the owners to restore."""
    info = os.stat(folder, follow_symlinks=False)
    owners: Owners = {".": (info.st_uid, info.st_gid)}
    os.chown(folder, uid, uid, follow_symlinks=False)
    for relative, name, dirfd, info in _entries(folder):
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            continue  # a hard link: its other names may be outside the folder
        owners[relative] = (info.st_uid, info.st_gid)
        with contextlib.suppress(OSError):
            os.chown(name, uid, uid, dir_fd=dirfd, follow_symlinks=False)
    return owners


def give_back(folder: Path, owners: Owners | None) -> list[str]:
    """After the build: remove special files, clear setuid/setgid bits, restore owners
    (``owners`` from :func:`lend`, None when nothing was lent); what was removed."""
    removed = []
    default = owners["."] if owners else None
    for relative, name, dirfd, info in _entries(folder):  # dirfd is open only meanwhile
        if any(test(info.st_mode) for test in _SPECIAL):
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=dirfd)
                removed.append(relative)
            continue
        if stat.S_ISLNK(info.st_mode):
            if owners is not None:
                with contextlib.suppress(OSError):
                    uid, gid = owners.get(relative, default or (info.st_uid, info.st_gid))
                    os.chown(name, uid, gid, dir_fd=dirfd, follow_symlinks=False)
            continue
        if owners is not None and not (stat.S_ISREG(info.st_mode) and info.st_nlink > 1):
            uid, gid = owners.get(relative, default or (info.st_uid, info.st_gid))
            with contextlib.suppress(OSError):
                os.chown(name, uid, gid, dir_fd=dirfd, follow_symlinks=False)
        if info.st_mode & (stat.S_ISUID | stat.S_ISGID):
            with contextlib.suppress(OSError):  # not a link (checked): chmod follows none
                os.chmod(name, stat.S_IMODE(info.st_mode) & ~0o6000, dir_fd=dirfd)
    if owners is not None:
        uid, gid = owners["."]
        os.chown(folder, uid, gid, follow_symlinks=False)
    return removed

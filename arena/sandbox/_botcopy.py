"""A duplicate instance's own copy of its bot's folders (issue 19 item 1).

Two instances of one bot (the rotations of a duplicate deal) that mount the same
read-only folder share its page cache: one touches pages of a large cold file, the
other times its reads of them, and the two talk (audit 19: 72-bit records, the
opponent's dealt hand known in ~80 of 200 hands). A page cache belongs to an inode, so
instance k > 0 gets its own copy of the folders (fresh inodes, fresh cache), made by the
arena before it starts and bound read-only in place of the originals; instance 0 keeps
the original (no two instances then share a page of the bot's own files).

Where it lives: ``arena-copy-OWNER-*`` in the temporary folder (swept by
:mod:`arena.sandbox._leftovers` when its owner is gone, removed by the seat's supervisor
if the arena dies). As root it is a tmpfs of its own, sized to the copy and remounted
read-only once written: no bot can write it (it is never mounted writable anywhere), no
one fills it, and its pages are memory (never evicted, so never cold). Without root it
is a 0700 folder on the temporary folder's disk. The walk never follows a link (file
descriptors all the way, ``O_NOFOLLOW``): a symbolic link is copied as a link, anything
that is not a regular file, a folder or a link (a FIFO, a device, a socket) is left out,
and set-id bits are dropped, so the copy shows the bot nothing the original did not.
Modes and (as root) owners are kept, so the seat's uid reads what it could read before.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.sandbox._errors import BotStartError
from arena.sandbox._leftovers import COPY_PREFIX, owner_tag, remove_tree, unmount

COPY_LIMIT_MB = 1024
"""The largest copy (regular files' bytes, all folders of one instance together)."""
COPY_LIMIT_FILES = 100_000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_REMOUNT = 1, 2, 4, 32
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # a FIFO never blocks
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_PAGE = 4096


class CopyTooLargeError(BotStartError):
    """The bot's folders are over :data:`COPY_LIMIT_MB` (or :data:`COPY_LIMIT_FILES`)."""


@dataclass
class _Size:
    bytes: int = 0
    files: int = 0
    skipped: list[str] = field(default_factory=list)


def _inside(path: str, folders: Sequence[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _measure(folder: str, skip: Sequence[str], size: _Size) -> None:
    """Add the folder's regular files (not under ``skip``) to ``size``, without following links."""
    for top, dirs, files, top_fd in os.fwalk(folder, follow_symlinks=False):
        dirs[:] = [d for d in dirs if not _inside(os.path.join(top, d), skip)]
        for name in files:
            with contextlib.suppress(OSError):
                info = os.stat(name, dir_fd=top_fd, follow_symlinks=False)
                size.files += 1
                if stat.S_ISREG(info.st_mode):
                    size.bytes += info.st_size
        size.files += len(dirs)


def _check(name: str, size: _Size) -> None:
    mb = size.bytes / (1 << 20)
    if size.bytes > COPY_LIMIT_MB << 20 or size.files > COPY_LIMIT_FILES:
        raise CopyTooLargeError(
            f"{name}: its folders hold {mb:.0f} MB in {size.files} files; a duplicate "
            f"instance gets its own copy of them (no page cache shared with its other "
            f"instances) of at most {COPY_LIMIT_MB} MB and {COPY_LIMIT_FILES} files: move "
            "what the bot does not read out of its folder, or play it without duplicate"
        )


def _copy_file(src_dir: int, name: str, dst_dir: int, info: os.stat_result, owner: bool) -> None:
    try:
        src = os.open(name, _FILE_FLAGS, dir_fd=src_dir)
    except OSError:
        return  # gone, or a link swapped in: left out
    try:
        opened = os.fstat(src)
        if not stat.S_ISREG(opened.st_mode):
            return  # a FIFO or device swapped in after the walk looked
        dst = os.open(name, _NEW_FLAGS, 0o600, dir_fd=dst_dir)
        try:
            offset = 0
            while sent := os.sendfile(dst, src, offset, 1 << 24):  # a copy, never a reflink
                offset += sent
            _keep_attributes(dst, opened, owner)
        finally:
            os.close(dst)
    finally:
        os.close(src)


def _keep_attributes(fd: int, info: os.stat_result, owner: bool) -> None:
    if owner:
        os.fchown(fd, info.st_uid, info.st_gid)
    os.fchmod(fd, stat.S_IMODE(info.st_mode) & ~(stat.S_ISUID | stat.S_ISGID))


def _copy_tree(source: str, target: str, skip: Sequence[str], owner: bool) -> None:
    """Copy folder ``source`` into the new folder ``target`` (see the module docstring);
    what lies under ``skip`` becomes an empty folder or file (a mount point)."""
    os.mkdir(target, 0o700)
    made = {source: target}
    for top, dirs, files, top_fd in os.fwalk(source, follow_symlinks=False):
        dst_fd = os.open(made[top], _DIR_FLAGS)
        try:
            for name in files:
                _copy_entry(top, top_fd, name, dst_fd, skip, owner)
            keep = []
            for name in dirs:
                made[os.path.join(top, name)] = os.path.join(made[top], name)
                os.mkdir(name, 0o700, dir_fd=dst_fd)
                if not _inside(os.path.join(top, name), skip):
                    keep.append(name)
            dirs[:] = keep
            _keep_attributes(dst_fd, os.fstat(top_fd), owner)
        finally:
            os.close(dst_fd)


def _copy_entry(top: str, top_fd: int, name: str, dst_fd: int, skip: Sequence[str], owner: bool):
    try:
        info = os.stat(name, dir_fd=top_fd, follow_symlinks=False)
    except OSError:
        return
    if _inside(os.path.join(top, name), skip):
        if stat.S_ISREG(info.st_mode):  # a masked file: an empty one to mount over
            os.close(os.open(name, _NEW_FLAGS, 0o600, dir_fd=dst_fd))
    elif stat.S_ISLNK(info.st_mode):
        with contextlib.suppress(OSError):
            os.symlink(os.readlink(name, dir_fd=top_fd), name, dir_fd=dst_fd)
            if owner:
                os.chown(name, info.st_uid, info.st_gid, dir_fd=dst_fd, follow_symlinks=False)
    elif stat.S_ISREG(info.st_mode):
        _copy_file(top_fd, name, dst_fd, info, owner)


def _copy_single(source: str, target: str, owner: bool) -> str:
    """Copy the file ``source`` into the new folder ``target``; the copy's path."""
    os.mkdir(target, 0o700)
    folder, name = os.path.split(source)
    src_dir, dst_dir = os.open(folder, _DIR_FLAGS), os.open(target, _DIR_FLAGS)
    try:
        _copy_entry(folder, src_dir, name, dst_dir, (), owner)
    finally:
        os.close(src_dir)
        os.close(dst_dir)
    return os.path.join(target, name)


def _mount_tmpfs(target: str, size: _Size) -> str | None:
    """A tmpfs on ``target`` that holds ``size`` (pages rounded up); None, or why not."""
    libc = ctypes.CDLL(None, use_errno=True)
    bytes_ = size.bytes + (size.files + 64) * _PAGE + (1 << 20)
    options = f"size={bytes_},nr_inodes={size.files + 64},mode=0700,uid=0,gid=0".encode()
    if libc.mount(b"arena-copy", target.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options):
        return os.strerror(ctypes.get_errno())
    return None


def _remount_read_only(target: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    flags = _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV
    if libc.mount(None, target.encode(), None, flags, None) != 0:
        raise OSError(ctypes.get_errno(), f"cannot make {target} read-only")


class FolderCopy:
    """One instance's copy of its bot's folders; :meth:`release` it when the instance ends."""

    def __init__(self, top: str) -> None:
        self.top = top
        self.mounted = False
        self.copies: dict[str, str] = {}  # original folder or file -> its copy
        self.size = _Size()

    @classmethod
    def create(cls, name: str, sources: Sequence[str], skip: Sequence[str]) -> FolderCopy:
        """Copy each of ``sources`` (real paths of folders or files, none inside another),
        leaving out what lies under ``skip`` (masked paths, folders mounted on their own).
        :class:`CopyTooLargeError` past the caps, before anything is copied."""
        size = _Size()
        for source in sources:
            if os.path.isdir(source):
                _measure(source, skip, size)
            elif os.path.isfile(source):
                size.bytes += os.path.getsize(source)
            size.files += 1
        _check(name, size)
        copy = cls(tempfile.mkdtemp(prefix=f"{COPY_PREFIX}{owner_tag()}-"))
        copy.size = size
        owner = os.geteuid() == 0
        try:
            if owner:
                why = _mount_tmpfs(copy.top, size)
                if why is not None:
                    raise BotStartError(f"{name}: cannot mount the tmpfs of its copy: {why}")
                copy.mounted = True
            for index, source in enumerate(sources):
                target = os.path.join(copy.top, str(index))
                if os.path.isdir(source):
                    _copy_tree(source, target, skip, owner)
                else:
                    target = _copy_single(source, target, owner)
                copy.copies[source] = target
            if copy.mounted:
                _remount_read_only(copy.top)
        except BaseException:
            copy.release()
            raise
        return copy

    def release(self) -> None:
        """Unmount the tmpfs (as root) and remove the folder; never raises."""
        if self.mounted:
            unmount(self.top)
            self.mounted = False
        remove_tree(self.top)

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
Only a file's data ranges are copied (a hole stays a hole: a sparse file costs its data,
not its size), and the cap counts allocated bytes before and copied bytes during the copy.
Each folder of the copy is made and opened in its parent's descriptor, and the walk keeps
no full paths; a folder nested past :data:`COPY_LIMIT_DEPTH` levels (or
:data:`COPY_LIMIT_PATH` bytes of path) is refused before anything is copied (audit 19c:
the memory and descriptors of the walk stay bounded). A copy that fails is a
:class:`BotStartError` (audit 19b).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from arena.sandbox._errors import BotStartError
from arena.sandbox._leftovers import COPY_PREFIX, owner_tag, remove_tree, unmount

COPY_LIMIT_MB = 1024
"""The largest copy (regular files' bytes, all folders of one instance together)."""
COPY_LIMIT_FILES = 100_000
COPY_LIMIT_DEPTH = 256
"""The deepest folder nesting copied (levels below a bot folder), and the longest path
below it (bytes): past either the copy is refused, before anything is copied."""
COPY_LIMIT_PATH = 4096
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_REMOUNT = 1, 2, 4, 32
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # a FIFO never blocks
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_PAGE = 4096


class CopyTooLargeError(BotStartError):
    """The bot's folders are over :data:`COPY_LIMIT_MB` (or :data:`COPY_LIMIT_FILES`)."""


@dataclass
class _Size:
    bytes: int = 0  # allocated (``st_blocks``): what a copy of the data ranges can need
    apparent: int = 0  # ``st_size``: a sparse file's holes stay holes in the copy
    files: int = 0
    skipped: list[str] = field(default_factory=list)


@dataclass
class _Copier:
    """One instance's copy under way: the bytes it wrote so far (capped as it goes)."""

    name: str
    skip: Sequence[str]
    owner: bool
    copied: int = 0

    def count(self, sent: int) -> None:
        self.copied += sent
        if self.copied > COPY_LIMIT_MB << 20:  # a file grew, or st_blocks under-counted
            raise CopyTooLargeError(
                f"{self.name}: its folders hold over {COPY_LIMIT_MB} MB of data; a duplicate "
                "instance gets its own copy of them of at most that: move what the bot does "
                "not read out of its folder, or play it without duplicate"
            )


def _inside(path: str, folders: Sequence[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _masked(top: str | None, name: str, skip: Sequence[str]) -> bool:
    """Whether ``name`` in folder ``top`` lies under ``skip`` (``top`` None: nothing of
    ``skip`` lies under that folder, see :func:`_walk`)."""
    return top is not None and _inside(os.path.join(top, name), skip)


def _too_deep(name: str) -> CopyTooLargeError:
    return CopyTooLargeError(
        f"{name}: its folder nests deeper than {COPY_LIMIT_DEPTH} levels (or "
        f"{COPY_LIMIT_PATH} bytes of path); a duplicate instance gets its own copy of it: "
        "flatten it, or play it without duplicate"
    )


_Level = tuple[int, "int | None", Iterator[str], "str | None", int]


def _walk(
    bot: str,
    source: str,
    skip: Sequence[str],
    state: int | None,
    enter: Callable[[str | None, int, int | None], list[str]],
    descend: Callable[[str, int | None], int | None],
) -> None:
    """Depth first from the folder ``source``, never following a link and never opening by
    a path (each folder by its name in its parent's descriptor): ``enter(path, fd, state)``
    handles a folder and names the subfolders to walk; ``descend(name, state)`` gives a
    subfolder's state, a descriptor closed with it (the copy's folder). No full paths are
    kept: a folder's ``path`` is None unless a path of ``skip`` lies under it. Past
    :data:`COPY_LIMIT_DEPTH` levels or :data:`COPY_LIMIT_PATH` bytes below ``source``:
    :class:`CopyTooLargeError` (so at most two descriptors a level, none left open)."""
    stack: list[_Level] = []

    def push(fd: int, state: int | None, path: str | None, length: int) -> None:
        try:
            stack.append((fd, state, iter(enter(path, fd, state)), path, length))
        except BaseException:
            _close(fd, state)
            raise

    root = source if _inside(source, skip) or _holds(source, skip) else None
    push(os.open(source, _DIR_FLAGS), state, root, 0)
    try:
        while stack:
            fd, state, names, path, length = stack[-1]
            name = next(names, None)
            if name is None:
                stack.pop()
                _close(fd, state)
                continue
            child_length = length + len(os.fsencode(name)) + (1 if length else 0)
            if len(stack) > COPY_LIMIT_DEPTH or child_length > COPY_LIMIT_PATH:
                raise _too_deep(bot)
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError:
                continue  # gone, or a link swapped in: left out (its copy stays empty)
            try:
                child_state = descend(name, state)
            except BaseException:
                os.close(child)
                raise
            push(child, child_state, _below(path, name, skip), child_length)
    finally:
        for fd, state, *_ in reversed(stack):
            _close(fd, state)


def _below(top: str | None, name: str, skip: Sequence[str]) -> str | None:
    """``name``'s path in ``top`` if a path of ``skip`` lies under it, else None."""
    if top is None:
        return None
    path = os.path.join(top, name)
    return path if _holds(path, skip) else None


def _holds(path: str, skip: Sequence[str]) -> bool:
    return any(f.startswith(path.rstrip("/") + "/") for f in skip)


def _close(*fds: int | None) -> None:
    for fd in fds:
        if fd is not None:
            os.close(fd)


def _entries(fd: int) -> list[tuple[str, os.stat_result]]:
    found = []
    for name in sorted(os.listdir(fd)):
        with contextlib.suppress(OSError):
            found.append((name, os.stat(name, dir_fd=fd, follow_symlinks=False)))
    return found


def _measure(bot: str, folder: str, skip: Sequence[str], size: _Size) -> None:
    """Add the folder's regular files (not under ``skip``) to ``size``, without following
    links; :class:`CopyTooLargeError` if it nests too deep (:func:`_walk`)."""

    def enter(top: str | None, fd: int, _: int | None) -> list[str]:
        dirs = []
        for name, info in _entries(fd):
            size.files += 1
            if stat.S_ISDIR(info.st_mode):
                if not _masked(top, name, skip):
                    dirs.append(name)
            elif stat.S_ISREG(info.st_mode):
                size.bytes += min(info.st_size, info.st_blocks * 512)
                size.apparent += info.st_size
        return dirs

    _walk(bot, folder, skip, None, enter, lambda _name, _state: None)


def _check(name: str, size: _Size) -> None:
    mb = size.bytes / (1 << 20)
    if size.bytes > COPY_LIMIT_MB << 20 or size.files > COPY_LIMIT_FILES:
        raise CopyTooLargeError(
            f"{name}: its folders hold {mb:.0f} MB in {size.files} files; a duplicate "
            f"instance gets its own copy of them (no page cache shared with its other "
            f"instances) of at most {COPY_LIMIT_MB} MB and {COPY_LIMIT_FILES} files: move "
            "what the bot does not read out of its folder, or play it without duplicate"
        )


def _copy_file(src_dir: int, name: str, dst_dir: int, copier: _Copier) -> None:
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
            _copy_data(src, dst, opened.st_size, copier)
            _keep_attributes(dst, opened, copier.owner)
        finally:
            os.close(dst)
    finally:
        os.close(src)


def _copy_data(src: int, dst: int, length: int, copier: _Copier) -> None:
    """The file's data ranges (``SEEK_DATA``/``SEEK_HOLE``), then its full length: a hole
    stays a hole (a sparse file costs the tmpfs its data, not its size)."""
    offset = 0
    while offset < length:
        try:
            start = os.lseek(src, offset, os.SEEK_DATA)
        except OSError as error:
            if error.errno == errno.ENXIO:
                break  # nothing but a hole up to the end
            raise
        end = min(os.lseek(src, start, os.SEEK_HOLE), length)
        os.lseek(dst, start, os.SEEK_SET)
        offset = start
        while offset < end:  # sendfile: a copy, never a reflink
            sent = os.sendfile(dst, src, offset, min(end - offset, 1 << 24))
            if not sent:
                break  # the file shrank meanwhile
            copier.count(sent)
            offset += sent
        if offset < end:
            break
    os.ftruncate(dst, length)


def _keep_attributes(fd: int, info: os.stat_result, owner: bool) -> None:
    if owner:
        os.fchown(fd, info.st_uid, info.st_gid)
    os.fchmod(fd, stat.S_IMODE(info.st_mode) & ~(stat.S_ISUID | stat.S_ISGID))


def _copy_tree(source: str, target: str, copier: _Copier) -> None:
    """Copy folder ``source`` into the new folder ``target`` (see the module docstring);
    what lies under ``copier.skip`` becomes an empty folder or file (a mount point). Each
    copied folder is made and opened in its parent's descriptor, never by its path."""
    os.mkdir(target, 0o700)

    def enter(top: str | None, top_fd: int, dst_fd: int | None) -> list[str]:
        assert dst_fd is not None
        keep = []
        for name, info in _entries(top_fd):
            masked = _masked(top, name, copier.skip)
            if stat.S_ISDIR(info.st_mode):
                os.mkdir(name, 0o700, dir_fd=dst_fd)
                if not masked:
                    keep.append(name)
            else:
                _copy_entry(masked, top_fd, name, info, dst_fd, copier)
        _keep_attributes(dst_fd, os.fstat(top_fd), copier.owner)
        return keep

    def descend(name: str, dst_fd: int | None) -> int:
        return os.open(name, _DIR_FLAGS, dir_fd=dst_fd)

    _walk(copier.name, source, copier.skip, os.open(target, _DIR_FLAGS), enter, descend)


def _copy_entry(
    masked: bool, top_fd: int, name: str, info: os.stat_result, dst_fd: int, copier: _Copier
) -> None:
    if masked:
        if stat.S_ISREG(info.st_mode):  # a masked file: an empty one to mount over
            os.close(os.open(name, _NEW_FLAGS, 0o600, dir_fd=dst_fd))
    elif stat.S_ISLNK(info.st_mode):
        with contextlib.suppress(OSError):
            os.symlink(os.readlink(name, dir_fd=top_fd), name, dir_fd=dst_fd)
            if copier.owner:
                os.chown(name, info.st_uid, info.st_gid, dir_fd=dst_fd, follow_symlinks=False)
    elif stat.S_ISREG(info.st_mode):
        _copy_file(top_fd, name, dst_fd, copier)


def _copy_single(source: str, target: str, copier: _Copier) -> str:
    """Copy the file ``source`` into the new folder ``target``; the copy's path."""
    os.mkdir(target, 0o700)
    folder, name = os.path.split(source)
    src_dir = os.open(folder, _DIR_FLAGS)
    try:
        dst_dir = os.open(target, _DIR_FLAGS)
        try:
            with contextlib.suppress(OSError):
                info = os.stat(name, dir_fd=src_dir, follow_symlinks=False)
                masked = _inside(source, copier.skip)
                _copy_entry(masked, src_dir, name, info, dst_dir, copier)
        finally:
            os.close(dst_dir)
    finally:
        os.close(src_dir)
    return os.path.join(target, name)


def _mount_tmpfs(target: str, size: _Size) -> str | None:
    """A tmpfs on ``target`` that holds ``size`` (pages rounded up); None, or why not."""
    libc = ctypes.CDLL(None, use_errno=True)
    # a limit, not memory taken: the data written (capped by _Copier) is what it holds
    bytes_ = min(size.apparent, COPY_LIMIT_MB << 20) + (size.files + 64) * _PAGE + (1 << 20)
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
        :class:`CopyTooLargeError` past the caps (before anything is copied, or as soon as
        the bytes copied pass them), :class:`BotStartError` if the copy fails (a partial
        copy removed): the bot is then not started, with the reason."""
        copy = cls(tempfile.mkdtemp(prefix=f"{COPY_PREFIX}{owner_tag()}-"))
        try:
            copy._fill(name, sources, skip)
        except BotStartError:
            copy.release()
            raise
        except OSError as error:
            copy.release()
            reason = error.strerror or str(error)  # never the (bot-made, long) path
            raise BotStartError(f"{name}: cannot copy its folder: {reason}") from error
        except BaseException:
            copy.release()
            raise
        return copy

    def _fill(self, name: str, sources: Sequence[str], skip: Sequence[str]) -> None:
        size = self.size
        for source in sources:
            if os.path.isdir(source):
                _measure(name, source, skip, size)
            elif os.path.isfile(source):
                info = os.stat(source)
                size.bytes += min(info.st_size, info.st_blocks * 512)
                size.apparent += info.st_size
            size.files += 1
        _check(name, size)
        copier = _Copier(name, skip, owner=os.geteuid() == 0)
        if copier.owner:
            why = _mount_tmpfs(self.top, size)
            if why is not None:
                raise BotStartError(f"{name}: cannot mount the tmpfs of its copy: {why}")
            self.mounted = True
        for index, source in enumerate(sources):
            target = os.path.join(self.top, str(index))
            if os.path.isdir(source):
                _copy_tree(source, target, copier)
            else:
                target = _copy_single(source, target, copier)
            self.copies[source] = target
        if self.mounted:
            _remount_read_only(self.top)

    def release(self) -> None:
        """Unmount the tmpfs (as root) and remove the folder; never raises."""
        if self.mounted:
            unmount(self.top)
            self.mounted = False
        remove_tree(self.top)

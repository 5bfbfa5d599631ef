"""A seat's folders on the host: where its bot binds, the dealer's pinned link, its /tmp.

One folder per start of a launched bot, ``arena-sock-OWNER-*`` in the temporary folder
(swept by :mod:`arena.sandbox._leftovers` if its owner dies), holding:

* ``bot/``: the bot's socket folder (at L1+ mounted in the sandbox as
  :data:`SANDBOX_SOCKET_DIR`, so no host path is in the bot's address or environment);
* ``pin/``: never mounted in any sandbox. Once the bot's ``bot.sock`` exists, the dealer
  hard-links that inode here (``linkat`` without following a link), checks the link (a
  socket, not a symbolic link; the seat's uid; no third hard link) and the listener
  behind it (``SO_PEERCRED``: the seat's uid and a pid of the bot's own process tree),
  and dials only this path (issue 19 item 3). Whatever the bot does to ``bot/`` after,
  no path the dealer follows can be changed by it, and a gRPC reconnect reaches the
  same checked socket;
* ``tmp/`` (as root): the bot's ``/tmp``.

As root (the bot runs as a leased uid: L2, L1 as root) the whole folder is one tmpfs of
its own, capped in bytes (``tmp_mb``, shared by ``/tmp`` and the socket folder) and in inodes, so nothing the bot
writes lands on the host's disk or outside its budget (item 4); it is unmounted at
release, which also drops whatever the bot left there. Without root the folder is a
plain 0700 folder on the host's disk (the README says what holds then).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import socket
import stat
import struct
import tempfile
from collections.abc import Callable, Collection

from arena.sandbox._errors import BotStartError
from arena.sandbox._leftovers import SOCKET_PREFIX, owner_tag, remove_tree, unmount

SOCKET_NAME = "bot.sock"
SANDBOX_SOCKET_DIR = "/run/arena"
"""Where a sandboxed (L1+) bot sees its socket folder: a name that says nothing of the host."""
FILES_PER_MB = 256
"""Inodes of the seat's tmpfs per MB of ``tmp_mb`` (at least 1024): about 4 KB a file."""
_MS_NOSUID, _MS_NODEV = 2, 4
_FOLDER_FLAGS = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_UCRED = struct.Struct("3i")


def _mount_tmpfs(target: str, size_bytes: int, inodes: int) -> str | None:
    """Mount a capped tmpfs on ``target``; None, or why it could not be."""
    libc = ctypes.CDLL(None, use_errno=True)
    options = f"size={size_bytes},nr_inodes={inodes},mode=0700,uid=0,gid=0".encode()
    flags = _MS_NOSUID | _MS_NODEV
    if libc.mount(b"arena-seat", target.encode(), b"tmpfs", flags, options) != 0:
        return os.strerror(ctypes.get_errno())
    return None


class SeatFolder:
    """The folders of one start of one bot (see the module docstring); :meth:`release` them."""

    def __init__(self, top: str) -> None:
        self.top = top
        self.mounted = False
        self.unmounted_why = ""  # why there is no tmpfs, when there is none
        self.bot_dir: str | None = None
        self.tmp_dir: str | None = None
        self.pin_dir = os.path.join(top, "pin")
        self._pinned: os.stat_result | None = None

    @classmethod
    def create(cls, *, unix: bool, private_fs: bool, tmp_mb: int) -> SeatFolder:
        """``bot/`` and ``pin/`` for a unix socket; with ``private_fs`` (as root) all of it,
        and ``tmp/``, on one tmpfs of ``tmp_mb`` MB and ``tmp_mb * FILES_PER_MB`` inodes (a
        socket takes no byte of it)."""
        folder = cls(tempfile.mkdtemp(prefix=f"{SOCKET_PREFIX}{owner_tag()}-"))
        try:
            if private_fs:
                inodes = max(1024, tmp_mb * FILES_PER_MB) + 16
                why = _mount_tmpfs(folder.top, int(tmp_mb) << 20, inodes)
                folder.mounted = why is None
                folder.unmounted_why = why or ""
            else:
                folder.unmounted_why = "not root"
            if unix:
                folder.bot_dir = os.path.join(folder.top, "bot")
                os.mkdir(folder.bot_dir, 0o700)
                os.mkdir(folder.pin_dir, 0o700)
            if folder.mounted:
                folder.tmp_dir = os.path.join(folder.top, "tmp")
                os.mkdir(folder.tmp_dir)
                os.chmod(folder.tmp_dir, 0o1777)  # like bubblewrap's own /tmp (mkdir obeys umask)
        except BaseException:
            folder.release()
            raise
        return folder

    @property
    def socket_path(self) -> str:
        """The bot's socket as the host sees it (what it binds; never dialled)."""
        assert self.bot_dir is not None
        return os.path.join(self.bot_dir, SOCKET_NAME)

    @property
    def pinned_path(self) -> str:
        """The dealer's link to the checked socket: the only path it dials."""
        return os.path.join(self.pin_dir, SOCKET_NAME)

    def release(self) -> None:
        """Unmount the tmpfs (dropping all in it) and remove the folder; never raises."""
        self._pinned = None
        if self.mounted:
            unmount(self.top)
            self.mounted = False
        remove_tree(self.top)  # never through a link the bot planted

    # --- the endpoint -------------------------------------------------------------

    def pin(self, uid: int, tree: Callable[[], Collection[int]]) -> bool:
        """Pin and check the bot's socket: True once done, False while it does not exist
        or does not listen yet; :class:`BotStartError` if it is anything but a socket of
        ``uid`` served by a process of ``tree()`` (the bot's process tree)."""
        if self._pinned is None:
            found = self._link()
            if found is None:
                return False
            self._pinned = found
        return self._check_listener(uid, tree)

    def _link(self) -> os.stat_result | None:
        assert self.bot_dir is not None
        bot_fd = os.open(self.bot_dir, _FOLDER_FLAGS)
        pin_fd = os.open(self.pin_dir, _FOLDER_FLAGS)
        try:
            try:
                os.link(
                    SOCKET_NAME,
                    SOCKET_NAME,
                    src_dir_fd=bot_fd,
                    dst_dir_fd=pin_fd,
                    follow_symlinks=False,  # a symbolic link is pinned as itself, then refused
                )
            except FileNotFoundError:
                return None  # not bound yet
            except OSError as error:
                why = "its folders are full" if error.errno == errno.ENOSPC else error.strerror
                raise BotStartError(f"cannot pin its socket {SOCKET_NAME}: {why}") from None
            info = os.stat(SOCKET_NAME, dir_fd=pin_fd, follow_symlinks=False)
        finally:
            os.close(bot_fd)
            os.close(pin_fd)
        return info

    def _refuse(self, why: str) -> BotStartError:
        with contextlib.suppress(OSError):  # never dialled, even by a later mistake
            os.unlink(self.pinned_path)
        return BotStartError(f"its {SOCKET_NAME} {why}: the dealer does not dial it")

    def _check_listener(self, uid: int, tree: Callable[[], Collection[int]]) -> bool:
        info = self._pinned
        assert info is not None
        if stat.S_ISLNK(info.st_mode):
            raise self._refuse("is a symbolic link")
        if not stat.S_ISSOCK(info.st_mode):
            raise self._refuse(f"is not a socket (mode {stat.filemode(info.st_mode)})")
        if info.st_uid != uid:
            raise self._refuse(f"belongs to uid {info.st_uid}, not the seat's uid {uid}")
        if info.st_nlink > 2:  # the bot's entry and the pin: a third is a link from elsewhere
            raise self._refuse(f"has {info.st_nlink} hard links (a socket bound elsewhere)")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_NONBLOCK)
        try:
            probe.connect(self.pinned_path)
            pid, peer_uid, _gid = _UCRED.unpack(
                probe.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size)
            )
        except (ConnectionRefusedError, BlockingIOError):
            return False  # bound, not listening yet (or its backlog is full)
        except OSError as error:
            raise self._refuse(f"cannot be dialled ({error.strerror})") from None
        finally:
            probe.close()
        if peer_uid != uid:
            raise self._refuse(f"is served by uid {peer_uid}, not the seat's uid {uid}")
        if pid not in tree():
            raise self._refuse(f"is served by pid {pid}, not by the bot's own processes")
        return True

    def replaced(self) -> str | None:
        """Why the bot's ``bot.sock`` is no longer the socket the dealer pinned, or None.

        The dealer still dials only the pinned one; this turns a swap into a clear fault."""
        if self._pinned is None or self.bot_dir is None:
            return None
        try:
            now = os.stat(self.socket_path, follow_symlinks=False)
        except OSError:
            return f"its {SOCKET_NAME} was removed after it was checked"
        if (now.st_dev, now.st_ino) != (self._pinned.st_dev, self._pinned.st_ino):
            kind = "a symbolic link" if stat.S_ISLNK(now.st_mode) else "another file"
            return f"its {SOCKET_NAME} was replaced by {kind} after it was checked"
        return None

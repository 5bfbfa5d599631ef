"""Tries every channel two instances of a bot could share without a writable file, and
its own privileges (the auditor's findings F1 and F2); reports what worked.

Kernel keyrings (add_key), flock and POSIX locks on files every sandbox mounts read-only
(the instances' lockable common ground), inotify on them, and: is it root, does it hold
capabilities, can it unmount what hides the records. Sends nothing anywhere.
"""

import ctypes
import errno
import fcntl
import os
import struct
import sys

from _base import mark, report, serve

mark(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
shared = os.path.realpath(os.__file__)  # the same inode in every sandbox: the stdlib


def tried(name, call):
    try:
        result = call()
    except OSError as error:
        return report(f"{name} denied {errno.errorcode.get(error.errno, error.errno)}")
    report(f"{name} WORKS {result}")


def add_key():
    key = libc.syscall(248, b"user", b"arena-channel", b"cards", 5, -4)  # user keyring
    if key < 0:
        raise OSError(ctypes.get_errno(), "add_key")
    return key


def flock():
    with open(shared, "rb") as file:
        fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return "locked"


def posix_lock():
    with open(shared, "rb") as file:
        fcntl.fcntl(file, fcntl.F_GETLK, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))
        return "probed"


def inotify():
    fd = libc.inotify_init1(0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "inotify")
    return fd


def unmount():
    if libc.umount2(os.environ["UNMASK"].encode(), 2) != 0:  # MNT_DETACH
        raise OSError(ctypes.get_errno(), "umount2")
    return "unmounted"


tried("add_key", add_key)
tried("flock", flock)
tried("posix_lock", posix_lock)
tried("inotify", inotify)
tried("umount", unmount)
with open("/proc/self/status") as status:
    caps = next(line.split()[1] for line in status if line.startswith("CapEff"))
report(f"uid {os.getuid()} caps {caps}")
serve()

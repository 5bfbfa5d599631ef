"""Tries every machine-wide kernel resource two sandboxes could share (issue 19 item 5):
AIO contexts, io_uring, vsock, IPv4/IPv6 datagram and raw sockets, user namespaces,
ptys, the page cache's residency, and the counters in /proc any process can move and
read; reports what worked, then serves.

Each line is ``VERDICT <name> denied <ERRNO>`` or ``VERDICT <name> WORKS <what>``.
"""

import ctypes
import errno
import os
import socket
import sys
import threading

from _base import mark, report, serve

mark(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
shared = os.path.realpath(os.__file__)  # the same inode in every sandbox: the stdlib
CLONE_NEWUSER, SIGCHLD = 0x10000000, 17


def tried(name, call):
    try:
        result = call()
    except OSError as error:
        return report(f"{name} denied {errno.errorcode.get(error.errno, error.errno)}")
    report(f"{name} WORKS {result}")


def syscall(*args):
    result = libc.syscall(*args)
    if result < 0:
        raise OSError(ctypes.get_errno(), "syscall")
    return result


def io_setup():
    context = ctypes.c_ulong(0)
    syscall(206, 1, ctypes.byref(context))  # io_setup(1, &ctx): moves fs.aio-nr
    return context.value


def io_uring():
    params = (ctypes.c_char * 120)()
    return syscall(425, 1, params)


def vsock():
    with socket.socket(40, socket.SOCK_STREAM) as sock:  # AF_VSOCK
        sock.bind((0xFFFFFFFF, 4242))  # VMADDR_CID_ANY: one port space for the machine
        return "bound"


def inet(family, kind):
    def make():
        with socket.socket(family, kind) as sock:
            return f"{sock.family.name} {sock.type.name}"

    return make


def inet_protocol(family, kind, protocol):
    def make():
        with socket.socket(family, kind, protocol) as sock:
            return f"{sock.family.name} {sock.type.name} {protocol}"

    return make


def bpf():
    attr = (ctypes.c_char * 128)()
    return syscall(321, 0, attr, 128)  # BPF_MAP_CREATE with a zeroed attr


def userfaultfd():
    fd = syscall(323, os.O_CLOEXEC)
    os.close(fd)
    return "fd"


def netlink_generic():
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16) as sock:  # NETLINK_GENERIC
        return sock.fileno()


def unshare_user():
    if libc.unshare(CLONE_NEWUSER) != 0:
        raise OSError(ctypes.get_errno(), "unshare")
    return "a user namespace of its own"


def clone_user():
    pid = syscall(56, SIGCHLD | CLONE_NEWUSER, 0, 0, 0, 0)
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


def clone3():
    args = (ctypes.c_uint64 * 11)()
    args[4] = SIGCHLD  # exit_signal
    pid = syscall(435, args, ctypes.sizeof(args))
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


def thread_and_fork():
    """Not a channel: threads and fork must still work (clone3's ENOSYS falls back)."""
    done = []
    thread = threading.Thread(target=lambda: done.append(1))
    thread.start()
    thread.join()
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return f"thread {len(done)} fork ok"


def pty():
    _master, slave = os.openpty()
    return os.ttyname(slave)


def mincore():
    fd = os.open(shared, os.O_RDONLY)
    try:
        address = libc.mmap(None, 4096, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
        vector = (ctypes.c_ubyte * 1)()
        try:
            syscall(27, ctypes.c_void_p(address), 4096, vector)
        finally:
            libc.munmap(ctypes.c_void_p(address), 4096)
        return f"resident {vector[0] & 1}"
    finally:
        os.close(fd)


def cachestat():
    with open(shared, "rb") as file:
        ranges = (ctypes.c_uint64 * 2)(0, 4096)
        stats = (ctypes.c_uint64 * 5)()
        syscall(451, file.fileno(), ranges, stats, 0)
        return f"cached {stats[0]}"


def fadvise_dontneed():
    with open(shared, "rb") as file:
        os.posix_fadvise(file.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)  # evicts for everyone
        return "evicted"


def readahead():
    with open(shared, "rb") as file:
        return syscall(187, file.fileno(), 0, 4096)


def preadv2_nowait():
    with open(shared, "rb") as file:
        try:
            return os.preadv(file.fileno(), [bytearray(4096)], 1 << 20, os.RWF_NOWAIT)
        except BlockingIOError:
            return "not cached"  # an answer too: EAGAIN says the page is not in the cache


def read(path):
    def reader():
        with open(path, "rb") as file:
            return f"{len(file.read())} bytes"

    return reader


tried("io_setup", io_setup)
tried("io_uring_setup", io_uring)
tried("vsock", vsock)
tried("netlink_generic", netlink_generic)
tried("udp", inet(socket.AF_INET, socket.SOCK_DGRAM))
tried("udp6", inet(socket.AF_INET6, socket.SOCK_DGRAM))
tried("udp_nonblock", inet(socket.AF_INET, socket.SOCK_DGRAM | socket.SOCK_NONBLOCK))
tried("raw", inet(socket.AF_INET, socket.SOCK_RAW))
tried("seqpacket", inet(socket.AF_INET, socket.SOCK_SEQPACKET))
tried("sctp_stream", inet_protocol(socket.AF_INET, socket.SOCK_STREAM, 132))
tried("tcp_protocol", inet_protocol(socket.AF_INET6, socket.SOCK_STREAM, 6))
tried("bpf", bpf)
tried("userfaultfd", userfaultfd)
tried("tcp", inet(socket.AF_INET, socket.SOCK_STREAM))
tried("tcp6", inet(socket.AF_INET6, socket.SOCK_STREAM | socket.SOCK_CLOEXEC))
tried("unshare_user", unshare_user)
tried("clone_newuser", clone_user)
tried("clone3", clone3)
tried("openpty", pty)
tried("mincore", mincore)
tried("cachestat", cachestat)
tried("fadvise_dontneed", fadvise_dontneed)
tried("readahead", readahead)
tried("preadv2_nowait", preadv2_nowait)
for counter in (
    "sys/fs/aio-nr",
    "sys/kernel/pty/nr",
    "sys/fs/file-nr",
    "stat",
    "loadavg",
    "modules",
    "cmdline",
    "partitions",
):
    tried(f"/proc/{counter}", read(f"/proc/{counter}"))
tried("threads", thread_and_fork)
serve()

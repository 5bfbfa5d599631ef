"""Audit 19 recon: what a sandboxed bot sees of the host, what it can write, which
readable /proc and /sys files move machine-wide. Reports VERDICT lines, then serves."""

import ctypes
import errno
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.abspath(__file__).rsplit("/tests/", 1)[0])
from _base import mark, report, serve

mark(sys.argv[1])
t0 = time.time()


def rd(p, n=400):
    try:
        with open(p, "rb") as f:
            return f.read(n)
    except OSError as e:
        return f"<{errno.errorcode.get(e.errno)}>".encode()


report(f"uid={os.getuid()} gid={os.getgid()} pid={os.getpid()} host={socket.gethostname()}")
report("env " + repr(dict(os.environ)))
report("cmdline1 " + repr(rd("/proc/1/cmdline")))
for pid in sorted(int(p) for p in os.listdir("/proc") if p.isdigit()):
    report(
        f"proc {pid} {rd(f'/proc/{pid}/cmdline', 200)!r} env={rd(f'/proc/{pid}/environ', 300)!r}"
    )
report(
    "mountinfo " + rd("/proc/self/mountinfo", 6000).decode(errors="replace").replace("\n", " | ")
)
report("cgroup " + repr(rd("/proc/self/cgroup")))
# writable dirs
cands = set()
for root in [
    "/",
    "/dev",
    "/dev/shm",
    "/run",
    "/var",
    "/var/tmp",
    "/tmp",
    "/run/arena",
    "/sys/fs/cgroup",
    "/proc/self",
    "/dev/mqueue",
]:
    cands.add(root)
    try:
        for e in os.listdir(root):
            p = os.path.join(root, e)
            if os.path.isdir(p) and not os.path.islink(p):
                cands.add(p)
    except OSError:
        pass
w = []
for d in sorted(cands):
    if d.startswith("/proc"):
        continue
    try:
        fn = os.path.join(d, ".a19probe")
        fd = os.open(fn, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)
        os.unlink(fn)
        w.append(d)
    except OSError:
        pass
report("writable " + repr(w))
# statfs of mounts
for m in [
    "/",
    "/tmp",
    "/usr",
    "/run/arena",
    "/dev",
    "/proc",
    os.path.dirname(os.path.abspath(__file__)),
]:
    try:
        s = os.statvfs(m)
        report(f"statvfs {m} bfree={s.f_bfree} ffree={s.f_ffree} bsize={s.f_bsize}")
    except OSError as e:
        report(f"statvfs {m} {e}")


# sysinfo
class SI(ctypes.Structure):
    _fields_ = [
        ("uptime", ctypes.c_long),
        ("loads", ctypes.c_ulong * 3),
        ("totalram", ctypes.c_ulong),
        ("freeram", ctypes.c_ulong),
        ("sharedram", ctypes.c_ulong),
        ("bufferram", ctypes.c_ulong),
        ("totalswap", ctypes.c_ulong),
        ("freeswap", ctypes.c_ulong),
        ("procs", ctypes.c_ushort),
        ("pad", ctypes.c_ushort),
        ("totalhigh", ctypes.c_ulong),
        ("freehigh", ctypes.c_ulong),
        ("mem_unit", ctypes.c_uint),
        ("_f", ctypes.c_char * 8),
    ]


si = SI()
ctypes.CDLL(None).sysinfo(ctypes.byref(si))
report(
    f"sysinfo uptime={si.uptime} loads={list(si.loads)} freeram={si.freeram} procs={si.procs} shared={si.sharedram} buffer={si.bufferram}"
)


# readable files list
def walk(root, out, limit=40000):
    stack = [root]
    while stack and len(out) < limit and time.time() - t0 < 20:
        d = stack.pop()
        try:
            ents = os.scandir(d)
        except OSError:
            continue
        for e in ents:
            try:
                if e.is_symlink():
                    continue
                if e.is_dir():
                    if root == "/proc" and e.name.isdigit():
                        continue
                    stack.append(e.path)
                elif e.is_file():
                    out.append(e.path)
            except OSError:
                pass


files = []
walk("/proc", files)
walk("/sys", files)


def snap():
    r = {}
    for p in files:
        try:
            with open(p, "rb") as f:
                r[p] = f.read(4096)
        except OSError:
            pass
    return r


s1 = snap()
time.sleep(0.5)
s2 = snap()
report(f"readable {len(s1)} of {len(files)} files")
noisy = {p for p in s1 if s1[p] != s2.get(p)}
# action: allocate memory, create sockets, forks, files in tmpfs
keep = [socket.socket(socket.AF_UNIX) for _ in range(200)]
blob = bytearray(200 << 20)
for i in range(0, len(blob), 4096):
    blob[i] = 1
with open("/tmp/a19blob", "wb") as f:
    f.write(os.urandom(8 << 20))
for _ in range(50):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
s3 = snap()
moved = sorted(p for p in s1 if p not in noisy and s3.get(p) != s2.get(p))
report("noisy " + repr(sorted(noisy)[:200]))
report("moved_by_action " + repr(moved[:300]))
for p in moved[:60]:
    report(f"  {p}: {s2[p][:120]!r} -> {s3.get(p, b'')[:120]!r}")
del blob, keep
os.unlink("/tmp/a19blob")
report(f"recon took {time.time() - t0:.1f}s")
serve()

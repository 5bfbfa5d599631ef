"""The exec-chain launcher between the arena and a launched bot (standard library only).

Run as ``python -I -S _supervisor.py`` with its JSON config in ``$ARENA_SUPERVISOR_CONFIG``
(or as its one argument) by :mod:`arena.dealer._launch`, never
imported by it: the arena runs gRPC threads, so it must not fork (no ``preexec_fn``),
and everything that has to happen in the bot's own process before it starts happens
here instead. In order:

1. join the seat's cgroups (L2): every process started after this is in them;
2. set resource limits on itself (inherited by the bot): no core files, open files,
   file size, a CPU-time backstop, a loose address-space cap;
3. become a child subreaper (``PR_SET_CHILD_SUBREAPER``), so orphans of a ``setsid``
   double fork are re-parented here, not to init, and can be found and killed;
4. watch the arena: its pid (a pidfd) and stdin (a pipe the arena never writes to). Not
   ``PR_SET_PDEATHSIG``: Trio starts processes from a worker thread, and the death
   signal fires when *that thread* exits (Trio's idle threads exit after seconds);
5. start the bot (or bubblewrap) as its child and wait; at L1+ it compiles the seccomp
   filter bubblewrap loads (``--seccomp FD``): no kernel keyrings, file locks or file
   watches, the channels two instances of a bot could share without a writable file,
   no AIO or io_uring, no new namespaces, no vsock (``_bwrap.DENIED_SYSCALLS``,
   ``SECCOMP_RULES``), and writes bubblewrap's arguments to a memfd (``--args FD``).

On SIGTERM (the arena's stop), the arena's death or the bot's exit it signals every
descendant (SIGTERM and SIGCONT, then after a grace SIGKILL, walking ``/proc`` until
none is left), reaps them, and exits the way the bot did (re-raising the bot's signal
on itself, so the arena still reads "killed by signal SIGXCPU").

If the arena died (it is no longer this process's parent), nobody else will give back
what it made for the seat: once every descendant is dead, the supervisor leaves the
seat's cgroups and removes them (a cgroup goes only when empty), then unmounts the
seat's tmpfs (as root) and removes the socket and seat folders, without following any
symlink the bot may have planted in them.
"""

import contextlib
import ctypes
import json
import os
import resource
import select
import signal
import stat
import struct
import subprocess
import sys
import threading
import time

PR_SET_CHILD_SUBREAPER = 36
_MNT_DETACH, _UMOUNT_NOFOLLOW = 2, 8
CONFIG_ENV = "ARENA_SUPERVISOR_CONFIG"
_SIGNALS_TO_STOP = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _descendants(root):
    """Pids of every live descendant of ``root``, parents before children (a ppid scan)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                fields = file.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        parents.setdefault(int(fields[1]), []).append(int(entry))
    found, frontier = [], [root]
    while frontier:
        children = parents.get(frontier.pop(), [])
        found.extend(children)
        frontier.extend(children)
    return found


def _exe(pid):
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None


def _signal_all(pids, signum):
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signum)


def _reap_any():
    """Reap every child that has ended; True if some child is still running."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


def _kill_tree():
    """SIGKILL every descendant and reap them, until none is left (fork loops included)."""
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline:
        pids = _descendants(os.getpid())
        if not pids:
            _reap_any()
            return
        _signal_all(pids, signal.SIGKILL)
        _reap_any()
        time.sleep(0.005)


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _remove_tree(path):
    """``path`` removed without following a symlink in it, at any depth without recursion:
    the same logic as ``arena.sandbox._leftovers.remove_tree`` (this file imports no arena)."""
    try:
        info = os.lstat(path)
    except OSError:
        return
    if not stat.S_ISDIR(info.st_mode):
        with contextlib.suppress(OSError):
            os.unlink(path)
        return
    try:
        top = os.open(path, _DIR_FLAGS)
    except OSError:
        return
    try:
        with contextlib.suppress(Exception):
            _empty(top)
    finally:
        os.close(top)
    with contextlib.suppress(OSError):
        os.rmdir(path)


def _empty(top):
    """Empty the folder open as ``top`` (``_leftovers._empty``: files unlinked, each
    subfolder's subfolders moved up into it, the emptied subfolders removed, per pass)."""
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
                continue
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


def _clean_up(leftovers):
    """The arena is dead: remove the seat's cgroups (leaving them first) and folders."""
    groups = leftovers.get("cgroups", [])
    for group in groups:  # back to the arena's own group, so the seat's can be empty
        procs = os.path.join(os.path.dirname(group), "cgroup.procs")
        with contextlib.suppress(OSError), open(procs, "w") as file:
            file.write(str(os.getpid()))
    for group in groups:
        for _ in range(200):
            try:
                os.rmdir(group)
                break
            except FileNotFoundError:
                break
            except OSError:
                with contextlib.suppress(OSError, ValueError):
                    with open(os.path.join(group, "cgroup.procs")) as file:
                        left = [int(p) for p in file.read().split() if int(p) != os.getpid()]
                    _signal_all(left, signal.SIGKILL)
                time.sleep(0.01)  # the last exits are still being accounted
    for mount in leftovers.get("mounts", []):  # the seat's tmpfs: root's, never a link
        libc = ctypes.CDLL(None, use_errno=True)
        libc.umount2(mount.encode(), _MNT_DETACH | _UMOUNT_NOFOLLOW)
    for folder in leftovers.get("folders", []):
        _remove_tree(folder)


def _set_limits(limits):
    for name, (soft, hard) in limits.items():
        number = getattr(resource, name)
        try:
            resource.setrlimit(number, (soft, hard))
        except (ValueError, OSError) as error:
            sys.stderr.write(f"arena supervisor: cannot set {name}: {error}\n")


def _join_cgroups(procs_files):
    for path in procs_files:
        with open(path, "w") as file:
            file.write(str(os.getpid()))


def _watch_arena(parent_pid):
    """SIGTERM to this process once the arena is gone (its pid ends, or stdin hits EOF)."""
    watched = []
    with contextlib.suppress(AttributeError, OSError):
        watched.append(os.pidfd_open(parent_pid))
    if os.getppid() != parent_pid:  # died before the pidfd was open
        os.kill(os.getpid(), signal.SIGTERM)
        return

    def watch():
        poller = select.poll()
        for fd in watched:
            poller.register(fd, select.POLLIN)
        poller.register(0, select.POLLIN | select.POLLHUP)
        while True:
            for fd, _event in poller.poll(500):
                if fd == 0:
                    try:
                        if os.read(0, 4096):
                            continue  # the arena never writes; ignore anything else
                    except OSError:
                        poller.unregister(0)
                        continue
                os.kill(os.getpid(), signal.SIGTERM)
                return
            if os.getppid() != parent_pid:
                os.kill(os.getpid(), signal.SIGTERM)
                return

    threading.Thread(target=watch, daemon=True).start()


_OPS = {"ld": 0x20, "and": 0x54, "jeq": 0x15, "jge": 0x35, "jset": 0x45, "ret": 0x06}
_AUDIT_ARCH_X86_64 = 0xC000003E
_ALLOW, _ERRNO = 0x7FFF0000, 0x00050000
_EPERM, _ENOSYS, _EAFNOSUPPORT = 1, 38, 97
_FCNTL = 72
_X32_BIT = 0x40000000


def _arg(index):
    """The offset of the low 32 bits of argument ``index`` in ``struct seccomp_data``."""
    return 16 + 8 * index


def _assemble(code):
    """Classic BPF from ``(op, k, true label, false label)`` items and ``("label", name)``."""
    labels, index = {}, 0
    for item in code:
        if item[0] == "label":
            labels[item[1]] = index
        else:
            index += 1
    program, index = b"", 0
    for item in code:
        if item[0] == "label":
            continue
        jumps = [labels[t] - index - 1 if t else 0 for t in item[2:4]] if len(item) > 2 else [0, 0]
        program += struct.pack("=HBBI", _OPS[item[0]], jumps[0], jumps[1], item[1])
        index += 1
    return program


def seccomp_program(syscalls, fcntl_commands, rules=None):
    """A classic BPF seccomp filter (x86_64): EPERM for ``syscalls`` (numbers), for
    ``fcntl`` with one of ``fcntl_commands``, for the x32 ABI and any other architecture
    (no way around the list); with ``rules`` (``_bwrap.SECCOMP_RULES``) also ENOSYS for
    its ``enosys`` calls, EPERM for a call whose argument has a bit of its ``flags`` mask,
    EAFNOSUPPORT for a ``socket`` family not allowed, EPERM for a socket of a ``stream``
    family that is not a plain SOCK_STREAM of protocol 0 or TCP; everything else allowed."""
    rules = rules or {}
    flags = rules.get("flags", {})
    sockets = rules.get("socket")
    code = [("ld", 4), ("jeq", _AUDIT_ARCH_X86_64, "nr", "eperm"), ("label", "nr"), ("ld", 0)]
    code += [("jge", _X32_BIT, "eperm", None)]
    code += [("jeq", number, "eperm", None) for number in syscalls]
    code += [("jeq", number, "enosys", None) for number in rules.get("enosys", {}).values()]
    code += [("jeq", _FCNTL, "fcntl", None)]
    code += [("jeq", number, f"flags {name}", None) for name, (number, _a, _m) in flags.items()]
    code += [("jeq", number, "socket", None) for number in (sockets or {}).get("calls", [])]
    code += [("ret", _ALLOW), ("label", "fcntl"), ("ld", _arg(1))]
    code += [("jeq", command, "eperm", None) for command in fcntl_commands]
    code += [("ret", _ALLOW)]
    for name, (_number, argument, mask) in flags.items():
        code += [("label", f"flags {name}"), ("ld", _arg(argument))]
        code += [("jset", mask, "eperm", None), ("ret", _ALLOW)]
    if sockets:
        netlink, protocols = sockets["netlink"]
        code += [("label", "socket"), ("ld", _arg(0))]  # the family (an int: 32 bits)
        code += [("jeq", family, "stream only", None) for family in sockets.get("stream", [])]
        code += [("jeq", family, "allow", None) for family in sockets["families"]]
        code += [("jeq", netlink, None, "eafnosupport"), ("ld", _arg(2))]  # the protocol
        code += [("jeq", protocol, "allow", None) for protocol in protocols]
        code += [("ret", _ERRNO | _EAFNOSUPPORT)]
        # the type (its flags bits aside) SOCK_STREAM, the protocol 0 or IPPROTO_TCP; else EPERM
        code += [("label", "stream only"), ("ld", _arg(1)), ("and", 0xF)]
        code += [("jeq", 1, None, "eperm"), ("ld", _arg(2)), ("jeq", 0, "allow", None)]
        code += [("jeq", 6, "allow", "eperm")]
    code += [("label", "allow"), ("ret", _ALLOW), ("label", "eperm"), ("ret", _ERRNO | _EPERM)]
    code += [("label", "enosys"), ("ret", _ERRNO | _ENOSYS)]
    code += [("label", "eafnosupport"), ("ret", _ERRNO | _EAFNOSUPPORT)]
    return _assemble(code)


def _seccomp_fd(config):
    """A pipe holding the compiled filter, for bubblewrap's ``--seccomp FD``; None if none."""
    wanted = config.get("seccomp")
    if not wanted:
        return None
    program = seccomp_program(wanted["syscalls"].values(), wanted["fcntl"], wanted.get("rules"))
    read_end, write_end = os.pipe()
    os.write(write_end, program)
    os.close(write_end)
    return read_end


def _args_fd(args):
    """A memfd holding bubblewrap's arguments, NUL-terminated, for ``--args FD`` (the
    sandbox's ``/proc/1/cmdline`` then shows none of them); None if there are none."""
    if args is None:
        return None
    fd = os.memfd_create("bwrap-args", 0)  # not CLOEXEC: bubblewrap reads it
    os.write(fd, b"".join(arg.encode() + b"\0" for arg in args))
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _exit_like(status, signal_exit_codes):
    """Exit as the bot did: its status, or killed by its signal."""
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
    elif signal_exit_codes and 128 < os.WEXITSTATUS(status) < 128 + 65:
        signum = os.WEXITSTATUS(status) - 128  # bubblewrap reports a signal as 128 + N
    else:
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
    sys.stdout.flush()
    with contextlib.suppress(OSError, ValueError):  # not for SIGKILL, which needs none
        signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signum])
    with contextlib.suppress(OSError, ValueError):
        os.kill(os.getpid(), signum)
        time.sleep(0.5)
    os._exit(128 + signum)


def _config():
    """The JSON config: in this process's environment, which only its own user can read,
    not on a command line every local user can (audit); an argument still works."""
    return json.loads(sys.argv[1] if len(sys.argv) > 1 else os.environ.pop(CONFIG_ENV))


def _start_bot(config):
    """Start the bot (or bubblewrap) with the seccomp filter's and its arguments' fds."""
    filter_fd = _seccomp_fd(config)
    places = {"{seccomp_fd}": str(filter_fd)}
    args_fd = _args_fd(
        [places.get(arg, arg) for arg in config["bwrap_args"]] if "bwrap_args" in config else None
    )
    places["{args_fd}"] = str(args_fd)
    argv = [places.get(arg, arg) for arg in config["argv"]]
    try:
        bot = subprocess.Popen(
            argv,
            env=config["env"],
            cwd=config.get("cwd"),
            close_fds=True,
            pass_fds=tuple(fd for fd in (filter_fd, args_fd) if fd is not None),
        )
    except OSError as error:
        sys.stderr.write(f"arena supervisor: cannot run {config['argv'][0]!r}: {error}\n")
        os._exit(127)
    if args_fd is not None:
        os.close(args_fd)  # bubblewrap has its copy
    return bot


def _wait_for(bot_pid):
    """The bot's wait status (reaping every other child on the way); None if it vanished."""
    while True:
        try:
            pid, code = os.wait()
        except ChildProcessError:
            return None
        if pid == bot_pid:
            return code


def main():
    config = _config()
    _join_cgroups(config.get("cgroup_procs", []))
    _set_limits(config.get("rlimits", {}))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.stderr.write("arena supervisor: cannot become a subreaper\n")
    grace = float(config.get("grace", 2.0))
    wrapper = os.path.realpath(config["argv"][0]) if config.get("signal_exit_codes") else None
    state = {"stopping": False, "bot": None}

    def stop(_signum, _frame):
        if state["stopping"]:
            return
        state["stopping"] = True
        pids = _descendants(os.getpid())
        # not bubblewrap itself: killed, it would take the bot down before it could stop
        _signal_all([p for p in reversed(pids) if _exe(p) != wrapper], signal.SIGTERM)
        _signal_all(pids, signal.SIGCONT)
        signal.setitimer(signal.ITIMER_REAL, grace)

    def force(_signum, _frame):
        _signal_all(_descendants(os.getpid()), signal.SIGKILL)

    for signum in _SIGNALS_TO_STOP:
        signal.signal(signum, stop)
    signal.signal(signal.SIGALRM, force)
    _watch_arena(int(config["parent_pid"]))
    bot = _start_bot(config)
    state["bot"] = bot.pid
    if state["stopping"]:  # told to stop before the bot existed
        os.kill(bot.pid, signal.SIGKILL)
    status = _wait_for(bot.pid)
    signal.setitimer(signal.ITIMER_REAL, 0)
    for signum in _SIGNALS_TO_STOP:
        signal.signal(signum, signal.SIG_IGN)
    _kill_tree()
    if os.getppid() != int(config["parent_pid"]):
        _clean_up(config.get("leftovers", {}))
    _exit_like(status if status is not None else 0, config.get("signal_exit_codes", False))


if __name__ == "__main__":
    main()

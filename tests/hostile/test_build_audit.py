"""The second audit of sandboxed builds (issue 13 audit): its findings that are fixed.

Each test is one finding: it fails on the code as audited and passes once the finding
is fixed. A build step is a student's command; here each is a small Python step run
with this interpreter that tries one thing and writes what happened into its folder.
No test changes anything outside its ``tmp_path`` (the sysctl test only opens a file
for writing, it never writes; the keyring test adds its key to a fresh session keyring
of its own subprocess), and no test sends traffic beyond loopback.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from test_build_sandbox import _need_l1, _student, _try, _verdict

import arena.sandbox._buildbox as buildbox
from arena.dealer import build_layer, check_layers
from arena.tournament import BuildError, build_folder, load_manifest


def _need_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("the finding is about an arena that runs as root")


def _layer_or_skip(layer: str) -> None:
    for check in check_layers():
        if check.layer == layer and not check.available:
            pytest.skip(f"sandbox {layer} is not available here: {check.detail}")


# 1 -----------------------------------------------------------------------------------


def test_a_root_build_cannot_write_the_hosts_sysctls(tmp_path: Path) -> None:
    """CRITICAL. As root the build is uid 1000 inside a user namespace that maps it to
    uid 0 outside (bubblewrap's --uid 1000 as root: ``1000 0 1``). /proc/sys checks the
    euid against GLOBAL_ROOT_UID, not capabilities, and bubblewrap does not cover
    /proc/sys read-only, so the build may write the host's global sysctls:
    ``kernel.core_pattern = |/path/in/my/folder/payload`` runs the student's program as
    full root in the host's namespaces at the next crash (RLIMIT_CORE=0 does not stop a
    pipe handler). Verified with a same-value write of fs.protected_hardlinks and
    kernel.core_pattern; this test only opens the file for writing."""
    _need_l1()
    _need_root()
    step = _try("os.close(os.open('/proc/sys/kernel/core_pattern', os.O_WRONLY))")
    seen = _verdict(_student(tmp_path, step))
    assert seen != "done", "the build could open the host's kernel.core_pattern for writing"


# 2 -----------------------------------------------------------------------------------


def test_a_root_build_cannot_read_root_only_files(tmp_path: Path) -> None:
    """HIGH. The same mapping to uid 0 outside makes the build the owner of every
    root-owned file in its read-only view of the system: it reads /etc/shadow and
    /etc/gshadow (password hashes), any /etc/ssl/private key, the SSH host keys, any
    root-only config in /etc or the Python install. "As root the build is uid 1000, not
    root" holds inside the namespace only."""
    _need_l1()
    _need_root()
    shadow = Path("/etc/shadow")
    if not shadow.exists() or shadow.stat().st_mode & stat.S_IROTH:
        pytest.skip("no root-only /etc/shadow on this machine")
    seen = _verdict(_student(tmp_path, _try("open('/etc/shadow').read()")))
    assert seen in ("PermissionError", "FileNotFoundError"), seen


# 3 -----------------------------------------------------------------------------------


def test_a_build_leaves_no_setuid_or_setgid_file(tmp_path: Path) -> None:
    """HIGH. A build may ``chmod 6755`` a file it wrote in its folder; the file belongs to
    the arena's user outside (root, when the arena runs as root). The folder is mounted
    nosuid only inside the sandbox: outside, any local user who can reach the folder runs
    it as the arena's user. Verified: a copy of python3.11 made setuid by the build, run
    by uid 65534, printed euid 0 and read /etc/shadow; as a non-root arena (uid 5000)
    the same build left a setuid-5000 file. Fix: strip S_ISUID/S_ISGID from every file
    the build leaves (fd-based walk, no symlinks followed), or deny such chmods (seccomp
    on chmod/fchmod/fchmodat mode bits), or fail the build."""
    step = _try(
        "open('tool', 'w').write('#!/bin/sh\\nid\\n'); os.chmod('tool', 0o6755);"
        " os.mkdir('shared'); os.chmod('shared', 0o2777)"
    )
    folder = _student(tmp_path, step)
    with contextlib.suppress(BuildError):  # a build refused for it is a fix too
        build_folder(load_manifest(folder), force=True)
    special = [
        str(path)
        for path in [folder, *folder.rglob("*")]
        if not path.is_symlink() and path.lstat().st_mode & (stat.S_ISUID | stat.S_ISGID)
    ]
    assert not special, f"the build left setuid/setgid entries: {special}"


# 10 ----------------------------------------------------------------------------------

KEYRING = """
import ctypes, json, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall(250, 1, None)  # KEYCTL_JOIN_SESSION_KEYRING: a fresh session ring for this process
secret = b"instructor-kerberos-ticket"
if libc.syscall(248, b"user", b"arena-audit", secret, len(secret), -3) < 0:  # add_key to @s
    print("no-keyring"); sys.exit(0)
from arena.tournament import build_folder, load_manifest
build_folder(load_manifest(sys.argv[1]), force=True)
print(open(sys.argv[1] + "/verdict.txt").read())
"""

READ_SESSION_RING = """
import ctypes, struct
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(4096)
found = []
n = libc.syscall(250, 11, -3, buf, 4096)  # KEYCTL_READ of the session keyring: its key ids
for (key,) in struct.iter_unpack("i", buf.raw[: max(n, 0)]):
    m = libc.syscall(250, 11, key, buf, 4096)
    found.append(buf.raw[: max(m, 0)].decode(errors="replace"))
open("verdict.txt", "w").write(" ".join(found) or "nothing")
"""


def test_a_build_cannot_read_the_arenas_session_keyring(tmp_path: Path) -> None:
    """MEDIUM. Builds run with no seccomp filter ("a build's own processes share nothing
    worth it") and inherit the arena's session keyring (neither the supervisor nor
    bubblewrap joins a new one), and the mapping to the arena's uid outside makes them
    its keys' owner: the build reads every key in the instructor's session keyring
    (Kerberos KEYRING caches, fscrypt/ecryptfs, cifs/NFS credentials, ``keyctl add ...
    @s``), and can leave keys there for the next student's build. The bots are denied
    keyctl/add_key (audit F1); builds are not. Fix: the supervisor joins a fresh session
    keyring before it starts the step (``KEYCTL_JOIN_SESSION_KEYRING``), and the build
    gets the bots' seccomp filter for the keyring calls."""
    _need_l1()
    if sys.platform != "linux" or os.uname().machine != "x86_64":
        pytest.skip("the syscall numbers here are x86_64 Linux's")
    folder = _student(tmp_path, READ_SESSION_RING)
    done = subprocess.run(
        [sys.executable, "-c", KEYRING, str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stderr
    if done.stdout.strip() == "no-keyring":
        pytest.skip("no kernel keyrings here")
    assert "instructor-kerberos-ticket" not in done.stdout, done.stdout


# 13 ----------------------------------------------------------------------------------

FIFO_BOT = """#!{python}
import os, sys
fd = os.open({chan!r}, os.O_RDWR | os.O_NONBLOCK)  # a FIFO the build left: writable on a ro mount
try:
    got = os.read(fd, 100).decode()
    sys.stderr.write("VERDICT got " + got + "\\n")
except BlockingIOError:
    os.write(fd, b"opponent holds Ah Kd")
    sys.stderr.write("VERDICT wrote\\n")
sys.stderr.flush()
from arena.sdk import Bot, run

class Calling(Bot):
    name = "audit"

    def decide(self, decision):
        return decision.stand_pat() if decision.is_draw else decision.check_or_call()

run(Calling(), argv=[])
"""


def test_no_fifo_the_build_left_is_a_channel_between_instances(tmp_path: Path) -> None:
    """HIGH (duplicate leagues, the default of ``arena tournament init``). The bots'
    sandbox assumes two instances of one bot (the rotations of a duplicate deal) share no
    writable file (audit F1: keyrings, locks and inotify denied for that reason). But the
    build may ``mkfifo chan; chmod 666 chan`` in its folder, which every instance then
    mounts read-only: a read-only mount does not stop writing a FIFO (only regular
    files, folders and links), so the instances talk through it, and the rotation that
    sits where the opponent sat tells the other the opponent's hole cards. Fix: after the
    build, refuse (or remove) FIFOs, sockets and device files in the folder (fd-based
    walk, no symlinks followed), or mount the bot's folder with a copy that holds only
    regular files, folders and links."""
    _layer_or_skip("L1")
    folder = tmp_path / "alice"
    folder.mkdir()
    (folder / "bot").write_text(
        FIFO_BOT.replace("{python}", sys.executable).replace("{chan!r}", repr(str(folder / "chan")))
    )
    (folder / "bot").chmod(0o755)
    step = "import os; os.mkfifo('chan'); os.chmod('chan', 0o666)"
    (folder / "bot.toml").write_text(
        f'run = "./bot"\nbuild = ["{sys.executable} -c \\"{step}\\""]\n'
    )
    with pytest.raises(BuildError, match="left chan: a FIFO"):
        build_folder(load_manifest(folder), force=True)
    assert not os.path.lexists(folder / "chan")  # removed: no instance can open it


# 15 -----------------------------------------------------------------------------------


def test_the_builds_environment_is_not_on_a_command_line_every_user_can_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LOW. The supervisor gets its whole configuration, the step's environment
    included, as a command-line argument (``python -I -S _supervisor.py '<json>'``), and
    every local user reads every process's command line (``ps auxww``, /proc/PID/cmdline;
    hidepid is rarely set). With ``network = true`` that environment holds the machine's
    proxy variables, credentials and all (``HTTPS_PROXY=http://user:password@proxy``), for
    the whole build. Fix: hand the supervisor its configuration through a pipe (stdin or
    an inherited fd), never argv."""
    monkeypatch.setenv("HTTPS_PROXY", "http://instructor:hunter2-proxy-password@127.0.0.1:9")
    seen: list[str] = []
    real_popen = subprocess.Popen

    class RecordingPopen(real_popen):  # type: ignore[misc, valid-type]
        def __init__(self, args, *rest, **options):
            if "_supervisor.py" in " ".join(map(str, args)):
                seen.append(" ".join(map(str, args)))
            super().__init__(args, *rest, **options)

    build_layer()  # its probe is not the build
    monkeypatch.setattr(buildbox.subprocess, "Popen", RecordingPopen)
    folder = _student(tmp_path, "pass\n", network=True)
    build_folder(load_manifest(folder), force=True)
    assert seen
    assert not any("hunter2-proxy-password" in line for line in seen), "on the command line"


def test_a_bots_environment_is_not_on_its_supervisors_command_line(tmp_path: Path) -> None:
    """The same for a launched bot: a secret in ``[bots.limits] env`` reaches the bot
    through the supervisor's environment, never its command line."""
    from arena.dealer import BotLimits
    from arena.sandbox._seatbox import CONFIG_ENV, SeatBox

    box = SeatBox("s", "L0", BotLimits(env={"API_KEY": "s3cret-key"}), [])
    box.acquire()
    try:
        env = box.environment("unix:/nowhere", {})
        argv = box.command([sys.executable, "-c", "pass"], workdir=None, env=env,
                           rlimits={}, grace=1.0)  # fmt: skip
    finally:
        box.release()
    assert "s3cret-key" not in " ".join(argv)
    assert "s3cret-key" in env[CONFIG_ENV]

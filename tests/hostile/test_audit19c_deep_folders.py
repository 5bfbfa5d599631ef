"""Audit 19c: folders nested deeper than Python's recursion or than is cheap to name.

1. A duplicate instance's folder copy (``_botcopy._walk``) kept every level's full path
   and two descriptors per level: a bot folder of 3000 nested 255-character names made
   the arena's peak RSS 1182 MB (O(DEPTH**2)). Now the walk keeps no full paths and the
   copy is refused while measuring past 256 levels or 4096 bytes of path below the bot
   folder, with a clear message (and a few MB).
2. ``remove_tree`` ("never raises") was ``shutil.rmtree``, which in Python 3.11 recurses
   once per level: 2000 levels raised RecursionError, so an L0 bot nesting its seat
   folder crashed ``arena match``, left the folder, and the next sweep (before every
   start) raised. Now the removal (``_leftovers.remove_tree``, the supervisor's own
   copy, and the socket folder's) moves subfolders up instead of recursing: any depth,
   a few descriptors, never through a link; and the sweep skips what it cannot remove.

Every folder made here is removed by descriptors (no recursion), at the end.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import arena

BOTS = Path(__file__).parent / "bots"
ROOT = Path(arena.__file__).resolve().parents[1]


def _nest(top: str, depth: int, name: str) -> None:
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir(name, 0o755, dir_fd=fd)
        child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = child
    os.close(fd)


def _remove_deep(top: str) -> None:
    """Remove a tree of any depth without recursion: each subfolder's subfolders are moved
    up into ``top`` (renamed by descriptors), then the emptied subfolder is removed."""
    if not os.path.lexists(top):
        return
    top_fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    moved = 0
    try:
        while subs := [e.name for e in os.scandir(top_fd) if e.is_dir(follow_symlinks=False)]:
            for name in subs:
                fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=top_fd)
                try:
                    for entry in list(os.scandir(fd)):
                        if entry.is_dir(follow_symlinks=False):
                            moved += 1
                            os.rename(entry.name, f"up{moved}", src_dir_fd=fd, dst_dir_fd=top_fd)
                        else:
                            os.unlink(entry.name, dir_fd=fd)
                finally:
                    os.close(fd)
                os.rmdir(name, dir_fd=top_fd)
    finally:
        os.close(top_fd)
    shutil.rmtree(top, ignore_errors=True)


def test_a19c_a_deep_bot_folder_is_refused_cheaply_before_any_copy(tools, tmp_path):
    tools.need_layer("L2")
    folder = tempfile.mkdtemp(prefix="a19c-deep-")
    os.chmod(folder, 0o755)
    try:
        for name in ("_base.py", "a19c_deephome.py"):
            shutil.copy(BOTS / name, Path(folder, name))
        depth = 3000
        _nest(folder, depth, "d" * 255)
        bot = f"deep={sys.executable} {folder}/a19c_deephome.py a19cdeep 0"
        child = subprocess.Popen(
            [sys.executable, "-m", "arena", "match", bot, "builtin:calling-station",
             "--hands", "8", "--duplicate", "--sandbox", "L2", "--startup-timeout", "120",
             "--out", str(tmp_path / "runs"), "--no-plugins"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        _pid, status, usage = os.wait4(child.pid, 0)
        err = child.stderr.read().decode(errors="replace")
        peak_mb = usage.ru_maxrss / 1024
        print(f"depth {depth} x 255-char names: arena peak RSS {peak_mb:.0f} MB, "
              f"{usage.ru_utime + usage.ru_stime:.1f} s CPU, status {status}")  # fmt: skip
        assert "its folder nests deeper than 256 levels" in err, err[-2000:]
        assert "Traceback" not in err, err[-2000:]
        assert peak_mb < 400, f"a {depth}-deep bot folder cost the arena {peak_mb:.0f} MB"
    finally:
        _remove_deep(folder)


_REMOVE = """
import os, resource, sys
sys.setrecursionlimit(200)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))  # a few descriptors, not a level's
if sys.argv[1] == "leftovers":
    from arena.sandbox._leftovers import remove_tree
else:
    from arena.sandbox._supervisor import _remove_tree as remove_tree
remove_tree(sys.argv[2])
"""


@pytest.mark.parametrize("which", ["leftovers", "supervisor"])
def test_a19c_both_removals_take_a_5000_deep_chain_and_follow_no_link(which, tmp_path):
    victim = tmp_path / "host"
    victim.mkdir()
    (victim / "keep").write_text("x")
    top = tempfile.mkdtemp(prefix="a19c-rm-")
    try:
        _nest(top, 5000, "d")
        os.symlink(victim, os.path.join(top, "root"))  # a bot's link to a host folder
        os.symlink("/", os.path.join(top, "d", "slash"))
        os.mkdir(os.path.join(top, "wide"))
        for n in range(50):
            Path(top, "wide", f"f{n}").write_text("n")
        run = subprocess.run(
            [sys.executable, "-c", _REMOVE, which, top],
            cwd=ROOT, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr[-2000:]
        assert not os.path.lexists(top), f"{which}: a 5000-deep folder was left"
        assert (victim / "keep").read_text() == "x"
        assert os.path.isdir("/tmp") and os.path.isdir("/usr")
    finally:
        _remove_deep(top)


def test_a19c_l0_bot_nesting_its_seat_folder_leaves_nothing_and_the_sweep_runs(tools, tmp_path):
    tools.need_layer("L0")
    before = {p for p in os.listdir(tempfile.gettempdir()) if p.startswith("arena-seat-")}
    bot = f"deep={sys.executable} {BOTS}/a19c_deephome.py a19cl0 2000"
    try:
        run = subprocess.run(
            [sys.executable, "-m", "arena", "match", bot, "builtin:calling-station",
             "--hands", "4", "--sandbox", "L0", "--out", str(tmp_path / "runs"), "--no-plugins"],
            cwd=ROOT, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        left = {p for p in os.listdir(tempfile.gettempdir()) if p.startswith("arena-seat-")}
        left -= before
        sweep = subprocess.run(
            [sys.executable, "-c", "from arena.sandbox._leftovers import sweep_folders; sweep_folders()"],
            cwd=ROOT, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        print(
            f"match rc {run.returncode}; seat folders left: {sorted(left)}; "
            f"next sweep rc {sweep.returncode}: {sweep.stderr.strip().splitlines()[-1:]}"
        )
        assert not left, f"the L0 seat folder was left behind: {sorted(left)}"
        assert sweep.returncode == 0, sweep.stderr[-1000:]
    finally:
        for name in os.listdir(tempfile.gettempdir()):
            if name.startswith("arena-seat-") and name not in before:
                _remove_deep(os.path.join(tempfile.gettempdir(), name))

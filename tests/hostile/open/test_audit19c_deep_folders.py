"""Audit 19c: folders nested deeper than Python's recursion or than is cheap to name.

1. A duplicate instance's folder copy (``_botcopy._walk``) keeps every level's full path
   (``os.path.join`` per level) and two descriptors per level: a bot folder of DEPTH
   nested folders with 255-character names (16 KB each on disk) makes the arena hold
   about 255 * DEPTH**2 / 2 bytes of path text, twice (measure, then copy), in O(DEPTH**2)
   time. Depth 3000 (12 MB on disk): about 1.1 GB and several seconds; depth 9000 would
   be about 10 GB. Depth over RLIMIT_NOFILE / 2 runs the whole dealer process out of
   descriptors for a moment.
2. ``_leftovers.remove_tree`` ("never raises") is ``shutil.rmtree``, which in Python 3.11
   recurses once per level: a folder 2000 deep raises RecursionError (not OSError), so
   ``ignore_errors`` does not help. A bot at L0 nests 2000 folders in its seat folder:
   the folder is left behind, and the next arena's sweep (``sweep_folders``, run before
   every first launched bot, suppressing only OSError) raises.

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

BOTS = Path(__file__).parents[1] / "bots"
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


def test_a19c_deep_bot_folder_copy_costs_the_arena_quadratic_memory(tools, tmp_path):
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
        assert os.waitstatus_to_exitcode(status) == 0, err[-2000:]
        assert peak_mb < 400, f"a {depth}-deep bot folder cost the arena {peak_mb:.0f} MB"
    finally:
        _remove_deep(folder)


def test_a19c_remove_tree_raises_on_a_deep_folder():
    from arena.sandbox._leftovers import remove_tree

    top = tempfile.mkdtemp(prefix="a19c-rm-")
    try:
        _nest(top, 2000, "d")
        remove_tree(top)  # "never raises"
        assert not os.path.exists(top), "remove_tree left a 2000-deep folder"
    finally:
        _remove_deep(top)


def test_a19c_l0_bot_nesting_its_seat_folder_leaves_it_and_breaks_the_sweep(tools, tmp_path):
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
        print(f"match rc {run.returncode}; seat folders left: {sorted(left)}; "
              f"next sweep rc {sweep.returncode}: {sweep.stderr.strip().splitlines()[-1:]}")
        assert not left, f"the L0 seat folder was left behind: {sorted(left)}"
        assert sweep.returncode == 0, sweep.stderr[-1000:]
    finally:
        for name in os.listdir(tempfile.gettempdir()):
            if name.startswith("arena-seat-") and name not in before:
                _remove_deep(os.path.join(tempfile.gettempdir(), name))

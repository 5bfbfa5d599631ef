"""The sweep of what killed arena processes left (issue 12, the audit of the sandbox under
item 2): only what is provably ours and whose owner is provably gone, never through a
symlink, never anything else."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from arena.dealer import BotLimits, LaunchedBot
from arena.sandbox import _leftovers
from arena.sandbox._cgroups import _parents, sweep_groups
from arena.sandbox._leftovers import owner_gone, owner_tag, remove_tree, sweep_folders
from arena.sandbox._seatbox import SeatBox, sweep_leftovers

pytestmark = pytest.mark.timeout(60)


def _boot() -> str:
    return owner_tag().rsplit(".", 1)[1]


def _reused() -> str:
    """An owner under this process's pid but another start time: a reused pid."""
    return f"{os.getpid()}-~1.{_boot()}"


def _dead() -> str:
    """An owner that has ended (a process started and waited for here)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    start = owner_tag().split("~")[1].split(".")[0]
    return f"{child.pid}-~{start}.{_boot()}"


def test_owners_are_told_apart_by_pid_start_time_and_boot():
    mine = owner_tag()
    assert mine.startswith(f"{os.getpid()}-~") and not owner_gone(f"{mine}-x")
    assert owner_gone(f"{_reused()}-x")
    assert owner_gone(f"{_dead()}-x")
    other_boot = "0" * 8 if _boot() != "0" * 8 else "1" * 8
    assert owner_gone(f"{mine.rsplit('.', 1)[0]}.{other_boot}-x")
    for shape in ("", "x", "12-x", f"{os.getpid()}-bot-abc", "abcdefgh"):
        assert not owner_gone(shape), shape  # not ours to judge
    assert _leftovers.legacy_owner_gone("999999999-bot-abc")
    assert not _leftovers.legacy_owner_gone(f"{os.getpid()}-bot-abc")
    assert not _leftovers.legacy_owner_gone(f"{_reused()}-bot")


def test_the_folder_sweep_takes_only_gone_owners_and_follows_no_link(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep").write_text("x")
    root = tmp_path / "tmp"
    root.mkdir()
    gone = [
        root / f"arena-sock-{_reused()}-abc",
        root / f"arena-seat-{_dead()}-bot-abc",
        root / f"arena-seat-{_reused()}-linked-abc",
    ]
    kept = [
        root / f"arena-sock-{owner_tag()}-live",
        root / f"arena-seat-{owner_tag()}-bot-live",
        root / "arena-sock-abcdefgh",  # no owner in the name: not provably ours
        root / f"arena-{_reused()}-other",  # not a seat folder
        root / f"other-sock-{_reused()}-x",
    ]
    for folder in gone[:2] + kept:
        folder.mkdir()
        (folder / "notes.txt").write_text("a bot's notes")
        (folder / "victim").symlink_to(victim)
        (folder / "deep").mkdir()
        (folder / "deep" / "victim").symlink_to(victim / "keep")
    gone[2].symlink_to(victim)  # the seat folder itself replaced by a link
    removed = sweep_folders(str(root))
    assert sorted(removed) == sorted(str(p) for p in gone)
    assert not [p for p in gone if os.path.lexists(p)]
    assert all((p / "notes.txt").exists() for p in kept)
    assert (victim / "keep").read_text() == "x" and victim.is_dir()


@pytest.mark.skipif(os.geteuid() != 0, reason="a seat's tmpfs is mounted only as root")
def test_the_folder_sweep_unmounts_a_seats_tmpfs_and_only_root_owned_ones(tmp_path):
    """Issue 19 item 4: a gone owner's seat folder is a tmpfs (as root): the sweep
    unmounts it (dropping the bot's files in it) and removes it; a mount point not owned
    by root (a user's own mount, a FUSE folder) is never unmounted by the sweep."""
    root = tmp_path / "tmp"
    root.mkdir()
    mounted = root / f"arena-sock-{_dead()}-abc"
    mounted.mkdir()
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "t", str(mounted)], check=True
    )
    (mounted / "bot").mkdir()
    (mounted / "bot" / "notes.txt").write_text("a bot's notes")
    assert _leftovers.unmount(str(root / "missing")) is False
    link = root / f"arena-sock-{_dead()}-link"
    link.symlink_to(mounted)  # never unmounted through a link
    assert _leftovers.unmount(str(link)) is False and os.path.ismount(mounted)
    assert sorted(sweep_folders(str(root))) == sorted([str(mounted), str(link)])
    assert not os.path.lexists(mounted) and not os.path.ismount(mounted)
    user = root / f"arena-sock-{_dead()}-user"
    user.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,uid=1234", "t", str(user)], check=True)
    try:
        sweep_folders(str(root))
        assert os.path.ismount(user)  # not root's: left alone (its folder is busy, kept)
    finally:
        subprocess.run(["umount", str(user)], check=True)


def test_remove_tree_never_follows_a_link(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep").write_text("x")
    link = tmp_path / "link"
    link.symlink_to(victim)
    remove_tree(str(link))
    assert not os.path.lexists(link) and (victim / "keep").exists()
    remove_tree(str(tmp_path / "missing"))  # never raises


def test_one_leftover_that_cannot_be_swept_blocks_no_other(tmp_path, monkeypatch, caplog):
    """Audit 19c: whatever one gone owner's folder raises (a RecursionError once), the
    sweep logs it and goes on to the rest: it runs before every start."""
    from arena.sandbox import _leftovers

    root = tmp_path / "tmp"
    root.mkdir()
    bad, good = root / f"arena-seat-{_dead()}-bad-abc", root / f"arena-sock-{_dead()}-abc"
    bad.mkdir()
    good.mkdir()
    real = _leftovers.remove_tree

    def remove(path: str) -> None:
        if path == str(bad):
            raise RecursionError("maximum recursion depth exceeded")
        real(path)

    monkeypatch.setattr(_leftovers, "remove_tree", remove)
    assert sweep_folders(str(root)) == [str(good)]
    assert not good.exists() and bad.exists()
    assert "cannot sweep" in caplog.text and "RecursionError" in caplog.text


def test_seat_folders_are_named_after_their_owner():
    box = SeatBox("a/b c", "L0", BotLimits(), [])
    try:
        box.address("unix")
        box.acquire()
        assert box.socket_dir and box.private_dir
        assert box.folder is not None and box.socket_dir.startswith(box.folder.top)
        assert Path(box.folder.top).name.startswith(f"arena-sock-{owner_tag()}-")
        assert Path(box.private_dir).name.startswith(f"arena-seat-{owner_tag()}-a_b_c-")
    finally:
        socket_dir = box.socket_dir
        box.release()
    assert socket_dir and not os.path.lexists(socket_dir)
    sweep_leftovers()
    assert sweep_leftovers() == []  # once per process
    unsandboxed = LaunchedBot("off", "true", sandbox="off")
    unsandboxed.sandbox_layer = "off"
    unsandboxed._prepare()
    assert unsandboxed.address is not None
    folder = Path(unsandboxed.address.removeprefix("unix:")).parent
    assert folder.name.startswith(f"arena-sock-{owner_tag()}-")  # swept too, once its owner dies
    remove_tree(str(folder))


def _cgroups_here() -> tuple[str, dict[str, Path]]:
    if os.geteuid() != 0:
        pytest.skip("the cgroup sweep needs root (as sandbox L2 does)")
    try:
        return _parents()
    except OSError as error:
        pytest.skip(f"no cgroups for seats here: {error}")


def test_the_cgroup_sweep_takes_gone_owners_groups_and_kills_what_runs_in_them():
    """A group whose owner is gone is removed, a stray process in it (no supervisor)
    killed first; a live owner's group is kept."""
    version, parents = _cgroups_here()
    hexa = secrets.token_hex(3)
    gone, kept = f"arena-{_reused()}-sweep-{hexa}", f"arena-{owner_tag()}-sweep-{hexa}"
    folders = {n: sorted({parents[c] / n for c in parents}) for n in (gone, kept)}
    stray = subprocess.Popen(["sleep", "60"])
    try:
        for name in (gone, kept):
            for path in folders[name]:
                path.mkdir()
        for path in folders[gone]:
            (path / "cgroup.procs").write_text(str(stray.pid))
        removed = sweep_groups()
        assert gone in removed and kept not in removed
        assert not [p for p in folders[gone] if p.exists()]
        assert all(p.is_dir() for p in folders[kept])
        assert stray.wait(timeout=10) == -9
    finally:
        if stray.poll() is None:
            stray.kill()
            stray.wait()
        for name in (gone, kept):
            for path in folders[name]:
                if path.exists():
                    path.rmdir()
    assert version in ("v1", "v2")


def test_a_gone_owners_old_seats_parent_is_swept_with_its_seats():
    """Seats had one parent per arena process (``arena-OWNER-seats``, 5f22bfd, reverted):
    a machine upgraded with one left by a killed arena process has it swept, its seat
    group inside first; a seat group made now sits flat, beside the arena's own."""
    from arena.sandbox._cgroups import _FAIR, SEATS_SUFFIX, SeatCgroup

    version, parents = _cgroups_here()
    if _FAIR not in parents:
        pytest.skip("no cpu controller for seats here")
    old = parents[_FAIR] / f"arena-{_reused()}{SEATS_SUFFIX}"
    seat = old / f"arena-{_reused()}-old-{secrets.token_hex(3)}"
    try:
        seat.mkdir(parents=True)
        removed = sweep_groups()
        assert seat.name in removed and old.name in removed
        assert not old.exists()
    finally:
        for path in (seat, old):
            if path.exists():
                path.rmdir()
    group = SeatCgroup.create("flat", memory_mb=64, max_processes=8)
    try:
        assert group.cpu_dir is not None and group.cpu_dir.parent == parents[_FAIR]
    finally:
        group.remove()
    assert version in ("v1", "v2")

"""The third audit of bot folders' builds (issue 13 audit): lend / give_back,
outside_folder, the supervisor's config. Each test failed on the code it was written
against (each docstring gives the severity and the attack) and passes since the fix.
Only loopback; no timing is asserted.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import trio

from arena.dealer import BotStartError
from arena.sandbox._buildbox import BuildFailed, BuildLimits, build_layer, run_build
from arena.sandbox._sandbox import UID_RANGE

STUDENT = 65534  # the folder's owner: not root, not a leased uid

as_root_l1 = pytest.mark.skipif(
    os.geteuid() != 0 or build_layer() != "L1",
    reason="needs root and bubblewrap: builds run as a leased uid",
)


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text("print('hi')\n")
    for path in (folder, folder / "bot.py"):
        os.chown(path, STUDENT, STUDENT)
    return folder


def _build(folder: Path, code: str) -> None:
    run_build(
        [[sys.executable, "-c", code]],
        folder,
        io.BytesIO(),
        layer="L1",
        limits=BuildLimits(seconds=120),
    )


def _owners(folder: Path) -> dict[str, int]:
    """Every entry's owner, walked with ``find`` (a Python walk cannot go deep enough)."""
    out = subprocess.run(
        ["find", str(folder), "-printf", "%U %P\\n"], capture_output=True, text=True, check=True
    ).stdout
    return {line.split(" ", 1)[1]: int(line.split(" ", 1)[0]) for line in out.splitlines()}


def _specials(folder: Path) -> list[str]:
    out = subprocess.run(
        ["find", str(folder), "(", "-type", "p", "-o", "-type", "s", ")", "-printf", "%P\\n"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.split()


def _remove(path: Path) -> None:
    subprocess.run(["rm", "-rf", str(path)], check=False)  # shutil.rmtree recurses too deep


_DEEP = """
import os
fd = os.open('.', os.O_RDONLY)
os.mkdir('.deep', dir_fd=fd)
for i in range({depth}):
    if i:
        os.mkdir('d', dir_fd=fd)
    new = os.open('.deep' if not i else 'd', os.O_RDONLY, dir_fd=fd)
    os.close(fd)
    fd = new
os.mkfifo('channel', dir_fd=fd)
"""


@as_root_l1
def test_hard_links_made_by_the_build_stay_owned_by_the_seat_uid(tmp_path: Path) -> None:
    """Severity: medium. Attack: the build (as its leased uid) hard-links a file it owns,
    its own new file (``x`` -> ``y``) or a lent one (``bot.py`` -> ``bot2.py``), and makes
    it 0666. ``give_back`` skips every regular file with st_nlink > 1 (``lend``'s rule for
    links whose other names may lie outside the folder), so these stay owned by the seat
    uid (61000-61999), the uid a later bot or build is leased: the folder is no longer
    wholly its owner's, contrary to the module's promise. Fix: record in ``lend`` the
    (st_dev, st_ino) of each file it skipped; in ``give_back`` chown any file whose
    owner is the leased uid (only the build could make it so; a link made in the
    sandbox cannot point outside the bind mount, EXDEV) back to the folder's owner, or
    fail the build and remove such links; or forbid ``link`` in the build's seccomp."""
    folder = _folder(tmp_path)
    _build(
        folder,
        "import os\n"
        "open('x', 'w').write('a'); os.link('x', 'y'); os.chmod('x', 0o666)\n"
        "os.link('bot.py', 'bot2.py'); os.chmod('bot.py', 0o666)\n",
    )
    owners = _owners(folder)
    seat_owned = sorted(name for name, uid in owners.items() if uid in UID_RANGE)
    assert not seat_owned, f"left owned by the build's seat uid: {seat_owned} ({owners})"


@as_root_l1
def test_a_deep_tree_made_by_the_build_crashes_give_back(tmp_path: Path) -> None:
    """(Fixed: an iterative walk capped at 64 levels fails the build, gives the folder
    back, and a folder that cannot be checked whole is never launched.)
    Severity: high. Attack: the build makes a folder ~1100 levels deep (under
    ``.deep``, which the staleness walk skips) with a FIFO at the bottom. ``os.fwalk`` in
    Python 3.11 recurses once per level: ``give_back`` dies with RecursionError, which is
    not BuildFailed, so ``arena tournament`` (build_folder_bots catches ManifestError,
    BuildError, OSError) ends with a traceback; the folder's root and everything not yet
    walked stay owned by the seat uid, and the FIFO is never removed: the next run finds
    the output fresh, builds nothing, and two instances of the bot (a duplicate deal's
    rotations) talk through the FIFO, which works on the read-only mount. Fix: walk
    iteratively (an explicit stack of dir fds, closing each parent's fd after listing it,
    or re-opening by path) with a depth/entry cap that fails the build (BuildFailed)
    rather than crashing; restore '.' first, in a ``finally``; treat any walk error
    (``onerror``) as a failed build."""
    folder = _folder(tmp_path)
    try:
        with pytest.raises(BuildFailed):  # too deep is a failed build, not a crash
            _build(folder, _DEEP.format(depth=1100))
        assert os.lstat(folder).st_uid == STUDENT, "the folder itself stays the seat uid's"
        # what lies below the walk's depth cap is never launched: the bot cannot start
        from arena.tournament._folder import special_file_problem

        assert "cannot be checked" in (special_file_problem(folder) or "")
    finally:
        _remove(folder)


@as_root_l1
def test_a_deep_tree_in_the_student_folder_leaves_it_lent(tmp_path: Path) -> None:
    """Severity: medium. Attack: the student's folder arrives (git clone) with a path
    ~1100 levels deep. ``lend`` dies in ``os.fwalk`` with RecursionError after chowning
    the folder and part of its tree to the seat uid; ``lend`` runs outside the ``try``
    whose ``finally`` calls ``give_back``, so nothing is given back and the arena crashes
    with a traceback (not BuildFailed). Fix: an iterative, capped walk in ``lend`` too,
    and call ``lend`` inside the ``try`` (``give_back`` with what it recorded so far,
    default owner the folder's)."""
    folder = _folder(tmp_path)
    fd = os.open(folder, os.O_RDONLY)
    os.mkdir(".deep", dir_fd=fd)
    for index in range(1100):
        if index:
            os.mkdir("d", dir_fd=fd)
        new = os.open(".deep" if not index else "d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = new
    os.close(fd)
    subprocess.run(["chown", "-R", f"{STUDENT}:{STUDENT}", str(folder)], check=True)
    try:
        with pytest.raises(BuildFailed):
            _build(folder, "print('building')")
        assert os.lstat(folder).st_uid == STUDENT, "the folder was left lent to the seat uid"
        seat_owned = [name for name, uid in _owners(folder).items() if uid in UID_RANGE]
        assert not seat_owned, f"{len(seat_owned)} entries left owned by the seat uid"
    finally:
        _remove(folder)


@pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("setpriv") or not os.path.exists("/usr/bin/python3"),
    reason="needs root to play a non-root arena with setpriv",
)
def test_a_non_root_give_back_misses_a_fifo_in_an_execute_only_folder() -> None:
    """Severity: medium (L1 without root). Attack: the build (the arena's own uid in a
    user namespace) makes ``d/channel`` a FIFO and ``chmod 0111 d``. ``give_back``, as
    that non-root user, cannot list ``d``; ``os.fwalk`` without ``onerror`` skips it in
    silence, so the FIFO stays and the build passes. Each instance of the bot (same uid,
    the folder mounted read-only) still reaches ``d/channel`` by name (search permission)
    and opens it: a channel between the rotations of a duplicate deal. Fix: pass an
    ``onerror`` that fails the build; or, non-root, first ``chmod u+rwx`` every directory
    (the arena's uid owns them all) before the walk; refuse directories it cannot read."""
    root = Path(tempfile.mkdtemp(prefix="audit13c-"))
    try:
        os.chmod(root, 0o755)
        folder = root / "bot"
        (folder / "d").mkdir(parents=True)
        os.mkfifo(folder / "d" / "channel")
        os.chmod(folder / "d", 0o111)
        subprocess.run(["chown", "-R", f"{STUDENT}:{STUDENT}", str(folder)], check=True)
        script = (
            "import importlib.util, sys\n"
            "from pathlib import Path\n"
            "spec = importlib.util.spec_from_file_location('t', sys.argv[1])\n"
            "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
            "print(module.give_back(Path(sys.argv[2]), None))\n"
        )
        tree = Path(__file__).resolve().parents[2] / "arena" / "sandbox" / "_buildtree.py"
        copy = root / "_buildtree.py"  # readable by the non-root arena
        shutil.copy(tree, copy)
        os.chmod(copy, 0o644)
        as_user = ["setpriv", f"--reuid={STUDENT}", f"--regid={STUDENT}", "--clear-groups"]
        result = subprocess.run(
            [*as_user, "/usr/bin/python3", "-c", script, str(copy), str(folder)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        left = stat.S_ISFIFO(os.lstat(folder / "d" / "channel").st_mode)
        if result.returncode == 0:  # a failure (an error naming the folder) is a fix too
            assert not left, f"give_back returned {result.stdout.strip()} and left the FIFO"
    finally:
        _remove(root)


_ACL = """
import os, struct
me = os.getuid()
def acl(entries):
    return struct.pack('<I', 2) + b''.join(struct.pack('<HHI', *e) for e in entries)
ANY = 0xFFFFFFFF
grant = acl([(1, 7, ANY), (2, 7, me), (4, 5, ANY), (0x10, 7, ANY), (0x20, 5, ANY)])
os.setxattr('bot.py', 'system.posix_acl_access', grant)
os.mkdir('shared')
os.setxattr('shared', 'system.posix_acl_access', grant)
os.setxattr('shared', 'system.posix_acl_default', grant)
"""


def _acl_users(path: Path) -> set[int]:
    users = set()
    for name in ("system.posix_acl_access", "system.posix_acl_default"):
        try:
            data = os.getxattr(path, name, follow_symlinks=False)
        except OSError:
            continue
        for offset in range(4, len(data), 8):
            tag, _perm, who = struct.unpack_from("<HHI", data, offset)
            if tag == 2:  # ACL_USER
                users.add(who)
    return users


@as_root_l1
def test_an_acl_granting_the_seat_uid_survives_give_back(tmp_path: Path) -> None:
    """Severity: low. Attack: the build, owner of the lent files, sets POSIX ACLs
    (``setxattr system.posix_acl_access`` / ``_default``) granting its own leased uid
    rwx on ``bot.py`` and on a new directory. ``give_back`` restores owners and clears
    setuid bits but leaves ACLs (and modes), so the folder keeps granting write to a uid
    the arena hands to later seats and builds: the same class as a file left owned by
    the seat uid. Fix: in ``give_back`` remove ``system.posix_acl_access`` and
    ``system.posix_acl_default`` (``os.removexattr`` with ``follow_symlinks=False``) from
    every entry, or fail the build when an entry names a uid of UID_RANGE."""
    folder = _folder(tmp_path)
    _build(folder, _ACL)
    granted = {
        name: users
        for name in ("bot.py", "shared")
        if (users := {u for u in _acl_users(folder / name) if u in UID_RANGE})
    }
    assert not granted, f"ACL entries still grant seat uids: {granted}"


def test_a_port_placeholder_in_a_folder_bot_crashes_the_league(tmp_path: Path) -> None:
    """Severity: medium. Attack: a student's ``bot.toml`` says
    ``run = "{python} bot.py {port}"``. Folder bots use the unix transport, and
    ``LaunchedBot`` raises ValueError ("{port} in the command needs transport='tcp'"),
    not BotStartError: ``arena tournament run`` ends with a traceback for the whole league
    (seen by hand) instead of this bot forfeiting. Fix: check the placeholder in
    ``load_manifest`` (a ManifestError naming ``run``), and/or turn the ValueError into
    BotStartError in ``open_builtin_bot``."""
    from arena.tournament._bots import folder_bot
    from arena.tournament._drivers import DriverContext, open_builtin_bot

    folder = tmp_path / "bob"
    folder.mkdir()
    (folder / "bot.toml").write_text('run = "{python} bot.py {port}"\n')
    (folder / "bot.py").write_text("print('hi')\n")
    spec = folder_bot(None, folder)

    async def start() -> None:
        async with open_builtin_bot(spec, DriverContext(seed=1, startup_timeout=5.0)):
            pass

    with pytest.raises(BotStartError):
        trio.run(start)


def _deep_tree(top: Path, depth: int) -> None:
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            new = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = new
        os.close(os.open("deep.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    finally:
        os.close(fd)


def test_a_deep_tree_crashes_the_staleness_check(tmp_path: Path) -> None:
    """Severity: medium. Attack: a student's folder (or what its build left) holds a path
    ~1100 levels deep and its ``bot.toml`` has ``sources = ["**/*.py"]``. ``_sources``
    walks with ``os.walk``, which in Python 3.11 recurses once per level: ``needs_build``
    raises RecursionError, which ``build_folder_bots`` does not catch (ManifestError,
    BuildError, OSError), so every ``arena tournament run`` of the league ends in a
    traceback before any match. Fix: an iterative walk (an explicit stack) with a depth
    cap, treating what lies deeper as not a source (or as a broken folder: a
    BuildError/ManifestError naming it)."""
    from arena.tournament._folder import load_manifest, needs_build

    folder = tmp_path / "deep-bot"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'run = "{python} bot.py"\nbuild = ["true"]\noutput = "bot.py"\nsources = ["**/*.py"]\n'
    )
    (folder / "bot.py").write_text("print('hi')\n")
    (folder / "src").mkdir()
    _deep_tree(folder / "src", 1100)
    try:
        assert needs_build(load_manifest(folder)) in (True, False)
    finally:
        _remove(folder)


def test_a_manifest_name_takes_a_baselines_name_in_arena_match(tmp_path: Path) -> None:
    """Severity: low. Attack: ``name = "calling-station"`` in a student's ``bot.toml``;
    ``arena match ./alice builtin:calling-station`` (or ``check-bot``): the folder bot is
    named by its manifest, so the student's bot plays and is recorded as
    ``calling-station`` and the real baseline becomes ``calling-station-2`` (the very
    confusion ``arena tournament init`` now prevents: fix 4 covers only folder names in
    ``init``). Fix: in ``folder_bot`` (or ``load_manifest``) treat a manifest name equal
    (any letter case) to a built-in policy's as ``student-NAME``, or reject it."""
    from arena.cli._bots import unique_names
    from arena.cli._init import BASELINES
    from arena.tournament import parse_bot_text

    folder = tmp_path / "alice"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "calling-station"\nrun = "{python} bot.py"\n')
    (folder / "bot.py").write_text("print('hi')\n")
    student, baseline = unique_names(
        [parse_bot_text(str(folder)), parse_bot_text("builtin:calling-station")]
    )
    assert baseline.name == "calling-station", (student.name, baseline.name)
    assert student.name.lower() not in BASELINES, student.name

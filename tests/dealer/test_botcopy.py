"""A duplicate instance's own copy of its bot's folders (issue 19 item 1): fresh inodes
(so no page cache shared with its other instances), nothing the original did not show."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

import pytest

from arena.sandbox import _botcopy, _bwrap, _leftovers
from arena.sandbox._botcopy import CopyTooLargeError, FolderCopy
from arena.sandbox._errors import BotStartError


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    bot = tmp_path / "bot"
    (bot / "sub").mkdir(parents=True)
    (bot / "bot.py").write_text("print('hi')")
    (bot / "model.bin").write_bytes(os.urandom(3 << 20))
    (bot / "sub" / "weights").write_bytes(b"w" * 5000)
    (bot / "suid").write_text("x")
    (bot / "suid").chmod(0o4755)
    (tmp_path / "secret").write_text("the host's")
    (bot / "out").symlink_to(tmp_path / "secret")
    os.mkfifo(bot / "fifo")
    (bot / "runs").mkdir()
    (bot / "runs" / "events.jsonl").write_text("hole cards")
    return bot


def _copy(folder: Path, **kwargs) -> FolderCopy:
    return FolderCopy.create("bot", [str(folder)], [str(folder / "runs")], **kwargs)


def test_i19_1_the_copy_has_fresh_inodes_and_the_same_bytes(folder: Path) -> None:
    """Item 1: every file of the copy is a new inode (its own page cache), same content."""
    copy = _copy(folder)
    try:
        target = Path(copy.copies[str(folder)])
        for name in ("bot.py", "model.bin", "sub/weights"):
            assert (target / name).read_bytes() == (folder / name).read_bytes()
            mine, theirs = (target / name).stat(), (folder / name).stat()
            assert (mine.st_dev, mine.st_ino) != (theirs.st_dev, theirs.st_ino)
    finally:
        copy.release()
    assert not os.path.exists(copy.top)


def test_i19_1_the_copy_follows_no_link_and_shows_nothing_new(folder: Path) -> None:
    """Item 1: a link is copied as a link (never what it points at), a FIFO is left out
    (the copy does not block on it), set-id bits go, masked paths are empty mount points."""
    copy = _copy(folder)
    try:
        target = Path(copy.copies[str(folder)])
        assert (target / "out").is_symlink()
        assert os.readlink(target / "out") == os.readlink(folder / "out")
        assert not (target / "fifo").exists() and not (target / "fifo").is_symlink()
        assert not (target / "suid").stat().st_mode & stat.S_ISUID
        assert stat.S_IMODE((target / "suid").stat().st_mode) == 0o755
        assert (target / "runs").is_dir() and list((target / "runs").iterdir()) == []
    finally:
        copy.release()


@pytest.mark.skipif(os.geteuid() != 0, reason="as root the copy is a read-only tmpfs")
def test_i19_1_as_root_the_copy_is_a_read_only_tmpfs_of_its_own(folder: Path) -> None:
    """Item 1: no one (root included) writes the copy once made, and it keeps owners."""
    os.chown(folder / "bot.py", 1234, 1234)
    copy = _copy(folder)
    try:
        assert copy.mounted
        target = Path(copy.copies[str(folder)])
        assert (target / "bot.py").stat().st_uid == 1234
        assert os.statvfs(target).f_flag & os.ST_RDONLY
        with pytest.raises(OSError):
            (target / "new").write_text("x")
    finally:
        copy.release()
    assert not os.path.exists(copy.top)


def test_i19_1_a_folder_over_the_cap_is_refused_with_a_clear_message(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 1: a folder larger than the cap is refused before anything is copied."""
    monkeypatch.setattr(_botcopy, "COPY_LIMIT_MB", 2)
    before = set(os.listdir(folder.parent))
    with pytest.raises(CopyTooLargeError, match=r"its folders hold 3 MB.* at most 2 MB"):
        _copy(folder)
    assert set(os.listdir(folder.parent)) == before


def test_i19_1_a_single_file_bind_is_copied(folder: Path) -> None:
    """Item 1: a ``binds`` entry may be one file (a model elsewhere): copied too."""
    copy = FolderCopy.create("bot", [str(folder / "model.bin")], [])
    try:
        target = Path(copy.copies[str(folder / "model.bin")])
        assert (
            target.name == "model.bin"
            and target.read_bytes() == (folder / "model.bin").read_bytes()
        )
    finally:
        copy.release()


def test_i19_1_a_dead_owners_copy_is_swept(tmp_path: Path) -> None:
    """Item 1: a copy left by a killed arena process is removed by the next one's sweep;
    a live owner's is kept."""
    gone = tmp_path / f"{_leftovers.COPY_PREFIX}999999999-~1.{_leftovers._boot_id()}-x"
    mine = tmp_path / f"{_leftovers.COPY_PREFIX}{_leftovers.owner_tag()}-y"
    for path in (gone, mine):
        (path / "0").mkdir(parents=True)
    assert _leftovers.sweep_folders(str(tmp_path)) == [str(gone)]
    assert mine.exists() and not gone.exists()


def test_i19_1_bubblewrap_binds_the_copy_in_place_of_the_folder(folder: Path) -> None:
    """Item 1: the copy is bound read-only at the folder's own path; a Python folder
    inside the copied one is still bound from the host, after it."""
    python = Path(sys.prefix).resolve()  # the venv
    argv = _bwrap.bwrap_command(["x"], bot_dirs=[folder], copies={str(folder): "/copy/0"})
    at = argv.index(str(folder))
    assert argv[at - 2 : at] == ["--ro-bind", "/copy/0"]
    assert _bwrap.own_folders([folder, folder / "sub", python]) == [str(folder)]
    outer = python.parent
    argv = _bwrap.bwrap_command(["x"], bot_dirs=[outer], copies={str(outer): "/copy/0"})
    assert argv.index(str(python)) > argv.index(str(outer))
    plain = _bwrap.bwrap_command(["x"], bot_dirs=[outer])
    assert str(python) not in plain  # no copy: the outer bind holds it, as before


def test_a19b_a_folder_deeper_than_path_max_is_copied(tmp_path: Path) -> None:
    """Audit 19b: each folder of the copy is made in its parent's descriptor, so a folder
    nested past PATH_MAX (16 levels of 255-character names: 4095 bytes below the bot folder,
    within the copy's 4096-byte cap, but past PATH_MAX with the folder's own path) copies,
    its file intact."""
    bot = tmp_path / "bot"
    bot.mkdir()
    fd = os.open(bot, os.O_RDONLY)
    try:
        for _ in range(16):
            os.mkdir("d" * 255, dir_fd=fd)
            inner = os.open("d" * 255, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
            f.write("bottom")
    finally:
        os.close(fd)
    copy = FolderCopy.create("bot", [str(bot)], [])
    try:
        fd = os.open(copy.copies[str(bot)], os.O_RDONLY)
        for _ in range(16):
            inner = os.open("d" * 255, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("deep.txt", os.O_RDONLY, dir_fd=fd)) as f:
            assert f.read() == "bottom"
    finally:
        os.close(fd)
        copy.release()
    assert not os.path.exists(copy.top)


def _nest(top: Path, depth: int, name: str) -> None:
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir(name, dir_fd=fd)
        inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)


@pytest.mark.parametrize(("depth", "name"), [(257, "d"), (17, "d" * 250)])
def test_a19c_a_folder_nested_too_deep_is_refused_before_any_copy(
    tmp_path: Path, depth: int, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Audit 19c: past 256 levels, or 4096 bytes of path below the bot folder, the copy is
    refused while measuring (nothing copied), with a clear message; nothing is left."""
    bot = tmp_path / "bot"
    bot.mkdir()
    _nest(bot, depth, name)
    copied: list[str] = []
    monkeypatch.setattr(_botcopy, "_copy_tree", lambda *args: copied.append("copied"))
    with pytest.raises(CopyTooLargeError, match="its folder nests deeper than 256 levels"):
        FolderCopy.create("deep", [str(bot)], [])
    assert not copied
    assert not [p for p in os.listdir(tempfile.gettempdir()) if _leftovers.owner_tag() in p]


def test_a19c_a_folder_256_deep_copies_and_masks_below(tmp_path: Path) -> None:
    """256 levels copy (the cap is past them), and a masked file deep inside is found
    though the walk keeps no full paths (only where a masked path lies below)."""
    bot = tmp_path / "bot"
    bot.mkdir()
    _nest(bot, 256, "d")
    deep = bot.joinpath(*["d"] * 256)
    (deep / "secret").write_text("hidden")
    (deep / "open").write_text("shown")
    copy = FolderCopy.create("deep", [str(bot)], [str(deep / "secret")])
    try:
        inside = Path(copy.copies[str(bot)]).joinpath(*["d"] * 256)
        assert (inside / "open").read_text() == "shown"
        assert (inside / "secret").read_text() == ""  # an empty file to mount over
    finally:
        copy.release()
    assert not os.path.exists(copy.top)


def test_a19b_a_failing_copy_is_a_start_error_and_leaves_nothing(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Audit 19b: any OSError of the copy is a BotStartError naming the bot and the reason
    (never the path), and the partial copy is removed."""
    made: list[str] = []
    real = _botcopy._copy_tree

    def failing(source: str, target: str, copier: object) -> None:
        made.append(target)
        real(source, target, copier)  # type: ignore[arg-type]
        raise OSError(36, "File name too long", "/" + "d" * 5000)

    monkeypatch.setattr(_botcopy, "_copy_tree", failing)
    with pytest.raises(BotStartError, match=r"^bot: cannot copy its folder: File name too long$"):
        _copy(folder)
    assert made and not os.path.exists(os.path.dirname(made[0]))


def test_a19b_a_sparse_file_stays_sparse_and_counts_its_data(tmp_path: Path) -> None:
    """Audit 19b: only data ranges are copied (a hole stays a hole), the size is kept,
    and the cap counts allocated bytes, so a 100 MB file of 8 KB data passes a 2 MB cap."""
    bot = tmp_path / "bot"
    bot.mkdir()
    with open(bot / "sparse.bin", "wb") as f:
        f.truncate(100 << 20)
        f.seek(50 << 20)
        f.write(b"x" * 8192)
    copy = FolderCopy.create("bot", [str(bot)], [])
    try:
        copied = Path(copy.copies[str(bot)]) / "sparse.bin"
        info = copied.stat()
        assert info.st_size == 100 << 20 and info.st_blocks * 512 < 1 << 20
        with open(copied, "rb") as f:
            f.seek((50 << 20) - 1)
            assert f.read(8194) == b"\0" + b"x" * 8192 + b"\0"
        assert copy.size.bytes < 1 << 20
    finally:
        copy.release()


def test_a19b_the_copied_bytes_are_capped_as_they_go(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Audit 19b: past the cap while copying (a file grew, or the file system
    under-reports its blocks) the copy stops with the cap's message, nothing left."""
    monkeypatch.setattr(_botcopy, "_check", lambda name, size: None)  # the count lied
    monkeypatch.setattr(_botcopy, "COPY_LIMIT_MB", 2)
    mine = f"{_leftovers.COPY_PREFIX}{_leftovers.owner_tag()}-"
    before = {n for n in os.listdir(tempfile.gettempdir()) if n.startswith(mine)}
    with pytest.raises(CopyTooLargeError, match=r"over 2 MB of data"):
        _copy(folder)
    after = {n for n in os.listdir(tempfile.gettempdir()) if n.startswith(mine)}
    assert after == before

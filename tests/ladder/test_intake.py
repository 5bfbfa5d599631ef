"""Intake (issue 22 item 2): every way an archive is refused, and what is stored when not.

Each hostile archive is built here, member by member (``tarfile.TarInfo`` types, raw zip
fields patched), so each refusal is checked on exactly the archive it names; and after
every refusal nothing is left under ``sources/``.
"""

from __future__ import annotations

import hashlib
import io
import os
import signal
import stat
import struct
import subprocess
import sys
import tarfile
import textwrap
import time
import zipfile
from pathlib import Path

import pytest

from arena.ladder import _intake
from arena.ladder._intake import IntakeLimits, Refused, pack_folder, store_submission

TOML = b'name = "bot"\nrun = "python bot.py"\n'
Entry = tuple[tarfile.TarInfo, bytes | None]


def member(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, **fields) -> Entry:
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, len(data) if kind == tarfile.REGTYPE else 0
    for key, value in fields.items():
        setattr(info, key, value)
    return info, data if kind == tarfile.REGTYPE else None


def tar_gz(*entries: Entry) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for info, data in entries:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return out.getvalue()


def zip_of(*entries: tuple[str, bytes], mode: int | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if mode is not None and name != "bot.toml":
                info.create_system, info.external_attr = 3, mode << 16
            archive.writestr(info, data)
    return out.getvalue()


def refused(data: bytes, name: str, root: Path, **limits: int) -> str:
    """The refusal's line; and nothing was unpacked into ``sources/``."""
    with pytest.raises(Refused) as caught:
        store_submission(data, name, root, IntakeLimits(**limits))
    assert not (root / "sources").exists() or not list((root / "sources").iterdir())
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_packed_folder_is_stored_by_hash_and_unpacked_as_it_was(tmp_path: Path) -> None:
    """pack_folder -> store_submission: the files, the executable bit, the hash's paths."""
    bot = tmp_path / "bot"
    (bot / "lib").mkdir(parents=True)
    (bot / "bot.toml").write_bytes(TOML)
    (bot / "lib" / "strategy.py").write_text("FOLD = 0\n")
    (bot / "run.sh").write_text("#!/bin/sh\n")
    (bot / "run.sh").chmod(0o700)
    data = pack_folder(bot)
    got = store_submission(data, "bot.tar.gz", tmp_path / "store")
    sha = hashlib.sha256(data).hexdigest()
    assert got.sha256 == sha
    assert got.archive == tmp_path / "store" / "archives" / f"{sha}.tar.gz"
    assert got.archive.read_bytes() == data
    assert got.folder == tmp_path / "store" / "sources" / sha
    assert (got.files, got.unpacked_bytes) == (3, len(TOML) + 9 + 10)
    assert (got.folder / "lib" / "strategy.py").read_text() == "FOLD = 0\n"
    assert stat.S_IMODE((got.folder / "run.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((got.folder / "bot.toml").stat().st_mode) == 0o644
    assert not list((tmp_path / "store" / "tmp").iterdir())


def test_pack_folder_is_deterministic_and_leaves_out_caches(tmp_path: Path) -> None:
    """The same folder gives the same bytes (times and owners are not packed)."""
    bot = tmp_path / "bot"
    for skipped in (".git", "__pycache__", ".venv", "node_modules", "src/__pycache__"):
        (bot / skipped).mkdir(parents=True)
        (bot / skipped / "junk").write_text("x")
    (bot / "bot.toml").write_bytes(TOML)
    first = pack_folder(bot)
    os.utime(bot / "bot.toml", (1, 1))
    assert pack_folder(bot) == first
    with tarfile.open(fileobj=io.BytesIO(first)) as tar:
        assert tar.getnames() == ["bot.toml", "src"]
        assert {(m.mtime, m.uid, m.gid, m.uname) for m in tar} == {(0, 0, 0, "")}


def test_the_same_bytes_twice_give_the_same_submission_without_unpacking(tmp_path, monkeypatch):
    data = tar_gz(member("bot.toml", TOML))
    first = store_submission(data, "bot.tgz", tmp_path)
    monkeypatch.setattr(_intake, "_extract", lambda *a: pytest.fail("unpacked again"))
    assert store_submission(data, "bot.tgz", tmp_path) == first


def test_one_top_level_folder_becomes_the_folder(tmp_path: Path) -> None:
    """A zip of the folder itself (bot/bot.toml), macOS's __MACOSX beside it left out."""
    data = zip_of(("mybot/bot.toml", TOML), ("mybot/bot.py", b""), ("__MACOSX/._bot.py", b"x"))
    got = store_submission(data, "mybot.zip", tmp_path)
    assert got.folder == tmp_path / "sources" / got.sha256 / "mybot"
    assert (got.folder / "bot.toml").read_bytes() == TOML
    assert not (got.folder.parent / "__MACOSX").exists()
    assert got.files == 2


def test_modes_owners_and_times_of_the_archive_are_not_trusted(tmp_path: Path) -> None:
    data = tar_gz(
        member("bot.toml", TOML, mode=0o4777, uid=12345, gid=12345, mtime=2),
        member("secret", b"s", mode=0o600),
    )
    got = store_submission(data, "bot.tar.gz", tmp_path)
    toml = (got.folder / "bot.toml").stat()
    assert stat.S_IMODE(toml.st_mode) == 0o755 and toml.st_uid == os.getuid()
    assert toml.st_mtime > time.time() - 3600
    assert stat.S_IMODE((got.folder / "secret").stat().st_mode) == 0o644


def test_over_the_packed_limit_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    assert "is 1,003 bytes, over the 10 bytes limit" in refused(
        b"PK\x03\x04" + bytes(999), "a.zip", tmp_path, packed_bytes=10
    )


def test_anything_but_a_zip_or_a_tar_gz_is_refused(tmp_path: Path) -> None:
    assert "send a .zip, .tar.gz or .tgz" in refused(b"Rar!\x1a\x07", "bot.rar", tmp_path)
    gz = tar_gz(member("bot.toml", TOML))
    assert "is not a zip archive" in refused(gz, "bot.zip", tmp_path)
    assert "is not a tar.gz archive" in refused(b"plain text", "bot.tar.gz", tmp_path)


def test_a_malformed_archive_is_one_line(tmp_path: Path) -> None:
    assert "is not a valid tar.gz archive" in refused(b"\x1f\x8b" + bytes(50), "b.tgz", tmp_path)
    assert "is not a valid zip archive" in refused(
        zip_of(("bot.toml", TOML))[:40], "b.zip", tmp_path
    )


def test_over_the_unpacked_limit_is_refused(tmp_path: Path) -> None:
    data = tar_gz(member("bot.toml", TOML), member("data.bin", os.urandom(5000)))
    assert "'data.bin' takes the unpacked folder over 4,000 bytes" in refused(
        data, "bot.tar.gz", tmp_path, unpacked_bytes=4000
    )


def test_a_tar_header_declaring_more_than_the_limit_is_refused_unread(tmp_path: Path) -> None:
    """300 MB declared (in the pax header), none of it there: refused from the header."""
    info = tarfile.TarInfo("huge.bin")
    info.size = 300_000_000
    data = tar_gz(member("bot.toml", TOML), (info, None))
    assert "'huge.bin' takes the unpacked folder over 200.0 MB" in refused(data, "b.tgz", tmp_path)


def test_a_tar_member_running_past_the_archive_end_is_refused(tmp_path: Path) -> None:
    """Its header says 50 kB; the archive ends (zero blocks, padding) 10 kB later."""
    info = tarfile.TarInfo("short.bin")
    info.size = 50_000
    data = tar_gz(member("bot.toml", TOML), (info, None))
    assert "is not a valid tar.gz archive" in refused(data, "b.tgz", tmp_path)


def test_a_zip_member_larger_than_its_header_says_is_not_unpacked(tmp_path: Path) -> None:
    """The central directory and the local header say 10 bytes; the data inflates to 1 MB."""
    data = bytearray(zip_of(("bot.toml", TOML), ("big.bin", os.urandom(1 << 20))))
    central = data.index(b"PK\x01\x02big.bin"[:4], data.index(b"PK\x01\x02") + 1)
    local = data.index(b"PK\x03\x04", 1)
    struct.pack_into("<I", data, local + 22, 10)
    struct.pack_into("<I", data, central + 24, 10)
    assert "is not a valid zip archive" in refused(bytes(data), "b.zip", tmp_path)


def test_a_zip_bomb_is_refused(tmp_path: Path) -> None:
    """50 MB of zeros deflated to about 50 kB: over the ratio of 100."""
    data = zip_of(("bot.toml", TOML), ("zeros.bin", bytes(50_000_000)))
    assert "'zeros.bin' expands more than 100 times" in refused(data, "bomb.zip", tmp_path)


def test_a_tar_gz_bomb_is_refused_while_it_is_read(tmp_path: Path) -> None:
    data = tar_gz(member("bot.toml", TOML), member("zeros.bin", bytes(50_000_000)))
    assert "expands more than 100 times" in refused(data, "bomb.tar.gz", tmp_path)


def test_too_many_members_are_refused(tmp_path: Path) -> None:
    entries = [member("bot.toml", TOML)] + [member(f"f{i}", b"") for i in range(5)]
    assert "more than 5 members" in refused(tar_gz(*entries), "b.tgz", tmp_path, members=5)
    files = [("bot.toml", TOML)] + [(f"f{i}", b"") for i in range(5)]
    assert "more than 5 members" in refused(zip_of(*files), "b.zip", tmp_path, members=5)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("../x", "member '../x' is outside the folder"),
        ("a/../../x", "is outside the folder"),
        ("/etc/cron.d/x", "member '/etc/cron.d/x' is an absolute path"),
        ("C:/x", "is an absolute path"),
        ("a\\..\\x", "has a backslash"),
        ("a\x1b[2Jb", "has a control character"),
    ],
)
def test_a_member_outside_the_folder_is_refused(tmp_path: Path, name: str, why: str) -> None:
    assert why in refused(tar_gz(member("bot.toml", TOML), member(name, b"x")), "b.tgz", tmp_path)
    assert why in refused(zip_of(("bot.toml", TOML), (name, b"x")), "b.zip", tmp_path)


@pytest.mark.parametrize(
    ("kind", "why"),
    [
        (tarfile.SYMTYPE, "member 'link' is a symlink"),
        (tarfile.LNKTYPE, "member 'link' is a hard link"),
        (tarfile.FIFOTYPE, "member 'link' is a FIFO"),
        (tarfile.CHRTYPE, "member 'link' is a device"),
        (tarfile.BLKTYPE, "member 'link' is a device"),
        (tarfile.GNUTYPE_SPARSE, "member 'link' is not a plain file or folder"),
    ],
)
def test_a_tar_link_device_or_fifo_is_refused(tmp_path: Path, kind: bytes, why: str) -> None:
    data = tar_gz(member("bot.toml", TOML), member("link", kind=kind, linkname="/etc/passwd"))
    assert why in refused(data, "b.tgz", tmp_path)


@pytest.mark.parametrize(
    ("mode", "why"),
    [
        (stat.S_IFLNK | 0o777, "is a symlink"),
        (stat.S_IFCHR | 0o666, "is a device"),
        (stat.S_IFIFO | 0o666, "is a FIFO"),
    ],
)
def test_a_zip_link_device_or_fifo_is_refused(tmp_path: Path, mode: int, why: str) -> None:
    data = zip_of(("bot.toml", TOML), ("link", b"/etc/passwd"), mode=mode)
    assert f"member 'link' {why}" in refused(data, "b.zip", tmp_path)


def test_no_bot_toml_is_refused(tmp_path: Path) -> None:
    assert "no bot.toml" in refused(tar_gz(member("bot.py", b"")), "b.tgz", tmp_path)
    two = zip_of(("a/bot.toml", TOML), ("b/bot.toml", TOML))
    assert "no bot.toml" in refused(two, "b.zip", tmp_path)
    deep = zip_of(("a/b/bot.toml", TOML))
    assert "no bot.toml" in refused(deep, "b.zip", tmp_path)


def test_duplicate_members_are_refused(tmp_path: Path) -> None:
    twice = tar_gz(member("bot.toml", TOML), member("./bot.toml", b"other"))
    assert "member './bot.toml' is in the archive twice" in refused(twice, "b.tgz", tmp_path)
    under = tar_gz(member("bot.toml", TOML), member("a", b""), member("a/b", b""))
    assert "member 'a/b' is inside the file 'a'" in refused(under, "b.tgz", tmp_path)
    over = tar_gz(member("bot.toml", TOML), member("a/b", b""), member("a", b""))
    assert "member 'a' is in the archive twice" in refused(over, "b.tgz", tmp_path)


def test_an_extraction_that_fails_midway_leaves_no_folder(tmp_path, monkeypatch) -> None:
    data = tar_gz(member("bot.toml", TOML), member("a", b"1"), member("b", b"2"))
    real, calls = _intake._copy, []

    def failing(*args):
        calls.append(args)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(*args)

    monkeypatch.setattr(_intake, "_copy", failing)
    assert "No space left on device" in refused(data, "b.tgz", tmp_path)
    assert not list((tmp_path / "tmp").iterdir())
    monkeypatch.setattr(_intake, "_copy", real)
    assert (store_submission(data, "b.tgz", tmp_path).folder / "b").read_bytes() == b"2"


KILLED = """
import sys, time
from pathlib import Path
from arena.ladder import _intake
real = _intake._copy
def slow(*args):
    real(*args)
    print("wrote", flush=True)
    time.sleep(60)
_intake._copy = slow
_intake.store_submission(Path(sys.argv[1]).read_bytes(), "b.tgz", Path(sys.argv[2]))
"""


def test_kill_9_mid_extract_leaves_no_half_folder_under_sources(tmp_path: Path) -> None:
    """A real kill -9 after the first file: sources/ stays empty, and the next try works."""
    data = tar_gz(member("bot.toml", TOML), member("a", b"1"))
    (tmp_path / "upload.tgz").write_bytes(data)
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(KILLED),
            str(tmp_path / "upload.tgz"),
            str(tmp_path / "store"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "wrote\n"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    assert list((tmp_path / "store" / "sources").iterdir()) == []
    got = store_submission(data, "b.tgz", tmp_path / "store")
    assert (got.folder / "a").read_bytes() == b"1"


def test_pack_folder_refuses_links_fifos_and_a_folder_without_bot_toml(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    with pytest.raises(Refused, match=r"no bot\.toml in the folder"):
        pack_folder(bot)
    (bot / "bot.toml").write_bytes(TOML)
    (bot / "key").symlink_to("/etc/passwd")
    with pytest.raises(Refused, match=f"{bot / 'key'} is a symlink"):
        pack_folder(bot)
    (bot / "key").unlink()
    os.mkfifo(bot / "pipe")
    with pytest.raises(Refused, match=f"{bot / 'pipe'} is a device, FIFO or socket"):
        pack_folder(bot)


def test_pack_folder_refuses_a_folder_over_the_packed_limit(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_bytes(TOML)
    (tmp_path / "weights.bin").write_bytes(os.urandom(50_000))
    with pytest.raises(Refused, match="over the 10,000 bytes limit"):
        pack_folder(tmp_path, IntakeLimits(packed_bytes=10_000))

"""Intake (issue 22 item 2): a team's archive checked, stored by content hash, unpacked.

An archive comes from a stranger, so nothing in it is trusted: every member is checked
from its header (name, type, declared size) before anything is written, and the bytes
are counted again while they are written, so a header that lies cannot pass. Only plain
files and folders are made (0644, or 0755 for an executable), never a link, and never
with the archive's owners or times. The folder is unpacked into a temporary folder under
``root`` and renamed into ``root/sources/<sha256>`` at once: a kill -9 mid-extract
leaves no half folder there. Pure: no database, no network.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import shutil
import stat
import struct
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

MB = 1_000_000
_CHUNK = 1 << 20
_SKIPPED_TOP = "__MACOSX"  # the resource forks macOS's "Compress" adds beside the folder
PACK_SKIPPED = frozenset({".git", "__pycache__", ".venv", "node_modules"})
"""Folders :func:`pack_folder` leaves out (at any depth): history, caches, environments."""


@dataclass(frozen=True)
class IntakeLimits:
    """What one archive may hold: the issue's numbers (20 MB, 200 MB, 10,000, 100).

    ``ratio`` is uncompressed over compressed, for the whole archive and for each zip
    member; sizes under ``ratio_floor_bytes`` are never a bomb (a tiny tar of zero-padded
    blocks compresses beyond 100 honestly).
    """

    packed_bytes: int = 20 * MB
    unpacked_bytes: int = 200 * MB
    members: int = 10_000
    ratio: int = 100
    ratio_floor_bytes: int = 1 << 20


class Refused(Exception):
    """An archive or a folder not taken, as one line for its team (naming the member)."""


@dataclass(frozen=True)
class Submission:
    """A stored archive: its hash, where it is kept, and its unpacked bot folder."""

    sha256: str
    archive: Path
    folder: Path
    files: int
    unpacked_bytes: int


@dataclass(frozen=True)
class _Member:
    """One checked member: its path parts, and for a file its size and executable bit."""

    parts: tuple[str, ...]
    is_dir: bool
    size: int
    executable: bool


@dataclass(frozen=True)
class _Plan:
    members: tuple[_Member, ...]
    top: str | None  # the one top-level folder that holds bot.toml, if not at the top
    files: int
    unpacked_bytes: int


def _mb(size: int) -> str:
    return f"{size / MB:.1f} MB" if size >= 100_000 else f"{size:,} bytes"


def _kind(data: bytes, filename: str) -> str:
    """``zip`` or ``tar.gz``, from the bytes; the name must say the same."""
    lower = filename.lower()
    named = {lower.endswith(".zip"): "zip", lower.endswith((".tar.gz", ".tgz")): "tar.gz"}
    if True not in named:
        raise Refused(f"{filename!r}: send a .zip, .tar.gz or .tgz of the bot folder")
    magic = {data[:4] in (b"PK\x03\x04", b"PK\x05\x06"): "zip", data[:2] == b"\x1f\x8b": "tar.gz"}
    found = magic.get(True)
    if found != named[True]:
        raise Refused(f"{filename!r} is not a {named[True]} archive (its bytes are not one)")
    return found


def _parts(name: str) -> tuple[str, ...]:
    """A member's path as parts, refusing one that could land outside the folder."""
    if any(ord(char) < 32 or char == "\x7f" for char in name):
        raise Refused(f"member {name!r} has a control character in its name")
    if "\\" in name:
        raise Refused(f"member {name!r} has a backslash in its name (use /)")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise Refused(f"member {name!r} is an absolute path")
    parts = tuple(part for part in name.split("/") if part not in ("", "."))
    if ".." in parts:
        raise Refused(f"member {name!r} is outside the folder")
    return parts


class _Counter:
    """Counts members and bytes against the limits as each header is read."""

    def __init__(self, limits: IntakeLimits) -> None:
        self.limits = limits
        self.count = 0
        self.total = 0

    def add(self, name: str, size: int) -> None:
        self.count += 1
        if self.count > self.limits.members:
            raise Refused(f"more than {self.limits.members} members in the archive")
        self.total += size
        if size < 0 or self.total > self.limits.unpacked_bytes:
            raise Refused(
                f"member {name!r} takes the unpacked folder over {_mb(self.limits.unpacked_bytes)}"
            )


def _zip_member(info: zipfile.ZipInfo, limits: IntakeLimits) -> _Member:
    name = info.filename
    mode = info.external_attr >> 16 if info.create_system == 3 else 0
    kind = stat.S_IFMT(mode)
    if kind == stat.S_IFLNK:
        raise Refused(f"member {name!r} is a symlink")
    if kind in (stat.S_IFCHR, stat.S_IFBLK):
        raise Refused(f"member {name!r} is a device")
    if kind in (stat.S_IFIFO, stat.S_IFSOCK):
        raise Refused(f"member {name!r} is a FIFO or a socket")
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise Refused(f"member {name!r} is not a plain file or folder")
    if info.flag_bits & 0x1:
        raise Refused(f"member {name!r} is encrypted")
    bomb = info.file_size > max(limits.ratio * info.compress_size, limits.ratio_floor_bytes)
    if bomb:
        raise Refused(
            f"member {name!r} expands more than {limits.ratio} times "
            f"({info.compress_size} bytes to {info.file_size}): a zip bomb?"
        )
    is_dir = _zip_is_dir(info)
    return _Member(_parts(name), is_dir, 0 if is_dir else info.file_size, bool(mode & 0o111))


def _zip_is_dir(info: zipfile.ZipInfo) -> bool:
    return info.is_dir() or (info.create_system == 3 and stat.S_ISDIR(info.external_attr >> 16))


def _tar_member(info: tarfile.TarInfo) -> _Member:
    name = info.name
    if info.issym():
        raise Refused(f"member {name!r} is a symlink")
    if info.islnk():
        raise Refused(f"member {name!r} is a hard link")
    if info.ischr() or info.isblk():
        raise Refused(f"member {name!r} is a device")
    if info.isfifo():
        raise Refused(f"member {name!r} is a FIFO")
    if info.issparse() or not (info.isreg() or info.isdir()):
        raise Refused(f"member {name!r} is not a plain file or folder")
    size = 0 if info.isdir() else info.size
    return _Member(_parts(name), info.isdir(), size, bool(info.mode & 0o111))


class _Capped(io.RawIOBase):
    """A decompressed stream that refuses to be read or skipped past ``cap`` bytes."""

    def __init__(self, raw: io.BufferedIOBase, cap: int, refusal: str) -> None:
        self._raw, self._cap, self._refusal = raw, cap, refusal

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]  # io's buffer type
        room = self._cap + 1 - self._raw.tell()
        view = memoryview(buffer)[: max(0, min(len(buffer), room))]
        data = self._raw.read(len(view))
        view[: len(data)] = data
        if self._raw.tell() > self._cap:
            raise Refused(self._refusal)
        return len(data)

    def seek(self, offset: int, whence: int = 0) -> int:
        target = offset + (self._raw.tell() if whence == 1 else 0)
        if whence == 2 or target > self._cap:  # tarfile skips a member's data by seeking
            raise Refused(self._refusal)
        return self._raw.seek(target)

    def tell(self) -> int:
        return self._raw.tell()


def _open_tar(data: bytes, limits: IntakeLimits) -> tarfile.TarFile:
    """The archive's tar, read through a stream capped by the ratio and the unpacked size."""
    by_ratio = max(limits.ratio * len(data), limits.ratio_floor_bytes)
    by_size = limits.unpacked_bytes + 1536 * (limits.members + 1) + 20480  # headers too
    refusal = (
        f"the archive expands more than {limits.ratio} times: a compression bomb?"
        if by_ratio <= by_size
        else f"the unpacked folder is over {_mb(limits.unpacked_bytes)}"
    )
    stream = _Capped(gzip.GzipFile(fileobj=io.BytesIO(data)), min(by_ratio, by_size), refusal)
    return tarfile.open(fileobj=io.BufferedReader(stream, _CHUNK), mode="r:")


def _tar_entries(tar: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    """Each header in turn, checked by the caller before the next is read (and seeked to)."""
    while (info := tar.next()) is not None:
        yield info


def _plan(entries: Iterator[tuple[str, int, _Member]], limits: IntakeLimits) -> _Plan:
    """Every member checked: count, sizes, duplicates, files under files; the folder found."""
    counter = _Counter(limits)
    seen: dict[tuple[str, ...], bool] = {}  # path -> is a folder (named or implied)
    members = []
    for name, size, member in entries:
        counter.add(name, size)
        if not member.parts:
            continue  # "./": the folder itself
        if member.parts in seen and not (member.is_dir and seen[member.parts]):
            raise Refused(f"member {name!r} is in the archive twice")
        for depth in range(1, len(member.parts)):
            parent = member.parts[:depth]
            if seen.setdefault(parent, True) is False:
                raise Refused(f"member {name!r} is inside the file {'/'.join(parent)!r}")
        seen[member.parts] = member.is_dir
        if member.parts[0] != _SKIPPED_TOP:
            members.append(member)
    files = sum(not m.is_dir for m in members)
    return _Plan(tuple(members), _top(members), files, sum(m.size for m in members))


def _top(members: list[_Member]) -> str | None:
    """``None`` if bot.toml is at the top, else the one top-level folder holding it."""
    files = {m.parts for m in members if not m.is_dir}
    if ("bot.toml",) in files:
        return None
    tops = {m.parts[0] for m in members}
    if len(tops) == 1:
        (top,) = tops
        if (top, "bot.toml") in files:
            return top
    raise Refused("no bot.toml at the top of the archive (or in its one top-level folder)")


def _zip_plan(data: bytes, limits: IntakeLimits) -> _Plan:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
        if len(infos) > limits.members:
            raise Refused(f"more than {limits.members} members in the archive")
        plan = _plan(((i.filename, i.file_size, _zip_member(i, limits)) for i in infos), limits)
        declared = sum(info.file_size for info in infos)  # members may overlap in a bomb
        if declared > max(limits.ratio * len(data), limits.ratio_floor_bytes):
            raise Refused(f"the archive expands more than {limits.ratio} times: a zip bomb?")
        return plan


def _tar_plan(data: bytes, limits: IntakeLimits) -> _Plan:
    with _open_tar(data, limits) as tar:
        entries = ((i.name, max(i.size, 0), _tar_member(i)) for i in _tar_entries(tar))
        return _plan(entries, limits)


def _copy(source: IO[bytes], target: Path, member: _Member, name: str, budget: list[int]) -> None:
    """Write at most the declared size; more, or past the whole budget, is refused."""
    mode = 0o755 if member.executable else 0o644
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    with os.fdopen(fd, "wb") as out:
        os.fchmod(out.fileno(), mode)  # the umask does not decide a bot's modes
        written = 0
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            budget[0] -= len(chunk)
            if written > member.size or budget[0] < 0:
                raise Refused(f"member {name!r} holds more than its header says")
            out.write(chunk)
        if written != member.size:
            raise Refused(f"member {name!r} holds less than its header says")


def _make_dirs(base: Path, parts: tuple[str, ...]) -> Path:
    path = base
    for part in parts:
        path = path / part
        if not path.is_dir():
            path.mkdir(mode=0o755)
            path.chmod(0o755)
    return path


def _extract(
    plan: _Plan, opener: Callable[[], Iterator[tuple[str, IO[bytes] | None]]], into: Path
) -> None:
    """Write each planned member (the opener yields them again, in the same order)."""
    budget = [plan.unpacked_bytes]
    planned = iter(plan.members)
    for name, source in opener():
        parts = _parts(name)
        if not parts or parts[0] == _SKIPPED_TOP:
            continue
        member = next(planned)
        if member.parts != parts:
            raise Refused(f"member {name!r} changed between two readings")
        if member.is_dir:
            _make_dirs(into, parts)
            continue
        target = _make_dirs(into, parts[:-1]) / parts[-1]
        if not target.resolve().is_relative_to(into.resolve()):
            raise Refused(f"member {name!r} is outside the folder")
        assert source is not None
        _copy(source, target, member, name, budget)


def _zip_opener(data: bytes) -> Callable[[], Iterator[tuple[str, IO[bytes] | None]]]:
    def members() -> Iterator[tuple[str, IO[bytes] | None]]:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                if _zip_is_dir(info):
                    yield info.filename, None
                else:
                    with archive.open(info) as source:
                        yield info.filename, source

    return members


def _tar_opener(
    data: bytes, limits: IntakeLimits
) -> Callable[[], Iterator[tuple[str, IO[bytes] | None]]]:
    def members() -> Iterator[tuple[str, IO[bytes] | None]]:
        with _open_tar(data, limits) as tar:
            for info in _tar_entries(tar):
                _tar_member(info)
                yield info.name, (tar.extractfile(info) if info.isreg() else None)

    return members


_MALFORMED = (
    zipfile.BadZipFile,
    tarfile.TarError,
    zlib.error,
    EOFError,
    gzip.BadGzipFile,
    NotImplementedError,  # a zip compression method the stdlib lacks
    ValueError,
    struct.error,
)
"""What a damaged archive raises from zipfile, tarfile and gzip: one line, no traceback."""


def _unpack(
    plan: _Plan, kind: str, data: bytes, root: Path, sha: str, limits: IntakeLimits
) -> None:
    """Extract into a temporary folder under ``root``, then rename it into sources/."""
    final = root / "sources" / sha
    if final.is_dir():
        return
    work = Path(tempfile.mkdtemp(prefix=f"unpack-{sha[:12]}-", dir=root / "tmp"))
    try:
        opener = _zip_opener(data) if kind == "zip" else _tar_opener(data, limits)
        _extract(plan, opener, work)
        work.chmod(0o755)
        try:
            work.rename(final)
        except OSError:
            if not final.is_dir():  # not a twin upload that got there first
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _store_archive(data: bytes, path: Path, root: Path) -> None:
    """Write the archive once, atomically and durably (an accepted upload survives a crash)."""
    if path.is_file() and path.stat().st_size == len(data):
        return
    fd, temporary = tempfile.mkstemp(prefix="archive-", dir=root / "tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def store_submission(
    data: bytes, filename: str, root: Path, limits: IntakeLimits = IntakeLimits()
) -> Submission:
    """Check ``data`` (a .zip or .tar.gz of a bot folder), store it by hash and unpack it.

    Raises :class:`Refused` with one line for the team; the same bytes twice give the
    same :class:`Submission` without unpacking again.
    """
    if len(data) > limits.packed_bytes:
        raise Refused(f"the archive is {_mb(len(data))}, over the {_mb(limits.packed_bytes)} limit")
    kind = _kind(data, filename)
    try:
        plan = _zip_plan(data, limits) if kind == "zip" else _tar_plan(data, limits)
    except _MALFORMED as error:
        raise Refused(f"{filename!r} is not a valid {kind} archive: {error}") from None
    sha = hashlib.sha256(data).hexdigest()
    for part in ("archives", "sources", "tmp"):
        (root / part).mkdir(parents=True, exist_ok=True)
    archive = root / "archives" / f"{sha}.{kind}"
    try:
        _store_archive(data, archive, root)
        _unpack(plan, kind, data, root, sha, limits)
    except _MALFORMED as error:
        raise Refused(f"{filename!r} is not a valid {kind} archive: {error}") from None
    except OSError as error:
        raise Refused(f"{filename!r} cannot be unpacked: {error.strerror or error}") from None
    folder = root / "sources" / sha
    return Submission(
        sha, archive, folder / plan.top if plan.top else folder, plan.files, plan.unpacked_bytes
    )


class _CappedWriter(io.BytesIO):
    """The packed bytes, refused as soon as they pass the packed limit."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self._limit = limit

    def write(self, data: bytes) -> int:  # type: ignore[override]  # bytes are all gzip writes
        if self.tell() + len(data) > self._limit:
            raise Refused(
                f"the packed folder is over the {_mb(self._limit)} limit of the ladder "
                "(leave data and build outputs out of it)"
            )
        return super().write(data)


def _walk(folder: Path, prefix: str = "") -> Iterator[tuple[Path, str, os.stat_result]]:
    """Every folder and file under ``folder``, sorted, never through a link."""
    for entry in sorted(os.scandir(folder), key=lambda entry: entry.name):
        path, name = Path(entry.path), f"{prefix}{entry.name}"
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            raise Refused(f"{path} is a symlink (the ladder takes plain files only)")
        if stat.S_ISDIR(info.st_mode):
            if entry.name in PACK_SKIPPED:
                continue
            yield path, name, info
            yield from _walk(path, f"{name}/")
        elif stat.S_ISREG(info.st_mode):
            yield path, name, info
        else:
            raise Refused(f"{path} is a device, FIFO or socket (the ladder takes plain files only)")


def pack_folder(folder: Path, limits: IntakeLimits = IntakeLimits()) -> bytes:
    """The bot folder as a deterministic tar.gz (what ``arena submit`` uploads).

    Sorted, mtime 0, owner 0, modes 0644/0755: the same folder gives the same bytes,
    so the same hash on the ladder. Leaves out ``.git``, ``__pycache__``, ``.venv`` and
    ``node_modules``; refuses a link, a device or a FIFO, a folder without bot.toml,
    and a result over the packed limit, before anything is sent.
    """
    toml = folder / "bot.toml"
    if not (toml.is_file() or toml.is_symlink()):
        raise Refused(f"{folder}: no bot.toml in the folder")
    out = _CappedWriter(limits.packed_bytes)
    try:
        with (
            gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as packed,
            tarfile.open(fileobj=packed, mode="w", format=tarfile.PAX_FORMAT) as tar,
        ):
            for path, name, info in _walk(folder):
                member = tarfile.TarInfo(name)
                member.mtime, member.uid, member.gid, member.uname, member.gname = 0, 0, 0, "", ""
                if stat.S_ISDIR(info.st_mode):
                    member.type, member.mode = tarfile.DIRTYPE, 0o755
                    tar.addfile(member)
                    continue
                member.mode = 0o755 if info.st_mode & 0o111 else 0o644
                member.size = info.st_size
                with path.open("rb") as source:
                    tar.addfile(member, source)
    except OSError as error:
        raise Refused(
            f"{error.filename or folder}: cannot read: {error.strerror or error}"
        ) from None
    return out.getvalue()

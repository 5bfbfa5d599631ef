"""Bot folders (issue 13 item 4): a folder with a ``bot.toml`` manifest is a bot.

The manifest says how to build and run the bot::

    name = "my-bot"                 # optional: the bot's name (else the folder's)
    lang = "cpp"                    # optional: python, node, cpp, go, java or other
    build = ["cmake -S . -B build", "cmake --build build"]   # optional, run in order
    output = "build/bot"            # what the build makes: rebuilt when missing or stale
    sources = ["*.cpp", "*.proto"]  # optional: what output is compared with
    run = "build/bot"               # the command; {python} is the arena's interpreter
    requires = "node"               # optional: skip the bot where this is not on PATH
    network = true                  # optional: the build may download (npm ci)

A folder bot is a ``command`` bot whose command runs in (and whose sandbox mounts) its
folder; :attr:`BotSpec.folder` remembers the folder, so a worker process re-reads the
manifest rather than trusting a copy. The manifest is a student's file: every key is
checked and a wrong one is one line naming the file and the key. The build steps are a
student's commands too: they run without a shell in the bots' sandbox
(:mod:`arena.sandbox._buildbox`: the folder read-write and nothing else of the machine's
files, loopback only unless ``network = true``, one time and output budget).
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import shlex
import stat
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.dealer import BuildFailed, BuildLimits, build_layer, find_special_file, run_build

MANIFEST = "bot.toml"
"""The manifest's file name in a bot folder."""

LANGS = ("python", "node", "cpp", "go", "java", "other")
BUILD_LOG = ".arena-build.log"
MANIFEST_BYTES = 64 * 1024
"""The largest ``bot.toml`` read (a manifest is a few lines)."""
"""Where a folder's build writes its output (in the folder)."""
BUILD_LIMITS = BuildLimits()
"""One folder's build budget (all its steps): 900 s, 8 MiB of output."""

MAX_SOURCES = 100_000
"""The most files a staleness check looks at."""
MAX_DEPTH = 64
"""The deepest folder level a staleness check looks into."""

_KEYS = ("name", "lang", "build", "output", "sources", "run", "requires", "network")
_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,64}\Z")  # arena.tournament._bots.NAME
_SKIP = {"build", "node_modules", "__pycache__"}


class ManifestError(ValueError):
    """A manifest that cannot be used: ``str()`` is one line naming the file and key."""


class BuildError(RuntimeError):
    """A folder bot whose build failed: ``str()`` is one line naming the log."""


@dataclass(frozen=True)
class Manifest:
    """A checked ``bot.toml``; ``folder`` is absolute."""

    folder: Path
    name: str | None
    lang: str
    run: str
    build: tuple[str, ...] = ()
    output: str | None = None
    sources: tuple[str, ...] = ()
    requires: str | None = None
    network: bool = False

    @property
    def path(self) -> Path:
        return self.folder / MANIFEST


def load_manifest(folder: str | os.PathLike[str]) -> Manifest:
    """Read and check ``FOLDER/bot.toml``; raises :class:`ManifestError`."""
    root = Path(folder).expanduser().resolve()
    path = root / MANIFEST
    if not root.is_dir():
        raise ManifestError(f"{folder}: not a folder")
    try:
        data = tomllib.loads(_read_manifest(path))
    except FileNotFoundError:
        raise ManifestError(f"{path}: missing: a bot folder needs a {MANIFEST}") from None
    except OSError as error:
        raise ManifestError(f"{path}: cannot read: {error.strerror}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ManifestError(f"{path}: invalid TOML: {error}") from None
    except RecursionError:  # arrays nested thousands deep
        raise ManifestError(f"{path}: invalid TOML: nested too deeply") from None
    return _check(root, path, data)


def _read_manifest(path: Path) -> str:
    """The manifest's text: a regular file in the folder itself (never a link a student
    planted to a file elsewhere), at most ``MANIFEST_BYTES``."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise ManifestError(f"{path}: not a regular file")
        data = file.read(MANIFEST_BYTES + 1)
    if len(data) > MANIFEST_BYTES:
        raise ManifestError(f"{path}: larger than {MANIFEST_BYTES // 1024} KiB")
    return data.decode("utf-8")


def _check(root: Path, path: Path, data: dict[str, Any]) -> Manifest:
    def fail(key: str, problem: str) -> ManifestError:
        return ManifestError(f"{path}: {key}: {problem}")

    for key in data:
        if key not in _KEYS:
            raise fail(key, f"unknown key; expected one of {', '.join(_KEYS)}")

    def text(key: str, required: bool = False) -> str | None:
        value = data.get(key)
        if value is None:
            if required:
                raise fail(key, "missing: the command that starts the bot")
            return None
        if not isinstance(value, str) or not value.strip():
            raise fail(key, f"must be a non-empty string, got {value!r}")
        return value

    def texts(key: str) -> tuple[str, ...]:
        value = data.get(key, [])
        value = [value] if isinstance(value, str) else value
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise fail(key, "must be a string or an array of non-empty strings")
        return tuple(value)

    name = text("name")
    if name is not None and not _NAME.match(name):
        raise fail("name", f"{name!r} is not a bot name: 1-64 characters from A-Z a-z 0-9 _ . -")
    lang = text("lang") or "other"
    if lang not in LANGS:
        raise fail("lang", f"{lang!r} is not one of {', '.join(LANGS)}")
    run = text("run", required=True)
    assert run is not None
    build = texts("build")
    for key, commands in (("run", (run,)), ("build", build)):
        for command in commands:
            try:
                if not shlex.split(command):
                    raise fail(key, "a command is empty")
            except ValueError as error:
                raise fail(key, f"cannot parse {command!r}: {error}") from None
    output = text("output")
    if output is not None and not _within(root, root / output):
        raise fail("output", f"{output!r} is outside the bot's folder")
    requires = text("requires")
    sources = texts("sources")
    for pattern in sources:
        if Path(pattern).is_absolute() or ".." in Path(pattern).parts:
            raise fail("sources", f"{pattern!r} is not a pattern inside the bot's folder")
    network = data.get("network", False)
    if not isinstance(network, bool):
        raise fail("network", f"must be true or false, got {network!r}")
    return Manifest(root, name, lang, run, build, output, sources, requires, network)


def outside_folder(argv: Sequence[str], folder: Path) -> str | None:
    """Why a folder bot's command reaches outside its folder, or None.

    The launcher mounts the folder of each file the command names, found through links:
    a link a student (or their build) left, ``ref -> ../bob/bot.py``, would mount another
    student's folder in this bot's sandbox (audit). So every argument naming an existing
    path must lead, links followed, into the folder; only a program found on PATH and
    the arena's interpreter may lie elsewhere.
    """
    root = folder.resolve()
    for index, arg in enumerate(argv):
        if (index == 0 and "/" not in arg) or arg == sys.executable:
            continue
        candidate = Path(arg) if os.path.isabs(arg) else root / arg
        if os.path.lexists(candidate) and not _within(root, candidate):
            return f"its command's {arg!r} leads outside its folder {root}"
    return None


def _within(root: Path, path: Path) -> bool:
    resolved = path.resolve()
    return resolved == root or root in resolved.parents


def _sources(manifest: Manifest) -> list[Path]:
    """The folder's source files: one walk that follows no link to a folder (links to
    ``.`` made a glob of ``*/*/*/*.cpp`` run for minutes, audit) and stops after
    ``MAX_SOURCES`` files; ``sources`` patterns match paths relative to the folder."""
    root, found = manifest.folder, []
    patterns = [p.removeprefix("./") for p in manifest.sources]
    for dirpath, dirnames, filenames in os.walk(root):
        if len(Path(dirpath).relative_to(root).parts) >= MAX_DEPTH:
            dirnames[:] = []  # no deeper: os.walk recurses, and a build may nest 1,000 deep
        if not patterns:
            dirnames[:] = [d for d in dirnames if d not in _SKIP and not d.startswith(".")]
            filenames = [f for f in filenames if not f.startswith(".")]
        for name in filenames:
            path = Path(dirpath) / name
            relative = path.relative_to(root).as_posix()
            if not patterns or any(_matches(relative, p) for p in patterns):
                found.append(path)
        if len(found) >= MAX_SOURCES:
            break
    return found


def special_file_problem(folder: Path) -> str | None:
    """Why a folder bot must not start because of a FIFO, socket or device file in its
    folder (every instance mounts the folder, and a read-only mount still lets two of
    them talk through a FIFO), or None. Checked at each launch, workers' too."""
    try:
        special = find_special_file(folder)
    except OSError as error:  # a TreeError: too deep or unreadable to check whole
        return f"cannot be checked for FIFOs: {error}"
    if special is None:
        return None
    return f"holds {special!r}, a FIFO, socket or device file (a channel between the bot's instances): remove it"


def _matches(relative: str, pattern: str) -> bool:
    """``pattern`` (``*`` may cross folders) matches ``relative``; ``**/`` may match none."""
    return fnmatch.fnmatchcase(relative, pattern) or (
        pattern.startswith("**/") and fnmatch.fnmatchcase(relative, pattern[3:])
    )


def needs_build(manifest: Manifest) -> bool:
    """Whether the build must run: its output is missing or older than a source (a
    manifest with a build and no output always builds)."""
    if not manifest.build:
        return False
    if manifest.output is None:
        return True
    target = manifest.folder / manifest.output
    try:
        built = target.stat().st_mtime
    except OSError:
        return True
    return any(_mtime(source) > built for source in _sources(manifest))


def _mtime(path: Path) -> float:
    """When ``path`` changed; 0 for an entry that cannot be read (a dangling or looping
    link a student left), which then never asks for a build."""
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def build_folder(
    manifest: Manifest, *, force: bool = False, hidden: Sequence[str | os.PathLike[str]] = ()
) -> str | None:
    """Run the manifest's build if needed (or ``force``) in the sandbox; the layer it ran
    at (``L1``, or ``L0`` where bubblewrap does not work), or None if it did not run.

    Each command runs in the folder without a shell; everything it prints goes to
    ``FOLDER/.arena-build.log``. ``hidden``: paths masked should they lie in the folder
    (records, the database, other bots). Raises :class:`BuildError` naming the log, or
    naming a FIFO, socket or device file in the folder (with or without a build: every
    instance of the bot mounts the folder, and a read-only mount still lets them talk
    through a FIFO).
    """
    special = special_file_problem(manifest.folder)
    if special is not None:
        raise BuildError(f"{manifest.folder}: {special}")
    if not manifest.build or not (force or needs_build(manifest)):
        return None
    log_path = manifest.folder / BUILD_LOG
    try:  # a fresh file: never through a link planted in the folder's place of the log
        with contextlib.suppress(FileNotFoundError):
            log_path.unlink()
        fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except OSError as error:
        raise BuildError(f"{manifest.folder}: cannot write {BUILD_LOG}: {error.strerror}") from None
    layer = build_layer()
    steps = [shlex.split(command) for command in manifest.build]
    with os.fdopen(fd, "wb") as log:
        try:
            run_build(
                steps,
                manifest.folder,
                log,
                layer=layer,
                network=manifest.network,
                hidden=hidden,
                limits=BUILD_LIMITS,
            )
        except BuildFailed as error:
            step = (
                f"build step {manifest.build[error.step]!r}" if error.step is not None else "build"
            )
            problem = f"{manifest.folder}: {step} {error}; see {log_path}"
            raise BuildError(problem) from None
    return layer

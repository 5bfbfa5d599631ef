"""The Go and Java bots of ``arena new-bot`` (issue 24), each made and built once per test
session: tests/cli/test_new_bot.py and tests/examples/test_go_java_*.py share the build.

Each is built as the arena builds a bot folder, by its ``bot.toml`` in the bots' build
sandbox (``build_folder``). A language whose toolchain is missing is skipped by the
caller, with :func:`missing`'s reason printed (``scripts/bootstrap`` installs both
toolchains as root).
"""

from __future__ import annotations

import atexit
import functools
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from arena.cli._new_bot import write_bot
from arena.tournament import build_folder, load_manifest

GO_PACKAGES = (
    "golang-go golang-google-grpc-dev golang-github-golang-protobuf-1-5-dev "
    "protoc-gen-go protoc-gen-go-grpc protobuf-compiler"
)
JAVA_PACKAGES = (
    "default-jdk-headless protobuf-compiler protobuf-compiler-grpc-java-plugin libgrpc-java "
    "libprotobuf-java libnetty-java libguava-java libperfmark-java "
    "libgeronimo-annotation-1.3-spec-java"
)
TOOLS = {
    "go": ("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc"),
    "java": ("java", "javac", "jar", "protoc", "grpc_java_plugin"),
}
FILES = {
    "go": ("/usr/share/gocode/src/google.golang.org/grpc/health",),
    "java": ("/usr/share/java/grpc-netty.jar", "/usr/share/java/netty-codec-http2.jar",
             "/usr/share/java/perfmark-api.jar", "/usr/share/java/geronimo-annotation-1.3-spec.jar"),
}  # fmt: skip
PACKAGES = {"go": GO_PACKAGES, "java": JAVA_PACKAGES}
GOLANG_PROTOBUF = Path("/usr/share/gocode/src/github.com/golang/protobuf/proto/proto.go")
NAMES = {"go": "Go", "java": "Java"}
BUILD_SECONDS: dict[str, float] = {}
"""How long each language's build took in this session (printed by the tests)."""


def missing(lang: str) -> str | None:
    """Why ``lang``'s template cannot be built here, or None."""
    gone = [tool for tool in TOOLS[lang] if shutil.which(tool) is None]
    gone += [path for path in FILES[lang] if not Path(path).exists()]
    if lang == "go" and not gone and "google.golang.org/protobuf" not in _read(GOLANG_PROTOBUF):
        gone.append("github.com/golang/protobuf 1.4 or later (1-5-dev), not 1.3")
    if lang == "java" and not gone and _javac_major() < 16:
        gone.append("a JDK of version 16 or later (for its unix sockets)")
    if not gone:
        return None
    return (
        f"the {NAMES[lang]} toolchain is missing ({', '.join(gone)}): scripts/bootstrap "
        f"installs {PACKAGES[lang]} as root"
    )


def _javac_major() -> int:
    done = subprocess.run(["javac", "-version"], capture_output=True, text=True, timeout=60)
    found = re.search(r"javac (\d+)", done.stdout + done.stderr)
    return int(found.group(1)) if found else 0


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


@functools.cache
def _session_folder() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="arena-go-java-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


@functools.cache
def built_bot(lang: str) -> Path:
    """``arena new-bot DIR --lang LANG`` (named ``my-LANG``), built by its manifest in the
    build sandbox; the folder. AssertionError with the build log's tail if it fails."""
    folder = _session_folder() / lang / f"my-{lang}"
    write_bot(folder, lang, f"my-{lang}")
    started = time.monotonic()
    try:
        build_folder(load_manifest(folder))
    except Exception as error:  # a BuildError names the log
        log = folder / ".arena-build.log"
        tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
        raise AssertionError(f"the {lang} template did not build: {error}\n{tail}") from None
    BUILD_SECONDS[lang] = time.monotonic() - started
    print(f"tests: built the {NAMES[lang]} template in {BUILD_SECONDS[lang]:.1f} s")
    return folder


def run_command(folder: Path) -> list[str]:
    """The built bot's command line, from its manifest, paths made absolute."""
    argv = shlex.split(load_manifest(folder).run)
    return [str(folder / arg) if (folder / arg).exists() and "/" in arg else arg for arg in argv]

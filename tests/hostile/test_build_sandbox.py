"""A hostile build (issue 13 audit): a bot folder's build steps are a student's commands,
so they run in the bots' sandbox. Each test's build is a small Python step that tries
one thing and writes what happened into its own folder; the test reads the verdict.

At L1 (bubblewrap) the build sees its folder read-write and nothing else of the
machine's files, loopback only unless the manifest says ``network = true``, and no
process it starts outlives it; at L0 (no bubblewrap) only the last holds, with the
budgets. Tests that need L1 are skipped, with the reason, where bubblewrap does not work.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio

import arena.tournament._folder as folder_module
from arena.dealer import BotStartError, BuildLimits, build_layer
from arena.tournament import (
    BuildError,
    DriverContext,
    build_folder,
    load_manifest,
    open_builtin_bot,
    parse_bot_text,
)


def _need_l1() -> None:
    if build_layer() != "L1":
        pytest.skip("builds run at L0 here: bubblewrap does not work on this machine")


def _student(tmp_path: Path, step: str, *, network: bool = False) -> Path:
    """A folder whose one build step runs ``step`` (Python) with the arena's interpreter."""
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "step.py").write_text(step)
    lines = [
        'name = "s"',
        'run = "{python} bot.py"',
        f'build = ["{sys.executable} step.py"]',
        f"network = {'true' if network else 'false'}",
    ]
    (folder / "bot.toml").write_text("\n".join(lines) + "\n")
    return folder


def _verdict(folder: Path) -> str:
    build_folder(load_manifest(folder), force=True)
    return (folder / "verdict.txt").read_text()


TRY = """
import os, sys
def verdict(text):
    open("verdict.txt", "w").write(text)
try:
    {action}
    verdict("done")
except OSError as error:
    verdict(type(error).__name__)
"""


def _try(action: str) -> str:
    return TRY.replace("{action}", action)


def test_a_build_reads_nothing_outside_its_folder(tmp_path: Path) -> None:
    _need_l1()
    secret = tmp_path / "records" / "hidden-cards.txt"
    secret.parent.mkdir()
    secret.write_text("As Kd")
    folder = _student(tmp_path, _try(f"open({str(secret)!r}).read()"))
    assert _verdict(folder) == "FileNotFoundError"


def test_a_build_writes_nothing_outside_its_folder(tmp_path: Path) -> None:
    _need_l1()
    target = tmp_path / "pwned.txt"
    folder = _student(tmp_path, _try(f"open({str(target)!r}, 'w').write('x')"))
    _verdict(folder)  # "done" when the path fell in its private /tmp: not the real one
    assert not target.exists()


def test_a_build_cannot_write_the_system_or_the_arena(tmp_path: Path) -> None:
    _need_l1()
    package = Path(folder_module.__file__).parent / "pwned.py"
    folder = _student(tmp_path, _try(f"open({str(package)!r}, 'w').write('x')"))
    assert _verdict(folder) == "OSError"  # a read-only file system
    assert not package.exists()


def test_a_hidden_path_inside_the_folder_is_masked(tmp_path: Path) -> None:
    """The records or another bot's folder under a student's folder stay out of reach."""
    _need_l1()
    folder = _student(tmp_path, _try("open('runs/hand.json').read()"))
    (folder / "runs").mkdir()
    (folder / "runs" / "hand.json").write_text("hidden cards")
    build_folder(load_manifest(folder), force=True, hidden=[folder / "runs"])
    assert (folder / "verdict.txt").read_text() in ("PermissionError", "FileNotFoundError")


def test_a_build_writes_its_own_folder_and_its_private_tmp(tmp_path: Path) -> None:
    folder = _student(
        tmp_path,
        _try("os.makedirs('build', exist_ok=True); open('build/bot', 'w').write('made');"
             " open(os.path.join(os.environ['HOME'], 'cache'), 'w').write('c')"),
    )  # fmt: skip
    assert _verdict(folder) == "done"
    assert (folder / "build" / "bot").read_text() == "made"


def test_a_build_is_not_root_inside_its_sandbox(tmp_path: Path) -> None:
    _need_l1()
    folder = _student(tmp_path, _try("verdict(str(os.geteuid())); sys.exit(0)"))
    build_folder(load_manifest(folder), force=True)
    assert (folder / "verdict.txt").read_text() != "0"


def test_a_build_gets_none_of_the_arena_s_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_DB_PASSWORD", "hunter2")
    folder = _student(tmp_path, _try("verdict(' '.join(sorted(os.environ))); sys.exit(0)"))
    build_folder(load_manifest(folder), force=True)
    seen = (folder / "verdict.txt").read_text().split()
    assert "ARENA_DB_PASSWORD" not in seen and "HOME" in seen


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server.getsockname()[1]
    server.close()


def test_a_build_has_only_its_own_loopback(tmp_path: Path, listener: int) -> None:
    _need_l1()
    folder = _student(
        tmp_path, _try(f"import socket; socket.create_connection(('127.0.0.1', {listener}), 2)")
    )
    assert _verdict(folder) == "ConnectionRefusedError"


def test_network_true_lets_a_build_reach_the_network(tmp_path: Path, listener: int) -> None:
    folder = _student(
        tmp_path,
        _try(f"import socket; socket.create_connection(('127.0.0.1', {listener}), 2)"),
        network=True,
    )
    assert _verdict(folder) == "done"


DAEMON = """
import os, sys, time
marker = sys.argv[1]
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        open("/proc/self/comm", "w").write(marker)
        while True:
            open("beat.txt", "w").write(str(time.time()))
            time.sleep(0.05)
    os._exit(0)
time.sleep(0.5)
"""


def _alive(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if Path(f"/proc/{entry}/comm").read_text().strip() == marker:
                    found.append(int(entry))
            except OSError:
                continue
    return found


def _assert_none_left(marker: str, why: str) -> None:
    """Wait up to 10 s for the marked processes to go; kill (by pid) and fail if not."""
    deadline = time.monotonic() + 10
    while _alive(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = _alive(marker)
    for pid in left:
        os.kill(pid, 9)
    assert not left, why


def test_a_setsid_grandchild_does_not_outlive_the_build(tmp_path: Path) -> None:
    marker = "bld" + secrets.token_hex(4)
    folder = _student(tmp_path, DAEMON)
    manifest_text = (folder / "bot.toml").read_text().replace("step.py", f"step.py {marker}")
    (folder / "bot.toml").write_text(manifest_text)
    build_folder(load_manifest(folder), force=True)
    assert (folder / "beat.txt").exists(), "the daemon never ran"
    _assert_none_left(marker, "a process the build started outlived it")


def test_a_build_that_prints_forever_is_stopped_at_its_output_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(folder_module, "BUILD_LIMITS", BuildLimits(output_bytes=100_000))
    folder = _student(tmp_path, "import sys\nwhile True:\n    sys.stdout.write('x' * 4096)\n")
    with pytest.raises(BuildError, match="output budget"):
        build_folder(load_manifest(folder), force=True)
    assert (folder / ".arena-build.log").stat().st_size < 110_000


def test_a_build_that_hangs_is_stopped_at_its_time_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One budget for all the steps: two steps of 1.5 s each do not fit in 2 s."""
    monkeypatch.setattr(folder_module, "BUILD_LIMITS", BuildLimits(seconds=2.0))
    folder = _student(tmp_path, "import time\ntime.sleep(1.5)\n")
    step = f"{sys.executable} step.py"
    (folder / "bot.toml").write_text(
        f'name = "s"\nrun = "{{python}} bot.py"\nbuild = ["{step}", "{step}"]\n'
    )
    started = time.monotonic()
    with pytest.raises(BuildError, match="time budget"):
        build_folder(load_manifest(folder), force=True)
    assert time.monotonic() - started < 30


def test_a_missing_build_program_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "bot.toml").write_text('run = "x"\nbuild = ["no-such-compiler-zz --all"]\n')
    with pytest.raises(BuildError, match="'no-such-compiler-zz' is not installed"):
        build_folder(load_manifest(folder), force=True)


def test_ctrl_c_during_a_build_is_one_line_and_stops_it(tmp_path: Path) -> None:
    """A user's Ctrl-C while `arena check-bot` builds: one line, exit 130, nothing left."""
    marker = "bld" + secrets.token_hex(4)
    folder = _student(tmp_path, DAEMON.replace("time.sleep(0.5)", "time.sleep(600)"))
    manifest_text = (folder / "bot.toml").read_text().replace("step.py", f"step.py {marker}")
    (folder / "bot.toml").write_text(manifest_text)
    arena = subprocess.Popen(
        [sys.executable, "-m", "arena", "check-bot", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 30
        while not (folder / "beat.txt").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        arena.send_signal(signal.SIGINT)
        output, _ = arena.communicate(timeout=30)
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.wait()
    lines = output.decode().strip().splitlines()
    assert arena.returncode == 130, lines
    assert len(lines) == 1 and lines[0].startswith("interrupted: the build of s "), lines
    _assert_none_left(marker, "Ctrl-C left a process the build started")


def test_a_root_build_gives_the_folder_back_to_its_owner(tmp_path: Path) -> None:
    """As root the build runs as a leased uid (the folder lent to it): afterwards every
    entry, old and new, belongs to the folder's owner again, and none to a seat uid."""
    _need_l1()
    if os.geteuid() != 0:
        pytest.skip("only an arena running as root lends the folder to a uid")
    folder = _student(tmp_path, _try("os.makedirs('build/x'); open('build/x/bot', 'w')"))
    (folder / "keep.txt").write_text("mine")
    assert _verdict(folder) == "done"
    owner = folder.stat().st_uid
    owners = {p.lstat().st_uid for p in [folder, *folder.rglob("*")]}
    assert owners == {owner} == {os.geteuid()}


def _start(spec, tmp_path: Path) -> str:
    """ "started", or why the bot could not start."""

    async def start() -> str:
        context = DriverContext(seed=1, log_dir=tmp_path / "logs")
        try:
            async with open_builtin_bot(spec, context):
                return "started"
        except BotStartError as error:
            return str(error)

    return trio.run(start)


def test_a_folder_bot_whose_command_leads_outside_its_folder_cannot_start(
    tmp_path: Path,
) -> None:
    """A link the student (or the build) left, ``ref -> ../bob/bot.py``, would have the
    launcher mount bob's folder in alice's sandbox: such a bot forfeits, naming it."""
    (tmp_path / "bob").mkdir()
    (tmp_path / "bob" / "bot.py").write_text("bob's strategy")
    alice = tmp_path / "alice"
    alice.mkdir()
    (alice / "ref").symlink_to("../bob/bot.py")
    (alice / "bot.toml").write_text('run = "{python} ref"\n')
    spec = parse_bot_text(f"alice={alice}")

    seen = _start(spec, tmp_path)
    assert "'ref' leads outside its folder" in seen, seen


def test_a_fifo_shipped_in_a_folder_without_a_build_is_refused(tmp_path: Path) -> None:
    """A FIFO needs no build to be a channel between a bot's two duplicate instances
    (both mount the folder; a read-only mount does not stop FIFO writes)."""
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "bot.toml").write_text('run = "{python} bot.py"\n')
    os.mkfifo(folder / "chan")
    with pytest.raises(BuildError, match="'chan', a FIFO"):
        build_folder(load_manifest(folder))


def test_a_folder_bot_with_a_fifo_cannot_start_even_unbuilt(tmp_path: Path) -> None:
    """The launch itself refuses it (a tournament's worker processes launch bots too)."""
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "bot.toml").write_text('run = "{python} bot.py"\n')
    (folder / "bot.py").write_text("")
    spec = parse_bot_text(f"s={folder}")
    os.mkfifo(folder / "chan")

    assert "'chan', a FIFO" in _start(spec, tmp_path)


def test_no_free_seat_uid_is_a_failed_build_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As root a build needs a seat uid; none free is one BuildError line."""
    import arena.sandbox._buildbox as buildbox
    from arena.dealer import SandboxError

    def none_free():
        raise SandboxError("sandbox L2 has no free uid in 61000-61999")

    monkeypatch.setattr(buildbox, "lease_uid", none_free)
    monkeypatch.setattr(buildbox.os, "geteuid", lambda: 0)
    monkeypatch.setattr(folder_module, "build_layer", lambda: "L1")
    folder = _student(tmp_path, "pass\n")
    with pytest.raises(BuildError, match="no free uid"):
        build_folder(load_manifest(folder), force=True)

"""A killed dealer or worker leaves nothing of its seats behind (issue 12, the audit of
the sandbox under item 2): its bots die, and their cgroups, socket folders and L0 seat
folders (which may hold a bot's notes) go too, removed by each seat's supervisor once
the bot is dead, without following a symlink the bot planted in them."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tournament"))

from flags import flag_limits
from kit import GATED, cmdline, descendants
from test_executor import _left_running

from arena.executors import ProcessExecutor
from arena.sandbox._cgroups import _parents
from arena.tournament import Store, load_tournament, run_tournament

pytestmark = pytest.mark.timeout(120)

DEALER = """
import json, sys, trio
from arena.dealer import LaunchedBot

async def main():
    argv, layer, logs = json.loads(sys.argv[1])
    async with trio.open_nursery() as nursery:
        bot = LaunchedBot("planter", argv, sandbox=layer, log_dir=logs, stop_timeout=1.0)
        await bot.start(nursery)
        box = bot._box
        groups = [str(p) for p in box.cgroup.dirs] if box.cgroup is not None else []
        print(json.dumps([box.private_dir, box.socket_dir, *groups]), flush=True)
        await trio.sleep_forever()

trio.run(main)
"""


def _victim(tmp_path: Path) -> Path:
    """A folder the bot links to from its own folders: removal must not empty it."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep").write_text("not the bot's")
    return victim


def _wait_gone(tools, token: str, paths: list[str], deadline: float = 60.0) -> list[str]:
    """The paths still there (and the bot's processes still alive) after up to ``deadline``."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if not tools.marked(token) and not any(os.path.lexists(p) for p in paths):
            return []
        time.sleep(0.1)
    return [p for p in paths if os.path.lexists(p)] + [f"pid {p}" for p in tools.marked(token)]


def _kill(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.kill(process.pid, signal.SIGKILL)
    process.wait()


def test_a_sigkilled_dealer_leaves_no_bot_folder_or_cgroup(tools, tmp_path, token, layer):
    """SIGKILL the dealer process of a launched bot that ignores SIGTERM and planted links
    to another folder in its socket folder and current folder: the bot dies, its seat's
    folders and cgroups are removed, and the folder it linked to keeps its file."""
    victim, logs = _victim(tmp_path), tmp_path / "logs"
    argv = tools.bot_command("planter.py", token, str(victim))
    dealer = subprocess.Popen(
        [sys.executable, "-c", DEALER, json.dumps([argv, layer, str(logs)])],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert dealer.stdout is not None
        made = [p for p in json.loads(dealer.stdout.readline()) if p]
        assert made and all(os.path.exists(p) for p in made)
        grouped = layer == "L2" or (layer == "L1" and os.geteuid() == 0)  # issue 19 item 7
        assert grouped == any(p.startswith("/sys/fs/cgroup") for p in made)
        if grouped and "cpu" in _parents()[1]:  # the CPU weight's group goes too (item 6)
            assert any(p.startswith(str(_parents()[1]["cpu"]) + "/") for p in made), made
        assert tools.marked(token), "the bot is not running: nothing was tested"
        _kill(dealer)
        assert not _wait_gone(tools, token, made), "left behind by the killed dealer"
    finally:
        _kill(dealer)
    planted = [v for v in tools.verdicts(logs / "planter.stderr.log") if v.startswith("planted")]
    assert planted, tools.verdicts(logs / "planter.stderr.log")
    assert (victim / "keep").read_text() == "not the bot's"


def _made_by(pid: int) -> list[str]:
    """What the arena process ``pid`` made for its seats: folders and cgroups."""
    found = [
        str(p)
        for prefix in ("arena-sock-", "arena-seat-")
        for p in Path(tempfile.gettempdir()).glob(f"{prefix}{pid}-~*")
    ]
    with_groups = os.geteuid() == 0
    if with_groups:
        try:
            _version, parents = _parents()
        except OSError:
            parents = {}
        for parent in set(parents.values()):
            found += [str(p) for p in parent.glob(f"arena-{pid}-~*")]
    return found


def test_a_sigkilled_arena_match_leaves_nothing(tools, tmp_path, token):
    """``arena match`` (sandbox auto) SIGKILLed mid-match: same as a dealer."""
    victim = _victim(tmp_path)
    command = shlex.join(tools.bot_command("planter.py", token, str(victim)))
    options = ["match", "--hands", "100000", "--out", str(tmp_path)]
    match = subprocess.Popen(
        [sys.executable, "-m", "arena", *options, f"planter={command}", "builtin:calling-station"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        end, made = time.monotonic() + 60, []
        while time.monotonic() < end and not (made and tools.marked(token)):
            assert match.poll() is None, "arena match ended before its bot ran"
            made = _made_by(match.pid)
            time.sleep(0.1)
        assert made and tools.marked(token), "the bot did not start: nothing was tested"
        made = _made_by(match.pid)
        _kill(match)
        assert not _wait_gone(tools, token, made), "left behind by the killed arena match"
    finally:
        _kill(match)
    assert (victim / "keep").read_text() == "not the bot's"


def test_a_sigkilled_worker_leaves_no_bot_and_no_cgroup(tools, tmp_path):
    """A worker (``python -m arena.executors.worker``) SIGKILLed while its launched bot is
    mid-match at sandbox auto: the match is played again and recorded once, the bot is
    gone, and so is what the dead worker made for its seats (from the audit's test)."""
    gate = tmp_path / "flag" / "gate"
    path = tmp_path / "auto.toml"
    path.write_text(
        textwrap.dedent(
            """
            [tournament]
            name = "auto"
            hands_per_match = 6
            seed = 11
            output = "runs"
            database = "arena.db"
            sandbox = "auto"
            workers = 2

            [game]
            structure = "fixed_limit"
            big_blind = 2

            [timeouts]
            action = 30.0
            startup = 30.0

            [[bots]]
            name = "calling-station"
            builtin = "calling-station"

            [[bots]]
            name = "rule-based"
            builtin = "rule-based"
            """
        )
        + f'\n[[bots]]\nname = "gated"\ncommand = "{{python}} {GATED}"\n'
        + flag_limits("GATE", gate).replace(
            "env = { GATE", f'env = {{ PYTHONPATH = "{GATED.parents[3]}", GATE'
        )
    )
    executor = ProcessExecutor(2)
    killed: list[int] = []
    made: list[str] = []
    under: set[int] = set()

    async def main():
        config = load_tournament(path)
        with Store.open(config.database) as store:
            async with trio.open_nursery() as nursery:

                async def kill_one_mid_match() -> None:
                    while True:
                        for pid in executor.pids():
                            below = descendants(pid)
                            if any("gated.py" in cmdline(p) for p in below):
                                under.update(below)
                                made.extend(_made_by(pid))
                                os.kill(pid, signal.SIGKILL)
                                killed.append(pid)
                                gate.write_text("open")
                                return
                        await trio.sleep(0.05)

                nursery.start_soon(kill_one_mid_match)
                return await run_tournament(config, store, executor=executor)

    progress = trio.run(main)
    assert killed and progress.done == progress.total == 3
    assert not progress.not_started, "the gated bot did not start: nothing was tested"
    assert made, "the killed worker had made nothing for its seats: nothing was tested"
    assert under and not _left_running(under)
    end = time.monotonic() + 60
    while time.monotonic() < end and any(os.path.lexists(p) for p in made):
        time.sleep(0.1)
    assert not [p for p in made if os.path.lexists(p)], "left behind by the killed worker"

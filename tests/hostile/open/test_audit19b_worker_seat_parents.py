"""Audit 19b (item 6, the seats' shared parent): one ``arena-OWNER-seats`` parent per
*process*, not per arena: a tournament with ``workers = N`` has N parents of one ordinary
entity's weight each, beside the one autogroup of the director and all its workers.

``_cgroups._seats_parent`` names the parent by ``owner_tag()`` (this process's pid and
start time), and every worker (``python -m arena.executors.worker``, the director's child in
its session, so in its autogroup) makes its own. ``_cgroups``' docstring promises that
"the arena process (its whole session, tournament workers included, is one autogroup...)
keeps about half the CPU against any number of spinning seats": with N workers it keeps
1/(N+1), the very shape the commit fixed for seats (S seats -> 1/(S+1)). The test stands
three workers up as the pool does (children of this process, same session), each with one
spinning seat at L2, and spins in this process meanwhile. FAILS on 4d5fccd (3 parents;
this process's spinning thread got 0.37-0.50 of a core beside 1 worker, 0.29-0.32
beside 3, on a shared, loaded 2-core machine: noisy, so the test asserts the structure).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.timeout(180)]
BOTS = Path(__file__).parents[1] / "bots"
WORKER = r"""
import sys, trio
from arena.dealer import BotLimits, LaunchedBot

async def main(token, log):
    bot = LaunchedBot("hog", [sys.executable, sys.argv[3], token, "6"], sandbox="L2",
                      limits=BotLimits(), log_dir=log, startup_timeout=60)
    async with trio.open_nursery() as nursery:
        await bot.start(nursery)
        print(bot._box.cgroup.cpu_dir.parent, flush=True)
        await trio.to_thread.run_sync(sys.stdin.read)
        await bot.aclose()

trio.run(main, sys.argv[1], sys.argv[2])
"""


def _share(seconds: float = 3.0) -> float:
    """Cores this process's one spinning thread gets over ``seconds``."""
    wall, cpu = time.monotonic(), time.process_time()
    while time.monotonic() - wall < seconds:
        pass
    return (time.process_time() - cpu) / (time.monotonic() - wall)


def _workers(count: int, tmp_path: Path, token: str) -> tuple[list[subprocess.Popen], set[str]]:
    procs, parents = [], set()
    for index in range(count):
        log = tmp_path / f"w{index}"
        log.mkdir()
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", WORKER, token, str(log), str(BOTS / "spinners.py")],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
        )
    for proc in procs:
        assert proc.stdout is not None
        parents.add(proc.stdout.readline().strip())
    return procs, parents


def _stop(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.close()
    for proc in procs:
        proc.wait(timeout=60)


def test_a19b_all_seats_of_one_tournament_share_one_parent(tools, tmp_path, token):
    tools.need_layer("L2")
    if os.geteuid() != 0:
        pytest.skip("cpu groups need root")
    shares = {}
    for count in (1, 3):
        (tmp_path / str(count)).mkdir()
        procs, parents = _workers(count, tmp_path / str(count), token)
        try:
            time.sleep(1.0)
            shares[count] = _share()
        finally:
            _stop(procs)
    alone, three = shares[1], shares[3]
    print(f"1 worker: this process got {alone:.2f} of a core; 3 workers: {three:.2f}; "
          f"seat parents with 3 workers: {len(parents)}")  # fmt: skip
    assert len(parents) == 1, f"3 workers made {len(parents)} seat parents: {sorted(parents)}"

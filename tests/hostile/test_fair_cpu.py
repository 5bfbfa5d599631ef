"""A seat's CPU share and accounting, against bots that try to get more (issue 19 items 6, 7).

Item 6: each seat's processes (setsid children included) share one CPU weight, the same
for every seat, and cannot leave it. Item 7: as root, L1 counts every process of a seat
as L2 does (a memory cap, the CPU of auto-reaped workers). No timing is asserted here:
``scripts/bench_fair_cpu.py`` measures what the weights are worth.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import trio

from arena.dealer import BotLimits, LaunchedBot, MatchSettings, run_match
from arena.engine import GameConfig
from arena.sandbox._cgroups import SEAT_CPU_WEIGHT, cgroup_support

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(params=["L1", "L2"])
def root_layer(request: pytest.FixtureRequest, tools) -> str:
    """L2, and L1 as root: the layers where a seat has cgroups (skipped elsewhere)."""
    if os.geteuid() != 0:
        pytest.skip("cgroups per seat need root (L1 without root reads /proc: a known gap)")
    tools.need_layer(request.param)
    works, why = cgroup_support()
    if not works:
        pytest.skip(f"no cgroups here: {why}")
    return request.param


def _bot(tools, tmp_path: Path, script: str, token: str, *args: str, **options) -> LaunchedBot:
    options.setdefault("log_dir", tmp_path / "logs")
    options.setdefault("startup_timeout", 60)
    return LaunchedBot(f"{script[:-3]}-{token}", tools.bot_command(script, token, *args), **options)


def _cpu_group(task: str) -> str | None:
    """The cpu cgroup of ``task`` (``PID/task/TID``: a thread of its own in v1) as /proc
    shows it: v1's ``cpu`` line, else v2's."""
    v2 = None
    for line in Path(f"/proc/{task}/cgroup").read_text().splitlines():
        _id, controllers, path = line.split(":", 2)
        if "cpu" in controllers.split(","):
            return path
        if not controllers:
            v2 = path
    return v2


async def _wait_for(predicate, seconds: float = 30.0) -> bool:
    with trio.move_on_after(seconds):
        while not predicate():
            await trio.sleep(0.05)
    return bool(predicate())


@pytest.mark.trio
async def test_i19_item6_each_seat_has_one_cpu_weight_its_children_cannot_leave(
    tools, tmp_path, root_layer
):
    """Item 6: a hog's setsid children, after trying every way out (cgroup.procs, tasks, a
    cgroup2 mount of their own, nice -20, a real-time policy, autogroup), are all still in
    their seat's own cpu group, every thread of theirs too, whose weight is the one every seat gets; a neighbour seat
    has a group of its own with the same weight."""
    hog_token, other_token = "hx" + os.urandom(4).hex(), "hx" + os.urandom(4).hex()
    hog = _bot(tools, tmp_path, "spinners.py", hog_token, "6", "idle", sandbox=root_layer)
    other = _bot(tools, tmp_path, "spinners.py", other_token, "0", sandbox=root_layer)
    async with trio.open_nursery() as nursery:
        try:
            await hog.start(nursery)
            await other.start(nursery)
            assert await _wait_for(lambda: "spinning" in tools.verdicts(hog.stderr_log))
            assert await _wait_for(lambda: len(tools.marked(hog_token)) >= 7)
            groups = {}
            for bot, token in ((hog, hog_token), (other, other_token)):
                assert bot._box is not None and bot._box.cgroup is not None
                cpu_dir = bot._box.cgroup.cpu_dir
                assert cpu_dir is not None, "no cpu cgroup for the seat"
                version = bot._box.cgroup.version
                weight_file = "cpu.shares" if version == "v1" else "cpu.weight"
                assert int((cpu_dir / weight_file).read_text()) == SEAT_CPU_WEIGHT[version]
                pids = tools.marked(token)
                assert pids
                tasks = [
                    f"{pid}/task/{tid}" for pid in pids for tid in os.listdir(f"/proc/{pid}/task")
                ]
                assert len(tasks) > len(pids)  # the SDK's threads too
                found = {_cpu_group(task) for task in tasks}
                assert len(found) == 1, found
                (group,) = found
                assert group is not None and str(cpu_dir).endswith(group), (group, cpu_dir)
                groups[token] = group
            assert groups[hog_token] != groups[other_token]
        finally:
            for bot in (hog, other):
                await bot.aclose()
    seen = tools.verdicts(hog.stderr_log)
    assert not [line for line in seen if line.startswith("escaped")], seen
    assert any(line.startswith("denied nice") for line in seen), seen


@pytest.mark.trio
async def test_i19_item7_l1_as_root_caps_memory(tools, tmp_path, root_layer):
    """Item 7: past ``memory_mb`` the bot is OOM-killed and the breach is MEMORY_LIMIT, at
    L1 as root as at L2 (it held 6 GB at L1: 4 GB of address space per process, no cap)."""
    token = "hx" + os.urandom(4).hex()
    limits = BotLimits(address_space_mb=2048, memory_mb=200)
    bot = _bot(tools, tmp_path, "hog.py", token, sandbox=root_layer, limits=limits, max_restarts=0)
    breaches = []
    async with trio.open_nursery() as nursery:
        try:
            await bot.start(nursery)
            with trio.move_on_after(30):
                await bot.process.wait()
            breaches.append(bot.limit_breach())
        finally:
            await bot.aclose()
    assert breaches == ["MEMORY_LIMIT"], tools.verdicts(bot.stderr_log)


@pytest.mark.trio
async def test_i19_item7_auto_reaped_workers_are_charged(tools, tmp_path, root_layer):
    """Item 7: workers the kernel reaps (SIGCHLD ignored) burn 3x the allowance per
    decision; the CPU clock counts them (a ``cpu clock`` TIMEOUT), at L1 as root as at L2
    (at L1 the /proc clock never saw them: 0 faults)."""
    token = "hx" + os.urandom(4).hex()
    reaped = _bot(tools, tmp_path, "reaped.py", token, "15", sandbox=root_layer)
    calling = _bot(tools, tmp_path, "spinners.py", token + "c", "0", sandbox="L0")
    settings = MatchSettings(config=GameConfig(), hands=2, seed=1, action_timeout=0.5)
    async with trio.open_nursery() as nursery:
        try:
            await reaped.start(nursery)
            await calling.start(nursery)
            result = await run_match([reaped, calling], settings)
        finally:
            for bot in (reaped, calling):
                await bot.aclose()
    assert result.clocks[0] == "cpu"
    faults = [f for f in result.faults if f.seat == 0]
    assert any(f.reason == "TIMEOUT" and f.detail.startswith("cpu clock:") for f in faults), faults


def test_i19_item10_doctor_says_whether_weights_and_the_l1_root_cap_work():
    """Item 10 (items 6, 7): ``arena doctor`` says whether seats get equal CPU weights and
    whether L1 as root has the seat's cgroups, as the probes found them here."""
    from click.testing import CliRunner

    from arena.cli import cli
    from arena.cli._app import _register
    from arena.sandbox._sandbox import check_seat_groups

    _register()
    result = CliRunner().invoke(cli, ["doctor"])
    assert result.exit_code == 0, result.output
    for check in check_seat_groups():
        mark = "yes" if check.available else "NO "
        assert f"{check.layer}  {mark}  " in result.output, result.output
    if os.geteuid() == 0 and cgroup_support()[0]:
        assert "fair CPU  yes  cpu." in result.output, result.output


def test_i19_item10_doctor_says_what_is_missing_without_cgroups(monkeypatch):
    """Item 10 (items 6, 7): where no cgroup can be made, the doctor says both are missing
    and what a bot can then do."""
    import arena.sandbox._sandbox as sandbox

    if os.geteuid() != 0 or not sandbox._checks()[1].available:
        pytest.skip("the L1-as-root line needs root and a working L1")
    monkeypatch.setattr(sandbox, "_groups", lambda: (False, "cannot create a cgroup: test"))
    monkeypatch.setattr(sandbox, "fair_cpu_support", lambda: (False, "no cgroups: test"))
    fair, l1 = sandbox.check_seat_groups()
    assert not fair.available and "starve" in fair.detail
    assert not l1.available and "address_space_mb" in l1.detail and "/proc" in l1.detail


class _Measured:
    """A driver on the CPU clock that notes when the clock says it decides."""

    def __init__(self, fail: bool = False) -> None:
        self.calls: list[object] = []
        self.fail = fail

    def cpu_seconds(self) -> float:
        return 0.0

    def on_clock(self, deciding: bool) -> None:
        self.calls.append(deciding)
        if self.fail:
            raise OSError("gone")


@pytest.mark.parametrize("fail", [False, True], ids=["works", "probe-fails"])
def test_i19_item6_the_clock_tells_the_seat_when_it_decides(fail):
    """Item 6: a CPU-clocked decision tells its driver it is on the clock while it waits
    (so its seat weighs double then), and that it is not once the wait is over, whatever
    the probe does; a wall-clocked one says nothing."""
    from arena.dealer._clock import DecisionClock

    driver, wall = _Measured(fail), _Measured()

    async def main() -> None:
        async def body() -> None:
            driver.calls.append("waiting")
            await trio.sleep(0)

        await DecisionClock(driver, 1.0).run(body)
        wall_clock = DecisionClock(type("Wall", (), {"on_clock": wall.on_clock})(), 1.0)
        await wall_clock.run(body)

    trio.run(main)
    assert driver.calls[:3] == [True, "waiting", False]
    assert wall.calls == []


def test_i19_item6_a_seat_weighs_double_while_one_of_its_decisions_runs():
    """Item 6: on the clock, the seat's group weighs twice any other seat's; two decisions
    of one seat at once (two tables) count once, and the weight is back after the last."""
    if os.geteuid() != 0 or not cgroup_support()[0]:
        pytest.skip("needs root and cgroups")
    from arena.sandbox._cgroups import SeatCgroup

    group = SeatCgroup.create("weigh", memory_mb=64, max_processes=8)
    try:
        if group.cpu_dir is None:
            pytest.skip("no cpu controller here")
        name = "cpu.shares" if group.version == "v1" else "cpu.weight"
        weight = SEAT_CPU_WEIGHT[group.version]

        def now() -> int:
            assert group.cpu_dir is not None
            return int((group.cpu_dir / name).read_text())

        seen = [now()]
        for deciding in (True, True, False, False, False):
            group.on_clock(deciding)
            seen.append(now())
        assert seen == [weight, 2 * weight, 2 * weight, 2 * weight, weight, weight]
    finally:
        group.remove()


@pytest.mark.trio
async def test_i19_item6_a_launched_bot_weighs_double_only_while_it_decides(
    tools, tmp_path, root_layer
):
    """Item 6: the dealer's CPU clock doubles a launched bot's seat weight during each of
    its decisions (a bot burning 0.5 s of CPU per decision) and gives it back after."""
    token = "hx" + os.urandom(4).hex()
    burner = _bot(tools, tmp_path, "burner.py", token, "0.5", sandbox=root_layer)
    calling = _bot(tools, tmp_path, "spinners.py", token + "c", "0", sandbox="L0")
    settings = MatchSettings(config=GameConfig(), hands=1, seed=1, action_timeout=3.0)
    seen: set[int] = set()
    watching = trio.CancelScope()

    async def watch(cpu_dir: Path, name: str) -> None:
        with watching:
            while True:
                seen.add(int((cpu_dir / name).read_text()))
                await trio.sleep(0.02)

    async with trio.open_nursery() as nursery:
        try:
            await burner.start(nursery)
            await calling.start(nursery)
            assert burner._box is not None and burner._box.cgroup is not None
            group = burner._box.cgroup
            if group.cpu_dir is None:
                pytest.skip("no cpu controller here")
            name = "cpu.shares" if group.version == "v1" else "cpu.weight"
            nursery.start_soon(watch, group.cpu_dir, name)
            await run_match([burner, calling], settings)
            await trio.sleep(0.1)
            after = int((group.cpu_dir / name).read_text())
        finally:
            watching.cancel()
            for bot in (burner, calling):
                await bot.aclose()
    weight = SEAT_CPU_WEIGHT[group.version]
    assert seen == {weight, 2 * weight}
    assert after == weight


@pytest.mark.parametrize("kind", ["v2", "v2-without-cpu", "v1-without-cpu"])
def test_i19_item6_the_weight_on_either_cgroup_version(monkeypatch, tmp_path, kind):
    """Item 6: on cgroup v2 the weight is ``cpu.weight`` (100, 200 on the clock) where the
    arena's group hands ``cpu`` to its children; without the controller (v2 not handing
    it down, v1 without a ``cpu`` hierarchy) a seat still gets its limits, no weight
    (a folder tree stands in for the cgroup file systems)."""
    from arena.sandbox import _cgroups

    if kind.startswith("v2"):
        base = tmp_path / "unified" / "arena.slice"
        base.mkdir(parents=True)
        (base / "cgroup.controllers").write_text("cpu memory pids\n")
        (base / "cgroup.subtree_control").write_text(
            "memory pids\n" if "without" in kind else "cpu memory pids\n"
        )
        mounts, own = {"v2": tmp_path / "unified"}, {"v2": "/arena.slice"}
    else:
        mounts = {c: tmp_path / c for c in ("memory", "pids", "cpuacct")}
        own = {c: "/" for c in mounts}
        for path in mounts.values():
            path.mkdir()
    monkeypatch.setattr(_cgroups, "_mounts", lambda: mounts)
    monkeypatch.setattr(_cgroups, "_own_paths", lambda: own)
    group = _cgroups.SeatCgroup.create("fake", memory_mb=64, max_processes=8)
    if kind == "v2":
        assert group.version == "v2" and group.cpu_dir is not None
        weight = group.cpu_dir / "cpu.weight"
        assert weight.read_text() == "100"
        group.on_clock(True)
        assert weight.read_text() == "200"
        group.on_clock(False)
        assert weight.read_text() == "100"
    else:
        assert group.cpu_dir is None
        group.on_clock(True)  # nothing to write, nothing raised
        assert not list(tmp_path.rglob("cpu.weight")) and not list(tmp_path.rglob("cpu.shares"))
    limit = "memory.max" if group.version == "v2" else "memory.limit_in_bytes"
    assert (group.dirs[0] / limit).read_text() == str(64 << 20)

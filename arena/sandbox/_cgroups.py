"""A cgroup per launched bot (L2, and L1 as root): memory and pids limits, CPU accounting
and a CPU weight, breaches.

cgroup v1 (one hierarchy per controller, as on the development machine: ``memory``,
``pids``, ``cpuacct``, ``cpu``) or v2 (one unified hierarchy with the ``memory`` and
``pids`` controllers enabled). Each seat's group is created under the arena's own group in
each hierarchy, so whatever limits the arena itself runs under still apply. The supervisor
joins it (writes its pid to each ``cgroup.procs``) before it starts the bot, so every
process the bot ever starts is counted and can be killed at close, setsid or not.

The ``cpu`` controller (issue 19 item 6), where the machine has it, gives every seat
the same weight, :data:`SEAT_CPU_WEIGHT` (the kernel's default: one ordinary process's):
a bot that runs 60 spinning children gets no more CPU than one that runs one, so it cannot
starve its neighbour. Each seat's cpu group is its own, flat beside the others: the
arena's own session (dealer, tournament workers) is one autogroup entity of the default
weight in the root group, so with S seats spinning it is entitled to about 1/(S+1) of
contended CPU. (A shared parent of all seats, one entity's weight, was tried, 5f22bfd,
and measured worse: honest seats then shared one weight with the hogs; old parents,
``arena-OWNER-seats``, are still swept.) While a seat's decision runs on the CPU clock
its weight is doubled (:meth:`SeatCgroup.on_clock`, :data:`ON_CLOCK_FACTOR`).
Without the controller, seats still get their limits and accounting; ``arena doctor``
says that the weights are missing.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from pathlib import Path

from arena.sandbox._leftovers import legacy_owner_gone, owner_gone, owner_tag

CGROUP_ROOT = Path("/sys/fs/cgroup")
_V1 = ("memory", "pids", "cpuacct")
"""The controllers a seat's group needs."""
_FAIR = "cpu"
"""The controller of the seat's CPU weight: used where the machine has it."""
SEATS_SUFFIX = "-seats"
"""The name's end of the parent of all seat cpu groups of one arena process, which earlier
versions made (5f22bfd, reverted); swept with its seats once its owner is gone."""
SEAT_CPU_WEIGHT = {"v1": 1024, "v2": 100}
"""Every seat's weight (v1 ``cpu.shares``, v2 ``cpu.weight``): the kernel's default, the
weight of one ordinary process such as the arena's own threads."""
ON_CLOCK_FACTOR = 2
"""A seat's weight while one of its decisions runs, as a multiple of :data:`SEAT_CPU_WEIGHT`.
Equal weights split each core by the seats' runnable processes there, so a hog spread over
both cores of a 2-core machine still took a third of the deciding bot's core (1.5x its wall
time alone, measured); doubled, the seat on the clock (whose every cycle is charged to it)
has it, and the arena's own threads still keep a third."""


def _mounts() -> dict[str, Path]:
    """Controller name (or ``"v2"``) -> mount point, from ``/proc/self/mountinfo``."""
    found: dict[str, Path] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            left, _, right = line.partition(" - ")
            fields, tail = left.split(), right.split()
            if len(fields) < 5 or not tail:
                continue
            if tail[0] == "cgroup2":
                found.setdefault("v2", Path(fields[4]))
            elif tail[0] == "cgroup" and len(tail) >= 3:
                for option in tail[2].split(","):
                    if option in _V1 or option == _FAIR:
                        found.setdefault(option, Path(fields[4]))
    return found


def _own_paths() -> dict[str, str]:
    """Controller (or ``"v2"``) -> this process's group path, from ``/proc/self/cgroup``."""
    paths: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _id, controllers, path = line.split(":", 2)
            if not controllers:
                paths["v2"] = path
            for controller in controllers.split(","):
                paths[controller] = path
    return paths


def _v2_base(mounts: dict[str, Path], own: dict[str, str]) -> Path | None:
    if "v2" not in mounts or "v2" not in own:
        return None
    base = mounts["v2"] / own["v2"].lstrip("/")
    try:
        controllers = (base / "cgroup.controllers").read_text().split()
    except OSError:
        return None
    return base if {"memory", "pids"} <= set(controllers) else None


def _v2_fair(base: Path) -> bool:
    """Whether a group made in ``base`` gets the cpu controller (``cpu.weight``)."""
    try:
        return _FAIR in (base / "cgroup.subtree_control").read_text().split()
    except OSError:
        return False


def _parents() -> tuple[str, dict[str, Path]]:
    """The version, and controller -> the folder a seat's group is made in (the arena's own);
    ``cpu`` only where the machine has that controller."""
    mounts, own = _mounts(), _own_paths()
    v2 = _v2_base(mounts, own)
    if v2 is not None:
        return "v2", {c: v2 for c in (*_V1, *([_FAIR] if _v2_fair(v2) else []))}
    missing = [c for c in _V1 if c not in mounts or c not in own]
    if missing:
        raise OSError(f"no cgroup v1 hierarchy for {', '.join(missing)} and no usable v2")
    found = [*_V1, *([_FAIR] if _FAIR in mounts and _FAIR in own else [])]
    return "v1", {c: mounts[c] / own[c].lstrip("/") for c in found}


def cgroup_support() -> tuple[bool, str]:
    """Whether per-seat cgroups can be made here, and what was found (or why not)."""
    try:
        group = SeatCgroup.create("probe", memory_mb=64, max_processes=8)
    except OSError as error:
        return False, f"cannot create a cgroup: {error}"
    group.remove()
    return True, f"cgroup {group.version} ({', '.join(str(p) for p in group.dirs)})"


def fair_cpu_support() -> tuple[bool, str]:
    """Whether seats get equal CPU weights here (a cpu cgroup each), and what was found."""
    try:
        group = SeatCgroup.create("probe", memory_mb=64, max_processes=8)
    except OSError as error:
        return False, f"no cgroups: {error}"
    group.remove()
    if group.cpu_dir is None:
        return (
            False,
            "no cpu controller for the seats' groups "
            "(v1: a 'cpu' hierarchy; v2: 'cpu' in cgroup.subtree_control)",
        )
    name = "cpu.shares" if group.version == "v1" else "cpu.weight"
    weight = SEAT_CPU_WEIGHT[group.version]
    return True, (
        f"{name} {weight} per seat ({weight * ON_CLOCK_FACTOR} while it decides) "
        f"under {group.cpu_dir.parent}"
    )


class SeatCgroup:
    """One seat's cgroup(s): create, hand to the supervisor, read, kill all, remove."""

    def __init__(self, version: str, dirs: dict[str, Path]) -> None:
        self.version = version
        self._dirs = dirs
        self._seen_oom = 0
        self._seen_pids = 0
        self._files: dict[tuple[str, str], str] = {}  # (controller, file): its path, as text
        self._deciding = 0  # decisions of the seat on the clock now (one per table)
        self._weight_fd: int | None = None  # its weight file, kept open (see on_clock)

    def _file(self, controller: str, name: str) -> str:
        """The path of one of the group's files, joined once (read at every decision:
        joining Paths each time cost as much as the read itself, issue 12 item 6)."""
        path = self._files.get((controller, name))
        if path is None:
            path = self._files[controller, name] = str(self._dirs[controller] / name)
        return path

    @property
    def cpu_dir(self) -> Path | None:
        """The folder of the seat's CPU weight, None where the machine gives none."""
        return self._dirs.get(_FAIR)

    @property
    def dirs(self) -> list[Path]:
        return list(dict.fromkeys(self._dirs.values()))

    @classmethod
    def create(cls, label: str, *, memory_mb: int, max_processes: int) -> SeatCgroup:
        """A fresh group with the limits set; OSError if this machine cannot make one."""
        name = f"arena-{owner_tag()}-{label}-{secrets.token_hex(3)}"
        version, parents = _parents()
        group = cls(version, {c: parent / name for c, parent in parents.items()})
        try:
            for path in group.dirs:
                path.mkdir(mode=0o755)
            group._limit(memory_mb << 20, max_processes)
        except OSError:
            group.remove()
            raise
        return group

    def _limit(self, memory_bytes: int, max_processes: int) -> None:
        if self.version == "v2":
            (self._dirs["memory"] / "memory.max").write_text(str(memory_bytes))
            with contextlib.suppress(OSError):
                (self._dirs["memory"] / "memory.swap.max").write_text("0")
        else:
            (self._dirs["memory"] / "memory.limit_in_bytes").write_text(str(memory_bytes))
            with contextlib.suppress(OSError):  # no swap accounting: the limit above holds RAM
                (self._dirs["memory"] / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
            with contextlib.suppress(OSError):  # v1 charges TCP buffers only once this is set
                tcp = self._dirs["memory"] / "memory.kmem.tcp.limit_in_bytes"
                tcp.write_text(str(memory_bytes))
        (self._dirs["pids"] / "pids.max").write_text(str(max_processes))
        if _FAIR in self._dirs:  # the default already; written so a seat never differs
            weight = "cpu.shares" if self.version == "v1" else "cpu.weight"
            (self._dirs[_FAIR] / weight).write_text(str(SEAT_CPU_WEIGHT[self.version]))

    def on_clock(self, deciding: bool) -> None:
        """A decision of the seat started (True) or ended: while one runs, the seat's group
        weighs :data:`ON_CLOCK_FACTOR` times more. One write when the count leaves or
        reaches 0, none per reading, on a file kept open (opening it cost 6 of the 7.6 us
        a decision's two writes took); never raises (the group may be gone)."""
        if _FAIR not in self._dirs:
            return
        before = self._deciding
        self._deciding = max(0, before + (1 if deciding else -1))
        if (before == 0) == (self._deciding == 0):
            return
        weight = SEAT_CPU_WEIGHT[self.version] * (ON_CLOCK_FACTOR if self._deciding else 1)
        with contextlib.suppress(OSError):
            if self._weight_fd is None:
                name = "cpu.shares" if self.version == "v1" else "cpu.weight"
                self._weight_fd = os.open(self._file(_FAIR, name), os.O_WRONLY | os.O_CLOEXEC)
            os.pwrite(self._weight_fd, str(weight).encode(), 0)

    def procs_files(self) -> list[str]:
        """The ``cgroup.procs`` files the supervisor writes its pid into."""
        return [str(path / "cgroup.procs") for path in self.dirs]

    def cpu_seconds(self) -> float | None:
        """CPU time (user + system) of everything that ever ran in the group."""
        try:
            if self.version == "v2":
                for line in _read(self._file("cpuacct", "cpu.stat")).splitlines():
                    key, _, value = line.partition(" ")
                    if key == "usage_usec":
                        return int(value) / 1e6
                return None
            return int(_read(self._file("cpuacct", "cpuacct.usage"))) / 1e9
        except (OSError, ValueError):
            return None

    def _counter(self, file: str, key: str) -> int:
        controller = "memory" if file.startswith("memory") else "pids"
        with contextlib.suppress(OSError, ValueError):
            for line in _read(self._file(controller, file)).splitlines():
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
        return 0

    def breach(self) -> str | None:
        """``"MEMORY_LIMIT"`` / ``"PROCESS_LIMIT"`` if one was hit since the last call."""
        oom_file = "memory.events" if self.version == "v2" else "memory.oom_control"
        pids_file = "pids.events"
        oom, pids = self._counter(oom_file, "oom_kill"), self._counter(pids_file, "max")
        memory_hit, pids_hit = oom > self._seen_oom, pids > self._seen_pids
        self._seen_oom, self._seen_pids = max(oom, self._seen_oom), max(pids, self._seen_pids)
        if memory_hit:
            return "MEMORY_LIMIT"
        if pids_hit:
            return "PROCESS_LIMIT"
        return None

    def pids(self) -> list[int]:
        found: set[int] = set()
        for path in self.dirs:
            with contextlib.suppress(OSError, ValueError):
                found.update(int(p) for p in (path / "cgroup.procs").read_text().split())
        return sorted(found)

    def kill_all(self, timeout: float = 5.0) -> None:
        """SIGKILL every process in the group until it is empty (or ``timeout`` passes)."""
        deadline = time.monotonic() + timeout
        while (pids := self.pids()) and time.monotonic() < deadline:
            if self.version == "v2":
                with contextlib.suppress(OSError):
                    (self._dirs["pids"] / "cgroup.kill").write_text("1")
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill what is left and remove the group's folders; never raises."""
        if self._weight_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._weight_fd)
            self._weight_fd = None
        self.kill_all()
        for path in self.dirs:
            for _ in range(50):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)  # the last exits are still being accounted


def _read(path: str) -> str:
    """A small cgroup file's text; read at every decision (CPU, breaches), so without
    ``Path.read_text``'s buffered text layer, which cost 3 to 4 times as much (issue 12 item 6)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(fd, 1 << 16).decode()
    finally:
        os.close(fd)


def _supervised(pids: list[int]) -> bool:
    """Whether one of ``pids`` is a supervisor of ours (it removes its group itself, once
    its bot is dead); a bot at L2 runs as a uid of its own, so cannot pass for one."""
    for pid in pids:
        with contextlib.suppress(OSError):
            if os.stat(f"/proc/{pid}").st_uid != os.geteuid():
                continue
            if b"_supervisor.py" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return True
    return False


def sweep_groups() -> list[str]:
    """Remove the seat groups, next to this process's own, of arena processes that are gone
    (killed, with their supervisor, before they could): whatever still runs in one is
    killed first, unless its supervisor is still at it. The names removed."""
    try:
        version, parents = _parents()
    except OSError:
        return []
    found: dict[str, dict[str, Path]] = {}  # a name -> controller -> its folder
    seats_parents: set[Path] = set()
    for controller, parent in parents.items():
        with contextlib.suppress(OSError):
            for name in os.listdir(parent):
                if not name.startswith("arena-"):
                    continue
                if name.endswith(SEATS_SUFFIX) and owner_gone(name[len("arena-") :]):
                    seats_parents.add(parent / name)
                    for child in os.listdir(parent / name):
                        if child.startswith("arena-"):
                            found.setdefault(child, {})[controller] = parent / name / child
                elif not name.endswith(SEATS_SUFFIX):
                    found.setdefault(name, {})[controller] = parent / name
    removed = []
    for name in sorted(found):
        rest = name[len("arena-") :]
        if not (owner_gone(rest) or legacy_owner_gone(rest)):
            continue
        dirs = {c: path for c, path in found[name].items() if path.is_dir()}
        if not dirs:
            continue
        group = SeatCgroup(version, dirs)
        if _supervised(group.pids()):
            continue
        group.kill_all(timeout=1.0)
        group.remove()
        if not any(path.exists() for path in group.dirs):
            removed.append(name)
    for seats in sorted(seats_parents):
        with contextlib.suppress(OSError):
            seats.rmdir()
            removed.append(seats.name)
    return removed

"""What a bot flooding its stdout costs the arena (issue 19, audit item 6).

Runs ``python -m arena match`` as a subprocess: a launched bot (``scripts/_bench_bot.py``)
against ``builtin:calling-station``, ``--hands`` hands. The bot either floods stdout with
64 KB writes from a thread while it plays (``flood``) or writes nothing (``quiet``).
Measured: the CPU seconds (utime + stime, ``/proc/PID/stat``, read from the zombie before
it is reaped) of the arena process itself, not of its bots or supervisors. Printed per
layer: median CPU of each kind and the ratio flood / quiet per round (median, min-max).

``--git-rev REV`` also measures the tree of REV (a ``git worktree`` in /tmp, removed at
the end) in the same run, rounds interleaved, e.g. ``--git-rev 898c51b`` (before 18aba27:
past the log's cap the arena read the flood as fast as it came).

Usage: ``.venv/bin/python scripts/bench_output_flood.py [--layers L0,L2] [--rounds 3]
[--hands 200] [--git-rev 898c51b]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOT = Path(__file__).resolve().parent / "_bench_bot.py"
TICK = os.sysconf("SC_CLK_TCK")


def own_cpu(pid: int) -> float:
    """utime + stime of ``pid`` alone (not its children), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def run_match(tree: Path, layer: str, mode: str, hands: int, out: Path) -> float:
    """One match; the arena process's own CPU seconds."""
    bot = f"{mode}={sys.executable} {BOT} {mode} --root {tree}"
    argv = [sys.executable, "-m", "arena", "match", "--no-plugins", "--hands", str(hands)]
    argv += ["--seed", "7", "--sandbox", layer, "--out", str(out), bot]
    argv += ["builtin:calling-station"]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    process = subprocess.Popen(
        argv, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)
    cpu = own_cpu(process.pid)
    _, stderr = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"arena match failed ({tree}, {layer}, {mode}):\n{stderr.decode()}")
    return cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", default="L0,L2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--git-rev", help="also measure this older commit (a worktree)")
    args = parser.parse_args()
    layers = args.layers.split(",")
    trees = {"after": ROOT}
    worktree = None
    if args.git_rev:
        worktree = Path(tempfile.mkdtemp(prefix="bench-old-"))
        worktree.rmdir()
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(worktree), args.git_rev],
            check=True,
            capture_output=True,
        )
        trees[f"before ({args.git_rev})"] = worktree
    cpu: dict[tuple[str, str, str], list[float]] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="bench-flood-") as out:
            for _ in range(args.rounds):
                for name, tree in trees.items():
                    for layer in layers:
                        for mode in ("quiet", "flood"):
                            took = run_match(tree, layer, mode, args.hands, Path(out))
                            cpu.setdefault((name, layer, mode), []).append(took)
    finally:
        if worktree is not None:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(worktree)],
                check=False,
            )
    print(
        f"arena process's own CPU, {args.hands}-hand match vs builtin:calling-station, "
        f"{args.rounds} rounds, {os.cpu_count()} CPUs"
    )
    print(
        f"{'tree':<18} {'layer':<5} {'quiet s':>8} {'flood s':>8} "
        f"{'flood-quiet s':>13} {'flood/quiet median':>18} {'min-max':>12}"
    )
    for name in trees:
        for layer in layers:
            quiet, flood = cpu[(name, layer, "quiet")], cpu[(name, layer, "flood")]
            ratios = [f / q for f, q in zip(flood, quiet, strict=True)]
            print(
                f"{name:<18} {layer:<5} {statistics.median(quiet):8.2f} "
                f"{statistics.median(flood):8.2f} "
                f"{statistics.median(f - q for f, q in zip(flood, quiet, strict=True)):13.2f} "
                f"{statistics.median(ratios):18.2f} "
                f"{min(ratios):5.2f}-{max(ratios):<6.2f}"
            )


if __name__ == "__main__":
    main()

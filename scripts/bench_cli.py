"""How fast the command line answers (issue 20 item 3): help and usage errors.

Times ``arena --help``, ``arena COMMAND --help`` for every command and subcommand, and a
few usage errors, each as a fresh ``python -m arena`` process, next to ``git --version``
and ``python -c pass`` measured in the same run (interleaved, round by round, so a busy
machine slows them alike). Prints the median and spread (min-max) of N runs, and each
row as a ratio to both peers. The target is 0.3 s for every row on the development
machine. Usage: ``bench_cli.py [-n N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.cli._app import cli, load_all  # noqa: E402  (the tree, to list every command)

PY = sys.executable
USAGE_ERRORS = (
    ["match", "--max-draw", "0", "a", "b"],
    ["match", "--joker", "two", "a", "b"],
    ["match", "--hands", "0", "a", "b"],
    ["bots", "add"],
)


def command_paths() -> list[list[str]]:
    """Every command and subcommand, as the words that name it."""
    import click

    load_all()
    paths: list[list[str]] = []

    def walk(group: click.Group, prefix: list[str]) -> None:
        for name in sorted(group.commands):
            paths.append([*prefix, name])
            command = group.commands[name]
            if isinstance(command, click.Group):
                walk(command, [*prefix, name])

    walk(cli, [])
    return paths


def once(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=11, help="runs of each row (median of them)")
    args = parser.parse_args()
    rows: dict[str, list[str]] = {
        "git --version": ["git", "--version"],
        "python -c pass": [PY, "-c", "pass"],
        "arena --help": [PY, "-m", "arena", "--help"],
    }
    for path in command_paths():
        rows[f"arena {' '.join(path)} --help"] = [PY, "-m", "arena", *path, "--help"]
    for words in USAGE_ERRORS:
        rows[f"arena {' '.join(words)} (usage error)"] = [PY, "-m", "arena", *words]
    times: dict[str, list[float]] = {name: [] for name in rows}
    env_note = f"{os.cpu_count()} cores, python {sys.version.split()[0]}"
    for _ in range(args.n):  # interleaved: each round times every row once
        for name, argv in rows.items():
            times[name].append(once(argv))
    git = statistics.median(times["git --version"])
    python = statistics.median(times["python -c pass"])
    width = max(len(name) for name in rows)
    print(f"median of {args.n} runs ({env_note}); spread is min-max")
    print(f"{'command':<{width}}  {'median':>8}  {'spread':>15}  {'x git':>7}  {'x python':>8}")
    for name, samples in times.items():
        median = statistics.median(samples)
        spread = f"{min(samples) * 1000:.0f}-{max(samples) * 1000:.0f} ms"
        print(
            f"{name:<{width}}  {median * 1000:6.0f} ms  {spread:>15}  "
            f"{median / git:6.1f}x  {median / python:7.1f}x"
        )
    slowest = max(
        (n for n in times if n.startswith("arena")), key=lambda n: statistics.median(times[n])
    )
    print(
        f"slowest arena row: {slowest}, {statistics.median(times[slowest]) * 1000:.0f} ms (target 300 ms)"
    )


if __name__ == "__main__":
    main()

"""Dealer throughput next to CPU hogs (issue 19 item 6; commit 5f22bfd: every seat cpu
group of one arena process under one parent of default weight).

The measured match: two cheap launched Python bots (``scripts/_bench_bot.py quiet``, a
calling station) at ``--sandbox``, ``--hands`` hands. Its hands per second are read from
its records (``match_started`` to ``match_finished`` in ``log.jsonl``: bot start-up excluded)
and printed as a ratio to the same match alone, for S hog seats (``_bench_bot.py hog``:
each decision spins the CPU for ``--spin`` s of its ``--timeout``), two ways:

- ``match``: the measured ``arena match`` alone, and while S/2 other ``arena match``
  processes each play hog against hog (S hog seats, each arena process its own parent
  cpu group);
- ``tournament``: one ``arena tournament run``, gauntlet, challenger q1 against q2 and
  S hogs, all S+1 matches at once (the S hog seats and the measured seats under the one
  parent of that arena process); stopped with SIGINT once q1-q2 has its result. Its
  baseline is the same tournament with no hog.

``--git-rev REV`` measures REV's tree too (a ``git worktree`` in /tmp, removed at the
end), rounds interleaved, e.g. ``--git-rev 898c51b`` (before 5f22bfd).

Usage: ``.venv/bin/python scripts/bench_dealer_vs_hogs.py [--hogs 2,4] [--rounds 2]
[--hands 200] [--modes match,tournament] [--git-rev 898c51b]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOT = Path(__file__).resolve().parent / "_bench_bot.py"


def _bot(name: str, tree: Path, *mode: str) -> str:
    return f"{name}={sys.executable} {BOT} {' '.join(mode)} --root {tree}"


def _arena(tree: Path, *argv: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena", *argv],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGINT (the arena stops its bots), then SIGKILL after 30 s; by pid."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stderr:
        process.stderr.close()


def _stamp(line: dict) -> float:
    return datetime.fromisoformat(line["timestamp"].replace("Z", "+00:00")).timestamp()


def _rate(out: Path, players: set[str]) -> float | None:
    """Hands per second of the finished match between ``players`` under ``out``."""
    for log in out.rglob("log.jsonl"):
        lines = [json.loads(text) for text in log.read_text().splitlines() if text.strip()]
        start = [x for x in lines if x.get("event") == "match_started"]
        if not start or set(start[0].get("players", [])) != players:
            continue
        end = [x for x in lines if x.get("event") == "match_finished"]
        if not end:
            return None
        began = _stamp(start[0])  # the bots are up (bot_hello is logged at the end)
        result = json.loads((log.parent / "result.json").read_text())
        return result["hands_played"] / (_stamp(end[0]) - began)
    return None


def _hog_matches(tree: Path, pairs: int, args: argparse.Namespace, out: Path) -> list:
    spin = str(args.spin)
    return [
        _arena(
            tree,
            "match",
            "--no-plugins",
            "--hands",
            "1000000",
            "--timeout",
            str(args.timeout),
            "--sandbox",
            args.sandbox,
            "--out",
            str(out / f"hog{i}"),
            _bot(f"hog{i}a", tree, "hog", spin),
            _bot(f"hog{i}b", tree, "hog", spin),
        )
        for i in range(pairs)
    ]


def measure_match(tree: Path, hogs: int, args: argparse.Namespace, out: Path) -> float:
    running = _hog_matches(tree, hogs // 2, args, out)
    try:
        if running:
            time.sleep(args.warmup)
        match = _arena(
            tree,
            "match",
            "--no-plugins",
            "--hands",
            str(args.hands),
            "--timeout",
            str(args.timeout),
            "--sandbox",
            args.sandbox,
            "--out",
            str(out / "m"),
            _bot("q1", tree, "quiet"),
            _bot("q2", tree, "quiet"),
        )
        _, stderr = match.communicate()
        if match.returncode != 0:
            raise SystemExit(f"arena match failed:\n{stderr.decode()}")
    finally:
        for process in running:
            _stop(process)
    rate = _rate(out / "m", {"q1", "q2"})
    assert rate is not None
    return rate


TOURNAMENT = """
[tournament]
name = "hogs"
format = "gauntlet"
challengers = ["q1"]
hands_per_match = {hands}
duplicate = false
rounds = 1
concurrency = {tables}
max_tables_per_bot = {tables}
seed = 1
sandbox = "{sandbox}"
output = "{out}/runs"
database = "{out}/arena.db"

[timeouts]
action = {timeout}
startup = 30.0

[[bots]]
name = "q1"
command = "{python} {bot} quiet --root {tree}"

[[bots]]
name = "q2"
command = "{python} {bot} quiet --root {tree}"
"""

HOG = """
[[bots]]
name = "hog{i}"
command = "{python} {bot} hog {spin} --root {tree}"
"""


def measure_tournament(tree: Path, hogs: int, args: argparse.Namespace, out: Path) -> float:
    fields = {
        "python": sys.executable,
        "bot": BOT,
        "tree": tree,
        "out": out,
        "hands": args.hands,
        "tables": hogs + 1,
        "sandbox": args.sandbox,
        "timeout": args.timeout,
        "spin": args.spin,
    }
    text = TOURNAMENT.format(**fields)
    text += "".join(HOG.format(i=i, **fields) for i in range(hogs))
    path = out / "hogs.toml"
    path.write_text(text)
    process = _arena(tree, "tournament", "run", "--no-plugins", str(path))
    try:
        deadline = time.monotonic() + 600
        while (rate := _rate(out / "runs", {"q1", "q2"})) is None:
            if process.poll() is not None and _rate(out / "runs", {"q1", "q2"}) is None:
                raise SystemExit(f"tournament failed:\n{process.stderr.read().decode()}")  # type: ignore[union-attr]
            if time.monotonic() > deadline:
                raise SystemExit("the measured match did not finish in 600 s")
            time.sleep(0.5)
    finally:
        _stop(process)
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hogs", default="2,4", help="hog seats S")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--sandbox", default="L2")
    parser.add_argument("--timeout", type=float, default=1.0)
    parser.add_argument("--spin", type=float, default=0.9)
    parser.add_argument("--warmup", type=float, default=5.0, help="s for hog matches to start")
    parser.add_argument("--modes", default="match,tournament")
    parser.add_argument("--git-rev", help="also measure this older commit (a worktree)")
    args = parser.parse_args()
    counts = [0, *(int(s) for s in args.hogs.split(","))]
    modes = args.modes.split(",")
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
        trees[f"before {args.git_rev}"] = worktree
    measure = {"match": measure_match, "tournament": measure_tournament}
    rates: dict[tuple[str, str, int], list[float]] = {}
    try:
        for _ in range(args.rounds):
            for name, tree in trees.items():
                for mode in modes:
                    for hogs in counts:
                        with tempfile.TemporaryDirectory(prefix="bench-hogs-") as out:
                            rate = measure[mode](tree, hogs, args, Path(out))
                        rates.setdefault((name, mode, hogs), []).append(rate)
    finally:
        if worktree is not None:
            with contextlib.suppress(OSError):
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(worktree)],
                    check=False,
                )
    print(
        f"hands/s of q1-q2 ({args.hands} hands, {args.sandbox}), hog decisions spin "
        f"{args.spin} s of {args.timeout} s, {args.rounds} rounds, {os.cpu_count()} CPUs"
    )
    print(f"{'tree':<16} {'mode':<10} {'S':>2} {'hands/s':>8} {'x alone med':>11} {'min-max':>11}")
    for name in trees:
        for mode in modes:
            alone = rates[(name, mode, 0)]
            for hogs in counts:
                found = rates[(name, mode, hogs)]
                ratios = [r / a for r, a in zip(found, alone, strict=True)]
                print(
                    f"{name:<16} {mode:<10} {hogs:>2} {statistics.median(found):8.1f} "
                    f"{statistics.median(ratios):11.2f} {min(ratios):5.2f}-{max(ratios):<5.2f}"
                )


if __name__ == "__main__":
    main()

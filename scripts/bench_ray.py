"""Tournament hands/s with the Ray executor against the in-process one, in the same run.

Plays the same heads-up duplicate round robin of built-in bots (random, calling station,
rule-based twice: 6 matches) three ways, each into its own folder: in this process
(``workers = 1``), in 2 local worker processes, and as Ray tasks on a private Ray
started here for the run (``RayExecutor(address=None)``, one CPU per match), and prints
hands/s and the ratio to the in-process figure. Ray's start-up (about 5 s) is counted
separately: it is paid once per league, not per match. Usage: ``.venv/bin/python
scripts/bench_ray.py [--hands N] [--ray-address auto]`` (``--ray-address`` uses a running
cluster instead).
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import textwrap
import time
from pathlib import Path

import trio

from arena.executors import ProcessExecutor
from arena.executors._ray import RayExecutor
from arena.tournament import Store, load_tournament, run_tournament

BOTS = ("random", "calling-station", "rule-based", "rule-based")


def _write(folder: Path, hands: int) -> Path:
    bots = "".join(f'\n[[bots]]\nname = "{b}-{i}"\nbuiltin = "{b}"\n' for i, b in enumerate(BOTS))
    path = folder / "bench.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [tournament]
            name = "bench"
            hands_per_match = {hands}
            duplicate = true
            concurrency = 2
            seed = 5
            output = "runs"
            database = "arena.db"
            sandbox = "off"

            [game]
            structure = "fixed_limit"
            big_blind = 2
            """
        )
        + bots
    )
    return path


def _play(folder: Path, hands: int, executor: object) -> tuple[float, int]:
    folder.mkdir()
    config = load_tournament(_write(folder, hands))

    async def main() -> int:
        with Store.open(config.database) as store:
            progress = await run_tournament(config, store, executor=executor)  # type: ignore[arg-type]
            return progress.done

    began = time.perf_counter()
    done = trio.run(main)
    return time.perf_counter() - began, done * hands


def main(hands: int, address: str | None) -> None:
    import ray  # the bench needs the extra: pip install 'arena[ray]'

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        here_s, played = _play(base / "inprocess", hands, None)
        pool_s, _ = _play(base / "workers", hands, ProcessExecutor(2))
        began = time.perf_counter()
        ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
        ray_start = time.perf_counter() - began
        try:
            ray_s, _ = _play(base / "ray", hands, RayExecutor())
            cpus = int(ray.cluster_resources().get("CPU", 0))
        finally:
            ray.shutdown()
    print(f"{played} hands ({len(BOTS)} built-in bots, heads-up duplicate round robin)")
    print(f"{'executor':<24} {'seconds':>8} {'hands/s':>8} {'ratio':>6}")
    for name, seconds in (
        ("in-process", here_s),
        ("2 worker processes", pool_s),
        (f"Ray ({cpus} CPUs)", ray_s),
    ):
        print(f"{name:<24} {seconds:8.2f} {played / seconds:8.0f} {here_s / seconds:6.2f}")
    print(f"Ray start-up (once per run, not counted above): {ray_start:.1f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=400, help="hands per match")
    parser.add_argument("--ray-address", default=None, help="a running cluster (default: private)")
    arguments = parser.parse_args()
    main(arguments.hands, arguments.ray_address)

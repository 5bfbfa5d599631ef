"""Start-up time of a launched Python SDK bot per sandbox layer, against ``off`` in the same run.

Starts ``examples_bots/calling_station.py`` until its health check answers, then closes
it, alternating layers round by round (so a busy neighbour slows every layer alike), and
prints the median per layer and its ratio to ``off``. Layers this machine lacks are
listed with the reason. Usage: ``.venv/bin/python scripts/bench_sandbox.py [--rounds N]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import trio

from arena.dealer import LaunchedBot, check_layers

BOT = Path(__file__).resolve().parent.parent / "examples_bots" / "calling_station.py"


async def _start_once(layer: str) -> float:
    bot = LaunchedBot("bench", [sys.executable, str(BOT)], sandbox=layer, startup_timeout=30)
    began = time.perf_counter()
    async with trio.open_nursery() as nursery:
        try:
            await bot.start(nursery)
            took = time.perf_counter() - began
        finally:
            await bot.aclose()
    return took


async def main(rounds: int) -> None:
    layers = ["off"] + [c.layer for c in check_layers() if c.available]
    for check in check_layers():
        if not check.available:
            print(f"{check.layer}: not available ({check.detail})")
    times: dict[str, list[float]] = {layer: [] for layer in layers}
    await _start_once("off")  # warm the caches
    for _ in range(rounds):
        for layer in layers:
            times[layer].append(await _start_once(layer))
    base = statistics.median(times["off"])
    print(f"{'layer':<6} {'median s':>9} {'min s':>7} {'ratio to off':>13}")
    for layer in layers:
        median = statistics.median(times[layer])
        print(f"{layer:<6} {median:9.3f} {min(times[layer]):7.3f} {median / base:13.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    trio.run(main, parser.parse_args().rounds)

"""Issue 12 item 2 (audit, finding 7): the coordinator does not trust what a worker sends.

A real worker (``python -m arena.executors.worker``) is started with a small wrapper that
changes one thing it sends (MODE in its environment): an outcome with chips that do not
add up, or for seats it was not given, or with a seat missing. The Committer refuses it
with ONE line (a TournamentError naming the match), never records chips out of thin air
nor rates bots that were not seated. (Lines that are not JSON are the receive side's:
arena/executors.)
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest
import trio
from kit import league

from arena.executors import ProcessExecutor
from arena.tournament import Store, TournamentError, load_tournament, run_tournament

WRAPPER = r"""
import json, os, sys
from arena.executors import worker

MODE = os.environ["AUDIT_MODE"]
real_send = worker._Wire.send

async def send(self, message):
    if "done" in message:
        if MODE == "extra-chips" and message["outcome"]["result"] is not None:
            result = message["outcome"]["result"]
            result["chips_won"] = [c + 1_000_000 for c in result["chips_won"]]
            for seat in message["outcome"]["seats"]:
                seat["chips_won"] += 1_000_000
        if MODE == "other-seats" and message["outcome"]["result"] is not None:
            message["outcome"]["result"]["names"] = ["intruder", "other"]
        if MODE == "seat-missing" and message["outcome"]["result"] is not None:
            message["outcome"]["seats"] = message["outcome"]["seats"][:1]
    await real_send(self, message)

worker._Wire.send = send
sys.exit(worker.main())
"""


def write(folder: Path, name: str) -> Path:
    return league(folder, name, hands_per_match=6, seed=11, sandbox="off", workers=2)


def run(tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch):
    wrapper = tmp_path / "wrapper.py"
    wrapper.write_text(WRAPPER)
    monkeypatch.setenv("AUDIT_MODE", mode)
    config = load_tournament(write(tmp_path, mode))
    executor = ProcessExecutor(2, command=[sys.executable, str(wrapper)])

    async def main():
        with Store.open(config.database) as store:
            return await run_tournament(config, store, executor=executor)

    return config, trio.run(main)


@pytest.mark.parametrize("mode", ["extra-chips", "other-seats", "seat-missing"])
def test_the_coordinator_refuses_an_outcome_that_does_not_fit_its_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """An outcome whose chips do not add up to zero, or whose names are not the seats the
    coordinator gave the worker, is not recorded (chip conservation and seats are checked
    where results are written: a worker on another machine, a Ray node or a bug in a
    worker must not mint chips); the one line names the match (issue 12 items 1-3, audit)."""
    with pytest.raises(TournamentError) as error:
        run(tmp_path, mode, monkeypatch)
    message = str(error.value)
    assert "\n" not in message and "match r" in message and "worker" in message, message
    config = load_tournament(tmp_path / f"{mode}.toml")
    with sqlite3.connect(config.database) as conn:
        rows = conn.execute("SELECT chips FROM seat_results").fetchall()
        bots = {row[0] for row in conn.execute("SELECT name FROM bots")}
    assert sum(row[0] for row in rows) == 0, f"chips minted: {rows}"
    assert bots == {"calling-station", "rule-based"}, f"ratings for bots not seated: {bots}"
    for result in (config.output / config.name).glob("*/result.json"):
        names = {seat["name"] for seat in json.loads(result.read_text())["seats"]}
        assert names <= {"calling-station", "rule-based"}

"""What the coordinator does with a malformed worker message (audit of issue 12 item 2).

A real worker is started through a small wrapper that changes one thing it sends (MODE in
its environment): a line that is not JSON, a ``done`` whose outcome is missing a key, a
``failed`` without its ``error``, a ``done`` for a match it was not given. The coordinator
replaces such a worker (a bounded number of times) and then stops with ONE line naming the
worker, never a ValueError/KeyError in an exception group (a traceback).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import trio
from kit import league

from arena.executors import ProcessExecutor
from arena.tournament import Store, TournamentError, load_tournament, run_tournament

WRAPPER = r"""
import os, sys
from arena.executors import worker

MODE = os.environ["WIRE_TEST_MODE"]
real_send = worker._Wire.send

async def send(self, message):
    if "done" in message:
        if MODE == "garbage":
            await self._send.send_all(b"this is not json\n")
            return
        if MODE == "not-an-object":
            await self._send.send_all(b"[1, 2]\n")
            return
        if MODE == "missing-key":
            message = {"done": message["done"], "outcome": {"result": None}}
        if MODE == "other-match":
            message = {**message, "done": "someone/else"}
    if "failed" in message and MODE == "failed-no-error":
        message = {"failed": message["failed"]}
    await real_send(self, message)

worker._Wire.send = send
if MODE == "failed-no-error":
    async def play_one(spec, bots):
        from arena.tournament import TournamentError
        raise TournamentError("disk full (simulated)")
    worker.play_one = play_one
sys.exit(worker.main())
"""


def write(folder: Path, name: str) -> Path:
    return league(folder, name, hands_per_match=6, seed=11, sandbox="off", workers=2)


@pytest.mark.parametrize(
    "mode", ["garbage", "not-an-object", "missing-key", "failed-no-error", "other-match"]
)
def test_a_worker_that_says_something_malformed_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """Issue 12 item 2 (audit): each malformed message ends in one TournamentError line
    naming the worker (the CLI shows it as ``Error: ...``), not a traceback."""
    wrapper = tmp_path / "wrapper.py"
    wrapper.write_text(WRAPPER)
    monkeypatch.setenv("WIRE_TEST_MODE", mode)
    config = load_tournament(write(tmp_path, mode))
    executor = ProcessExecutor(2, command=[sys.executable, str(wrapper)])

    async def main():
        with Store.open(config.database) as store, trio.fail_after(120):
            return await run_tournament(config, store, executor=executor)

    with pytest.raises(TournamentError) as error:
        trio.run(main)
    assert "worker" in str(error.value) and "\n" not in str(error.value)

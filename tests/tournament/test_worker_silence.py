"""A worker that stops answering is replaced, not waited for (audit of issue 12 item 2).

A SIGSTOPped worker (a deadlock, a hung file system or a swapped-out machine alike) sends
no heartbeat: past :data:`~arena.executors._pool.SILENCE_TIMEOUT` the coordinator says
which worker is silent in one line, kills it by pid, and a new worker plays its match.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import pytest
import trio
from test_executor import write

from arena.executors import ProcessExecutor, _pool
from arena.tournament import Store, load_tournament, run_tournament


@pytest.mark.timeout(120)
def test_a_silent_worker_is_replaced_not_waited_for_forever(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 12 item 2 (audit): SIGSTOP one worker; the tournament still ends, every
    match recorded, and a note names the silent worker."""
    monkeypatch.setattr(_pool, "SILENCE_TIMEOUT", 6.0)
    path = write(tmp_path, "stuck", workers=2)
    config = load_tournament(path)
    executor = ProcessExecutor(2)
    stopped: list[int] = []

    async def main():
        playing = trio.Event()
        with Store.open(config.database) as store, trio.fail_after(100):
            async with trio.open_nursery() as nursery:

                async def stop_one() -> None:
                    await playing.wait()  # a worker mid-match (not one still starting)
                    pid = executor.pids()[0]
                    os.kill(pid, signal.SIGSTOP)
                    stopped.append(pid)

                nursery.start_soon(stop_one)
                return await run_tournament(
                    config, store, executor=executor, on_match_started=lambda *_: playing.set()
                )

    try:
        progress = trio.run(main)
    except trio.TooSlowError:
        pytest.fail(f"worker {stopped} was stopped: the tournament waited for it with no end")
    finally:
        for pid in stopped:  # our own stopped worker: let it die if it is still there
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
    assert progress.done == progress.total
    assert executor.replaced >= 1
    silent = [note for note in progress.notes if "silent" in note]
    assert silent and "worker-" in silent[0] and "\n" not in silent[0], progress.notes

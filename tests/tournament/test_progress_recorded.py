"""The progress count is what the store holds (issue 21 item 3).

A match is recorded as soon as it ends, but rated in schedule order; the count used to
move only when a match was rated, so one slow early match held the bar at 3/36 while
10/36 were recorded.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
import trio
from kit import gated_bot
from test_executor import write

from arena.executors import ProcessExecutor
from arena.tournament import Progress, Store, load_tournament, run_tournament


def _recorded(database: Path) -> int:
    with sqlite3.connect(database) as conn:
        return int(conn.execute("SELECT count(*) FROM matches").fetchone()[0])


@pytest.mark.timeout(120)
def test_the_count_moves_when_a_match_is_recorded_not_when_it_is_rated(tmp_path: Path) -> None:
    """Issue 21 item 3: while the first scheduled match is held by a gated bot, a later
    match is recorded, and the progress reported says so (1 done, not 0)."""
    gate = tmp_path / "gate"
    bots = '\n[[bots]]\nname = "random"\nbuiltin = "random"\n' + gated_bot(gate)
    config = load_tournament(write(tmp_path, "count", workers=2, bots=bots))
    counts: list[int] = []
    seen: dict[str, int] = {}

    def on_progress(progress: Progress) -> None:
        counts.append(progress.done)

    async def main() -> Progress:
        with Store.open(config.database) as store:
            async with trio.open_nursery() as nursery:

                async def watch() -> None:
                    end = time.monotonic() + 60
                    while time.monotonic() < end and not _recorded(config.database):
                        await trio.sleep(0.05)
                    await trio.sleep(0.3)  # the coordinator's callback runs after the commit
                    seen["recorded"], seen["shown"] = _recorded(config.database), counts[-1]
                    gate.write_text("open")

                nursery.start_soon(watch)
                return await run_tournament(
                    config, store, executor=ProcessExecutor(2), on_progress=on_progress
                )

    progress = trio.run(main)
    assert progress.done == progress.total == 6
    assert seen["recorded"] >= 1
    assert seen["shown"] == seen["recorded"], seen

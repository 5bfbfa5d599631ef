"""Issue 12 items 1-2 (audit): a finished match's result waits, uncommitted, behind a slow one.

The Committer commits in schedule order, so with workers = 2 an outcome that ends early is
held in the coordinator's memory until every match scheduled before it is committed. One
slow (or stuck, or gated) early match therefore keeps every later result out of the store
for as long as it lasts: the leaderboard shows 0 matches, and a coordinator that dies
then (SIGKILL, OOM, a reboot) loses all of them; ``resume`` plays them again, showing the
same decks to the bots a second time and spending the league's time twice. In a 19,900-
match league one stuck early match holds everything.

Expected: a match whose records are written is durable (its rows committed, or at least
kept) before the next slow one ends; live Elo order can still be applied in schedule order.
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
from arena.tournament import Store, load_tournament, run_tournament


@pytest.mark.timeout(120)
def test_a_finished_match_is_committed_while_an_earlier_one_still_plays(tmp_path: Path) -> None:
    """(The schedule: r1-m001 gated vs calling-station, r1-m002 rule-based vs random.)
    The first scheduled match is held by a gated bot; the second (no gated bot) ends in
    the other worker. Before the gate opens, the second match's result is in the store
    (issue 12 items 1-2, audit)."""
    gate = tmp_path / "gate"
    bots = '\n[[bots]]\nname = "random"\nbuiltin = "random"\n' + gated_bot(gate)
    path = write(tmp_path, "held", workers=2, bots=bots)
    config = load_tournament(path)
    seen: dict[str, int] = {}

    async def main():
        with Store.open(config.database) as store:
            async with trio.open_nursery() as nursery:

                async def watch() -> None:
                    records = config.output / config.name
                    end = time.monotonic() + 60
                    while time.monotonic() < end:
                        finished = list(records.glob("r*/result.json"))
                        if finished:
                            seen["finished"] = len(finished)
                            # the gate holds the first match for as long as this waits: a
                            # later match in the store now was recorded ahead of it
                            while time.monotonic() < end:
                                with sqlite3.connect(config.database) as conn:
                                    seen["committed"] = conn.execute(
                                        "SELECT count(*) FROM matches"
                                    ).fetchone()[0]
                                if seen["committed"]:
                                    break
                                await trio.sleep(0.1)
                            break
                        await trio.sleep(0.05)
                    gate.write_text("open")

                nursery.start_soon(watch)
                return await run_tournament(config, store, executor=ProcessExecutor(2))

    progress = trio.run(main)
    assert progress.done == progress.total == 6
    assert seen.get("finished", 0) >= 1, seen
    assert seen["committed"] >= 1, (
        f"{seen['finished']} match(es) had finished (result.json written) but "
        f"{seen['committed']} were in the store: a coordinator killed now loses them"
    )

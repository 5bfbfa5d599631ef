"""The worker log an error names survives the next run (issue 12 item 2, audit).

Each run names its workers past the ones an earlier run used, so the ``resume`` the error
tells the user to run never truncates the log that error named.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import trio
from test_executor import write

from arena.executors import ProcessExecutor
from arena.tournament import Store, TournamentError, load_tournament, run_tournament


def _crash(text: str) -> list[str]:
    return [sys.executable, "-c", f"import sys; sys.stderr.write({text!r} + '\\n'); sys.exit(3)"]


def _run(path: Path, command: list[str], *, resume: bool) -> str:
    config = load_tournament(path)

    async def main():
        with Store.open(config.database) as store:
            await run_tournament(
                config, store, resume=resume, executor=ProcessExecutor(2, command=command)
            )

    with pytest.raises(TournamentError) as error:
        trio.run(main)
    return str(error.value)


def test_resume_keeps_the_log_the_last_error_named(tmp_path: Path) -> None:
    """Issue 12 item 2 (audit): a worker that crashes before it is ready, twice."""
    path = write(tmp_path, "logs", workers=2)
    first = _run(path, _crash("first run: the traceback you need"), resume=False)
    named = re.search(r"see (\S+\.log)", first)
    assert named, first
    _run(path, _crash("second run"), resume=True)
    assert "first run" in Path(named.group(1)).read_text(), (
        f"{named.group(1)} (named by the first run's error) was overwritten by the resume"
    )
    logs = sorted(p.name for p in Path(named.group(1)).parent.glob("*.log"))
    assert len(logs) == len(set(logs)) >= 2, logs

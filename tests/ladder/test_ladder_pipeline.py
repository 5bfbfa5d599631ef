"""A version's way into the pool (issue 22 item 3): the build, then the gate (check-bot's
scenarios, smoke matches against the house bots, the fingerprint); a broken bot is
rejected with the reason and the end of its log, in paths of its own folder only."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from arena.ladder._config import load_ladder
from arena.ladder._db import ACTIVE, REJECTED, LadderDB
from arena.ladder._intake import pack_folder, store_submission
from arena.ladder._jobs import BUILD, GATE, claim, finish
from arena.ladder._pipeline import Pipeline

LADDER = """
[tournament]
name = "course"
hands_per_match = 20
output = "arena-data/runs"
database = "arena-data/arena.db"
[ladder]
gate_hands = 20
fingerprint_hands = 20
[[bots]]
name = "rule-based"
builtin = "rule-based"
[[bots]]
name = "calling-station"
builtin = "calling-station"
"""


@pytest.fixture(scope="module")
def student(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("templates") / "stu"
    subprocess.run(
        [sys.executable, "-m", "arena", "new-bot", str(folder), "--lang", "python"],
        check=True,
        capture_output=True,
    )
    return folder


def _submit_and_gate(root: Path, folder: Path):
    root.mkdir(exist_ok=True)
    (root / "ladder.toml").write_text(LADDER)
    config = load_ladder(root)
    with LadderDB.open(config.database) as ladder:
        ladder.add_team("alice")
        upload = store_submission(pack_folder(folder), "stu.tar.gz", config.storage)
        version = ladder.add_version(
            ladder.team("alice"),
            upload.sha256,
            "stu.tar.gz",
            str(upload.folder.relative_to(config.storage)),
            per_day=10,
        )
        pipeline = Pipeline(config, ladder)

        async def main() -> None:
            for kind, step in ((BUILD, pipeline.build), (GATE, pipeline.gate)):
                job = claim(ladder, kind, lease=600)
                if job is not None:
                    await step(job)
                    finish(ladder, job)

        trio.run(main)
        return ladder.version(version.id), ladder.fingerprints()


def test_a_working_bot_passes_the_gate_and_is_fingerprinted(tmp_path, student):
    version, prints = _submit_and_gate(tmp_path, student)
    assert version.status == ACTIVE, version.reason
    assert [v.id for v, _ in prints] == [version.id]


def test_a_syntax_error_is_rejected_with_its_line(tmp_path, student):
    broken = tmp_path / "broken"
    shutil.copytree(student, broken)
    with (broken / "bot.py").open("a") as file:
        file.write("\ndef (\n")
    version, prints = _submit_and_gate(tmp_path / "ladder", broken)
    assert version.status == REJECTED
    assert "did not start" in version.reason
    assert "SyntaxError" in version.log_tail and "bot.py" in version.log_tail
    assert str(tmp_path) not in version.reason + version.log_tail  # no server paths
    assert prints == []

"""Issue 21 item 4: each match's replay page is written as that match is recorded, so a run
that is interrupted keeps the replays of the matches it finished."""

from __future__ import annotations

import textwrap
from pathlib import Path

import trio

from arena.cli._replays import match_replay_note
from arena.tournament import Session, Store, parse_tournament

THREE_BOTS = """
[tournament]
name = "cut"
hands_per_match = 4
duplicate = true
seed = 5
concurrency = 1
output = "runs"
database = "arena.db"

[[bots]]
name = "random"
builtin = "random"

[[bots]]
name = "calling-station"
builtin = "calling-station"

[[bots]]
name = "rule-based"
builtin = "rule-based"
"""


def test_an_interrupted_run_keeps_the_replays_of_its_finished_matches(tmp_path: Path) -> None:
    """The run is cancelled as soon as its first match is recorded, before the end-of-run
    sweep: that match's folder has its replay page all the same."""
    config = parse_tournament(textwrap.dedent(THREE_BOTS), "cut.toml", base_dir=tmp_path)
    swept: list[Path] = []

    async def main() -> None:
        with trio.CancelScope() as scope:

            def progressed(progress) -> None:
                if progress.done >= 1:
                    scope.cancel()

            session = Session(
                config,
                on_progress=progressed,
                replays=lambda records: swept.append(records) or [],
                match_replay=match_replay_note,
            )
            async with session:
                await session.play()

    trio.run(main)
    assert [] == swept, "the run was not interrupted before its end"
    with Store.open(config.database, create=False) as store:
        rows = store.match_rows(tournament="cut")
    assert 1 <= len(rows) < 3
    for row in rows:
        page = Path(row.records_dir) / "replay.html"
        assert page.is_file(), f"{row.key}: no replay page after the interruption"
        assert "<html" in page.read_text(encoding="utf-8")


def test_a_match_replay_that_cannot_be_written_is_a_note(tmp_path: Path) -> None:
    """A folder whose hands do not replay gives a note; one with no hands gives nothing."""
    assert match_replay_note(tmp_path) is None
    (tmp_path / "hands.phhs").write_text("not a hand history\x1b[2J", encoding="utf-8")
    note = match_replay_note(tmp_path)
    assert note is not None and note.startswith("note: no replay page") and "\x1b" not in note

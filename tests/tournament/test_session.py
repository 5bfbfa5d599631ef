"""Issue 20 item 2: a whole tournament through :class:`arena.tournament.Session`, no CLI."""

from __future__ import annotations

import contextlib
import textwrap
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.tournament import (
    Session,
    SessionResult,
    Store,
    TournamentError,
    parse_tournament,
)

TWO_BOTS = """
[tournament]
name = "{name}"
hands_per_match = 4
duplicate = true
seed = 11
output = "runs"
database = "arena.db"
{more}
[[bots]]
name = "random"
builtin = "random"

[[bots]]
name = "calling-station"
builtin = "calling-station"
"""


def config_in(folder: Path, name: str = "session", more: str = ""):
    text = textwrap.dedent(TWO_BOTS).format(name=name, more=more)
    return parse_tournament(text, f"{name}.toml", base_dir=folder)


class FakePage:
    """A live page that remembers what it was fed."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.hands = 0
        self.finished: list[list[dict[str, Any]]] = []

    def match_started(self, table_id, names) -> None:
        self.started.append(table_id)

    def hand_finished(self, table_id, number, hand, seats, names) -> None:
        self.hands += 1

    def match_finished(self, table_id, result=()) -> None:
        self.finished.append(list(result))

    def standings(self, rows) -> None:
        pass


def test_a_session_plays_records_and_reports_a_whole_tournament(tmp_path: Path) -> None:
    """Two built-in bots, 4 duplicate hands: the store holds the finished tournament and its
    match, the callbacks saw each progress, each hand and the result, and the replay
    writer was handed the records folder."""
    config = config_in(tmp_path)
    seen: list[tuple[int, int]] = []
    hands: list[int] = []
    finished: list[SessionResult] = []
    folders: list[Path] = []

    def replays(records: Path) -> list[str]:
        folders.append(records)
        return ["note: a replay note"]

    session = Session(
        config,
        observers={"on_hand": lambda match_id, number, *rest: hands.append(number)},
        on_progress=lambda progress: seen.append((progress.done, progress.total)),
        on_finished=finished.append,
        replays=replays,
    )
    result = session.run_sync()

    assert result.finished and [result] == finished
    assert (0, 1) == seen[0] and (1, 1) == seen[-1]  # one match: before it, after it
    assert [1, 2, 3, 4] == sorted(hands)  # every hand of the match, each once
    assert ["note: a replay note"] == result.replay_notes
    assert [config.output / "session"] == folders
    assert {"random", "calling-station"} == {row.bot for row in result.standings.rows}
    with Store.open(config.database, create=False) as store:
        row = store.get_tournament("session")
        assert row is not None and "finished" == row.status
        (match,) = store.match_rows(tournament="session")
        assert 4 == match.hands_played
        assert {"random", "calling-station"} == {seat.bot for seat in match.seats}
        assert 0 == sum(seat.chips for seat in match.seats)  # chips only change hands


def test_a_session_feeds_the_live_page_and_closes_it(tmp_path: Path) -> None:
    """The page opener is entered for the run and left after it; the page sees the match
    start, every hand and the result; a store handed in is used and left open."""
    config = config_in(tmp_path, "paged")
    page, states = FakePage(), []

    @contextlib.asynccontextmanager
    async def open_page():
        states.append("open")
        yield page
        states.append("closed")

    async def main(store: Store) -> SessionResult:
        async with Session(config, store=store, live_page=open_page) as session:
            assert ["open"] == states
            return await session.play()

    with Store.open(config.database) as store:
        result = trio.run(main, store)
        assert 1 == len(store.match_rows(tournament="paged"))  # still open: ours to close
    assert ["open", "closed"] == states
    assert ["paged/" + result.progress.last_match] == page.started
    assert 4 == page.hands
    assert [{"random", "calling-station"}] == [{r["name"] for r in f} for f in page.finished]


def test_resuming_a_finished_tournament_is_refused(tmp_path: Path) -> None:
    """A session that resumes a finished tournament raises the runner's one-line error."""
    config = config_in(tmp_path, "twice")
    Session(config).run_sync()
    with pytest.raises(TournamentError, match="already finished"):
        Session(config, resume=True).run_sync()


def test_workers_without_an_executor_are_refused_not_played_here(tmp_path: Path) -> None:
    """A file that asks for workers is never silently played in this process."""
    config = config_in(tmp_path, "pool", more="workers = 2")
    with pytest.raises(TournamentError, match="open_executor"):
        Session(config)

"""Tournaments end to end: scheduling many tables, atomic records, resume after kill -9, ladders."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner

from arena.cli import cli
from arena.cli._app import _register
from arena.tournament import Store, compute_standings, load_tournament, run_tournament

_register()

BOTS = """
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


def write_tournament(
    folder: Path,
    name: str,
    *,
    extra_bots: str = "",
    hands: int = 20,
    fmt: str = "round_robin",
    more: str = "",
) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [tournament]
            name = "{name}"
            format = "{fmt}"
            hands_per_match = {hands}
            duplicate = true
            concurrency = 2
            seed = 5
            output = "runs"
            database = "arena.db"
            {more}

            [game]
            structure = "fixed_limit"
            big_blind = 2

            [ratings]
            anchor = "random"
            anchor_rating = 1000
            """
        )
        + BOTS
        + extra_bots
    )
    return path


def test_round_robin_records_every_match_once_with_ratings(tmp_path: Path) -> None:
    """Every scheduled pair is played, committed with its seat rows and Elo updates, and chips add up."""
    config = load_tournament(write_tournament(tmp_path, "rr"))
    with Store.open(config.database) as store:
        progress = trio.run(lambda: run_tournament(config, store))
        assert (3, 3) == (progress.done, progress.total)
        rows = store.match_rows(tournament="rr")
        assert 3 == len(rows)
        assert all(sum(seat.chips for seat in row.seats) == 0 for row in rows)
        assert not store.pending_matches(store.get_tournament("rr").id)
        assert "finished" == store.get_tournament("rr").status
        history = store.rating_history(system="elo", game_type="fixed_limit")
        assert 6 == len(history)  # two seats per match
        standings = compute_standings(store, "fixed_limit", anchor="random", anchor_rating=1000)
        assert {"random", "calling-station", "rule-based"} == {row.bot for row in standings.rows}
        by_bot = {row.bot: row for row in standings.rows}
        assert 1000 == by_bot["random"].fit.elo  # the anchor is pinned exactly
        assert all(row.fit.ci95 > 0 for row in standings.rows if row.bot != "random")
    assert (tmp_path / "runs" / "rr" / "r1-m001" / "hands.phhs").exists()


def test_running_a_tournament_twice_is_refused_and_resume_of_a_finished_one_too(
    tmp_path: Path,
) -> None:
    """A second `run` of the same name and a `resume` of a finished one name the problem."""
    path = write_tournament(tmp_path, "twice")
    assert 0 == CliRunner().invoke(cli, ["tournament", "run", str(path), "--no-plugins"]).exit_code
    again = CliRunner().invoke(cli, ["tournament", "run", str(path), "--no-plugins"])
    assert 1 == again.exit_code
    assert "already exists" in again.output
    resumed = CliRunner().invoke(cli, ["tournament", "resume", str(path), "--no-plugins"])
    assert 1 == resumed.exit_code
    assert "already finished" in resumed.output


def test_resume_refuses_a_changed_file(tmp_path: Path) -> None:
    """Resuming with a file whose settings changed would mix two tournaments: refused."""
    path = write_tournament(tmp_path, "changed", hands=20)
    config = load_tournament(path)
    with Store.open(config.database) as store:
        from arena.tournament._runner import prepare

        prepare(config, store, resume=False)
    write_tournament(tmp_path, "changed", hands=40)
    result = CliRunner().invoke(cli, ["tournament", "resume", str(path), "--no-plugins"])
    assert 1 == result.exit_code
    assert "changed since" in result.output


def test_config_error_names_the_key_without_traceback(tmp_path: Path) -> None:
    """A broken tournament file is a one-line error naming the file and key."""
    path = (
        write_tournament(tmp_path, "broken")
        .read_text()
        .replace('structure = "fixed_limit"', 'structure = "limp"')
    )
    bad = tmp_path / "bad.toml"
    bad.write_text(path)
    result = CliRunner().invoke(cli, ["tournament", "run", str(bad)])
    assert 1 == result.exit_code
    assert "game.structure" in result.output
    assert "Traceback" not in result.output


def test_ladder_adds_a_new_bot_to_the_stored_pool_and_updates_ratings(tmp_path: Path) -> None:
    """A second tournament (ladder) plays the newcomer against the rated pool only."""
    first = load_tournament(write_tournament(tmp_path, "pool"))
    newcomer = """
[[bots]]
name = "newcomer"
builtin = "rule-based"
"""
    ladder = load_tournament(
        write_tournament(
            tmp_path, "ladder", fmt="ladder", extra_bots=newcomer, more='challengers = ["newcomer"]'
        )
    )
    with Store.open(first.database) as store:
        trio.run(lambda: run_tournament(first, store))
        before = store.current_ratings("elo", "fixed_limit")
        assert "newcomer" not in before
        trio.run(lambda: run_tournament(ladder, store))
        rows = store.match_rows(tournament="ladder")
        assert 3 == len(rows)
        assert all("newcomer" in {seat.bot for seat in row.seats} for row in rows)
        after = store.current_ratings("elo", "fixed_limit")
        assert "newcomer" in after
        assert any(after[bot] != before[bot] for bot in before)
        assert 4 == len(compute_standings(store, "fixed_limit").rows)


def test_plugin_hooks_see_a_tournament(tmp_path: Path) -> None:
    """Observers registered as plugins are called for matches, hands and the tournament."""
    from arena.plugins import get_plugin_manager, hookimpl, tournament_observers

    calls: list[str] = []

    class Observer:
        @hookimpl
        def arena_match_started(self, match_id):
            calls.append(f"start {match_id}")

        @hookimpl
        def arena_hand_finished(self, hand_number):
            calls.append("hand")

        @hookimpl
        def arena_match_finished(self, match_id, result):
            calls.append(f"end {match_id} {result.hands_played}")

    pm = get_plugin_manager(autoload=False, extra=[Observer()])
    config = load_tournament(write_tournament(tmp_path, "observed", hands=4))
    with Store.open(config.database) as store:
        trio.run(lambda: run_tournament(config, store, **tournament_observers(pm)))
    assert 3 == sum(call.startswith("start") for call in calls)
    assert 3 == sum(call.startswith("end") for call in calls)
    assert 12 == calls.count("hand")


@pytest.mark.timeout(240)
def test_resume_after_kill_9_loses_no_match_and_counts_none_twice(tmp_path: Path) -> None:
    """Kill the arena with SIGKILL mid-tournament; `arena tournament resume` finishes it exactly."""
    more_bots = "".join(
        f'\n[[bots]]\nname = "extra-{i}"\nbuiltin = "{policy}"\n'
        for i, policy in enumerate(["random", "calling-station", "rule-based", "random"])
    )
    path = write_tournament(tmp_path, "killed", extra_bots=more_bots, hands=60)
    database = tmp_path / "arena.db"
    command = [sys.executable, "-m", "arena", "tournament", "run", str(path), "--no-plugins"]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    recorded_before = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
        if database.exists():
            try:
                with sqlite3.connect(database) as db:
                    recorded_before = db.execute("select count(*) from matches").fetchone()[0]
            except sqlite3.Error:
                continue
            if recorded_before >= 3:
                break
    assert process.poll() is None, (
        f"the tournament ended before it could be killed: {process.stderr.read()}"
    )
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    with sqlite3.connect(database) as db:
        done = {key for (key,) in db.execute("select match_key from matches")}
        total = db.execute("select count(*) from scheduled_matches").fetchone()[0]
        before_rows = dict(db.execute("select match_key, summary_json from matches").fetchall())
    assert 0 < len(done) < total == 21
    resumed = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "resume", str(path), "--no-plugins"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert 0 == resumed.returncode, resumed.stderr
    with sqlite3.connect(database) as db:
        keys = [key for (key,) in db.execute("select match_key from matches")]
        after_rows = dict(db.execute("select match_key, summary_json from matches").fetchall())
        seat_rows = db.execute("select count(*) from seat_results").fetchone()[0]
        status = db.execute("select status from tournaments").fetchone()[0]
    assert total == len(keys) == len(set(keys))
    assert 2 * total == seat_rows
    assert "finished" == status
    assert all(after_rows[key] == before_rows[key] for key in before_rows), (
        "recorded matches must not change"
    )
    for key in keys:  # each match folder holds one whole match, replayable
        replay = CliRunner().invoke(
            cli, ["replay", str(tmp_path / "runs" / "killed" / key / "hands.phhs")]
        )
        assert 0 == replay.exit_code, replay.output


def test_early_stop_ends_a_lopsided_heads_up_match_before_its_hands(tmp_path: Path) -> None:
    """With early_stop, SPRT ends rule-based vs random long before 2000 hands; the result is stored."""
    path = write_tournament(tmp_path, "sprt", hands=2000, more="early_stop = true")
    config = load_tournament(path)
    with Store.open(config.database) as store:
        trio.run(lambda: run_tournament(config, store))
        rows = store.match_rows(tournament="sprt")
    lopsided = next(r for r in rows if {s.bot for s in r.seats} == {"rule-based", "random"})
    assert lopsided.hands_played < 2000
    assert "stopped early" == lopsided.reason
    assert 0 == lopsided.hands_played % 2  # whole duplicate blocks


def test_a_bot_that_never_plays_ranks_below_bots_that_do(tmp_path: Path) -> None:
    """A bot that is healthy but never says Hello loses its matches instead of drawing them;
    with no hand played it is listed apart, not ranked (issue 21 item 3)."""
    mute = Path(__file__).resolve().parents[1] / "dealer" / "bots" / "mute.py"
    extra = f'\n[[bots]]\nname = "mute"\ncommand = "{sys.executable} {mute}"\n'
    path = write_tournament(tmp_path, "mute", extra_bots=extra, hands=10)
    path.write_text(path.read_text() + "\n[timeouts]\nhello = 0.5\n")
    config = load_tournament(path)
    with Store.open(config.database) as store:
        trio.run(lambda: run_tournament(config, store))
        standings = compute_standings(store, "fixed_limit", anchor="random", anchor_rating=1000)
        live = store.current_ratings("elo", "fixed_limit")
    assert "mute" not in {row.bot for row in standings.rows}
    assert (("mute", "no hands played"),) == standings.did_not_play
    assert live["mute"] < 1500 - 10


def test_tables_at_once_and_per_bot_limits_are_respected(tmp_path: Path) -> None:
    """At most `concurrency` tables play at once, and a bot sits at most `max_tables_per_bot`.

    Duplicate dealing opens each bot once per rotation (issue 9): each instance plays one
    table of a match, so a heads-up match holds 4 streams and an instance at most one."""
    import contextlib

    from arena.dealer import policy_driver

    extra = "".join(f'\n[[bots]]\nname = "extra-{i}"\nbuiltin = "random"\n' for i in range(3))
    path = write_tournament(
        tmp_path, "limits", extra_bots=extra, hands=6, more="max_tables_per_bot = 1"
    )
    path.write_text(path.read_text().replace("concurrency = 2", "concurrency = 3"))
    config = load_tournament(path)
    open_streams: dict[str, int] = {}
    peaks = {"streams": 0, "per_bot": 0}

    class Counting:
        """A driver that counts its open streams (one per table it sits at)."""

        def __init__(self, inner):
            self.inner = inner
            self.name = f"{inner.name}@{id(self)}"  # counted per instance

        async def connect(self):
            connection = await self.inner.connect()
            open_streams[self.name] = open_streams.get(self.name, 0) + 1
            peaks["streams"] = max(peaks["streams"], sum(open_streams.values()))
            peaks["per_bot"] = max(peaks["per_bot"], open_streams[self.name])
            close = connection.aclose

            async def aclose():
                open_streams[self.name] -= 1
                await close()

            connection.aclose = aclose
            return connection

        async def aclose(self):
            await self.inner.aclose()

    opened: list[str] = []

    @contextlib.asynccontextmanager
    async def opener(entry):
        opened.append(entry.name)
        yield Counting(policy_driver(entry.name, entry.target, 1))

    with Store.open(config.database) as store:
        progress = trio.run(lambda: run_tournament(config, store, open_driver=opener))
    assert 15 == progress.done  # 6 bots, every pair
    assert 8 <= peaks["streams"] <= 12  # 2 to 3 heads-up matches at once, 4 streams each
    assert 12 == len(opened) == 2 * len({name.split(".")[0] for name in opened})
    assert 1 == peaks["per_bot"]


def test_each_match_s_seat_figures_are_computed_once(tmp_path: Path, monkeypatch) -> None:
    """The stored rows and summary are the recorder's figures: seat_summaries runs once per
    match, and the database says what result.json says."""
    import json

    import arena.dealer._records as records
    import arena.tournament._seat_results as schema

    calls: list[str] = []
    original = records.seat_summaries

    def counted(result, *args, **kwargs):
        calls.append(result.match_id)
        return original(result, *args, **kwargs)

    monkeypatch.setattr(records, "seat_summaries", counted)
    monkeypatch.setattr(schema, "seat_summaries", counted)
    config = load_tournament(write_tournament(tmp_path, "once"))
    with Store.open(config.database) as store:
        trio.run(lambda: run_tournament(config, store))
        rows = store.match_rows(tournament="once")
    assert 3 == len(rows)
    assert sorted(calls) == sorted(set(calls)) and 3 == len(calls)
    for row in rows:
        on_disk = json.loads((Path(row.records_dir) / "result.json").read_text())
        assert on_disk == row.summary
        figures = [(s["name"], s["chips_won"], s["faults"]) for s in on_disk["seats"]]
        assert figures == [(seat.bot, seat.chips, seat.faults) for seat in row.seats]

"""Item 17: the live leaderboard refits on its own thread; the dealer's loop never waits for it."""

from __future__ import annotations

import io
import textwrap
import threading
import time
from pathlib import Path

from rich.console import Console

import arena.cli._tournament as cli_tournament
import arena.tournament._live as live
import arena.tournament._session as session
from arena.plugins import get_plugin_manager, hookimpl
from arena.tournament import load_tournament
from arena.tournament._standings import StandingsRefresher


class HandCounter:
    def __init__(self) -> None:
        self.hands = 0

    @hookimpl
    def arena_hand_finished(self, match_id, hand_number, hand, seats, names) -> None:
        self.hands += 1


def test_hands_go_on_being_played_while_a_refit_is_slow(tmp_path: Path, monkeypatch) -> None:
    """A refit that does not return until 10 more hands are played does not stall the tournament."""
    path = tmp_path / "live.toml"
    path.write_text(
        textwrap.dedent(
            """
            [tournament]
            name = "live"
            hands_per_match = 30
            seed = 3
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
        )
    )
    counter = HandCounter()
    pm = get_plugin_manager(autoload=False)
    pm.register(counter)
    monkeypatch.setattr(cli_tournament, "_plugin_manager", lambda no_plugins: pm)
    real = live.compute_standings
    during: list[int] = []

    def slow_refit(store, game_type, *, tournament=None, **options):
        if tournament is not None and not during:  # the first live refit
            start = counter.hands
            deadline = time.monotonic() + 30  # only so that a blocked loop cannot hang the test
            while counter.hands < start + 10 and time.monotonic() < deadline:
                time.sleep(0.005)
            during.append(counter.hands - start)
        return real(store, game_type, tournament=tournament, **options)

    monkeypatch.setattr(live, "compute_standings", slow_refit)  # the session's live refits
    monkeypatch.setattr(session, "compute_standings", slow_refit)  # its final standings
    console = Console(file=io.StringIO(), width=100)
    standings = cli_tournament.play_tournament(
        load_tournament(path), resume=False, no_plugins=True, console=console
    )
    assert during and during[0] >= 10, during  # hands were played while the refit waited
    assert 3 == len(standings.rows)
    assert 90 == counter.hands


def test_requests_never_wait_and_collapse_into_one_refit_with_the_newest_data() -> None:
    """While a refit runs, 50 requests return at once and cause exactly one more refit."""
    release, started = threading.Event(), threading.Event()
    calls: list[int] = []
    version = [0]

    def compute(store):
        calls.append(version[0])
        started.set()
        release.wait(30)
        return f"standings v{version[0]}"

    refresher = StandingsRefresher(compute, lambda: None, min_interval=0.0)
    try:
        refresher.request()
        assert started.wait(30)
        for v in range(1, 51):
            version[0] = v
            refresher.request()  # a lock for a flag, never the refit
        assert refresher.latest is None and len(calls) == 1
        release.set()
        for _ in range(3000):
            if refresher.refits == 2:
                break
            time.sleep(0.01)
        assert calls == [0, 50]  # the stale requests were skipped, the newest one kept
        assert refresher.latest == "standings v50"
    finally:
        release.set()
        refresher.close()


def test_a_failing_refit_keeps_the_last_standings_and_the_worker_alive() -> None:
    """A refit that raises leaves the previous standings and records the error."""
    results = iter(["first", RuntimeError("disk gone"), "third"])

    def compute(store):
        item = next(results)
        if isinstance(item, Exception):
            raise item
        return item

    with StandingsRefresher(compute, lambda: None, min_interval=0.0) as refresher:
        for expected_refits in (1, 2, 3):
            refresher.request()
            for _ in range(3000):
                if refresher.refits >= expected_refits:
                    break
                time.sleep(0.01)
            if expected_refits == 2:
                assert (refresher.latest, refresher.error) == ("first", "disk gone")
        assert (refresher.latest, refresher.error) == ("third", None)

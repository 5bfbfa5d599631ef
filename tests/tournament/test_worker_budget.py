"""Bots on a budget in worker processes (issue 12 item 5): each worker keeps at most
``max_live_bots`` launched bot processes, is told with each match which bots to stop
first (no match left, or room), and a bot that cannot start forfeits its matches.

The bots are ``bots/counted.py`` (see ``test_bot_budget``): each start counts the
processes of its kind alive at that moment. Nothing here asserts a timing.
"""

from __future__ import annotations

from pathlib import Path

from test_bot_budget import chips, most_alive, play, recorded, starts, write

from arena.executors import ProcessExecutor
from arena.tournament import InProcessExecutor, Store


def test_each_worker_keeps_to_its_bound_and_plays_every_match_once(tmp_path) -> None:
    """issue 12 item 5: 5 launched bots, 2 workers with a bound of 2 each: no start saw more
    than 4 alive, each worker's own peak is at most 2, bots were restarted to fit, and every
    match is recorded once."""
    executor = ProcessExecutor(2, max_live_bots=2)
    config, progress = play(write(tmp_path, "pool", 5, duplicate=False), executor)
    keys = recorded(config)
    assert 10 == len(keys) == len(set(keys)) == progress.done
    assert most_alive(tmp_path) <= 4
    assert executor.stats and all(view.peak <= 2 for view in executor.stats)
    assert sum(view.restarts for view in executor.stats) > 0  # the bound was binding
    assert sum(view.starts for view in executor.stats) == len(starts(tmp_path))


def test_workers_on_a_budget_give_the_unbounded_results(tmp_path) -> None:
    """issue 12 item 5: 2 workers with a bound of 2 give each match the chips, and the
    tournament the Elo, of one unbounded in-process run with the same seed."""
    runs = []
    for name, executor in (
        ("pool", ProcessExecutor(2, max_live_bots=2)),
        ("free", InProcessExecutor(max_live_bots=1000)),
    ):
        folder = tmp_path / name
        folder.mkdir()
        config, _ = play(write(folder, "league", 4, builtin=True, duplicate=False), executor)
        with Store.open(config.database, create=False) as store:
            elo = store.current_ratings("elo", "fixed_limit")
        runs.append((chips(config), elo))
    assert runs[0][0] and runs[0] == runs[1]


def test_a_worker_stops_a_bot_with_no_match_left(tmp_path) -> None:
    """issue 12 item 5: with one worker, a bot whose last match is over is stopped before
    the next match starts, and no bot but the first match's runs at the first match (the
    worker says a match started before it opens the match's bots)."""
    seen: list[tuple[set[str], set[str]]] = []

    def started(match_id, names, settings) -> None:
        alive = {name for pid, name in starts(tmp_path).items() if Path(f"/proc/{pid}").exists()}
        seen.append((set(names), alive))

    path = write(tmp_path, "one", 4, duplicate=False)
    play(path, ProcessExecutor(1), on_match_started=started)
    assert seen[0][1] <= seen[0][0]
    for i, (_, alive) in enumerate(seen):
        later = set().union(*(names for names, _ in seen[i:]))
        assert alive <= later, (i, alive - later)


def test_a_bot_failing_to_start_in_a_worker_forfeits_its_matches(tmp_path) -> None:
    """issue 12 item 5: its 3 matches are not started (one note with the count), it is
    tried at most once per worker, and the other matches are played."""
    notes: list[str] = []
    path = write(tmp_path, "failing", 4, duplicate=False, failing="b1")
    _, progress = play(
        path, ProcessExecutor(2, max_live_bots=2), on_progress=lambda p: notes.extend(p.notes)
    )
    assert 6 == progress.done and 3 == progress.not_started
    assert list(starts(tmp_path).values()).count("b1") <= 2
    said = [note for note in set(notes) if "'b1' did not start" in note]
    assert 1 == len(said) and "its 3 match(es)" in said[0], said

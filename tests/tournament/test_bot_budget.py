"""Bots on a budget (issue 12 item 5): bot processes start when a match needs them, stop
when they have no match left, and never more than ``max_live_bots`` run at once.

Launched bots here are ``bots/counted.py``: each start counts the processes of its kind
alive at that moment (from ``/proc``), so the largest count is the most that ever ran.
Faster tests use a fake opener whose "processes" are in-process policies it counts.
Nothing here asserts a timing.
"""

from __future__ import annotations

import contextlib
import json
import sys
import textwrap
from pathlib import Path

import pytest
import trio
from kit import league

from arena.dealer import BotStartError, policy_driver
from arena.tournament import InProcessExecutor, Store, load_tournament, run_tournament
from arena.tournament._budget import DEFAULT_MAX_LIVE_BOTS, Preference, Untaken, bound_for
from arena.tournament._scheduled import ScheduledMatch

COUNTED = Path(__file__).resolve().parent / "bots" / "counted.py"


def write(
    folder: Path,
    name: str,
    bots: int,
    *,
    duplicate: bool = True,
    concurrency: int = 2,
    failing: str = "",
    builtin: bool = False,
) -> Path:
    """A heads-up round robin of ``bots`` launched counted.py bots (deterministic play)."""
    pids = folder / "pids"
    pids.mkdir(exist_ok=True)
    entries = ""
    for i in range(bots):
        bot = f"b{i}"
        fail = " fail" if bot == failing else ""
        entries += textwrap.dedent(
            f"""
            [[bots]]
            name = "{bot}"
            command = "{sys.executable} {COUNTED} {pids} {bot}{fail}"
            """
        )
    if builtin:
        entries += '\n[[bots]]\nname = "house"\nbuiltin = "calling-station"\n'
    return league(
        folder, name, bots=entries, timeouts={"action": 10.0, "startup": 30.0},
        hands_per_match=4, duplicate=duplicate, concurrency=concurrency, seed=3,
        database=f"{name}.db", sandbox="off",
    )  # fmt: skip


def play(path: Path, executor: InProcessExecutor, **kwargs):
    config = load_tournament(path)

    async def main():
        with Store.open(config.database) as store:
            return await run_tournament(config, store, executor=executor, **kwargs)

    return config, trio.run(main)


def starts(folder: Path) -> dict[int, str]:
    """Every counted.py process started: pid -> its bot's name."""
    return {int(p.name.split(".")[0]): p.read_text() for p in (folder / "pids").glob("*.start")}


def most_alive(folder: Path) -> int:
    return max(int(p.read_text()) for p in (folder / "pids").glob("*.count"))


def chips(config) -> dict[tuple[str, str], int]:
    found = {}
    for result in (config.output / config.name).glob("*/result.json"):
        for seat in json.loads(result.read_text())["seats"]:
            found[result.parent.name, seat["name"]] = seat["chips_won"]
    return found


def recorded(config) -> list[str]:
    with Store.open(config.database, create=False) as store:
        return [row.key for row in store.match_rows(tournament=config.name)]


@pytest.mark.parametrize(("duplicate", "bots", "bound"), [(True, 4, 4), (False, 5, 3)])
def test_never_more_live_bot_processes_than_the_bound(tmp_path, duplicate, bots, bound) -> None:
    """issue 12 item 5: 4 launched bots under duplicate (8 processes) with a bound of 4, or
    5 bots with a bound of 3, on 2 tables: no start ever saw more alive, every match is
    recorded once, bots were restarted to fit, and each process served one rotation (issue 9)."""
    path = write(tmp_path, "bound", bots, duplicate=duplicate)
    executor = InProcessExecutor(max_live_bots=bound)
    config, progress = play(path, executor)
    keys = recorded(config)
    assert bots * (bots - 1) // 2 == len(keys) == len(set(keys)) == progress.done
    assert most_alive(tmp_path) <= bound
    assert executor.stats is not None and executor.stats.peak <= bound
    assert executor.stats.restarts > 0  # the bound was binding: some bot was started again
    assert len(starts(tmp_path)) == executor.stats.starts
    for tables in (tmp_path / "pids").glob("*.tables"):
        rotations = {line.rsplit(".", 1)[-1] for line in tables.read_text().split()}
        assert len(rotations) == 1 if duplicate else rotations, tables.read_text()


def test_results_equal_the_unbounded_run(tmp_path) -> None:
    """issue 12 item 5: the same seed gives the same chips per match and the same Elo with a
    bound that reorders the matches as without one (results are committed in schedule order)."""
    runs = []
    for name, bound in (("tight", 4), ("free", 1000)):
        folder = tmp_path / name
        folder.mkdir()
        config, _ = play(
            write(folder, "league", 5, builtin=True), InProcessExecutor(max_live_bots=bound)
        )
        with Store.open(config.database, create=False) as store:
            elo = store.current_ratings("elo", "fixed_limit")
        runs.append((chips(config), elo))
    assert runs[0][0] and runs[0] == runs[1]


def test_bots_start_when_first_needed_and_stop_when_done(tmp_path) -> None:
    """issue 12 item 5: at the first match only its two bots have started; a bot whose last
    match is over is stopped before the next match starts (no bound needed for either)."""
    path = write(tmp_path, "lazy", 4, duplicate=False, concurrency=1)
    seen: list[tuple[str, set[str], set[str]]] = []

    def started(match_id, names, settings) -> None:
        alive = {name for pid, name in starts(tmp_path).items() if Path(f"/proc/{pid}").exists()}
        seen.append((match_id, set(names), alive))

    play(path, InProcessExecutor(), on_match_started=started)
    _, first_names, first_alive = seen[0]
    assert first_alive == first_names  # not all four
    schedule = [match_id for match_id, _, _ in seen]
    for i, (_, _, alive) in enumerate(seen):
        later = set().union(*(n for _, n, _ in seen[i:]))
        assert alive <= later, (schedule[i], alive - later)  # nobody without a match left
    assert len(starts(tmp_path)) == 4  # never restarted without a bound that binds


def test_a_bot_failing_its_lazy_start_forfeits_its_matches_once(tmp_path) -> None:
    """issue 12 item 5: a bot that cannot start when first needed is tried once; its three
    matches are recorded as not started (one note), the others are played."""
    path = write(tmp_path, "failing", 4, duplicate=False, failing="b2")
    notes: list[str] = []
    _, progress = play(
        path, InProcessExecutor(max_live_bots=2), on_progress=lambda p: notes.extend(p.notes)
    )
    assert 6 == progress.done and 3 == progress.not_started
    assert 1 == list(starts(tmp_path).values()).count("b2")  # not retried for every match
    said = [note for note in set(notes) if "'b2' did not start" in note]
    assert 1 == len(said) and "its 3 match(es)" in said[0], said


# --- the mechanism on fake processes: fast, many bots ---------------------------------


class FakeProcesses:
    """An opener whose bots are in-process calling stations it counts as processes."""

    def __init__(self, failing: str = "") -> None:
        self.live = 0
        self.peak = 0
        self.opened = 0
        self.failing = failing

    @contextlib.asynccontextmanager
    async def open(self, spec):
        if spec.name == self.failing:
            raise BotStartError(f"{spec.name}: exited with status 3")
        self.opened += 1
        self.live += 1
        self.peak = max(self.peak, self.live)
        driver = policy_driver(spec.name, "calling-station", 1)
        try:
            await trio.sleep(0)
            yield driver
        finally:
            self.live -= 1
            await driver.aclose()


def fake_league(folder: Path, bots: int, *, concurrency: int = 1) -> Path:
    lines = [f'[[bots]]\nname = "b{i:02d}"\ncommand = "/nonexistent/bot{i}"\n' for i in range(bots)]
    path = folder / "fake.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [tournament]
            name = "fake"
            hands_per_match = 2
            duplicate = false
            concurrency = {concurrency}
            seed = 1
            output = "runs"
            database = "fake.db"
            sandbox = "off"
            """
        )
        + "\n".join(lines)
    )
    return path


@pytest.mark.parametrize("concurrency", [1, 2])
def test_a_big_round_robin_reuses_live_bots(tmp_path, concurrency) -> None:
    """issue 12 item 5: 24 bots, 276 matches, a bound of 8: never more than 8 open, and far
    fewer starts than matches (taken in schedule order, nearly every match starts a bot:
    1.4 a match here with a lookahead of 1)."""
    fake = FakeProcesses()
    executor = InProcessExecutor(max_live_bots=8)
    config, progress = play(
        fake_league(tmp_path, 24, concurrency=concurrency), executor, open_driver=fake.open
    )
    assert 276 == progress.done == len(set(recorded(config)))
    assert fake.peak <= 8 and executor.stats is not None and executor.stats.peak <= 8
    assert 0 == fake.live  # every bot stopped at the end
    assert fake.opened == executor.stats.starts
    assert executor.stats.starts < 0.5 * 276, executor.stats


def test_a_fake_bot_failing_to_start_is_not_retried(tmp_path) -> None:
    """issue 12 item 5: the failing bot's 9 matches are forfeits, delivered once each."""
    fake = FakeProcesses(failing="b03")
    config, progress = play(
        fake_league(tmp_path, 10), InProcessExecutor(max_live_bots=4), open_driver=fake.open
    )
    assert 45 == progress.done == len(set(recorded(config)))
    assert 9 == progress.not_started


# --- the pieces --------------------------------------------------------------------------


def match(key: str, *seats: str) -> ScheduledMatch:
    return ScheduledMatch(key=key, seats=seats, hands=2, seed=1, duplicate=False, round=1)


def test_a_ready_match_is_preferred_within_the_lookahead() -> None:
    """issue 12 item 5: with a and b live, the match between them is taken before the first
    one left, but not when it lies past the lookahead."""
    matches = [match("m0", "c", "d"), match("m1", "e", "f"), match("m2", "a", "b")]
    for lookahead, expected in ((10, "m2"), (2, "m0")):
        untaken = Untaken(matches)
        preference = Preference(untaken, lambda _: True, binding=True, lookahead=lookahead)
        preference.live.update(a=1, b=1)
        preference.went_live("a")
        taken = preference.pick(lambda _: True)
        assert expected == taken.key


def test_the_bot_stopped_to_make_room_is_the_one_needed_last() -> None:
    """issue 12 item 5 (Belady): of the idle bots, the one whose next match is furthest goes
    first, and one with no match left before any."""
    matches = [match("m0", "a", "x"), match("m1", "b", "x"), match("m2", "c", "x")]
    preference = Preference(Untaken(matches), lambda _: True, binding=True)
    assert ["c"] == preference.victims(1, ["a", "b", "c"], lambda _: 1)
    assert ["z", "c"] == preference.victims(2, ["a", "b", "c", "z"], lambda _: 1)
    assert preference.victims(5, ["a", "b"], lambda _: 1) is None  # not enough room


def test_the_default_bound_and_its_clamp() -> None:
    """issue 12 item 5: no bound given is the default; a bound below one match's processes is
    raised to that, with a note."""
    six = [ScheduledMatch(key="r", seats=tuple("abcdef"), hands=6, seed=1, duplicate=True, round=1)]
    assert (DEFAULT_MAX_LIVE_BOTS, None) == bound_for(None, six, lambda _: True)
    bound, note = bound_for(4, six, lambda name: name != "a")
    assert 30 == bound and note is not None and "30 bot processes" in note

"""Where a match runs (issue 12 items 1 and 2): the spec, the in-process executor and workers.

A match is a plain spec that survives JSON; ``workers = 2`` plays the same matches as
``workers = 1`` (same chips per match, same final Elo: results are committed in schedule
order); a worker killed mid-match has its match played again by a new worker, recorded
once, and leaves no bot process; a worker that cannot start is one line.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import sys
from pathlib import Path

import pytest
import trio
from kit import BUILTIN_PAIR, cmdline, descendants, gated_bot, league

from arena.executors import ProcessExecutor, executor_for
from arena.tournament import (
    MatchOutcome,
    MatchSpec,
    Store,
    TournamentConfigError,
    TournamentError,
    game_type_of,
    load_tournament,
    match_spec,
    parse_tournament,
    run_tournament,
)

ROOT = Path(__file__).resolve().parents[2]

LAUNCHED = f"""
[[bots]]
name = "launched-rule-based"
command = "{{python}} {ROOT / "examples_bots" / "rule_based.py"}"
"""


def write(folder: Path, name: str, *, workers: int | str = 1, bots: str = "") -> Path:
    """A small heads-up round robin of deterministic bots (no bot draws random numbers)."""
    return league(
        folder, name, bots=BUILTIN_PAIR + bots, timeouts={"action": 10.0, "startup": 30.0},
        hands_per_match=20, duplicate=True, concurrency=2, seed=11, sandbox="off",
        workers=workers,
    )  # fmt: skip


def chips_and_elo(config) -> tuple[dict, dict]:
    """Chips per (match, bot) from each match's result.json, and the live Elo stored."""
    chips = {}
    for result in (config.output / config.name).glob("*/result.json"):
        data = json.loads(result.read_text())
        for seat in data["seats"]:
            chips[result.parent.name, seat["name"]] = seat["chips_won"]
    with Store.open(config.database, create=False) as store:
        elo = store.current_ratings("elo", game_type_of(config.game))
    return chips, elo


def play(path: Path, executor=None, **kwargs):
    config = load_tournament(path)

    async def main():
        with Store.open(config.database) as store:
            return await run_tournament(config, store, executor=executor, **kwargs)

    return config, trio.run(main)


class TestMatchSpec:
    def test_spec_survives_json(self, tmp_path: Path) -> None:
        """A match spec is plain data: to JSON and back gives the same spec, the same settings
        and the same bots (issue 12 item 1)."""
        config = load_tournament(write(tmp_path, "spec", bots=LAUNCHED))
        with Store.open(config.database) as store:
            from arena.tournament._runner import prepare

            config, tid, _ = prepare(config, store, resume=False)
            match = store.schedule(tid)[0]
        spec = match_spec(config, match)
        again = MatchSpec.from_json(spec.to_json())
        assert again == spec
        assert again.match_settings() == config.match_settings(match)
        assert [b.to_dict() for b in again.bot_specs()] == [
            config.bot(name).to_dict() for name in match.seats
        ]
        assert again.match_id == f"spec/{match.key}" and again.seed == match.seed
        assert (
            again.driver_context().options["hidden_paths"]
            == config.driver_context().options["hidden_paths"]
        )

    def test_outcome_survives_json(self, tmp_path: Path) -> None:
        """An outcome (result, per-seat summaries, summary) is the same after JSON (issue 12 item 1)."""
        from arena.dealer import FaultRecord, MatchResult, seat_summaries

        result = MatchResult(
            match_id="t/m",
            names=["a", "b"],
            seed=3,
            hands_played=2,
            chips_won=[4, -4],
            payoffs=[[2, -2], [2, -2]],
            faults=[FaultRecord(1, 0, "TIMEOUT", "slow", "fold")],
            sat_out=[False, False],
            hellos=[{"name": "a"}, None],
            forfeited=[False, False],
            stale_actions=[0, 1],
            clocks=["wall", "cpu"],
        )
        outcome = MatchOutcome(result, 2, seat_summaries(result, 2, duplicate_block=2), {"k": 1})
        assert MatchOutcome.from_dict(json.loads(json.dumps(outcome.to_dict()))) == outcome


class TestWorkersKey:
    def test_workers_default_auto_and_bounds(self, tmp_path: Path) -> None:
        """``workers`` defaults to 1, ``"auto"`` is one per core, 0 and words are refused
        naming the key (issue 12 item 2)."""
        assert load_tournament(write(tmp_path, "w1")).workers == 1
        assert load_tournament(write(tmp_path, "wa", workers="auto")).workers == (
            os.cpu_count() or 1
        )
        for bad in ("0", '"many"'):
            text = write(tmp_path, "wb").read_text().replace("workers = 1", f"workers = {bad}")
            with pytest.raises(TournamentConfigError, match=r"tournament\.workers"):
                parse_tournament(text, "bad.toml", base_dir=tmp_path)

    def test_workers_refuse_remote_bots_in_one_line(self, tmp_path: Path) -> None:
        """Bots that dial in play only in the coordinator: workers > 1 with one is refused
        with one line naming the bot (issue 12 item 2)."""
        text = (
            write(tmp_path, "wr", workers=2).read_text()
            + '\n[[bots]]\nname = "alice"\nremote = true\n'
        )
        with pytest.raises(TournamentConfigError) as error:
            parse_tournament(text, "wr.toml", base_dir=tmp_path)
        assert "'alice'" in str(error.value) and "\n" not in str(error.value)
        assert "workers = 1" in str(error.value)

    def test_workers_is_not_part_of_the_stored_settings(self, tmp_path: Path) -> None:
        """A tournament may resume with other workers: ``workers`` is not compared."""
        one = load_tournament(write(tmp_path, "ws"))
        two = load_tournament(write(tmp_path, "ws", workers=2))
        assert one.to_json() == two.to_json()
        assert executor_for(1) is None and isinstance(executor_for(2), ProcessExecutor)


def test_two_workers_give_the_same_results_as_one(tmp_path: Path) -> None:
    """The same round robin of built-in and launched bots with workers = 1 and workers = 2:
    the same chips per match and the same final Elo (issue 12 item 2)."""
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    first_config, first = play(write(one, "same", bots=LAUNCHED))
    config, second = play(write(two, "same", bots=LAUNCHED, workers=2), ProcessExecutor(2))
    assert first.done == second.done == first.total == 3
    chips_one, elo_one = chips_and_elo(first_config)
    chips_two, elo_two = chips_and_elo(config)
    assert len(chips_one) == 6
    assert chips_one == chips_two
    assert elo_one == elo_two
    for key in {key for key, _ in chips_two}:  # each worker wrote its match's folder
        assert json.loads((config.output / "same" / key / "result.json").read_text())
    assert list((config.output / "same" / "bots").glob("worker-*/launched-rule-based*.log"))


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie nobody reaped counts as dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _left_running(pids: set[int], deadline: float = 60.0) -> list[int]:
    """The processes of ``pids`` still running once they had up to ``deadline`` seconds to
    go (a bot notices its parent died by polling; how soon is not what is tested)."""
    import time

    end = time.monotonic() + deadline
    while (left := [pid for pid in pids if _alive(pid)]) and time.monotonic() < end:
        time.sleep(0.05)
    return left


def test_a_killed_worker_s_match_is_played_again_and_recorded_once(tmp_path: Path) -> None:
    """SIGKILL a worker mid-match: a new worker plays that match again, every match is
    recorded once, and none of the dead worker's bot processes is left (issue 12 item 2)."""
    gate = tmp_path / "gate"
    bots = gated_bot(gate)
    path = write(tmp_path, "kill", workers=2, bots=bots)
    executor = ProcessExecutor(2)
    killed: list[int] = []
    orphans: set[int] = set()

    async def main():
        config = load_tournament(path)
        with Store.open(config.database) as store:
            async with trio.open_nursery() as nursery:

                async def kill_one_mid_match() -> None:
                    while True:  # a worker whose gated bot is up holds a match it cannot finish
                        for pid in executor.pids():
                            under = descendants(pid)
                            if any("gated.py" in cmdline(p) for p in under):
                                orphans.update(under)
                                os.kill(pid, signal.SIGKILL)
                                killed.append(pid)
                                gate.write_text("open")  # the new worker's bot plays on
                                return
                        await trio.sleep(0.05)

                nursery.start_soon(kill_one_mid_match)
                progress = await run_tournament(config, store, executor=executor)
        return config, progress

    config, progress = trio.run(main)
    assert killed and executor.replaced >= 1
    assert progress.done == progress.total == 3
    with sqlite3.connect(config.database) as conn:
        keys = [row[0] for row in conn.execute("SELECT match_key FROM matches")]
    assert sorted(keys) == sorted(set(keys)) and len(keys) == 3
    for key in keys:  # the killed match's half-written folder was replaced by a whole one
        assert json.loads((config.output / "kill" / key / "result.json").read_text())[
            "hands_played"
        ]
    assert orphans and not _left_running(orphans)
    assert executor.pids() == []


def test_a_broken_worker_is_one_line_not_a_hang(tmp_path: Path) -> None:
    """A worker that exits at start stops the tournament with one line naming its exit
    status and its stderr (issue 12 item 2)."""
    broken = [sys.executable, "-c", "import sys; sys.stderr.write('no arena here\\n'); sys.exit(3)"]
    with pytest.raises(TournamentError) as error:
        play(write(tmp_path, "broken", workers=2), ProcessExecutor(2, command=broken))
    line = str(error.value)
    assert "\n" not in line and "status 3" in line and "no arena here" in line


@pytest.mark.timeout(240)
def test_ctrl_c_stops_the_workers_and_their_bots_and_resume_plays_the_rest(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the terminal's process group) with workers = 2: one line, exit
    130, no worker or bot process left, and resume plays exactly the rest (issue 12 item 2)."""
    import subprocess
    import time

    gate = tmp_path / "gate"
    bots = gated_bot(gate)
    path = write(tmp_path, "intr", workers=2, bots=bots)
    run = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "run", str(path), "--no-plugins"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own group: the SIGINT below is a terminal's Ctrl-C
    )
    under: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # both workers up, a gated bot holding a match
            under = descendants(run.pid)
            if any("gated.py" in cmdline(pid) for pid in under):
                break
            assert run.poll() is None, run.stderr.read() if run.stderr else ""
            time.sleep(0.05)
        os.killpg(run.pid, signal.SIGINT)
        _, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    line = err.decode().strip()
    assert run.returncode == 130, line
    assert "interrupted" in line and "resume" in line and "Traceback" not in line
    assert under and not _left_running(under)
    gate.write_text("open")
    resumed = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "resume", str(path), "--no-plugins"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
    with Store.open(tmp_path / "arena.db", create=False) as store:
        row = store.get_tournament("intr")
        assert row is not None and not store.pending_matches(row.id)
        assert row.status == "finished"


def test_a_worker_that_cannot_be_run_is_one_line(tmp_path: Path) -> None:
    """A worker command that does not exist is one line naming it (issue 12 item 2)."""
    missing = [str(tmp_path / "no-such-python")]
    with pytest.raises(TournamentError) as error:
        play(write(tmp_path, "missing", workers=2), ProcessExecutor(2, command=missing))
    assert "\n" not in str(error.value) and "no-such-python" in str(error.value)

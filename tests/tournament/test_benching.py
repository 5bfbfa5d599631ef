"""A bot out of wall time is benched for the rest of the tournament (issue 21 item 1).

A student's bot that sleeps past the action clock spends its wall budget at its first
decisions and is sat out of that match; from then on each of its matches would cost
the same seconds again, one after the other (a league of 5 quick bots and a 3 s sleeper
took 10x as long as without it: ``scripts/bench_slow_bot.py``). So after
``timeouts.bench_after`` such matches (default 1) its other matches are recorded as not
started, with one note naming the bot, the match and why, and ``resume`` plays them once
the bot is fixed.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
import trio

from arena.store import Store
from arena.tournament import load_tournament, run_tournament
from arena.tournament._config import BENCH_AFTER

SLEEPER = """
import sys, time
from pathlib import Path
from arena.sdk import Bot, run

PAUSE_FILE = Path(sys.argv.pop(1))


class Sleeper(Bot):
    name = "sleeper"

    def decide(self, decision):
        time.sleep(float(PAUSE_FILE.read_text()))
        return decision.stand_pat() if decision.is_draw else decision.check_or_call()


run(Sleeper())
"""


def _league(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "sleeper.py").write_text(SLEEPER)
    if not (tmp_path / "pause").exists():
        (tmp_path / "pause").write_text("1.0")
    bots = "".join(
        f'[[bots]]\nname = "{name}"\nbuiltin = "calling-station"\n' for name in ("a", "b", "c")
    )
    command = f"{sys.executable} {tmp_path / 'sleeper.py'} {tmp_path / 'pause'}"
    path = tmp_path / "league.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [tournament]
            name = "league"
            format = "round_robin"
            hands_per_match = 20
            seed = 1
            output = "runs"
            database = "arena.db"
            sandbox = "L0"

            [timeouts]
            action = 0.4
            wall_budget = 0.2
            {extra}
            """
        )
        + bots
        + f'[[bots]]\nname = "sleeper"\ncommand = "{command}"\n'
    )
    return path


def _run(path: Path, *, resume: bool = False):
    config = load_tournament(path)

    async def main():
        with Store.open(config.database) as store:
            progress = await run_tournament(config, store, resume=resume)
            return progress, store.not_started_matches(progress.tournament_id)

    return trio.run(main)


def test_issue21_item1_a_sleeper_is_benched_after_one_match_and_resume_plays_the_rest(
    tmp_path: Path,
) -> None:
    assert BENCH_AFTER == 1
    progress, left = _run(_league(tmp_path))
    notes = [n for n in progress.notes if "benched" in n]
    assert len(notes) == 1, progress.notes
    assert notes[0].startswith("bot 'sleeper' benched: sat out of 1 match(es) for time, last ")
    assert "its 2 other match(es) are recorded as 'not_started'" in notes[0]
    assert "arena tournament resume" in notes[0]
    assert progress.not_started == 2
    assert len(left) == 2 and all("sleeper" in m.seats for m in left)
    (tmp_path / "pause").write_text("0")  # the student fixed it
    progress, left = _run(_league(tmp_path), resume=True)
    assert not left and not progress.not_started
    assert not [n for n in progress.notes if "benched" in n]


def test_issue21_item1_bench_after_0_never_benches(tmp_path: Path) -> None:
    progress, left = _run(_league(tmp_path, "bench_after = 0"))
    assert not left and not progress.not_started
    assert not [n for n in progress.notes if "benched" in n]


def test_issue21_item1_bench_after_is_checked(tmp_path: Path) -> None:
    from arena.tournament._config import TournamentConfigError

    with pytest.raises(TournamentConfigError, match="bench_after"):
        load_tournament(_league(tmp_path, "bench_after = -1"))

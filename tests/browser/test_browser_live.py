"""The live spectator page in a real browser (issue 10 items 3 and 5): ``arena match ... --watch``
runs in a subprocess, the page at the URL it prints shows each hand as it arrives (over
Server-Sent Events from 127.0.0.1), announces it in its live region, has no console error,
fetches nothing off the machine and passes axe-core.

The match is paced by ``gated_bot.py``: it plays hand N only when the test has opened the
gate to N, so "hands arriving" is shown without a timing (and the server, which stops with
the match, stays up until the page has been checked).
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from arena_runs import ARENA, require_command
from browser_kit import GuardedPage

HERE = Path(__file__).resolve().parent
URL = re.compile(r"watch live: (http://127\.0\.0\.1:\d+/)")
WAIT_MS = 60_000  # how long to wait for the page to catch up: a bound, never a measurement


class Watched:
    """An ``arena ... --watch`` subprocess (its output read in a thread for the URL), paced by
    ``gated_bot.py`` through the gate file in ``folder``."""

    def __init__(self, folder: Path, args: list[str]) -> None:
        self.gate = folder / "gate"
        self.gate.write_text("0")
        self.process = subprocess.Popen(
            [*ARENA, *args, "--watch"],
            cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
        )  # fmt: skip
        self.output: list[str] = []
        self.found = threading.Event()
        self.url: str | None = None
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)
            match = URL.search(line)
            if match and self.url is None:
                self.url = match.group(1)
                self.found.set()
        self.found.set()  # the process ended: stop waiting

    def open_until(self, hand: int) -> None:
        """Let the gated bot play up to hand ``hand``."""
        self.gate.write_text(str(hand))

    def wait_url(self) -> str:
        self.found.wait(timeout=120)
        assert self.url, "no 'watch live: URL' line:\n" + "".join(self.output)
        return self.url

    def finish(self) -> int:
        """Open the gate fully and wait for the match to end; its exit status."""
        self.open_until(10_000)
        try:
            return self.process.wait(timeout=180)
        except subprocess.TimeoutExpired:
            self.process.kill()  # ours, by its pid
            self.process.wait()
            raise


def gated_command(folder: Path) -> str:
    return f"{{python}} {HERE / 'gated_bot.py'} {folder / 'gate'}"


@contextlib.contextmanager
def watching(folder: Path, args: list[str]) -> Iterator[Watched]:
    """The paced run with its live page; always ended (by our own pid) afterwards."""
    run = Watched(folder, args)
    try:
        yield run
    finally:
        if run.process.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                run.finish()


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[Watched]:
    """``arena match "gated={python} gated_bot.py GATE" builtin:calling-station --hands 50 --watch``."""
    require_command("match", option="--watch")
    args = [
        "match", f"gated={gated_command(tmp_path)}", "builtin:calling-station", "--hands", "50",
        "--seed", "5", "--timeout", "150", "--sandbox", "off", "--no-plugins", "--out", str(tmp_path / "runs"),
    ]  # fmt: skip
    with watching(tmp_path, args) as run:
        yield run


def _shows(page: object, selector: str, pattern: str) -> None:
    """Wait (up to WAIT_MS) until the element's text matches ``pattern``."""
    page.wait_for_function(  # type: ignore[attr-defined]
        "([sel, re]) => new RegExp(re).test((document.querySelector(sel) || {}).textContent || '')",
        arg=[selector, pattern],
        timeout=WAIT_MS,
    )


def test_live_page_shows_hands_as_they_arrive(guarded_page: GuardedPage, watched: Watched) -> None:
    """Items 3, 5: the page connects, shows hand 5 when five are played, then hand 20; when
    the match ends it has every hand and says the server stopped, without an error."""
    page = guarded_page.page
    page.goto(watched.wait_url())
    _shows(page, "#status", "^live$")
    _shows(page, "#tables", "gated")  # the match is announced before any hand ends
    assert "Hand" not in page.inner_text("#table-info"), "a hand was shown before any was played"
    guarded_page.screenshot("waiting")

    watched.open_until(5)
    _shows(page, "#table-info", r"^Hand 5\b")
    _shows(page, "[aria-live]", r"^Hand 5\b")
    assert page.locator("#seats tbody tr").count() == 2
    assert {"gated", "calling-station"} <= set(page.inner_text("#seats").split())
    assert page.locator("#steps li").count() > 0, "the last hand's steps are not listed"

    watched.open_until(20)
    _shows(page, "#table-info", r"^Hand 20\b")
    _shows(page, "#tables", r"20 hands")
    guarded_page.screenshot("hand-20")
    guarded_page.check_accessibility()
    guarded_page.assert_clean()
    guarded_page.allowed = SERVER_GONE  # from here the arena exits and its server with it
    assert watched.finish() == 0, "".join(watched.output)
    _shows(page, "#table-info", r"^Hand 50\b")  # every hand was sent before the server stopped
    _shows(page, "#status", "^ended")  # told so, and no reconnecting (no console error)
    guarded_page.assert_clean(allowed=SERVER_GONE)


SERVER_GONE = ("ERR_INCOMPLETE_CHUNKED_ENCODING",)
"""What the browser may log once the arena process has exited: its stream was cut with the
server (the page still showed every hand and "ended"); a known shutdown race, in the note."""

TOURNAMENT = """
[tournament]
name = "live"
format = "round_robin"
hands_per_match = 10
duplicate = false
rounds = 2
concurrency = 2
max_tables_per_bot = 1
seed = 9
sandbox = "off"
output = "runs"
database = "arena.db"

[timeouts]
action = 150.0

[[bots]]
name = "gated"
command = "GATED"
""" + "".join(
    f'\n[[bots]]\nname = "{b}"\nbuiltin = "{b}"\n'
    for b in ("random", "calling-station", "rule-based")
)


FINISHED_GATED = """(n) => [...document.querySelectorAll('#tables li')]
  .filter((li) => li.textContent.includes('gated')
    && (li.textContent.includes('finished') || li.textContent.includes('10 hands'))).length >= n"""
"""At least ``n`` of the gated bot's matches have played their 10 hands. Not only
"finished": a match is shown finished once it is rated, in schedule order (issue 12), so
a round-2 match waits for a round-1 match the gate still holds (the test's 1-in-3 hang)."""


def _rows(page: Any, selector: str) -> int:
    return int(page.locator(selector).count())


def test_live_tournament_page_has_leaderboard_and_table_picker(
    guarded_page: GuardedPage, tmp_path: Path
) -> None:
    """Item 3: ``arena tournament run FILE --watch``: the live leaderboard fills in as matches
    end, and the table picker switches the table shown."""
    require_command("tournament", "run", option="--watch")
    (tmp_path / "live.toml").write_text(
        TOURNAMENT.replace("GATED", gated_command(tmp_path).replace("\\", "\\\\"))
    )
    page = guarded_page.page
    with watching(tmp_path, ["tournament", "run", "live.toml", "--no-plugins"]) as run:
        page.goto(run.wait_url())
        _shows(page, "#status", "^live$")
        # the gated bot's six matches are played one at a time, 10 hands each; the board is
        # refitted off the dealer's path and sent as matches end, so open one more gated
        # match until it is full, never the last (the server ends with the tournament)
        for opened in range(10, 60, 10):
            run.open_until(opened)
            page.wait_for_function(FINISHED_GATED, arg=opened // 10, timeout=WAIT_MS)
            if _rows(page, "#board tbody tr") == 4:
                break
        page.wait_for_function(
            "() => document.querySelectorAll('#board tbody tr').length === 4", timeout=WAIT_MS
        )
        board = page.inner_text("#board")
        for bot in ("gated", "random", "calling-station", "rule-based"):
            assert bot in board, f"{bot} is not on the live leaderboard"
        options = page.eval_on_selector_all("#picker option", "(os) => os.map((o) => o.value)")
        assert len(options) >= 2, options
        for table in options[:2]:
            page.select_option("#picker", table)
            assert page.inner_text("#table-title") == f"Table {table}"
        guarded_page.screenshot("tournament")
        guarded_page.check_accessibility()
        guarded_page.assert_clean()
        guarded_page.allowed = SERVER_GONE  # from here the arena exits and its server with it
        assert run.finish() == 0, "".join(run.output)
        _shows(page, "#status", "^ended")
        guarded_page.assert_clean(allowed=SERVER_GONE)

"""The live page in a real browser (issue 21 item 5): the spectator delay, the replayer's
table drawing, the running score, the director's final hands and the URL.

The hub is served in process (a thread runs its Trio loop) on a clock the test moves, so
"before the delay" and "after it" are states the test sets, never a measurement: while
the director's page already shows a hand, the spectator's page holds no card at all; once
the clock has passed the delay, the same hand and its shown cards arrive.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import trio
from browser_kit import GuardedPage

from arena.dealer import MatchSettings, policy_driver, run_match
from arena.engine import GameConfig
from arena.web import LiveHub, watching

WAIT_MS = 60_000  # a bound on waiting for the page, never a measurement
DELAY = 600.0
FACE_UP = ".card:not(.back)"


class Served:
    """A hub with a spectator delay on a hand-moved clock, served from a thread, fed a
    match of two builtin bots whose last hand published ends without a showdown."""

    def __init__(self) -> None:
        self.now = 0.0
        self.hub = LiveHub(delay=DELAY, clock=lambda: self.now)
        self.ready = threading.Event()
        self.url = self.director = ""
        self._stop: trio.Event | None = None
        self._token: Any = None
        self.thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)
        self.thread.start()
        assert self.ready.wait(60), "the live page did not start"

    async def _main(self) -> None:
        self._stop, self._token = trio.Event(), trio.lowlevel.current_trio_token()
        hands: list[tuple[Any, ...]] = []
        settings = MatchSettings(config=GameConfig(), hands=30, seed=3, match_id="m1")
        drivers = [policy_driver("rb", "rule-based", 1), policy_driver("cs", "calling-station", 2)]
        await run_match(drivers, settings, on_hand=lambda *hand: hands.append(hand))
        ends = [h for h in hands if not any(type(e).__name__ == "HandShown" for e in h[1].events)]
        assert ends, "no hand of the match ended without a showdown"
        async with watching(self.hub) as server:
            self.url, self.director = server.url, server.director_url
            self.hub.match_started("m1", ["rb", "cs"])
            for number, hand, seats, names in [*hands[:3], ends[-1]]:
                self.hub.hand_finished("m1", number, hand, seats, names)
            self.last = ends[-1][0]
            self.ready.set()
            await self._stop.wait()

    def close(self) -> None:
        if self._stop is not None:
            trio.from_thread.run_sync(self._stop.set, trio_token=self._token)
        self.thread.join(30)


@pytest.fixture
def served() -> Iterator[Served]:
    """The hub and its server; a test names it before ``guarded_page``, so the page is
    checked before the server stops (stopped first, the cut stream is a console error)."""
    run = Served()
    try:
        yield run
    finally:
        run.close()


def _shows(page: Any, selector: str, pattern: str) -> None:
    page.wait_for_function(
        "([sel, re]) => new RegExp(re).test((document.querySelector(sel) || {}).textContent || '')",
        arg=[selector, pattern],
        timeout=WAIT_MS,
    )


def test_no_card_reaches_a_spectator_before_the_delay(
    served: Served, guarded_page: GuardedPage, browser: Any
) -> None:
    """While the director sees the hands, the spectator's page has no card in its DOM and
    says it is delayed; after the delay the hands arrive drawn on the replayer's table."""
    page = guarded_page.page
    page.goto(served.url)
    _shows(page, "#status", "^live$")
    assert "600 s" in page.inner_text("#delay")
    director = browser.new_page()
    director.goto(served.director)
    director.wait_for_function(
        "(n) => document.getElementById('table-info').textContent.startsWith('Hand ' + n)",
        arg=served.last,
        timeout=WAIT_MS,
    )
    assert page.locator(".card").count() == 0, "a card reached the spectator before the delay"
    assert "Hand" not in page.inner_text("#table-info")
    assert served.hub.held > 0 and served.hub.public.seq == 0
    guarded_page.screenshot("delayed")

    served.now = DELAY + 1  # the delay is over: the hub's clock says so
    _shows(page, "#table-info", rf"^Hand {served.last}\b")
    assert page.locator("#focus .seat").count() == 2, "the table is not drawn"
    assert page.locator("#tables li .felt").count() == 1
    assert "match score" in page.inner_text("#seats")
    guarded_page.screenshot("after-delay")
    director.close()
    guarded_page.check_accessibility()
    guarded_page.assert_clean()


def test_the_director_sees_the_final_hands_without_a_showdown(
    served: Served, guarded_page: GuardedPage
) -> None:
    """A hand that ended with a fold: the director's table shows each seat's five final
    cards (it used to show only the cards drawn)."""
    page = guarded_page.page
    page.goto(served.director)
    _shows(page, "#table-info", rf"^Hand {served.last}\b")
    faces = page.eval_on_selector_all(
        "#focus .seat", f"(seats) => seats.map(s => s.querySelectorAll('{FACE_UP}').length)"
    )
    assert faces == [5, 5], faces
    guarded_page.assert_clean()


def test_the_url_names_the_table_shown(served: Served, guarded_page: GuardedPage) -> None:
    """Picking a table writes ``#table=ID``; opening that URL shows that table."""
    served.now = DELAY + 1
    page = guarded_page.page
    page.goto(served.url)
    _shows(page, "#table-info", rf"^Hand {served.last}\b")
    page.select_option("#picker", "m1")
    assert page.evaluate("() => location.hash") == "#table=m1"
    page.goto(served.url + "#table=m1")
    _shows(page, "#table-title", "^Table m1$")
    guarded_page.assert_clean()

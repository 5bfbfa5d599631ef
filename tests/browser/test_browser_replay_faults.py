"""The replayer in a real browser (issue 21 item 2, "the replayer (a marked step)", and the
Why's replayer bullet): a bot's illegal moves show as marked steps (the seat lit, the log
line flagged with its reason), a duplicate rotation shows the bots' names, and the URL
follows what is shown: ``#hand=N&step=M`` is honoured on load, rewritten as the viewer
moves, and a hand the match does not have says so instead of silently showing hand 1."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import trio
from browser_kit import GuardedPage

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
import test_replay_faults as made  # the in-process bots that fault

from arena.web import write_replay


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A duplicate 6-hand match of a bot whose every raise is illegal; its replay page."""
    folder = tmp_path_factory.mktemp("faults") / "match"
    settings = made.MatchSettings(
        config=made.GameConfig(structure=made.Structure.NO_LIMIT), hands=6, seed=5, duplicate=True
    )
    recorder = made.MatchRecorder(folder, settings)
    recorder.match_started(["greedy", "station"], 5)

    async def main() -> Any:
        tables = [
            [
                made.LocalBot(made._Greedy(), f"greedy{k}"),
                made.policy_driver(f"station{k}", "calling-station"),
            ]
            for k in ("", ".2")
        ]
        return await made.run_duplicate_match(
            tables, settings, on_hand=recorder.on_hand, on_fault=recorder.on_fault
        )

    recorder.match_finished(trio.run(main))
    return write_replay(folder)


def _blur_and_press(page: Any, key: str) -> None:
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press(key)


def test_a_fault_is_a_marked_step(guarded_page: GuardedPage, page_file: Path) -> None:
    """Stepping onto a default played for an illegal move lights the seat and says why."""
    page = guarded_page.page
    page.goto(page_file.as_uri())
    marked = page.locator("#log li[data-fault]")
    assert marked.count() > 0, "no step of the hand is marked as a fault"
    assert "ILLEGAL_ACTION" in marked.first.inner_text()
    assert "made an illegal move → " in marked.first.inner_text()
    index = page.evaluate(
        "() => [...document.querySelectorAll('#log li')].findIndex(li => li.dataset.fault)"
    )
    for _ in range(index):
        _blur_and_press(page, "ArrowRight")
    assert page.locator("#table .seat.faulted").count() == 1
    assert "(default)" in page.inner_text("#announce")
    assert "greedy.2" not in page.inner_text("body")
    guarded_page.screenshot("fault-step")
    guarded_page.check_accessibility()
    guarded_page.assert_clean()


def test_the_url_follows_the_page(guarded_page: GuardedPage, page_file: Path) -> None:
    """``#hand=3&step=2`` opens there; stepping rewrites the hash; a rotation is noted."""
    page = guarded_page.page
    page.goto(page_file.as_uri() + "#hand=3&step=2")
    assert page.inner_text("#position").startswith("Hand 3, step 2 of")
    _blur_and_press(page, "ArrowRight")
    assert page.evaluate("() => location.hash") == "#hand=3&step=3"
    _blur_and_press(page, "PageDown")
    assert page.evaluate("() => location.hash") == "#hand=4&step=1"
    assert "rotation 2" in page.inner_text("#rotation")
    page.evaluate("() => { location.hash = '#hand=2&step=4'; }")
    page.wait_for_function(
        "() => document.getElementById('position').textContent.startsWith('Hand 2, step 4')"
    )
    guarded_page.assert_clean()


def test_a_hand_the_match_lacks_says_so(guarded_page: GuardedPage, page_file: Path) -> None:
    """``#hand=999`` in a 6-hand match shows the last hand and says hand 999 is not there."""
    page = guarded_page.page
    page.goto(page_file.as_uri() + "#hand=999")
    assert page.inner_text("#position").startswith("Hand 6, step 1 of")
    assert "no hand 999" in page.inner_text("#notice")
    assert page.evaluate("() => location.hash") == "#hand=6&step=1"
    guarded_page.assert_clean()

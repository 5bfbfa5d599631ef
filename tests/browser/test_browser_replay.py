"""The hand replayer in a real browser (issue 10 items 2 and 5): ``arena replay --html`` of a
recorded match opens from file://, the keys step through it (Right, Left, Home, End, Space)
changing both the step shown and what the ARIA live region says, a spectator's page shows
no face-up card before the showdown while a director's does, no console error, nothing
fetched off the machine, axe-core clean.

The step shown is read from the page's ``#position`` ("Hand N, step i of n"); the live
region is any ``[aria-live]`` element.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from arena_runs import recorded_match, replay_page
from browser_kit import GuardedPage

POSITION = re.compile(r"Hand (\d+), step (\d+) of (\d+)")
WAIT_MS = 30_000  # a bound on waiting for the page, never a measurement
FACE_UP = ".card:not(.back)"


@pytest.fixture(scope="module")
def hands(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A seeded 12-hand match of two builtin bots; its hands.phhs."""
    return recorded_match(tmp_path_factory.mktemp("replay"))


@pytest.fixture(scope="module")
def spectator(hands: Path) -> Path:
    return replay_page(hands, hands.parent / "replay-spectator.html")


@pytest.fixture(scope="module")
def director(hands: Path) -> Path:
    return replay_page(hands, hands.parent / "replay-director.html", reveal=True)


def position(page: Any) -> tuple[int, int, int]:
    """(hand number, step, steps in the hand) as the page shows them."""
    text = page.inner_text("#position")
    found = POSITION.search(text)
    assert found, f"#position does not say 'Hand N, step i of n': {text!r}"
    hand, step, steps = (int(g) for g in found.groups())
    return hand, step, steps


def live_text(page: Any) -> str:
    return page.locator("[aria-live]").first.inner_text().strip()


def press(page: Any, key: str) -> tuple[tuple[int, int, int], str]:
    """Press ``key`` with nothing focused (as a viewer would); the position and live text after."""
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press(key)
    return position(page), live_text(page)


def test_replay_keys_step_and_announce(guarded_page: GuardedPage, spectator: Path) -> None:
    """Items 2, 5: Right/Left step, End/Home jump, and each move is announced (aria-live)."""
    page = guarded_page.page
    page.goto(spectator.as_uri())
    start, said = position(page), live_text(page)
    assert start[1] == 1 and start[2] > 3, start
    assert said, "the live region says nothing at the first step"

    after_right, said_right = press(page, "ArrowRight")
    assert after_right == (start[0], 2, start[2])
    assert said_right and said_right != said, "stepping was not announced"
    assert press(page, "ArrowLeft") == (start, said)

    at_end, said_end = press(page, "End")
    assert at_end == (start[0], start[2], start[2])
    assert said_end != said
    guarded_page.screenshot("end-of-hand")
    assert press(page, "Home") == (start, said)

    press(page, "End")
    next_hand, _ = press(page, "ArrowRight")  # past the last step: the next hand begins
    assert next_hand[0] != start[0] and next_hand[1] == 1, next_hand
    guarded_page.check_accessibility()
    guarded_page.assert_clean()


def test_replay_space_plays_and_pauses(guarded_page: GuardedPage, spectator: Path) -> None:
    """Items 2, 5: Space starts playing (the step moves on by itself), Space again pauses."""
    page = guarded_page.page
    page.goto(spectator.as_uri())
    page.select_option("#speed", index=page.locator("#speed option").count() - 1)  # the fastest
    start = position(page)
    press(page, "Space")
    assert page.get_attribute("#play", "aria-pressed") == "true"
    page.wait_for_function(
        "(first) => !document.getElementById('position').textContent.includes(first)",
        arg=f"step {start[1]} of",
        timeout=WAIT_MS,
    )
    press(page, "Space")
    assert page.get_attribute("#play", "aria-pressed") == "false"
    guarded_page.assert_clean()


def test_replay_play_button_with_space_toggles_once(
    guarded_page: GuardedPage, spectator: Path
) -> None:
    """Item 2: Space on the focused Play button plays (not toggled twice: key and click)."""
    page = guarded_page.page
    page.goto(spectator.as_uri())
    page.focus("#play")
    page.keyboard.press("Space")
    assert page.get_attribute("#play", "aria-pressed") == "true"
    page.keyboard.press("Space")
    assert page.get_attribute("#play", "aria-pressed") == "false"
    guarded_page.assert_clean()


def face_up_before_showdown(page: Any) -> int:
    """Face-up cards seen on the table at each step before the first "show" (max)."""
    press(page, "Home")
    most = 0
    while True:
        (_, step, steps), said = position(page), live_text(page)
        if " shows " in said or step == steps:
            return most
        most = max(most, page.locator(f"#table {FACE_UP}").count())
        press(page, "ArrowRight")


def test_spectator_replay_hides_cards_the_director_replay_shows(
    guarded_page: GuardedPage, spectator: Path, director: Path
) -> None:
    """Items 2, 4 (R18, R19): no face-up card before the showdown for spectators; every card
    for the director (and the director's page says so)."""
    page = guarded_page.page
    page.goto(spectator.as_uri())
    assert face_up_before_showdown(page) == 0
    assert "director" not in page.inner_text("header").lower()
    page.goto(director.as_uri())
    assert "every card" in page.inner_text("header")
    assert face_up_before_showdown(page) > 0
    guarded_page.screenshot("director")
    guarded_page.assert_clean()


HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>"


def test_replay_shows_a_hostile_name_as_text(guarded_page: GuardedPage, hands: Path) -> None:
    """Items 2, 5: a player named with markup (from a PHH file) is text: no script runs,
    no element is made from it, the name reads as written."""
    forged = hands.parent / "hostile.phhs"
    forged.write_text(
        hands.read_text().replace('"rule-based"', '"' + HOSTILE.replace('"', '\\"') + '"')
    )
    page_file = replay_page(forged, hands.parent / "replay-hostile.html")
    page = guarded_page.page
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(page_file.as_uri())
    for key in ("ArrowRight", "ArrowRight", "End"):
        press(page, key)
    assert dialogs == [], f"a bot's name ran as script: {dialogs}"
    assert HOSTILE in page.inner_text("body")
    assert page.locator("img").count() == 0, "an element was made from a bot's name"
    assert page.locator("script:not([type='application/json'])").count() == 1
    guarded_page.assert_clean()

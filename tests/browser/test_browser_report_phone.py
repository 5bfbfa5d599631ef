"""Issue 21 item 4 in a real browser: the report of ten bots (one never started, one with
hostile fault texts and stderr) at 390 px wide is no wider than the screen, no table cell
is narrower than its longest word, each bot's curve has its own colour and dash, the
"Show" picker leaves one curve alone, and axe-core finds nothing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from browser_kit import GuardedPage

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
from test_report_bots import build

from arena.web import ReportRequest, write_report

NARROW_CELLS = """() => {
  const range = document.createRange(), narrow = [];
  for (const cell of document.querySelectorAll('td, th')) {
    if (!cell.getClientRects().length) continue;  // in a closed <details>
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /\\S+/g;
      for (let m = re.exec(node.data); m; m = re.exec(node.data)) {
        range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        if (range.getClientRects().length > 1) narrow.push(m[0]);  // the word was broken
      }
    }
  }
  return narrow;
}"""
VISIBLE = """(id) => [...document.querySelectorAll('#' + id + ' svg > g.series')]
  .filter((g) => g.querySelector('polyline'))
  .map((g) => Number(getComputedStyle(g).opacity))"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    database = build(tmp_path_factory.mktemp("phone"))
    return write_report(database, ReportRequest(output=database.parent / "report.html"))


def test_at_390_px_the_report_fits_and_no_word_is_broken(
    guarded_page: GuardedPage, report: Path
) -> None:
    page = guarded_page.page
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(report.as_uri())
    page.wait_for_load_state("load")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the document is {width} px wide in a 390 px screen"
    assert page.evaluate(NARROW_CELLS) == [], "a word wraps inside a table cell"
    guarded_page.screenshot("phone")
    guarded_page.check_accessibility()


def test_the_picker_shows_one_bot_alone(guarded_page: GuardedPage, report: Path) -> None:
    page = guarded_page.page
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(report.as_uri())
    chart = "fixed-limit-elo-time"
    styles = page.evaluate(
        f"""() => [...document.querySelectorAll('#{chart} svg > g.series polyline')]
        .map((l) => getComputedStyle(l).stroke + ' ' + getComputedStyle(l).strokeDasharray)"""
    )
    assert len(styles) == 10 and len(set(styles)) == 10, styles
    assert set(page.evaluate(VISIBLE, chart)) == {1.0}
    page.locator(f"#{chart} .pick label", has_text="student").click()
    opacity = page.evaluate(VISIBLE, chart)
    alone = page.evaluate(
        f"() => [...document.querySelectorAll('#{chart} svg > g.series')]"
        ".filter((g) => g.querySelector('polyline'))"
        ".map((g) => g.querySelector('title').textContent)"
    )
    shown = [name for name, o in zip(alone, opacity, strict=True) if o == 1.0]
    assert shown == ["student"], shown
    assert all(o < 0.2 for name, o in zip(alone, opacity, strict=True) if name != "student")
    guarded_page.screenshot("picked")
    page.locator(f"#{chart} .pick label", has_text="all bots").click()
    assert set(page.evaluate(VISIBLE, chart)) == {1.0}

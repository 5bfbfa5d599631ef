"""The tournament report in a real browser (issue 10 items 1 and 5): ``arena report`` over a
database made by a tiny tournament of builtin bots opens from file:// with nothing fetched
from off the machine, shows its charts as inline SVG with titles, names every bot, has no
console error and passes axe-core."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from arena_runs import BOTS, report_of, tiny_tournament
from browser_kit import GuardedPage, is_local

LINKS = """() => [...document.querySelectorAll('[src], [href], [*|href]')].flatMap((el) =>
  ['src', 'href', 'xlink:href'].map((a) => el.getAttribute(a)).filter((v) => v !== null)
    .map((v) => new URL(v, document.baseURI).href))"""
CHARTS = """() => [...document.querySelectorAll('svg[role=img]')].map((svg) => ({
  title: (svg.querySelector('title') || {}).textContent || '',
  desc: (svg.querySelector('desc') || {}).textContent || '',
  label: svg.getAttribute('aria-labelledby') || svg.getAttribute('aria-label') || '',
  shapes: svg.querySelectorAll('path, rect, circle, line, polyline, polygon').length,
  width: svg.getBoundingClientRect().width,
}))"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of a round robin among three builtin bots (made once for this module)."""
    folder = tmp_path_factory.mktemp("report")
    database = tiny_tournament(folder)
    return report_of(database, folder / "report.html")


def test_report_opens_offline_with_svg_charts_and_every_bot(
    guarded_page: GuardedPage, report: Path
) -> None:
    """Item 1: leaderboard and charts (inline SVG, role=img, a title and a description each)."""
    page = guarded_page.page
    page.goto(report.as_uri())
    page.wait_for_load_state("load")
    assert page.title().strip(), "the report has no <title>"
    text = page.inner_text("body")
    for bot in BOTS:
        assert bot in text, f"{bot} is not named in the report"
    charts: list[dict[str, Any]] = page.evaluate(CHARTS)
    assert len(charts) >= 3, (
        f"expected the Elo, bankroll and head-to-head charts, got {len(charts)} SVGs"
    )
    for chart in charts:
        assert chart["title"].strip(), f"an SVG chart has no <title>: {chart}"
        assert chart["desc"].strip() or chart["label"].strip(), (
            f"an SVG chart has no description: {chart}"
        )
        assert chart["shapes"] > 0, f"an SVG chart draws nothing: {chart}"
        assert chart["width"] > 0, f"an SVG chart is not shown: {chart}"
    assert page.locator("table").count() >= 1, "no table (leaderboard, table equivalents)"
    guarded_page.screenshot("report")
    guarded_page.check_accessibility()
    guarded_page.assert_clean()


def test_report_links_and_sources_stay_on_the_machine(
    guarded_page: GuardedPage, report: Path
) -> None:
    """Item 1: no external src or href anywhere (links to replays are relative files)."""
    guarded_page.page.goto(report.as_uri())
    outside = [url for url in guarded_page.page.evaluate(LINKS) if not is_local(url)]
    assert not outside, f"the report points off the machine: {outside[:10]}"
    assert not guarded_page.page.locator("script[src], link[rel=stylesheet], iframe").count()
    guarded_page.assert_clean()


def test_report_links_lead_somewhere(guarded_page: GuardedPage, report: Path) -> None:
    """Item 1: each in-page link names an element of the page; each file link (a match's
    replay) names a file that exists."""
    page = guarded_page.page
    page.goto(report.as_uri())
    hrefs: list[str] = page.eval_on_selector_all("a[href]", "(links) => links.map((a) => a.href)")
    assert hrefs, "the report links nowhere (bots' sections, replays)"
    for href in hrefs:
        parts = urlsplit(href)
        if parts.scheme == "file" and unquote(parts.path) == report.as_posix():
            assert parts.fragment, href
            assert page.locator(f"[id='{unquote(parts.fragment)}']").count() == 1, (
                f"no element for {href}"
            )
        else:
            assert parts.scheme == "file" and Path(unquote(parts.path)).is_file(), (
                f"broken link {href}"
            )
    guarded_page.assert_clean()


def test_screenshot_script_writes_a_png(browser: object, report: Path, tmp_path: Path) -> None:
    """Item 6: scripts/screenshot_report.py renders a report to a PNG (for docs/report.png)."""
    script = Path(__file__).resolve().parents[2] / "scripts" / "screenshot_report.py"
    png = tmp_path / "report.png"
    run = subprocess.run(
        [
            sys.executable,
            str(script),
            str(report),
            "-o",
            str(png),
            "--width",
            "800",
            "--height",
            "600",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert int.from_bytes(data[16:20], "big") == 800 and int.from_bytes(data[20:24], "big") == 600

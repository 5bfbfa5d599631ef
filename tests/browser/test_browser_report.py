"""The tournament report in a real browser (issue 10 items 1 and 5): ``arena report`` over a
database made by a tiny tournament of builtin bots opens from file:// with nothing fetched
from off the machine, shows its charts as inline SVG with titles, names every bot, has no
console error and passes axe-core."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from arena_runs import BOTS, replay_page, report_of, tiny_tournament
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


HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>"


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A round robin among three builtin bots (played once for this module)."""
    return tiny_tournament(tmp_path_factory.mktemp("report"))


@pytest.fixture(scope="module")
def report(database: Path) -> Path:
    return report_of(database, database.parent / "report.html")


def rename_bot(database: Path, old: str, new: str, copy: Path) -> Path:
    """A copy of ``database`` where bot ``old`` is called ``new`` everywhere (its row and every
    JSON text naming it): a name no tournament file accepts, as a hostile database holds."""
    shutil.copyfile(database, copy)
    with contextlib.closing(sqlite3.connect(copy)) as db:
        tables = [
            row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        for table in tables:
            for column in [
                c[1] for c in db.execute(f"PRAGMA table_info({table})") if c[2].upper() == "TEXT"
            ]:
                db.execute(
                    f"UPDATE {table} SET {column} = replace({column}, ?, ?)",
                    (json.dumps(old), json.dumps(new)),
                )
        db.execute("UPDATE bots SET name = ? WHERE name = ?", (new, old))
        db.commit()
    return copy


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


def test_report_shows_a_hostile_bot_name_as_text(
    guarded_page: GuardedPage, database: Path, tmp_path: Path
) -> None:
    """Item 1: a bot named with markup is text in every table and chart: no script runs, no
    element is made from it."""
    hostile = report_of(
        rename_bot(database, "rule-based", HOSTILE, tmp_path / "hostile.db"), tmp_path / "r.html"
    )
    page = guarded_page.page
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(hostile.as_uri())
    page.wait_for_load_state("load")
    assert dialogs == [], f"a bot's name ran as script: {dialogs}"
    assert HOSTILE in page.inner_text("body")
    assert page.locator("img").count() == 0, "an element was made from a bot's name"
    scripts = page.eval_on_selector_all(
        "script", "(all) => all.filter((s) => s.text.includes('alert(')).length"
    )
    assert scripts == 0, "a bot's name became a script element"
    guarded_page.assert_clean()


def test_report_replay_link_opens_the_replayer(
    guarded_page: GuardedPage, database: Path, tmp_path: Path
) -> None:
    """Items 1, 2: with each match's replay.html written, the report links to them and a
    click opens that match's replayer at its first step."""
    for hands in sorted((database.parent / "runs").glob("**/hands.phhs")):
        replay_page(hands, hands.parent / "replay.html")
    with_replays = report_of(database, tmp_path / "with-replays.html")
    page = guarded_page.page
    page.goto(with_replays.as_uri())
    links = page.locator("a", has_text="replay")
    assert links.count() > 0, "no replay link in the report though every match has its replay.html"
    links.first.click()
    page.wait_for_url("**/replay.html*")
    page.wait_for_function(
        "() => /Hand \\d+, step 1 of/.test(document.getElementById('position').textContent)"
    )
    guarded_page.screenshot("replay-from-report")
    guarded_page.assert_clean()

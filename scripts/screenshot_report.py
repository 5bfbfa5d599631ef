"""Render a tournament report to a PNG (the README's ``docs/report.png``) with Debian's chromium.

Given a report, it shoots that file; otherwise it writes one first with ``arena report``
from ``--db`` (default ``arena-data/arena.db``, the demo's). The page is opened from
file:// with every request that is not local aborted (a report must need nothing from
the network; a blocked request is an error here), and the top of the page, ``--height``
pixels, is saved (``--full-page`` for all of it).

Usage: ``.venv/bin/python scripts/screenshot_report.py [REPORT.html] [--db PATH] [-o docs/report.png]``
Needs playwright (``pip install -e '.[browser]'``) and chromium (``apt-get install chromium``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",  # as root chromium refuses its own sandbox
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1, EXCLUDE [::1]",
]


def _is_local(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in {"file", "data", "blob", "about"}


def write_report(database: Path, output: Path) -> Path:
    """``arena report --db DATABASE -o OUTPUT`` with this interpreter's arena."""
    run = subprocess.run(
        [sys.executable, "-m", "arena", "report", "--db", str(database), "-o", str(output)],
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        raise SystemExit(f"screenshot_report: arena report failed:\n{run.stdout}{run.stderr}")
    return output


def shoot(report: Path, png: Path, *, width: int, height: int, full_page: bool) -> list[str]:
    """Save ``report`` as ``png``; the requests that were blocked (should be none)."""
    from playwright.sync_api import sync_playwright

    blocked: list[str] = []

    def route(route: Any) -> None:
        if _is_local(route.request.url):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            context = browser.new_context(
                viewport={"width": width, "height": height}, service_workers="block"
            )
            context.route("**/*", route)
            page = context.new_page()
            page.goto(report.resolve().as_uri())
            page.wait_for_load_state("load")
            png.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(png), full_page=full_page)
        finally:
            browser.close()
    return blocked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "report", nargs="?", type=Path, help="a report.html (default: write one from --db)"
    )
    parser.add_argument("--db", type=Path, default=ROOT / "arena-data" / "arena.db")
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "docs" / "report.png")
    parser.add_argument("--width", type=int, default=1100)
    parser.add_argument("--height", type=int, default=1500)
    parser.add_argument("--full-page", action="store_true")
    options = parser.parse_args(argv)
    if not os.access(CHROMIUM, os.X_OK):
        raise SystemExit(f"screenshot_report: no chromium at {CHROMIUM} (apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="arena-shot-") as scratch:
        report = options.report
        if report is None:
            if not options.db.is_file():
                raise SystemExit(
                    f"screenshot_report: no database at {options.db} (run ./scripts/demo first)"
                )
            report = write_report(options.db, Path(scratch) / "report.html")
        blocked = shoot(
            report,
            options.output,
            width=options.width,
            height=options.height,
            full_page=options.full_page,
        )
    if blocked:
        print(
            f"screenshot_report: the report asked for {len(blocked)} non-local URL(s): {blocked}",
            file=sys.stderr,
        )
        return 1
    print(f"screenshot_report: wrote {options.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

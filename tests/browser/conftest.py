"""Browser fixtures (issue 10 item 5): one chromium per module, a routed page per test
(the guards are in ``browser_kit``); each skips with its reason when a piece is missing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import AXE, CHROMIUM_ARGS, GuardedPage, chromium_path, open_guarded_page


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless chromium per test module; skips (with why) when it cannot be had."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip(
            "playwright is not installed: pip install -e '.[browser]' (scripts/bootstrap does)"
        )
    executable = chromium_path()
    if executable is None:
        pytest.skip(
            "chromium is missing (/usr/bin/chromium): apt-get install chromium (scripts/bootstrap does as root)"
        )
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def axe_source() -> str:
    """axe-core's source, read as text; skips (with why) when npm ci has not run here."""
    if not AXE.is_file():
        pytest.skip(f"axe-core is missing ({AXE}): run scripts/bootstrap (npm ci in tests/browser)")
    return AXE.read_text(encoding="utf-8")


@pytest.fixture
def guarded_page(browser: Any, axe_source: str, tmp_path: Path) -> Iterator[GuardedPage]:
    """A routed page; at teardown a screenshot (if the test took none), then 0 non-local requests and no errors."""
    guarded = open_guarded_page(browser, tmp_path / "screenshots", axe_source)
    try:
        yield guarded
        if not guarded.taken and not guarded.page.is_closed() and guarded.page.url != "about:blank":
            guarded.screenshot("last")
        guarded.assert_clean()
    finally:
        guarded.page.context.close()

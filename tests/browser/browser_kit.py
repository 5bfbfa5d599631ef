"""Browser test kit (issue 10 item 5): Debian's chromium driven by Python playwright.

Why each guard: the pages must open offline and leak nothing, so every request that is not
to this machine (file:, data:, blob:, about:, http(s) to 127.0.0.1 / ::1 / localhost) is
aborted and counted, and a test fails if any was made; chromium is also told to resolve no
host name at all, so nothing can leave even past the router. Console errors and uncaught
page errors fail the test. ``GuardedPage.check_accessibility`` injects axe-core (npm, in
this folder's node_modules) and fails on "serious" or "critical" violations. Screenshots go
under the test's ``tmp_path`` for people to look at; no pixel comparison gates anything.

Everything skips with a printed reason when playwright, chromium or axe-core is missing:
``playwright install`` downloads browsers and fails offline, so ``scripts/bootstrap`` installs
Debian's ``chromium`` as root and runs ``npm ci`` here.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

HERE = Path(__file__).resolve().parent
AXE = HERE / "node_modules" / "axe-core" / "axe.min.js"
LOCAL_SCHEMES = {"file", "data", "blob", "about"}
LOCAL_HOSTS = {"127.0.0.1", "::1", "localhost"}
BAD_IMPACTS = {"serious", "critical"}
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root, where chromium refuses its own sandbox
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--dns-prefetch-disable",
    "--no-first-run",
    # no host name resolves: a request that slipped past the router still goes nowhere
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1, EXCLUDE [::1]",
]


def chromium_path() -> str | None:
    """Debian's chromium (``ARENA_CHROMIUM`` overrides), or None when there is none."""
    wanted = os.environ.get("ARENA_CHROMIUM")
    if wanted:
        return wanted if os.access(wanted, os.X_OK) else None
    for candidate in (
        "/usr/bin/chromium",
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
    ):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def is_local(url: str) -> bool:
    """True for a URL that stays on this machine (what the pages may load)."""
    parts = urlsplit(url)
    if parts.scheme in LOCAL_SCHEMES:
        return True
    return parts.scheme in {"http", "https", "ws", "wss"} and (parts.hostname or "") in LOCAL_HOSTS


@dataclass
class GuardedPage:
    """A playwright page whose every request is routed: local ones go on, others are aborted
    and listed in ``blocked``; console errors and page errors are listed in ``errors``."""

    page: Any
    shots: Path
    axe_source: str | None
    blocked: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    taken: list[Path] = field(default_factory=list)

    def screenshot(self, name: str) -> Path:
        """Save a full-page PNG under the test's tmp_path (for people; nothing compares it)."""
        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        self.taken.append(path)
        return path

    def violations(self) -> list[dict[str, Any]]:
        """axe-core's serious and critical violations on the page as it is now."""
        if self.axe_source is None:
            pytest.skip(
                f"axe-core is missing ({AXE}): run scripts/bootstrap (npm ci in tests/browser)"
            )
        self.page.add_script_tag(content=self.axe_source)
        result = self.page.evaluate(
            "async () => await axe.run(document, {resultTypes: ['violations']})"
        )
        return [v for v in result["violations"] if v.get("impact") in BAD_IMPACTS]

    def check_accessibility(self) -> None:
        """Fail on any serious or critical axe-core violation, naming rule and elements."""
        found = self.violations()
        lines = [
            f"{v['id']} ({v['impact']}): {v['help']} at "
            + ", ".join(str(node.get("target")) for node in v.get("nodes", [])[:5])
            for v in found
        ]
        assert not found, "accessibility violations:\n" + "\n".join(lines)

    def assert_clean(self, *, allowed: tuple[str, ...] = ()) -> None:
        """No request left the machine, nothing went to the console as an error (but the
        ``allowed`` messages: a stream cut because the arena process has exited)."""
        assert not self.blocked, f"{len(self.blocked)} non-local request(s) aborted: {self.blocked}"
        allowed = allowed or getattr(self, "allowed", ())  # set by a test for its teardown too
        errors = [e for e in self.errors if not any(text in e for text in allowed)]
        assert not errors, f"console or page errors: {errors}"


def open_guarded_page(browser: Any, shots: Path, axe_source: str | None) -> GuardedPage:
    """A new context and page with the router and the error listeners in place."""
    context = browser.new_context(
        bypass_csp=True,  # so axe-core can be injected into a page with a strict CSP
        service_workers="block",  # a service worker's requests would bypass the router
        viewport={"width": 1280, "height": 900},
    )
    guarded = GuardedPage(page=None, shots=shots, axe_source=axe_source)

    def route(route: Any) -> None:
        if is_local(route.request.url):
            route.continue_()
        else:
            guarded.blocked.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and guarded.errors.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: guarded.errors.append(f"pageerror: {e}"))
    guarded.page = page
    return guarded

"""The browser fixtures themselves (issue 10 item 5), proven on tiny pages of our own: each
guard (the router, the error listeners, the axe-core check) is shown to catch what it is for,
so a green page test means something."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import GuardedPage, is_local, open_guarded_page

TINY = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tiny</title>
<style>body { font-family: sans-serif; color: #111; background: #fff; }</style></head>
<body><main>
<h1>Tiny page</h1>
<svg role="img" aria-labelledby="t d" width="120" height="40" viewBox="0 0 120 40">
  <title id="t">A bar</title><desc id="d">One bar, 100 wide.</desc>
  <rect x="0" y="10" width="100" height="20" fill="#225"></rect></svg>
<p id="step">step 0</p>
<div aria-live="polite" id="live">step 0</div>
</main>
<script>
let step = 0;
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowRight") step += 1;
  if (e.key === "ArrowLeft") step = Math.max(0, step - 1);
  document.getElementById("step").textContent = "step " + step;
  document.getElementById("live").textContent = "step " + step;
});
</script></body></html>
"""


def write(tmp_path: Path, name: str, html: str) -> str:
    """Write a page under tmp_path; its file:// URL."""
    path = tmp_path / name
    path.write_text(html, encoding="utf-8")
    return path.as_uri()


@pytest.fixture
def loopback_server(tmp_path: Path) -> Iterator[str]:
    """A static HTTP server on 127.0.0.1 (a free port) serving tmp_path; its base URL."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_local_page_loads_steps_and_passes_axe(guarded_page: GuardedPage, tmp_path: Path) -> None:
    """The whole kit on a file:// page: text, SVG, keys, aria-live, axe, a screenshot."""
    page = guarded_page.page
    page.goto(write(tmp_path, "tiny.html", TINY))
    assert page.locator("svg[role=img] title").text_content() == "A bar"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.locator("#step").text_content() == "step 2"
    assert page.locator("[aria-live]").text_content() == "step 2"
    guarded_page.check_accessibility()
    shot = guarded_page.screenshot("tiny")
    assert shot.stat().st_size > 0
    guarded_page.assert_clean()


def test_a_page_over_loopback_http_is_allowed(
    guarded_page: GuardedPage, loopback_server: str, tmp_path: Path
) -> None:
    """http://127.0.0.1 is local: the page and what it loads from there go on."""
    (tmp_path / "dot.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"></svg>'
    )
    write(tmp_path, "index.html", TINY.replace("<h1>", '<img src="/dot.svg" alt="a dot"><h1>'))
    guarded_page.page.goto(loopback_server + "/index.html")
    assert (
        guarded_page.page.evaluate("document.images[0].complete && document.images[0].naturalWidth")
        == 4
    )
    guarded_page.assert_clean()


@pytest.fixture
def bare_page(browser: Any, axe_source: str, tmp_path: Path) -> Iterator[GuardedPage]:
    """A routed page whose teardown asserts nothing: for tests that break a guard on purpose."""
    guarded = open_guarded_page(browser, tmp_path / "screenshots", axe_source)
    yield guarded
    guarded.page.context.close()


def test_a_request_off_the_machine_is_aborted_and_counted(
    bare_page: GuardedPage, tmp_path: Path
) -> None:
    """An external src (a reserved .invalid name: it could not go anywhere anyway) is counted."""
    html = TINY.replace("<h1>", '<img src="https://arena-test.invalid/pixel.png" alt="x"><h1>')
    bare_page.page.goto(write(tmp_path, "leaky.html", html))
    bare_page.page.wait_for_load_state("load")
    assert bare_page.blocked == ["https://arena-test.invalid/pixel.png"]
    with pytest.raises(AssertionError, match="non-local request"):
        bare_page.assert_clean()


def test_a_script_error_is_collected(bare_page: GuardedPage, tmp_path: Path) -> None:
    """An uncaught exception and a console.error both land in ``errors``."""
    html = TINY.replace("let step = 0;", 'console.error("bad"); let step = 0; null.x;')
    bare_page.page.goto(write(tmp_path, "broken.html", html))
    assert any("console: bad" in e for e in bare_page.errors), bare_page.errors
    assert any(e.startswith("pageerror:") for e in bare_page.errors), bare_page.errors
    with pytest.raises(AssertionError, match="console or page errors"):
        bare_page.assert_clean()


def test_axe_finds_a_serious_violation(bare_page: GuardedPage, tmp_path: Path) -> None:
    """An image with no text alternative and a nameless button are caught by the axe check."""
    html = TINY.replace(
        "<h1>", '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><button></button><h1>'
    )
    bare_page.page.goto(write(tmp_path, "inaccessible.html", html))
    ids = {v["id"] for v in bare_page.violations()}
    assert {"image-alt", "button-name"} <= ids, ids
    with pytest.raises(AssertionError, match="image-alt"):
        bare_page.check_accessibility()


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("file:///tmp/report.html", True),
        ("data:text/plain,hi", True),
        ("http://127.0.0.1:8000/events", True),
        ("http://[::1]:8000/", True),
        ("http://localhost/", True),
        ("https://example.com/x.js", False),
        ("http://127.0.0.1.example.com/", False),
        ("http://127.0.0.1@example.com/", False),
        ("http://10.0.0.1/", False),
        ("ftp://127.0.0.1/", False),
    ],
)
def test_what_counts_as_local(url: str, local: bool) -> None:
    """Only this machine is local; a look-alike host or userinfo trick is not."""
    assert is_local(url) is local

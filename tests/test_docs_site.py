"""The documentation site builds strictly (issue 20 item 4): ``mkdocs build --strict`` over
``mkdocs.yml`` fails on any warning, a broken link or a missing ``#anchor`` included
(``validation:`` in ``mkdocs.yml``), and every page of ``docs/`` is in the nav."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _need_mkdocs() -> None:
    if importlib.util.find_spec("mkdocs") is None:
        reason = "mkdocs is not installed (it is in the dev extra: pip install -e '.[dev]')"
        print(f"tests/test_docs_site.py skipped: {reason}")
        pytest.skip(reason)


def test_the_site_builds_with_no_warning(tmp_path: Path) -> None:
    """A strict build into a temporary folder exits 0 and writes every page."""
    _need_mkdocs()
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    assert "WARNING" not in done.stderr, done.stderr[-4000:]
    for page in sorted((ROOT / "docs").glob("*.md")):
        name = "index.html" if page.stem == "index" else f"{page.stem}/index.html"
        assert (tmp_path / "site" / name).is_file(), page.name


def test_the_nav_lists_every_page_and_validation_is_on() -> None:
    """Every docs/*.md page is in the nav, and links and anchors are checked."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r":\s*([\w.-]+\.md)\s*$", config, flags=re.M))
    assert {page.name for page in (ROOT / "docs").glob("*.md")} == listed
    assert re.search(r"^strict: true$", config, flags=re.M)
    for check in ("anchors", "not_found", "unrecognized_links", "omitted_files"):
        assert re.search(rf"^\s+{check}: warn$", config, flags=re.M), check


def test_a_broken_anchor_fails_the_build(tmp_path: Path) -> None:
    """The check itself: a link to an anchor no page has stops a strict build."""
    _need_mkdocs()
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\n[there](other.md#nowhere)\n")
    (docs / "other.md").write_text("# Other\n")
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    config = re.sub(r"^nav:.*", "nav:\n  - index.md\n  - other.md\n", config, flags=re.S | re.M)
    (tmp_path / "mkdocs.yml").write_text(config)
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode != 0
    assert "nowhere" in done.stderr

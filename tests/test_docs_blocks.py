"""Every code block of the guides works as written (issue 20 item 4).

Each fenced ``bash``, ``python`` and ``toml`` block of ``README.md`` and ``docs/*.md`` is
run here, or carries a marker on the line just before it (an HTML comment, invisible on
the site) naming the test that covers it or why it cannot run here:

- no marker: run. A page's ``bash`` blocks run in order, each with ``set -euo pipefail``,
  in one temporary folder per page holding copies of ``examples_bots/`` and
  ``examples_tournaments/`` (the commands are typed at the checkout's top), with the
  venv's ``bin`` first on ``PATH``. A ``python`` block is executed in a temporary folder
  (as a module, not ``__main__``: a bot's ``run()`` under ``if __name__ == "__main__"``
  would serve for ever). A ``toml`` block is a whole tournament file, read by
  ``parse_tournament``.
- ``<!-- doc-test: covered by tests/PATH.py (why) -->``: every path named must exist.
- ``<!-- doc-test: not run: why -->``: the reason must be given.
- ``<!-- doc-test: tournament fragment -->`` (toml): merged into a small tournament file
  and read by the loader, so each key is checked.
- ``<!-- doc-test: bot.toml -->`` (toml): read by ``load_manifest`` as a bot folder's.
- ``<!-- doc-test: save as NAME -->`` (toml): read as a tournament file and written to
  ``NAME`` in the page's folder before its bash blocks run.

A block with no marker that this harness cannot run (any other marker) fails.
``docs/teaching.md`` has its own test, ``tests/test_teaching_doc.py``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
OWN_TESTS = {"teaching.md": "tests/test_teaching_doc.py"}
LANGUAGES = ("bash", "python", "toml")
MARKER = re.compile(r"^<!-- doc-test: (.*) -->$")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", flags=re.M | re.S)
EXAMPLES = ("examples_bots", "examples_tournaments")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    language: str
    code: str
    marker: str | None

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks_of(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        language = match.group(1)
        if language not in LANGUAGES:
            continue
        line = text.count("\n", 0, match.start()) + 1
        before = text[: match.start()].rstrip("\n").rpartition("\n")[2]
        marker = MARKER.match(before)
        found.append(
            Block(page, line, language, match.group(2), marker.group(1) if marker else None)
        )
    return found


BLOCKS = [block for page in PAGES if page.name not in OWN_TESTS for block in blocks_of(page)]


def kind(block: Block) -> str:
    """What the harness does with a block: run, covered, not-run, fragment, manifest, save."""
    marker = block.marker
    if marker is None:
        return "run"
    if marker.startswith("covered by "):
        return "covered"
    if marker.startswith("not run: "):
        return "not-run"
    if block.language == "toml" and marker == "tournament fragment":
        return "fragment"
    if block.language == "toml" and marker == "bot.toml":
        return "manifest"
    if block.language == "toml" and re.fullmatch(r"save as [\w.-]+", marker):
        return "save"
    return "unknown"


def _ids(blocks: list[Block]) -> list[str]:
    return [block.where for block in blocks]


def test_the_guides_have_blocks_to_run() -> None:
    """The harness sees the pages' blocks (a change to the fence syntax would hide them)."""
    ran = [block for block in BLOCKS if kind(block) == "run"]
    assert {"bash", "python", "toml"} == {block.language for block in ran}
    assert len(BLOCKS) >= 25


@pytest.mark.parametrize("block", BLOCKS, ids=_ids(BLOCKS))
def test_each_block_runs_or_says_why_not(block: Block) -> None:
    """A block is run, or its marker names an existing test or gives a reason."""
    what = kind(block)
    assert what != "unknown", f"{block.where}: unknown doc-test marker {block.marker!r}"
    if what == "covered":
        named = re.findall(r"(?:tests|\.ci)/[\w./-]*\w", block.marker or "")
        assert named, f"{block.where}: 'covered by' names no test file"
        for path in named:
            assert (ROOT / path).exists(), f"{block.where}: {path} does not exist"
    if what == "not-run":
        assert len((block.marker or "").removeprefix("not run: ").strip()) >= 10, block.where


def test_the_pages_with_their_own_test_still_have_it() -> None:
    """docs/teaching.md's blocks are run by its own test, which must exist."""
    for page, test in OWN_TESTS.items():
        assert (ROOT / "docs" / page).is_file() and (ROOT / test).is_file()


def _not_copied(folder: str, names: list[str]) -> set[str]:
    """Build outputs and caches (the C++ bot's build; not node_modules' own build folders)."""
    skip = {"__pycache__", ".arena-build.log"}
    if Path(folder).name == "cpp":
        skip.add("build")
    return skip & set(names)


def _page_folder(tmp_path: Path) -> Path:
    for name in EXAMPLES:
        shutil.copytree(
            ROOT / name,
            tmp_path / name,
            ignore=_not_copied,
        )
    return tmp_path


def _env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


def _tournament_text(block: Block) -> str:
    """The block, or for a fragment the block merged into a small tournament file."""
    if kind(block) != "fragment":
        return block.code
    import tomli_w

    data = tomllib.loads(block.code)
    data["tournament"] = {"name": "doc", **data.get("tournament", {})}
    data["bots"] = [{"name": "doc-random", "builtin": "random"}, *data.get("bots", [])]
    return tomli_w.dumps(data)


def _read_tournament(block: Block, folder: Path) -> Any:
    from arena.tournament import parse_tournament

    return parse_tournament(_tournament_text(block), block.where, base_dir=folder)


BASH_PAGES = sorted(
    {block.page for block in BLOCKS if block.language == "bash" and kind(block) == "run"}
)


@pytest.mark.parametrize("page", BASH_PAGES, ids=[p.name for p in BASH_PAGES])
def test_the_bash_blocks_run_in_order(page: Path, tmp_path: Path) -> None:
    """Every command a reader copies from the page works (exit status 0), in page order."""
    folder = _page_folder(tmp_path)
    for block in (b for b in BLOCKS if b.page == page):
        if block.language == "toml" and kind(block) == "save":
            _read_tournament(block, folder)
            (folder / (block.marker or "").removeprefix("save as ")).write_text(block.code)
        if block.language != "bash" or kind(block) != "run":
            continue
        done = subprocess.run(
            ["bash", "-c", "set -euo pipefail\n" + block.code],
            cwd=folder, env=_env(), capture_output=True, text=True, timeout=240,
        )  # fmt: skip
        assert done.returncode == 0, f"{block.where}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


PYTHON = [block for block in BLOCKS if block.language == "python" and kind(block) == "run"]


@pytest.mark.parametrize("block", PYTHON, ids=_ids(PYTHON))
def test_the_python_blocks_run(block: Block, tmp_path: Path) -> None:
    """A Python example runs as printed (not as __main__: see the module's docstring)."""
    if "arena.rl" in block.code and importlib.util.find_spec("gymnasium") is None:
        reason = "the rl extra is not installed (pip install -e '.[rl]')"
        print(f"tests/test_docs_blocks.py {block.where} skipped: {reason}")
        pytest.skip(reason)
    script = tmp_path / "block.py"
    script.write_text(block.code)
    done = subprocess.run(
        [sys.executable, "-c", f"import runpy; runpy.run_path({str(script)!r}, run_name='doc')"],
        cwd=_page_folder(tmp_path), env=_env(), capture_output=True, text=True, timeout=200,
    )  # fmt: skip
    assert done.returncode == 0, f"{block.where}\n{done.stderr[-3000:]}"


TOML = [block for block in BLOCKS if block.language == "toml" and kind(block) != "covered"]


@pytest.mark.parametrize("block", TOML, ids=_ids(TOML))
def test_the_toml_blocks_are_read_by_the_real_loaders(block: Block, tmp_path: Path) -> None:
    """A tournament file (or fragment) loads; a bot.toml is a valid manifest."""
    tomllib.loads(block.code)
    if kind(block) == "manifest":
        from arena.tournament._folder import load_manifest

        (tmp_path / "bot.toml").write_text(block.code)
        manifest = load_manifest(tmp_path)
        assert manifest.name == tomllib.loads(block.code)["name"]
        return
    config = _read_tournament(block, _page_folder(tmp_path))
    assert config.bots

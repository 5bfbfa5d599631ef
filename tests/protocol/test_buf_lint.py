"""The .proto passes buf's STANDARD lint rules, less the ones proto/buf.yaml skips and says why."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

PROTO_DIR = Path(__file__).resolve().parents[2] / "proto"
BUF = PROTO_DIR / "node_modules" / ".bin" / "buf"


@pytest.fixture(scope="module")
def buf() -> Path:
    if not BUF.exists():
        pytest.skip(f"buf is not installed ({BUF} missing): run scripts/bootstrap with npm present")
    return BUF


def test_proto_passes_buf_lint(buf: Path) -> None:
    result = subprocess.run(
        [str(buf), "lint"], cwd=PROTO_DIR, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_buf_yaml_says_why_for_every_skipped_rule() -> None:
    lines = (PROTO_DIR / "buf.yaml").read_text().splitlines()
    start = lines.index("  except:")
    for index, line in enumerate(lines[start + 1 :], start + 1):
        if line.strip().startswith("- "):
            previous = lines[index - 1].strip()
            assert previous.startswith("#") or lines[index - 1].strip().startswith("- "), line

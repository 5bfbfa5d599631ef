"""A skip inside a Trio test prints its reason (tests/conftest.py works around pytest-trio)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def test_a_skip_inside_a_trio_test_keeps_its_reason(tmp_path):
    (tmp_path / "conftest.py").write_text((ROOT / "conftest.py").read_text())
    (tmp_path / "test_inner.py").write_text(
        "import pytest\n\n\n@pytest.mark.trio\nasync def test_x():\n"
        '    pytest.skip("bubblewrap is missing here")\n'
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert "1 skipped" in run.stdout, run.stdout + run.stderr
    assert "bubblewrap is missing here" in run.stdout, run.stdout

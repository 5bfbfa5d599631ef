"""The demo writes the report (issue 10 item 6): ``report.html`` beside the database."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from arena.cli._app import _register, cli

ROOT = Path(__file__).resolve().parents[2]


def test_demo_writes_the_report_beside_the_database_and_prints_its_path(tmp_path: Path):
    """Issue 10 item 6: `arena demo` ends by writing report.html and printing where."""
    _register()
    db = tmp_path / "data" / "arena.db"
    result = CliRunner().invoke(
        cli,
        [
            "demo", "--file", str(ROOT / "examples_tournaments" / "demo.toml"), "--hands", "4",
            "--db", str(db), "--out", str(tmp_path / "runs"), "--no-plugins",
        ],
        catch_exceptions=False,
    )  # fmt: skip
    assert 0 == result.exit_code, result.output
    report = db.parent / "report.html"
    assert f"report: {report.resolve()}" in result.output.replace("\n", "")
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    for bot in ("random", "calling-station", "rule-based", "monte-carlo"):
        assert bot in page
    assert "src=" not in page

"""Every rule of docs/RULES.md is named by at least one test function (test_rNN_...)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_rule_id_has_a_test_named_after_it() -> None:
    """R1..R29 each appear in the name of some test function under tests/."""
    rules = sorted(
        {int(n) for n in re.findall(r"\*\*R(\d+)\b", (ROOT / "docs" / "RULES.md").read_text())}
    )
    assert list(range(1, 30)) == rules
    names = "\n".join(
        match
        for path in (ROOT / "tests").rglob("test_*.py")
        for match in re.findall(r"def (test_\w+)", path.read_text())
    )
    missing = [
        f"R{n}"
        for n in rules
        if not re.search(rf"(^|_)r{n}(_|$)", names, re.MULTILINE | re.IGNORECASE)
    ]
    assert [] == missing, f"rules no test is named after: {missing}"

"""The upper layers stay readable: modules under ~500 lines, functions under ~60 (STYLE.md).

Covers every package but the generated protocol code.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import arena

ROOT = Path(arena.__file__).parent
MAX_MODULE_LINES = 510
MAX_FUNCTION_LINES = 60

MODULES = sorted(path for path in ROOT.rglob("*.py") if "_generated" not in path.parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_module_and_functions_are_short(path: Path) -> None:
    """No module over MAX_MODULE_LINES lines, no function over MAX_FUNCTION_LINES (from
    ``def`` to its last line; decorators not counted)."""
    source = path.read_text()
    assert len(source.splitlines()) <= MAX_MODULE_LINES
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert [] == long

"""Each package's ``__init__`` docstring says what it may import, and the source keeps to
it (issue 20 item 1): the sentence "It may import ``a``, ``b``..." names every package
that the package's modules import (read from the source, as the import-graph test reads
it), so the front door a newcomer reads first cannot drift from the code."""

from __future__ import annotations

import ast
import re
from collections import defaultdict

import pytest
from test_import_graph import LAYERS, MODULES, ROOT, imports_of


def _imported_packages() -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for name, path in MODULES.items():
        parts = name.split(".")
        if len(parts) < 2:
            continue
        for target in imports_of(name, path):
            other = target.split(".")[1] if "." in target else None
            if other and other != parts[1]:
                found[parts[1]].add(other)
    return found


IMPORTED = _imported_packages()


def declared(package: str) -> set[str] | None:
    """The packages the docstring allows; ``None`` for "every other package"."""
    doc = ast.get_docstring(ast.parse((ROOT / package / "__init__.py").read_text())) or ""
    flat = " ".join(doc.split())
    if "It may import every other package" in flat:
        return None
    if "It imports no other arena package" in flat:
        return set()
    sentence = re.search(r"It may import (.*?)(?:;|\.(?:\s|$))", flat)
    assert sentence, f"arena/{package}/__init__.py: no 'It may import ...' sentence"
    return {name.removeprefix("arena.") for name in re.findall(r"``([a-z.]+)``", sentence[1])}


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_each_package_says_what_it_may_import_and_keeps_to_it(package: str) -> None:
    allowed = declared(package)
    if allowed is None:
        return
    assert IMPORTED[package] <= allowed, (
        f"arena/{package} imports {sorted(IMPORTED[package] - allowed)}, "
        "which its __init__ docstring does not allow"
    )
    assert allowed <= set(LAYERS), sorted(allowed - set(LAYERS))


def test_the_check_reads_a_real_sentence() -> None:
    """The dealer allows the sandbox and not the tournament (the check can fail)."""
    allowed = declared("dealer")
    assert allowed is not None and "sandbox" in allowed and "tournament" not in allowed

"""Every file arena reads at run time ships in a wheel: package data covers each non-Python
file under ``arena/`` (a non-editable install would miss the web templates otherwise)."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIPPED_WITHOUT_DATA = {".py", ".pyi", ".pyc"}


def test_every_resource_under_arena_is_package_data() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = data["tool"]["setuptools"]["package-data"]
    missing = []
    for path in (ROOT / "arena").rglob("*"):
        if not path.is_file() or path.suffix in SHIPPED_WITHOUT_DATA or "__pycache__" in path.parts:
            continue
        relative = path.relative_to(ROOT)
        covered = False
        for package, patterns in globs.items():
            folder = Path(*package.split("."))
            if folder in relative.parents:
                inner = relative.relative_to(folder).as_posix()
                covered |= any(fnmatch.fnmatch(inner, pattern) for pattern in patterns)
        if not covered:
            missing.append(str(relative))
    assert not missing, f"not in [tool.setuptools.package-data]: {missing}"

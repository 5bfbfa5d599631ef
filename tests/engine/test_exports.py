"""The engine's own export checks; its exact public names are pinned in tests/test_public_surface.py."""

from __future__ import annotations

import inspect
import subprocess
import sys

import arena.engine
from arena.engine import _records


def test_each_class_and_function_is_defined_once_in_a_private_module():
    """Exported classes and functions live in an ``arena.engine._x`` module, each under one name."""
    objects = [
        (name, getattr(arena.engine, name))
        for name in arena.engine.__all__
        if inspect.isclass(getattr(arena.engine, name))
        or inspect.isfunction(getattr(arena.engine, name))
    ]
    outside = [name for name, obj in objects if not obj.__module__.startswith("arena.engine._")]
    assert outside == []
    by_identity: dict[int, list[str]] = {}
    for name, obj in objects:
        by_identity.setdefault(id(obj), []).append(name)
    assert [names for names in by_identity.values() if len(names) > 1] == []


def test_every_record_is_exported():
    """The event and action records declared public in their module are all exported."""
    assert set() == set(_records.__all__) - set(arena.engine.__all__)


def test_engine_imports_no_layer_above():
    """Importing the engine loads nothing from the dealer, protocol or other upper layers."""
    code = (
        "import sys, arena.engine;"
        "print(sorted(m for m in sys.modules"
        " if m.startswith('arena.') and not m.startswith('arena.engine')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"

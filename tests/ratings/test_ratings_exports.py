"""The ratings' own export checks; its exact public names are pinned in tests/test_public_surface.py."""

from __future__ import annotations

import inspect
import subprocess
import sys

import arena.ratings


def test_each_class_and_function_lives_in_a_private_module_under_one_name():
    """Exported classes and functions are defined in an ``arena.ratings._x`` module."""
    objects = [
        getattr(arena.ratings, name)
        for name in arena.ratings.__all__
        if inspect.isclass(getattr(arena.ratings, name))
        or inspect.isfunction(getattr(arena.ratings, name))
    ]
    assert [o for o in objects if not o.__module__.startswith("arena.ratings._")] == []
    assert len({id(o) for o in objects}) == len(objects)


def test_ratings_import_no_layer_above_and_no_io_layer():
    """Importing the ratings loads nothing from the dealer, tournament, CLI or protocol."""
    code = (
        "import sys, arena.ratings;"
        "print(sorted(m for m in sys.modules if m.split('.')[:2] in"
        " (['arena','dealer'],['arena','tournament'],['arena','cli'],['arena','protocol'])))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

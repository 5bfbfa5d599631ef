"""The public names of ``arena.engine`` (trio style): the curated front door of layer 1."""

from __future__ import annotations

import inspect
import subprocess
import sys

import arena.engine
from arena.engine import _records

KNOWN = {
    "Action", "AntePosted", "BetOrRaised", "BetRaise", "BlindKind", "BlindPlan", "BlindPosted",
    "CALL", "CHECK", "Call", "Called", "Card", "CardParseError", "CardsDealtCount",
    "CardsDrawn", "Check", "Checked", "ConfigError", "Deck", "Discard", "DrawCount",
    "EngineInvariantError", "Event", "FOLD", "FULL_DECK", "Fold", "Folded", "ForcedBets",
    "ForcedPost", "GameConfig", "Hand", "HandCategory", "HandDead", "HandMucked", "HandShown",
    "HoleCardsDealt", "IllegalActionError", "JOKER", "JokerMode", "LegalActions", "Opening",
    "PRIVATE_EVENTS", "Phase", "Pot", "PotAwarded", "Reason", "RoundStarted", "STANDARD_DECK",
    "STAND_PAT", "SeatView", "ShowdownReveal", "Structure", "StubReshuffled",
    "UncalledReturned", "category", "describe", "evaluate", "evaluate5", "format_cards",
    "parse_card", "parse_cards", "qualifies_jacks_or_better",
}  # fmt: skip


def test_known_public_names_are_exported():
    """Every public name the engine is known to offer is in ``arena.engine.__all__``."""
    assert set() == KNOWN - set(arena.engine.__all__)


def test_every_exported_name_is_importable():
    """Each name in ``__all__`` is an attribute of the package."""
    missing = [name for name in arena.engine.__all__ if not hasattr(arena.engine, name)]
    assert missing == []


def test_star_import_gives_exactly_all():
    """``from arena.engine import *`` binds exactly the names in ``__all__``."""
    namespace: dict[str, object] = {}
    exec("from arena.engine import *", namespace)
    namespace.pop("__builtins__")
    assert sorted(arena.engine.__all__) == sorted(namespace)


def test_no_name_is_exported_twice():
    """``__all__`` lists each name once."""
    names = arena.engine.__all__
    assert sorted(set(names)) == sorted(names)


def test_no_private_name_is_exported():
    """No ``_`` name (a private module or helper) is exported."""
    assert [name for name in arena.engine.__all__ if name.startswith("_")] == []


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

"""The public names of ``arena.ratings`` (trio style): one curated front door."""

from __future__ import annotations

import inspect
import subprocess
import sys

import arena.ratings

KNOWN = {
    "ELO_PER_NEPER", "ChipSprt", "EloSystem", "MatchChips", "PairResult", "Rating", "Sprt",
    "SprtStatus", "bot_win_rates", "chip_los_matrix", "fit_ratings", "los", "los_from_chips",
    "los_matrix", "pair_units", "pair_win_rates", "pairwise_results", "BatchFit", "IncrementalElo",
    "builtin_rating_systems", "MARGIN_SCALE_MBB", "margin_results", "MAX_K_FACTOR",
    "MAX_PRIOR_GAMES", "RATING_LIMIT", "UnitSummary", "UnitTable", "check_k_factor", "check_prior_games",
    "check_rating_setting", "fit_matrix", "DEFAULT_ANCHOR_RATING", "DEFAULT_K_FACTOR",
    "DEFAULT_START_RATING",
}  # fmt: skip


def test_exactly_the_known_public_names_are_exported():
    """``__all__`` lists exactly the public names, each once."""
    assert sorted(KNOWN) == sorted(arena.ratings.__all__)


def test_star_import_gives_exactly_all():
    """``from arena.ratings import *`` binds exactly the names in ``__all__``."""
    namespace: dict[str, object] = {}
    exec("from arena.ratings import *", namespace)
    namespace.pop("__builtins__")
    assert sorted(arena.ratings.__all__) == sorted(namespace)


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

"""Ratings: Elo, a batch Bradley-Terry fit, LOS, win rates and SPRT (pure, no I/O).

Everything here works on plain values: a match or table becomes :class:`PairResult` s
(:func:`pairwise_results`) for :class:`EloSystem` and :func:`fit_ratings`, or per-unit
chips (:class:`MatchChips`) for win rates; :class:`Sprt` and :class:`ChipSprt` tell a
running match when it may stop. Every figure comes with its 95% interval.

It may import ``stats``.
"""

from arena.ratings._bounds import DEFAULT_ANCHOR_RATING as DEFAULT_ANCHOR_RATING
from arena.ratings._bounds import DEFAULT_K_FACTOR as DEFAULT_K_FACTOR
from arena.ratings._bounds import DEFAULT_START_RATING as DEFAULT_START_RATING
from arena.ratings._bounds import MAX_K_FACTOR as MAX_K_FACTOR
from arena.ratings._bounds import MAX_PRIOR_GAMES as MAX_PRIOR_GAMES
from arena.ratings._bounds import RATING_LIMIT as RATING_LIMIT
from arena.ratings._bounds import bounded_rating as bounded_rating
from arena.ratings._bounds import check_k_factor as check_k_factor
from arena.ratings._bounds import check_prior_games as check_prior_games
from arena.ratings._bounds import check_rating_setting as check_rating_setting
from arena.ratings._elo import EloSystem as EloSystem
from arena.ratings._fit import ELO_PER_NEPER as ELO_PER_NEPER
from arena.ratings._fit import Rating as Rating
from arena.ratings._fit import fit_matrix as fit_matrix
from arena.ratings._fit import fit_ratings as fit_ratings
from arena.ratings._los import chip_los_matrix as chip_los_matrix
from arena.ratings._los import los as los
from arena.ratings._los import los_from_chips as los_from_chips
from arena.ratings._los import los_matrix as los_matrix
from arena.ratings._pairwise import MARGIN_SCALE_MBB as MARGIN_SCALE_MBB
from arena.ratings._pairwise import PairResult as PairResult
from arena.ratings._pairwise import margin_results as margin_results
from arena.ratings._pairwise import pairwise_results as pairwise_results
from arena.ratings._sprt import ChipSprt as ChipSprt
from arena.ratings._sprt import Sprt as Sprt
from arena.ratings._sprt import SprtStatus as SprtStatus
from arena.ratings._summary import UnitSummary as UnitSummary
from arena.ratings._systems import BatchFit as BatchFit
from arena.ratings._systems import IncrementalElo as IncrementalElo
from arena.ratings._systems import builtin_rating_systems as builtin_rating_systems
from arena.ratings._units import MatchChips as MatchChips
from arena.ratings._units import UnitTable as UnitTable
from arena.ratings._winrates import bot_win_rates as bot_win_rates
from arena.ratings._winrates import pair_units as pair_units
from arena.ratings._winrates import pair_win_rates as pair_win_rates

__all__ = [
    "DEFAULT_ANCHOR_RATING",
    "DEFAULT_K_FACTOR",
    "DEFAULT_START_RATING",
    "ELO_PER_NEPER",
    "MARGIN_SCALE_MBB",
    "MAX_K_FACTOR",
    "MAX_PRIOR_GAMES",
    "RATING_LIMIT",
    "BatchFit",
    "ChipSprt",
    "EloSystem",
    "IncrementalElo",
    "MatchChips",
    "PairResult",
    "Rating",
    "Sprt",
    "SprtStatus",
    "UnitSummary",
    "UnitTable",
    "bot_win_rates",
    "bounded_rating",
    "builtin_rating_systems",
    "check_k_factor",
    "check_prior_games",
    "check_rating_setting",
    "chip_los_matrix",
    "fit_matrix",
    "fit_ratings",
    "los",
    "los_from_chips",
    "los_matrix",
    "margin_results",
    "pair_units",
    "pair_win_rates",
    "pairwise_results",
]

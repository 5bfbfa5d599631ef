"""Tournaments, statistics and ratings (layer 4)."""

from arena.tournament._stats import WinRate as WinRate
from arena.tournament._stats import win_rate as win_rate

__all__ = ["WinRate", "win_rate"]

"""Statistics with error bars, shared by the dealer, tournaments and reports (pure, no I/O).

It imports no other arena package.
"""

from arena.stats._winrate import WinRate as WinRate
from arena.stats._winrate import win_rate as win_rate

__all__ = ["WinRate", "win_rate"]

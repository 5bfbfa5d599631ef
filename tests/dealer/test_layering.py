"""The dealer stands below the bot SDK: it seats in-process policies without importing it."""

from __future__ import annotations

import subprocess
import sys

from arena.dealer import _match


def test_the_dealer_imports_no_bot_sdk() -> None:
    """Importing arena.dealer (policy_driver included) loads no arena.sdk module."""
    code = (
        "import sys, arena.dealer; "
        "arena.dealer.policy_driver('x', 'rule-based'); "
        "bad = [m for m in sys.modules if m.startswith('arena.sdk') or m.startswith('arena.tournament')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert 0 == run.returncode, run.stdout + run.stderr


def test_seat_state_is_the_tables() -> None:
    """The runner's seat record keeps no sat-out or forfeit flag: the Table holds them (R25)."""
    seat = _match._Seat(0, type("D", (), {"name": "d"})())  # type: ignore[arg-type]
    assert not hasattr(seat, "sat_out")
    assert not hasattr(seat, "forfeited")

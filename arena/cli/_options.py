"""What the options show before a command runs: their defaults, choices and value types.

A command's help and its usage errors come from here, so this module imports only click:
the packages that own these settings import Trio, gRPC or NumPy, which only a command
that runs needs (issue 20 item 3). Each default here is a copy of its owner's, named
beside it; ``tests/cli/test_fast_cli.py`` fails if one drifts. The bounds of a value
given (:mod:`arena.tournament._bounds`) are looked up only when one is.
"""

from __future__ import annotations

import click

HANDS_PER_MATCH = 200
"""``arena.dealer.HANDS_PER_MATCH``."""
STACK = 200
"""``arena.dealer.MatchSettings.starting_stack`` and a tournament's ``stack``."""
ACTION_TIMEOUT = 1.0
"""``arena.dealer.ACTION_TIMEOUT``."""
TIME_BANK = 0.0
"""``arena.tournament.Timeouts.time_bank``."""
WALL_BUDGET = 1.0
"""``arena.dealer.WALL_BUDGET``."""
FAULT_LIMIT = 0
"""``arena.tournament.Timeouts.fault_limit``."""
ON_FAULT_LIMITS = ("sit_out", "forfeit")
"""The values of ``arena.dealer.OnFaultLimit``."""
ON_FAULT_LIMIT = "sit_out"
"""``arena.tournament.Timeouts.on_fault_limit``."""
STARTUP_TIMEOUT = 15.0
"""``arena.dealer.STARTUP_TIMEOUT``."""
HELLO_TIMEOUT = 2.0
"""``arena.dealer.HELLO_TIMEOUT``."""
SANDBOX_CHOICES = ("auto", "off", "L0", "L1", "L2")
"""``arena.sandbox.SANDBOX_CHOICES``."""
RECONNECT_WINDOW = 30.0
"""``arena.server.RECONNECT_WINDOW``."""
MAX_TABLES = 8
"""``arena.server.MAX_TABLES``."""


class _Seconds(click.ParamType):
    """A finite number of seconds, from ``low`` to a day."""

    name = "seconds"

    def __init__(self, *, allow_zero: bool) -> None:
        self.allow_zero = allow_zero

    def convert(self, value, param, ctx):
        from arena.tournament import _bounds  # the TOML bounds, checked on a value given

        try:
            return _bounds.check_seconds(float(value), allow_zero=self.allow_zero)
        except (TypeError, ValueError, OverflowError) as error:
            problem = str(error) if isinstance(error, _bounds.BoundError) else "not a number"
            self.fail(f"{value!r}: {problem}", param, ctx)


SECONDS = _Seconds(allow_zero=False)
SECONDS_OR_ZERO = _Seconds(allow_zero=True)


class Whole(click.ParamType):
    """A whole number checked by the :mod:`arena.tournament._bounds` check named ``check``
    (the TOML bounds), looked up only when a value is given."""

    name = "integer"

    def __init__(self, check: str) -> None:
        self.check = check

    def convert(self, value, param, ctx):
        from arena.tournament import _bounds

        try:
            number = value if isinstance(value, int) else int(str(value), 10)
        except ValueError:
            self.fail(f"{value!r} is not a whole number", param, ctx)
        try:
            return getattr(_bounds, self.check)(number)
        except _bounds.BoundError as error:
            self.fail(str(error), param, ctx)
